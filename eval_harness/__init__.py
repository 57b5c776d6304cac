"""xbias: social bias in language models across languages and identities.

The import package is ``eval_harness``; the distribution and the command are
``xbias``. See the README for the layout: ``stats`` (numerics), ``data``
(datasets), ``models`` (adapters), ``runner`` (sweeps) and ``report``.
"""

__version__ = "0.1.0"
