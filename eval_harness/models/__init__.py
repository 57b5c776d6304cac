"""Model adapters: texts and words in, scores and vectors out.

- :mod:`~eval_harness.models.registry`: the model types a config may name (lazy, no torch);
- :mod:`~eval_harness.models.factory`: the only dispatch on type — emotion models, word vectors,
  :class:`ModelResources` (each encoder / vector file loaded once) and :func:`fit_or_load`;
- :mod:`~eval_harness.models.encoder` (sentence and word vectors of a transformer),
  :mod:`~eval_harness.models.static` (static word vectors, Procrustes-aligned spaces),
  :mod:`~eval_harness.models.cache` (the embedding cache);
- emotion models: :mod:`~eval_harness.models.regressors` (probe, SVM-tfidf, static vectors),
  :mod:`~eval_harness.models.classifier` (a classifier used as is),
  :mod:`~eval_harness.models.heads`;
- :mod:`~eval_harness.models.loading` (Hub ids and folders, fingerprints) and
  :mod:`~eval_harness.models.packaged` (``pypi:NAME`` models);
- :mod:`~eval_harness.models.reproducible`: what keeps numbers independent of the thread count.
"""

from eval_harness.lazy import lazy_exports
from eval_harness.models.reproducible import request_thread_independent_blas

# Before any model runs: MKL reads its reproducibility mode at its first call (see
# models/reproducible.py).
request_thread_independent_blas()

# name -> the submodule that defines it, imported on first use (torch is not imported by `import
# eval_harness.models`)
_EXPORTS = {
    "DEFAULT_TEMPLATES": "templates",
    "MODEL_TYPES": "registry",
    "ClassifierScorer": "classifier",
    "ContextVectors": "encoder",
    "EmbeddingCache": "cache",
    "EmotionRegressor": "regressors",
    "MlpHead": "heads",
    "ModelResources": "resources",
    "ProbeRegressor": "regressors",
    "RegressorScores": "regressors",
    "StaticMlpRegressor": "regressors",
    "SvmTfidfRegressor": "regressors",
    "SvrHead": "heads",
    "TransformerEncoder": "encoder",
    "build_emotion_model": "factory",
    "build_word_embedder": "factory",
    "fit_or_load": "factory",
    "load_emotion_model": "regressors:EmotionRegressor.load",
    "pearson_r": "heads",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
