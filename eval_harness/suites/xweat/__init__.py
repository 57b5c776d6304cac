"""XWEAT (Lauscher & Glavaš 2019): WEAT tests per language and across languages.

- :mod:`.pipeline`: the method over any WordEmbedder (word sets, coverage rule, cross-lingual pairs,
  :func:`~.pipeline.run_xweat`), usable without the harness;
- :mod:`.suite`: the ``xweat`` suite of ``xbias run``; :mod:`.records`: what a unit writes.
"""

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
from .records import xweat_records
from .suite import SUITE, XWEATSuite

__all__ = [
    "COVERAGE_THRESHOLD",
    "SUITE",
    "XWEAT_TESTS",
    "SetCoverage",
    "WordSet",
    "XWEATResult",
    "XWEATSuite",
    "cross_lingual_matrix",
    "language_pairs",
    "load_word_sets",
    "run_test",
    "run_xweat",
    "word_sets_from_rows",
    "xweat_dictionaries",
    "xweat_records",
]
