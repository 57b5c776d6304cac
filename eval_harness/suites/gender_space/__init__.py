"""Gender bias in (contextual) word vectors, Basta et al. (2019): gender subspace, direct bias, clustering,
classification and kNN of professions.

- :mod:`.pipeline`: the method over a static space or an encoder in context, usable without the harness;
- :mod:`.suite`: the ``gender_space`` suite of ``xbias run``; :mod:`.records`: what a unit writes.
"""

from .pipeline import (
    BiasedWords,
    ContextIndex,
    GenderSpaceReport,
    GenderSpaceSettings,
    GenderWordLists,
    evaluate_contextual,
    evaluate_static,
    reference_biased_words,
    swap_words,
)
from .records import gender_space_records
from .suite import SUITE, GenderSpaceSuite

__all__ = [
    "SUITE",
    "BiasedWords",
    "ContextIndex",
    "GenderSpaceReport",
    "GenderSpaceSettings",
    "GenderSpaceSuite",
    "GenderWordLists",
    "evaluate_contextual",
    "evaluate_static",
    "gender_space_records",
    "reference_biased_words",
    "swap_words",
]
