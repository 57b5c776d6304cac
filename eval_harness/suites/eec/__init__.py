"""The EEC method (Câmara et al. 2022): emotion regressors scored on Equity Evaluation Corpora, and
the intersectional Beta regression per EEC x emotion.

The run:

- :mod:`.suite`: the ``eec`` suite (plan, prepare: regressors and scores; evaluate: one fit per
  unit);
- :mod:`.corpora`: the EECs a run scores (the five shipped configs, and corpora generated from a
  spec);
- :mod:`.records`: what a unit writes to ``results.jsonl``; :mod:`.samples`: the score of every
  sentence it fitted;
- :mod:`.stability`: the stability fields of a finding (other templates, names, prompts);
- :mod:`.planner`: equivalence tests and the power planner's fields (read by the report and ``xbias
  power``);
- :mod:`.measurement`: when a test is no measurement, and what is printed instead of its numbers;
- :mod:`.paired`: the paired difference of two conditions on the same sentences (the
  ``eec_crosslingual`` suite, ``xbias compare``).

The report (its kit, :mod:`eval_harness.report`, assembles them):

- :mod:`.report`: the method's section; :mod:`.summary`: its part of the one-screen summary;
- :mod:`.tables`: the coefficient, effect, cell-mean and regressor tables; :mod:`.plots`: the forest
  plots;
- :mod:`.sentences`: one plain sentence per effect; :mod:`.report_stability`: how sure each finding
  is, in words;
- :mod:`.wording`: the EEC's words shared by the sentences, the tables and the paired differences.
"""

from .suite import SUITE, EECSuite

__all__ = ["SUITE", "EECSuite"]
