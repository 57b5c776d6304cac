"""Emotion models from a config dict, with shared encoders/vectors, fitted once and reloaded afterwards.

A sweep config names an emotion model as ``{"type": ..., "id": <Hub id or path>, "options": {...}}``:

============  ==============================  ==========================================================
type          id                              options
============  ==============================  ==========================================================
encoder       encoder Hub id / folder         pooling, layer, prefix, max_length, batch_size, device,
                                              precision; head ("mlp"|"svr"), head_options,
                                              share_dimensions, preprocess, max_train, seed
classifier    classifier Hub id / folder      label_map, batch_size, device, max_length, precision,
                                              preprocess
svm_tfidf     (none)                          preset, ngram_range, min_df, max_features, head_options,
                                              refit_on_validation, refit_vectorizer, score_raw_output,
                                              preprocess, max_train, seed
static_mlp    "glove" or a vector file        format, lowercase (how to read the file); head_options,
                                              preprocess, max_train, seed
============  ==============================  ==========================================================

``svm_tfidf`` with ``options: {preset: camara2022}`` is the paper's protocol for its SVM-tfidf baseline,
which reproduces its Table 2 (see :class:`~eval_harness.models.regressors.SvmTfidfRegressor`); options
given with a preset must agree with it (except seed and the SVR head's n_jobs/cache_grid).

:class:`ModelResources` loads each encoder, classifier and vector file once per process and
gives encoders the embedding cache, so the five dimensions' models of one language share one
encoder and each text is encoded once. :func:`fit_or_load` trains a model only when its folder
does not already hold the same model (same type, source content, options, language, dimension).
"""

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval_harness.errors import ConfigError
from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.classifier import ClassifierScorer
from eval_harness.models.regressors import (
    EmotionRegressor,
    ProbeRegressor,
    StaticMlpRegressor,
    SvmTfidfRegressor,
    read_saved_meta,
)

MODEL_TYPES: dict[str, type[EmotionRegressor]] = {
    "encoder": ProbeRegressor,
    "classifier": ClassifierScorer,
    "svm_tfidf": SvmTfidfRegressor,
    "static_mlp": StaticMlpRegressor,
}
ENCODER_LOAD_OPTIONS = ("pooling", "layer", "prefix", "max_length", "batch_size", "device", "precision", "progress")
VECTOR_OPTIONS = ("format", "lowercase")
PACKAGED_VECTORS = ("glove", "glove-6b-50d")


class ModelResources:
    """Per-process store of loaded encoders, classifiers and static vectors, and the embedding cache."""

    def __init__(self, cache: EmbeddingCache | None = None, device: str | None = None, progress: bool | None = None):
        self.cache = cache if cache is not None else EmbeddingCache()
        self.device = device
        self.progress = progress
        self._loaded: dict[tuple, Any] = {}

    def encoder(self, source: str, **options):
        """A :class:`TransformerEncoder` (cached by source and options) that reads/writes the embedding cache."""
        from eval_harness.models.encoder import load_encoder

        options = {"device": self.device, "progress": self.progress, **options}
        key = ("encoder", str(source), tuple(sorted((name, str(value)) for name, value in options.items())))
        return self._memo(key, lambda: load_encoder(source, cache=self.cache, **options))

    def classifier(self, source: str, **options) -> ClassifierScorer:
        """A fresh :class:`ClassifierScorer` over a (shared) loaded ``AutoModelForSequenceClassification``."""
        from transformers import AutoModelForSequenceClassification

        from eval_harness.models.loading import load_pretrained

        model, tokenizer, folder = self._memo(
            ("classifier", str(source)), lambda: load_pretrained(source, AutoModelForSequenceClassification)
        )
        options = {"device": self.device, "progress": self.progress, **options}
        return ClassifierScorer(model, tokenizer, name=str(source), folder=folder, **options)

    def static_vectors(self, source: str, format: str = "auto", lowercase: bool = False):
        """GloVe 6B 50d for ``"glove"`` (the packaged one), else the vector file at ``source``."""
        from eval_harness.models.static import StaticVectors, load_packaged_glove

        if str(source).lower() in PACKAGED_VECTORS:
            return self._memo(("vectors", "glove"), load_packaged_glove)
        key = ("vectors", str(source), format, lowercase)
        return self._memo(key, lambda: StaticVectors.load(source, format=format, lowercase=lowercase))

    def _memo(self, key: tuple, load):
        if key not in self._loaded:
            self._loaded[key] = load()
        return self._loaded[key]


def build_emotion_model(config: Mapping[str, Any], resources: ModelResources | None = None) -> EmotionRegressor:
    """An unfitted emotion model from ``{"type", "id" (or "path"), "options"}`` (see the module docstring)."""
    resources = resources or ModelResources()
    config = dict(config)
    unknown = set(config) - {"type", "id", "path", "options", "name"}
    if unknown:
        raise ConfigError(f"emotion model config has unknown key(s) {sorted(unknown)}; use type, id/path, options")
    model_type = config.get("type")
    if model_type not in MODEL_TYPES:
        raise ConfigError(f"emotion model type must be one of {sorted(MODEL_TYPES)}, got {model_type!r}")
    source = config.get("id") or config.get("path")
    options = dict(config.get("options") or {})
    if model_type in ("encoder", "classifier") and not source:
        raise ConfigError(f"an emotion model of type {model_type!r} needs 'id' (a Hub id) or 'path' (a local folder)")
    if model_type == "encoder":
        load_options = _take(options, ENCODER_LOAD_OPTIONS)
        _check_options(ProbeRegressor, options, model_type, extra=ENCODER_LOAD_OPTIONS)
        return ProbeRegressor(resources.encoder(source, **load_options), **options)
    if model_type == "classifier":
        _check_options(ClassifierScorer, options, model_type)
        return resources.classifier(source, **options)
    if model_type == "svm_tfidf":
        _check_options(SvmTfidfRegressor, options, model_type)
        return SvmTfidfRegressor(**options)
    vector_options = _take(options, VECTOR_OPTIONS)
    _check_options(StaticMlpRegressor, options, model_type, extra=VECTOR_OPTIONS)
    source = source or "glove"
    return StaticMlpRegressor(
        resources.static_vectors(source, **vector_options), str(source), vector_options=vector_options, **options
    )


def fit_or_load(
    config: Mapping[str, Any],
    language: str,
    dimension: str,
    directory: str | Path,
    resources: ModelResources | None = None,
) -> EmotionRegressor:
    """The model saved in ``directory`` when it is this config's model for (language, dimension), else fit and save."""
    resources = resources or ModelResources()
    model = build_emotion_model(config, resources)
    saved = read_saved_meta(directory)
    if saved is not None and saved.get("identity") == model.identity(language, dimension):
        return EmotionRegressor.load(directory, resources)
    model.fit(language, dimension)
    model.save(directory)
    return model


def _take(options: dict, names: tuple[str, ...]) -> dict:
    return {name: options.pop(name) for name in names if name in options}


def _check_options(model_class: type, options: Mapping[str, Any], model_type: str, extra: tuple = ()) -> None:
    parameters = {
        name
        for klass in model_class.__mro__
        if "__init__" in vars(klass)
        for name, parameter in inspect.signature(klass.__init__).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY or parameter.kind is parameter.POSITIONAL_OR_KEYWORD
    }
    allowed = (parameters | set(extra)) - {
        "self",
        "encoder",
        "vectors",
        "model",
        "tokenizer",
        "name",
        "folder",
        "source",
        "vector_options",
    }
    unknown = set(options) - allowed
    if unknown:
        raise ConfigError(
            f"unknown option(s) {sorted(unknown)} for emotion model type {model_type!r}; allowed: {sorted(allowed)}"
        )
