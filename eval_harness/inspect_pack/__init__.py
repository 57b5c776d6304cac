"""The bridge to Inspect (``inspect-ai``): xbias's EEC judge as Inspect tasks (:mod:`.tasks`), the
judge's numbers read from a provider's top log-probabilities (:mod:`.reading`), and Inspect's logs
read back into an xbias run folder (:mod:`.importer`). Inspect runs the model (any provider it has:
HF, vLLM, APIs); xbias brings the corpora, the prompts and the statistics. docs/llm.md ("Inspect")
says how to use it; the EEC's ``eval.yaml`` names these tasks
(:mod:`eval_harness.data.eec_benchmark`), so the Hub can list their results.

:mod:`.tasks` and :mod:`.importer` import inspect-ai (the ``inspect`` extra); :mod:`.reading` does
not.
"""
