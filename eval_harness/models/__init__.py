"""Model adapters: transformer encoders, static vectors, the embedding cache and emotion regressors.

See :mod:`eval_harness.models.encoder` (sentence and word vectors), :mod:`eval_harness.models.cache`,
:mod:`eval_harness.models.regressors` and :mod:`eval_harness.models.classifier` (emotion models) and
:mod:`eval_harness.models.factory` (emotion models from a config dict, fitted once, reloaded after).
"""

from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.classifier import ClassifierScorer
from eval_harness.models.encoder import ContextVectors, TransformerEncoder, load_encoder
from eval_harness.models.factory import MODEL_TYPES, ModelResources, build_emotion_model, fit_or_load
from eval_harness.models.heads import MlpHead, SvrHead, pearson_r
from eval_harness.models.regressors import (
    EmotionRegressor,
    ProbeRegressor,
    RegressorScores,
    StaticMlpRegressor,
    SvmTfidfRegressor,
    TextSplit,
    clean_tweet,
    semeval_splits,
)
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
    "TextSplit",
    "TransformerEncoder",
    "build_emotion_model",
    "clean_tweet",
    "fit_or_load",
    "load_emotion_model",
    "load_encoder",
    "pearson_r",
    "semeval_splits",
]
