"""Bias methods, one package each, and the registry of suites.

``suites/<method>/`` holds the method's pipeline (usable on its own), its suite for ``xbias run``,
the schema of the records it writes and its section of the report:

- :mod:`~eval_harness.suites.eec`: Câmara et al. 2022 — emotion regressors on Equity Evaluation
  Corpora, intersectional Beta regression;
- :mod:`~eval_harness.suites.eec_crosslingual`: the EEC effects compared between English and a
  translation of the EEC, on aligned sentences;
- :mod:`~eval_harness.suites.xweat`: Lauscher & Glavaš 2019 — WEAT per language and across
  languages;
- :mod:`~eval_harness.suites.gender_space`: Basta et al. 2019 — gender subspace and its measures;
- :mod:`~eval_harness.suites.contexts`: what the context-mode methods share (gender space, CEAT).

A suite implements the contract of :mod:`eval_harness.contract` and reaches models only through the
context it is given (``ctx.models``). Adding a method: ``docs/architecture.md``.

This module is the registry (:data:`SUITES`): a suite is registered under its name as an instance or
as a lazy ``"module:object"`` reference, imported on first use (so ``xbias list`` and config
validation stay light). A built-in method is one entry in :data:`BUILTIN_SUITES`; outside this
repository a method is one :func:`register_suite` call, or an entry point in the ``xbias.suites``
group of the plug-in's own distribution. The harness and the report reach methods only through it:
it imports no method.
"""

from ..registry import Registry

BUILTIN_SUITES = {
    "eec": "eval_harness.suites.eec:SUITE",
    "eec_crosslingual": "eval_harness.suites.eec_crosslingual:SUITE",
    "xweat": "eval_harness.suites.xweat:SUITE",
    "gender_space": "eval_harness.suites.gender_space:SUITE",
}
ENTRY_POINT_GROUP = "xbias.suites"
SUITES = Registry("suite", BUILTIN_SUITES, entry_point_group=ENTRY_POINT_GROUP)


def register_suite(suite, name: str | None = None, replace: bool = False):
    """Register a suite: an instance (under ``suite.name``) or a lazy ``"module:object"`` reference
    (under ``name``, default the module's last part). Returns what was registered.

    Raises:
        ConfigError: no name, a malformed reference, or the name is taken and ``replace`` is not
        set.
    """
    if isinstance(suite, str):
        name = name or suite.partition(":")[0].rsplit(".", 1)[-1]
    else:
        name = name or suite.name
    return SUITES.register(name, suite, replace=replace)


def unregister_suite(name: str) -> None:
    SUITES.unregister(name)


def suite_names() -> list[str]:
    """Every suite: built in, registered, and those of installed plug-ins (entry points)."""
    return SUITES.names()


def get_suite(name: str):
    """The suite called ``name`` (an :class:`~eval_harness.contract.Suite`; its module imported on
    first use).

    Raises:
        ConfigError: no suite has that name (the message lists the suites), or its reference does
        not import.
    """
    return SUITES.get(name)


def record_schemas(names) -> dict:
    """The record schema (:class:`~eval_harness.contract.records.RecordSchema`) of each of the
    suites ``names`` that is registered and declares one: what seed pooling and the report read of
    their records."""
    suites = [(name, get_suite(name)) for name in names if name in SUITES]
    return {name: suite.records for name, suite in suites if suite.records is not None}
