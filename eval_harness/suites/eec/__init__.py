"""The EEC method (Câmara et al. 2022): emotion regressors scored on Equity Evaluation Corpora, and the
intersectional Beta regression per EEC x emotion.

- :mod:`.suite`: the ``eec`` suite (plan, prepare: regressors and scores; evaluate: one fit per unit);
- :mod:`.records`: what a unit writes to ``results.jsonl``.
"""

from .suite import SUITE, EECSuite

__all__ = ["SUITE", "EECSuite"]
