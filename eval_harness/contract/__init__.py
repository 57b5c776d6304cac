"""The contract between the harness, the bias methods and the report, in a package of its own.

- :mod:`.suite`: what a method implements (:class:`Suite`) and what it is given (:class:`Unit`,
  :class:`UnitKey`, :class:`Task`, the :class:`ModelProvider` and :class:`SuiteContext` protocols);
- :mod:`.capabilities`: what a suite may ask of a model (:class:`WordEmbedder`,
  :class:`SentenceEncoder`, :class:`EmotionScorer`, :class:`Judge`, ...), as protocols a type
  checker and ``isinstance`` read;
- :mod:`.records`: the long format of results (:data:`RECORD_FIELDS`, :func:`make_record`);
- :mod:`.unit_file`: what a unit's file holds and how a reader verifies it.

It imports nothing of the runner's machinery (no sweep, no store, no model), so a suite, the report
or a plug-in that imports it loads only this (``tests/architecture/test_runtime_imports.py``).
"""

from .capabilities import (
    CachedEmbedder,
    ContextEmbedder,
    EmotionScorer,
    Judge,
    ModalWordEmbedder,
    SentenceEncoder,
    StaticSpace,
    WordEmbedder,
)
from .records import RECORD_FIELDS, make_record
from .suite import ModelProvider, Suite, SuiteContext, Task, Unit, UnitKey, unit_rng

__all__ = [
    "RECORD_FIELDS",
    "CachedEmbedder",
    "ContextEmbedder",
    "EmotionScorer",
    "Judge",
    "ModalWordEmbedder",
    "ModelProvider",
    "SentenceEncoder",
    "StaticSpace",
    "Suite",
    "SuiteContext",
    "Task",
    "Unit",
    "UnitKey",
    "WordEmbedder",
    "make_record",
    "unit_rng",
]
