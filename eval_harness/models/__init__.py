"""Model adapters: texts and words in, scores and vectors out.

- :mod:`~eval_harness.models.registry`: the model types a config may name (lazy, no torch);
- :mod:`~eval_harness.models.factory`: the only dispatch on type — emotion models, word vectors,
  :class:`ModelResources` (each encoder / vector file loaded once) and :func:`fit_or_load`;
- :mod:`~eval_harness.models.encoder` (sentence and word vectors of a transformer),
  :mod:`~eval_harness.models.static` (static word vectors, Procrustes-aligned spaces),
  :mod:`~eval_harness.models.cache` (the embedding cache);
- emotion models: :mod:`~eval_harness.models.regressors` (probe, SVM-tfidf, static-vector MLP),
  :mod:`~eval_harness.models.classifier` (a classifier used as is), :mod:`~eval_harness.models.heads`;
- :mod:`~eval_harness.models.loading` (Hub ids and folders, fingerprints) and
  :mod:`~eval_harness.models.packaged` (``pypi:NAME`` models).
"""

from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.classifier import ClassifierScorer
from eval_harness.models.encoder import ContextVectors, TransformerEncoder
from eval_harness.models.factory import build_emotion_model, build_word_embedder, fit_or_load
from eval_harness.models.heads import MlpHead, SvrHead, pearson_r
from eval_harness.models.registry import MODEL_TYPES
from eval_harness.models.regressors import (
    EmotionRegressor,
    ProbeRegressor,
    RegressorScores,
    StaticMlpRegressor,
    SvmTfidfRegressor,
)
from eval_harness.models.resources import ModelResources
from eval_harness.models.templates import DEFAULT_TEMPLATES

load_emotion_model = EmotionRegressor.load

__all__ = [
    "DEFAULT_TEMPLATES",
    "MODEL_TYPES",
    "ClassifierScorer",
    "ContextVectors",
    "EmbeddingCache",
    "EmotionRegressor",
    "MlpHead",
    "ModelResources",
    "ProbeRegressor",
    "RegressorScores",
    "StaticMlpRegressor",
    "SvmTfidfRegressor",
    "SvrHead",
    "TransformerEncoder",
    "build_emotion_model",
    "build_word_embedder",
    "fit_or_load",
    "load_emotion_model",
    "pearson_r",
]
