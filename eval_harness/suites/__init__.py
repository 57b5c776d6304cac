"""Bias methods, one package each: ``suites/<method>/`` holds the method's pipeline (usable on its own),
its suite for ``xbias run`` and the records it writes.

- :mod:`~eval_harness.suites.eec`: Câmara et al. 2022 — emotion regressors on Equity Evaluation
  Corpora, intersectional Beta regression;
- :mod:`~eval_harness.suites.xweat`: Lauscher & Glavaš 2019 — WEAT per language and across languages;
- :mod:`~eval_harness.suites.gender_space`: Basta et al. 2019 — gender subspace and its measures;
- :mod:`~eval_harness.suites.contexts`: what the context-mode methods share (gender space, CEAT).

A suite implements the contract of :mod:`eval_harness.runner.suite` and reaches models only through
the context it is given (``ctx.models``). Adding a method: ``docs/architecture.md``.
"""
