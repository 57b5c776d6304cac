"""Cross-language contrasts on aligned EEC sentences: a model's identity effects in English and in a
translation of the EEC, and their differences, each tested, from one joint Beta regression per
translated EEC x emotion.

- :mod:`.pipeline`: the alignment of an English EEC and its translation, and the joint fit (a paired
  difference of two languages: :mod:`eval_harness.suites.eec.paired`, whose records, sentences and
  plot the suite uses);
- :mod:`.suite`: the ``eec_crosslingual`` suite (task languages ``en-es``, ``en-ar``);
- :mod:`.records`: what a unit writes; :mod:`.report`: its section of the report.
"""

from .suite import SUITE, EECCrosslingualSuite

__all__ = ["SUITE", "EECCrosslingualSuite"]
