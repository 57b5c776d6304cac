"""Models from a model type, a source and options: emotion models, word vectors, and what they share.

A sweep config names a model as ``{"type": ..., "id" or "path": <source>, "options": {...}}``;
the types and their options are listed in :mod:`eval_harness.models.registry`
(``docs/models.md`` documents each option):

============  ==============================  ==========================================================
type          source                          options
============  ==============================  ==========================================================
encoder       encoder Hub id / folder /       pooling, layer, prefix, max_length, batch_size, device,
              ``pypi:NAME``                   precision; head ("mlp"|"svr"), head_options,
                                              share_dimensions, preprocess, max_train, refit_on_validation
classifier    classifier Hub id / folder      label_map, batch_size, device, max_length, precision,
                                              preprocess
svm_tfidf     (none)                          preset, ngram_range, min_df, max_features, head_options,
                                              refit_on_validation, refit_vectorizer, score_raw_output,
                                              preprocess, max_train
static_mlp    ``glove``, ``pypi:NAME`` or a   format, lowercase (how to read the file); head_options,
              vector file                     preprocess, max_train, refit_on_validation
llm           causal-LM Hub id / folder /     mode ("prompt": zero-shot judge | "probe"); prompt: answer,
              ``pypi:NAME``                   scale, prompts, fit_sample, max_new_tokens, dtype, device_map,
                                              precision, batch_size, max_length; probe: as encoder
                                              (pooling, layer: default mean at 2/3 depth; head...)
============  ==============================  ==================================================="""

import hashlib
import json
import shutil
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from eval_harness.errors import ConfigError, ModelLoadError
from eval_harness.io import verify_checksums, write_checksums
from eval_harness.models.registry import ENCODER_OPTIONS, VECTOR_OPTIONS, check_options, model_type
from eval_harness.models.regressors import EmotionRegressor
from eval_harness.models.resources import ModelResources
from eval_harness.registry import resolve

CONFIG_KEYS = ("type", "id", "path", "options", "name")


def _source(model_type_name: str, config: Mapping[str, Any]) -> str | None:
    source = config.get("id") or config.get("path")
    if model_type(model_type_name).needs_source and not source:
        raise ConfigError(
            f"a model of type {model_type_name!r} needs 'id' (a Hub id) or 'path' (a local folder, file or pypi:NAME)"
        )
    return source


def build_emotion_model(config: Mapping[str, Any], resources: ModelResources | None = None):
    """An unfitted emotion model from ``{"type", "id" (or "path"), "options"}`` (see the module docstring).

    Raises:
        ConfigError: an unknown key, type or option, or a missing source.
    """
    unknown = set(config) - set(CONFIG_KEYS)
    if unknown:
        raise ConfigError(f"emotion model config has unknown key(s) {sorted(unknown)}; use type, id/path, options")
    entry = model_type(config.get("type"))
    options = dict(config.get("options") or {})
    check_options(entry.name, options, where=f"emotion model {entry.name!r}", seeded=True)
    model_class = resolve(entry.emotion_model)
    return model_class.build(_source(entry.name, config), options, resources or ModelResources())


def build_word_embedder(config: Mapping[str, Any], resources: ModelResources | None = None):
    """The word vectors of a model ``{"type", "id"/"path", "options"}``: ``embed_words(words, language, ...)``.

    Raises:
        ConfigError: the type gives no word vectors, or an unknown option.
    """
    entry = model_type(config.get("type"))
    if entry.word_embedder is None:
        raise ConfigError(f"model type {entry.name!r} has no word vectors")
    options = dict(config.get("options") or {})
    check_options(entry.name, options, where=f"model {entry.name!r}")
    return resolve(entry.word_embedder)(_source(entry.name, config), options, resources or ModelResources())


def encoder_words(source: str, options: Mapping[str, Any], resources: ModelResources):
    """An encoder's word vectors: the encoder itself (template, static and context word modes)."""
    return resources.encoder(source, **{name: options[name] for name in ENCODER_OPTIONS if name in options})


def static_words(source: str, options: Mapping[str, Any], resources: ModelResources):
    """Static vectors' word vectors: the vectors."""
    return resources.static_vectors(source, **{name: options[name] for name in VECTOR_OPTIONS if name in options})


def llm_words(source: str, options: Mapping[str, Any], resources: ModelResources):
    """A causal LM's word vectors: its hidden states read as an encoder's (masked mean of the layer at 2/3 of the
    depth unless ``pooling``/``layer`` are given), template mode in the word's language."""
    from eval_harness.models.prompt_judge import llm_probe_defaults

    return encoder_words(source, {**llm_probe_defaults(source), **options}, resources)


class ProcessGroup(Protocol):
    """What :func:`fit_or_load` needs of a process group (the harness's accelerate ranks)."""

    is_main: bool

    def gather(self, items: list) -> list: ...

    def barrier(self) -> None: ...


def fit_or_load(
    config: Mapping[str, Any],
    language: str,
    dimension: str,
    directory: str | Path,
    resources: ModelResources | None = None,
    group: ProcessGroup | None = None,
):
    """The emotion model ``config`` for (``language``, ``dimension``), fitted once and reloaded afterwards.

    ``directory`` holds saved models, one sub-folder per model identity (type, source content,
    options, language, dimension), each with a ``checksums.json`` written last. A sub-folder
    whose files pass their checksums is loaded; one that fails them (a crash mid-save, a
    damaged file) is reported, deleted and trained again.

    With ``group`` (a process group), every rank calls this together: either all ranks load, or
    all train (their encoders shard the texts), and the main rank alone saves.
    """
    resources = resources or ModelResources()
    model = build_emotion_model(config, resources)
    identity = model.identity(language, dimension)
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]
    folder = Path(directory) / key
    loaded = _load_verified(folder, identity, resources)
    # Every rank must take the same branch: training is collective.
    everyone_loaded = group.gather([loaded is not None]) if group is not None else [loaded is not None]
    if all(everyone_loaded):
        return loaded
    model.fit(language, dimension)
    if group is None or group.is_main:
        shutil.rmtree(folder, ignore_errors=True)
        model.save(folder)
        write_checksums(folder)
    if group is not None:
        group.barrier()
    return model


def _load_verified(folder: Path, identity: dict, resources: ModelResources):
    """The model saved in ``folder`` when its checksums hold and it is ``identity``; None otherwise."""
    if not folder.is_dir():
        return None
    loaded = None
    if verify_checksums(folder):
        try:
            loaded = EmotionRegressor.load(folder, resources)
        except ModelLoadError:
            loaded = None
    if loaded is None or loaded.identity() != identity:
        warnings.warn(
            f"cached regressor {folder} is corrupted or incomplete; it is trained again", RuntimeWarning, stacklevel=3
        )
        return None
    return loaded
