"""Gender bias in (contextual) word vectors, Basta et al. (2019): gender subspace, direct bias,
clustering, classification and kNN of professions.

- :mod:`.pipeline`: the method over a static space or an encoder in context, usable without the
  harness;
- :mod:`.suite`: the ``gender_space`` suite of ``xbias run``; :mod:`.records`: what a unit writes;
  :mod:`.settings`: the measures' settings.
"""

from ...lazy import lazy_exports

# name -> the submodule that defines it (the numerics are imported only when used)
_EXPORTS = {
    "SUITE": "suite",
    "GenderSpaceSuite": "suite",
    "GenderSpaceSettings": "settings",
    "BiasedWords": "pipeline",
    "ContextIndex": "pipeline",
    "GenderSpaceReport": "pipeline",
    "GenderWordLists": "pipeline",
    "evaluate_contextual": "pipeline",
    "evaluate_static": "pipeline",
    "reference_biased_words": "pipeline",
    "swap_words": "pipeline",
    "gender_space_records": "records",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
