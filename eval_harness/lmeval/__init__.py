"""The bridge to lm-evaluation-harness: xbias's EEC judge as an lm-eval task pack (:mod:`.tasks`),
and lm-eval's logged samples read back into an xbias run folder (:mod:`.importer`). lm-eval runs the
model (on any backend it has: vLLM, SGLang, API models, several GPUs); xbias brings the corpora, the
prompts and the statistics. docs/llm.md ("lm-evaluation-harness") says how to use it.
"""
