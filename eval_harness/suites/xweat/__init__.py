"""XWEAT (Lauscher & Glavaš 2019): WEAT tests per language and across languages.

- :mod:`.pipeline`: the method over any :class:`~eval_harness.contract.WordEmbedder` (word sets,
  coverage rule, cross-lingual pairs, :func:`~.pipeline.run_xweat`), usable without the harness;
- :mod:`.measures`, :mod:`.seat`, :mod:`.ceat`: the other association measures of the same tests
  (RND, MAC, ECT, RIPA, RNSB on the word vectors, one entry each in :data:`.measures.WORD_MEASURES`;
  SEAT on template sentences; CEAT on sampled contexts);
- :mod:`.suite`: the ``xweat`` suite of ``xbias run``; :mod:`.records`: what a unit writes.
"""

from .ceat import CEATTestResult, embed_contexts, run_ceat, sample_contexts
from .measures import WORD_MEASURES, AssociationResult, run_association
from .pipeline import (
    COVERAGE_THRESHOLD,
    XWEAT_TESTS,
    SetCoverage,
    WordSet,
    XWEATResult,
    cross_lingual_matrix,
    language_pairs,
    load_word_sets,
    run_test,
    run_xweat,
    word_sets_from_rows,
    xweat_dictionaries,
)
from .records import association_records, ceat_records, seat_records, xweat_records
from .seat import SEATResult, resolve_templates, run_seat
from .suite import SUITE, XWEATSuite, measure_names

__all__ = [
    "COVERAGE_THRESHOLD",
    "SUITE",
    "WORD_MEASURES",
    "XWEAT_TESTS",
    "AssociationResult",
    "CEATTestResult",
    "SEATResult",
    "SetCoverage",
    "WordSet",
    "XWEATResult",
    "XWEATSuite",
    "association_records",
    "ceat_records",
    "cross_lingual_matrix",
    "embed_contexts",
    "language_pairs",
    "load_word_sets",
    "measure_names",
    "resolve_templates",
    "run_association",
    "run_ceat",
    "run_seat",
    "run_test",
    "run_xweat",
    "sample_contexts",
    "seat_records",
    "word_sets_from_rows",
    "xweat_dictionaries",
    "xweat_records",
]
