"""xbias: social bias in language models across languages and identities.

The import package is ``eval_harness``; the distribution and the command are ``xbias``. The layers
(docs/architecture.md): ``stats`` (pure numerics), ``data`` (datasets), ``models`` (adapters and the model-type
registry), ``runner`` (the harness and its plug-in contract, ``runner.suite``), ``suites`` (one package per
bias method: eec, xweat, gender_space) and ``report``; ``cli`` is the ``xbias`` command.
"""

__version__ = "0.1.0"
