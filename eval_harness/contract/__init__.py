"""The contract between the harness, the bias methods and the report, in a package of its own.

- :mod:`.suite`: what a method implements (:class:`Suite`) and what it is given (:class:`Unit`,
  :class:`UnitKey`, :class:`Task`, the :class:`ModelProvider` and :class:`SuiteContext` protocols);
- :mod:`.records`: the long format of results (:data:`RECORD_FIELDS`, :func:`make_record`);
- :mod:`.unit_file`: what a unit's file holds and how a reader verifies it.

It imports nothing of the runner's machinery (no sweep, no store, no model), so a suite, the report or a
plug-in that imports it loads only this (``tests/architecture/test_runtime_imports.py``).
"""

from .records import RECORD_FIELDS, make_record
from .suite import ModelProvider, Suite, SuiteContext, Task, Unit, UnitKey, unit_rng

__all__ = [
    "RECORD_FIELDS",
    "ModelProvider",
    "Suite",
    "SuiteContext",
    "Task",
    "Unit",
    "UnitKey",
    "make_record",
    "unit_rng",
]
