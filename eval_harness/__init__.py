"""xbias: social bias in language models across languages and identities.

The import package is ``eval_harness``; the distribution and the command are ``xbias``. The layers
(docs/architecture.md): ``stats`` (pure numerics), ``data`` (datasets), ``models`` (adapters and the
model-type registry), ``contract`` (what the harness, the methods and the report share: ``Suite``,
``Unit``, the record format), ``runner`` (the harness), ``suites`` (one package per bias method:
eec, xweat, gender_space, with their records and report sections, and the suite registry) and
``report``; ``cli`` is the ``xbias`` command.
"""

__version__ = "0.1.0"
