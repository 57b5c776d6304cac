"""Models from a model type, a source and options: emotion models, word vectors, and what they
share.

A sweep config names a model as ``{"type": ..., "id" or "path": <source>, "options": {...}}``.
The types, their options, modes, capabilities and default heads are declared once, in
:mod:`eval_harness.models.registry` (``xbias list`` lists the types; ``docs/models.md`` documents
each option); this module resolves a model's options from them once (its own settings, its mode's
defaults, its head) and builds it.

An encoder takes its own settings unless its options say otherwise (:func:`default_options`): a
packaged model its documented ones (e5: mean pooling, ``"query: "``), a folder (a local one, or a
Hub model's pinned snapshot) what its sentence-transformers files state
(:mod:`eval_harness.models.sentence_transformers_files`)."""

import hashlib
import json
import warnings
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, Protocol

from eval_harness.errors import ConfigError, InputError, ModelLoadError
from eval_harness.io import build_folder, verify_checksums
from eval_harness.models.packaged import packaged_model, resolve_source
from eval_harness.models.registry import ENCODER_OPTIONS, VECTOR_OPTIONS, check_options, model_type
from eval_harness.models.regressors import EmotionRegressor
from eval_harness.models.resources import ModelResources
from eval_harness.registry import resolve

# What an older xbias saved a fitted regressor's state as: a pickle. It is never read (unpickling
# runs code).
LEGACY_PICKLE = "model.joblib"

CONFIG_KEYS = ("type", "id", "path", "options", "name")
# The model types whose source may state its own settings (default_options).
SELF_DESCRIBED_TYPES = ("encoder",)


def default_options(
    type_name: str, source: str | None, given: Collection[str] = ()
) -> dict[str, Any]:
    """The options a model of type ``type_name`` from ``source`` takes unless its config sets them:
    a packaged model's documented ones, else what a sentence-transformers folder states (pooling,
    prompt); ``{}`` for other types, a Hub id not yet on this machine (a run reads its pinned
    snapshot folder) and a folder that says nothing. ``given``: the options the config sets (a
    pooling the folder states but xbias lacks is then no error).

    Raises:
        ModelLoadError: a sentence-transformers file that cannot be read, or a pooling xbias does
            not compute (when ``pooling`` is not given).
    """
    if source is None or type_name not in SELF_DESCRIBED_TYPES:
        return {}
    packaged = packaged_model(source)
    if packaged is not None and packaged.options:
        return dict(packaged.options)
    from eval_harness.models.sentence_transformers_files import sentence_transformers_options

    folder = Path(resolve_source(source)).expanduser()
    return (
        sentence_transformers_options(folder, pooling="pooling" not in given)
        if folder.is_dir()
        else {}
    )


def with_default_options(
    type_name: str, source: str | None, options: Mapping[str, Any]
) -> dict[str, Any]:
    """``options`` over the model's own defaults (:func:`default_options`): what the user set
    wins."""
    return {**default_options(type_name, source, given=tuple(options)), **options}


def _source(model_type_name: str, config: Mapping[str, Any]) -> str | None:
    source = config.get("id") or config.get("path")
    if model_type(model_type_name).needs_source and not source:
        raise ConfigError(
            f"a model of type {model_type_name!r} needs 'id' (a "
            "Hub id) or 'path' (a local folder, file or pypi:NAME)"
        )
    return source


def build_emotion_model(config: Mapping[str, Any], resources: ModelResources | None = None):
    """An unfitted emotion model from ``{"type", "id" (or "path"), "options"}`` (see the module
    docstring): the type's emotion model, or for a type with modes (``llm``) the chosen mode's, with
    the mode's defaults.

    Raises:
        ConfigError: an unknown key, type, mode or option, or a missing source.
    """
    unknown = set(config) - set(CONFIG_KEYS)
    if unknown:
        raise ConfigError(
            f"emotion model config has unknown key(s) {sorted(unknown)}; use type, id/path, options"
        )
    entry = model_type(config.get("type"))
    options = dict(config.get("options") or {})
    check_options(entry.name, options, where=f"emotion model {entry.name!r}", seeded=True)
    source = _source(entry.name, config)
    options = with_default_options(entry.name, source, options)
    mode = entry.mode(options)
    head = entry.head_for(options)
    if head is not None:  # the head planning counted seeds for: the type's default, not the class's
        options["head"] = head.name
    options.pop("mode", None)
    resources = resources or ModelResources()
    if mode is not None and mode.defaults is not None:
        options = {**resolve(mode.defaults)(source, resources.trust_remote_code), **options}
    model_class = resolve(mode.emotion_model if mode is not None else entry.emotion_model)
    return model_class.build(source, options, resources)


def check_option_values(type_name: str, options: Mapping[str, Any], where: str = "options") -> None:
    """Refuse option values the type's emotion model would refuse once built, where its class can
    tell without loading the source (``EmotionRegressor.check_options``: e.g. svm_tfidf's
    ``min_df``, ``ngram_range``): before a run writes anything, not deep inside a fit.

    Raises:
        ConfigError: ``where``, the option and the values allowed.
    """
    entry = model_type(type_name)
    if not entry.emotion_model_for(options):  # a plug-in type of word vectors only
        return
    model_class = resolve(entry.emotion_model_for(options))
    try:
        model_class.check_options(
            {name: value for name, value in options.items() if name != "mode"}
        )
    except InputError as error:
        raise ConfigError(f"{where}: {error}") from None


def build_word_embedder(config: Mapping[str, Any], resources: ModelResources | None = None):
    """The word vectors of a model ``{"type", "id"/"path", "options"}``: ``embed_words(words,
    language, ...)``.

    Raises:
        ConfigError: the type gives no word vectors, or an unknown option.
    """
    entry = model_type(config.get("type"))
    if entry.word_embedder is None:
        raise ConfigError(f"model type {entry.name!r} has no word vectors")
    options = dict(config.get("options") or {})
    check_options(entry.name, options, where=f"model {entry.name!r}")
    source = _source(entry.name, config)
    options = with_default_options(entry.name, source, options)
    return resolve(entry.word_embedder)(source, options, resources or ModelResources())


def encoder_words(source: str, options: Mapping[str, Any], resources: ModelResources):
    """An encoder's word vectors: the encoder itself (template, static and context word modes)."""
    return resources.encoder(
        source, **{name: options[name] for name in ENCODER_OPTIONS if name in options}
    )


def static_words(source: str, options: Mapping[str, Any], resources: ModelResources):
    """Static vectors' word vectors: the vectors."""
    return resources.static_vectors(
        source, **{name: options[name] for name in VECTOR_OPTIONS if name in options}
    )


def llm_words(source: str, options: Mapping[str, Any], resources: ModelResources):
    """A causal LM's word vectors: its hidden states read as an encoder's (masked mean of the layer
    at 2/3 of the depth unless ``pooling``/``layer`` are given), template mode in the word's
    language."""
    from eval_harness.models.prompt_judge import llm_probe_defaults

    defaults = llm_probe_defaults(source, resources.trust_remote_code)
    return encoder_words(source, {**defaults, **options}, resources)


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
    """The emotion model ``config`` for (``language``, ``dimension``), fitted once and reloaded
    afterwards.

    ``directory`` holds saved models, one sub-folder per model identity (type, source content,
    options, language, dimension), each built with the storage kit
    (:func:`eval_harness.io.build_folder`: staged, locked, sealed with the identity and every file's
    sha256). A sub-folder that passes its checksums for this identity gives its fitted state to the
    model built from ``config`` (so nothing is loaded twice); one that fails them (a crash mid-save,
    a damaged file, an older xbias's format) is reported in one line and trained again. An older
    xbias's pickle (``model.joblib``) is never read.

    With ``group`` (a process group), every rank calls this together: either all ranks load, or
    all train (their encoders shard the texts), and the main rank alone saves.
    """
    resources = resources or ModelResources()
    model = build_emotion_model(config, resources)
    identity = model.identity(language, dimension)
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]
    folder = Path(directory) / key
    existed = folder.exists()
    restored = _restore_cached(model, folder, identity)
    # Every rank must take the same branch: training is collective.
    everyone_restored = group.gather([restored]) if group is not None else [restored]
    if all(everyone_restored):
        return model
    model.fit(language, dimension, resources.semeval)
    if group is None or group.is_main:

        def save(staging: Path) -> None:
            model.save(staging)

        # A folder that was there but gave no state is replaced, even one that passes its checksums
        # (a planted file).
        build_folder(folder, save, {"identity": identity}, rebuild=existed)
    if group is not None:
        group.barrier()
    return model


def _restore_cached(model: EmotionRegressor, folder: Path, identity: dict) -> bool:
    """Whether ``model`` took the fitted state saved in ``folder`` (a verified save of
    ``identity``)."""
    if not folder.exists():
        return False
    if (folder / LEGACY_PICKLE).exists():
        problem = (
            f"holds a pickle ({LEGACY_PICKLE}, an older xbias's format), which is never loaded"
        )
    elif verify_checksums(folder, {"identity": identity}) is None:
        problem = "is corrupted, incomplete or of an older format"
    else:
        try:
            model.restore(folder)
            return True
        except ModelLoadError as error:
            problem = f"cannot be read ({error})"
    warnings.warn(
        f"cached regressor {folder} {problem}; it is trained again", RuntimeWarning, stacklevel=3
    )
    return False
