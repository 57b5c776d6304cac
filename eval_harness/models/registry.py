"""The model types a sweep config may name, in one place.

Each :class:`ModelType` says what a config's ``type:`` means: whether it needs a source
(``id``/``path``), the options its ``options:`` may hold, whether it gives word vectors
(for ``xweat`` and ``gender_space``), and where its builders live. The builders are lazy
``"module:function"`` references, so reading and validating a config imports neither torch
nor transformers; :mod:`eval_harness.models.factory` resolves them when a model is built.

Adding a model type is one entry here plus its builder(s) (see ``docs/architecture.md``);
``tests/models/test_registry.py`` checks that every entry's option names are exactly what its
builders accept.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

# Options of every trained emotion model (EmotionRegressor / FeatureRegressor); ``seed`` comes from
# the sweep's ``seeds:``, never from a model's options.
TRAINING_OPTIONS = ("preprocess", "max_train", "head", "head_options", "refit_on_validation")
# How an encoder is loaded and run (TransformerEncoder.from_pretrained).
ENCODER_OPTIONS = ("pooling", "layer", "prefix", "max_length", "batch_size", "device", "precision")
# How a static-vector file is read (StaticVectors.load).
VECTOR_OPTIONS = ("format", "lowercase")
# The llm type: a zero-shot judge (mode prompt) or the paper's probe on its hidden states (mode probe).
LLM_MODES = ("prompt", "probe")
# How a causal LM is loaded and run for the judge (CausalLM): weights' dtype, spread over devices, batches.
LLM_LOAD_OPTIONS = ("dtype", "precision", "device_map", "batch_size", "max_length", "device")
LLM_PROMPT_OPTIONS = ("answer", "scale", "prompts", "fit_sample", "max_new_tokens", *LLM_LOAD_OPTIONS)
LLM_PROBE_OPTIONS = (*ENCODER_OPTIONS, "share_dimensions", "head", "head_options", "max_train", "refit_on_validation")


@dataclass(frozen=True)
class ModelType:
    """One ``type:`` of a config's model entry.

    Attributes:
        name: the type's name in configs.
        description: one line for ``xbias list``.
        needs_source: whether a config must give ``id`` (Hub) or ``path`` (folder, file, ``pypi:NAME``).
        options: the option names ``options:`` may hold.
        emotion_model: ``"module:Class"`` of its emotion model (an ``EmotionRegressor`` with
            ``build(source, options, resources)``).
        word_embedder: ``"module:function"`` giving its word vectors ``(source, options, resources)``,
            or None when the type has none.
        trains: whether its emotion model is trained (then it takes the sweep's seed).
        context_vectors: whether its word vectors can be read in context (words in sentences of a corpus).
        check: a function ``(options, where)`` checking the options' values and combinations beyond their
            names (e.g. options of another mode), or None.
    """

    name: str
    description: str
    needs_source: bool
    options: tuple[str, ...]
    emotion_model: str
    word_embedder: str | None = None
    trains: bool = True
    context_vectors: bool = False
    check: Callable[[dict, str], None] | None = None

    @property
    def capabilities(self) -> frozenset[str]:
        """What a suite may ask of the type: ``emotion_model``, ``word_vectors``, ``context_vectors``."""
        found = {"emotion_model"}
        if self.word_embedder is not None:
            found.add("word_vectors")
        if self.context_vectors:
            found.add("context_vectors")
        return frozenset(found)


MODEL_TYPES: dict[str, ModelType] = {
    entry.name: entry
    for entry in (
        ModelType(
            "encoder",
            "any AutoModel encoder: the paper's frozen-encoder probe; sentence, template and context word vectors",
            needs_source=True,
            options=(*ENCODER_OPTIONS, "share_dimensions", *TRAINING_OPTIONS),
            emotion_model="eval_harness.models.regressors:ProbeRegressor",
            word_embedder="eval_harness.models.factory:encoder_words",
            context_vectors=True,
        ),
        ModelType(
            "classifier",
            "an AutoModelForSequenceClassification emotion model, used as it is",
            needs_source=True,
            options=("label_map", "batch_size", "device", "max_length", "precision", "preprocess"),
            emotion_model="eval_harness.models.classifier:ClassifierScorer",
            trains=False,
        ),
        ModelType(
            "svm_tfidf",
            "the paper's model-free baseline: TF-IDF word 1-2-grams + SVR",
            needs_source=False,
            options=(
                "preset",
                "ngram_range",
                "min_df",
                "max_features",
                "refit_vectorizer",
                "score_raw_output",
                *TRAINING_OPTIONS,
            ),
            emotion_model="eval_harness.models.regressors:SvmTfidfRegressor",
        ),
        ModelType(
            "static_mlp",
            "static word vectors (GloVe, fastText...): mean vector + MLP (the paper's fastText baseline)",
            needs_source=True,
            options=(*VECTOR_OPTIONS, *TRAINING_OPTIONS),
            emotion_model="eval_harness.models.regressors:StaticMlpRegressor",
            word_embedder="eval_harness.models.factory:static_words",
        ),
    )
}


def _check_llm_options(options: dict, where: str) -> None:
    """The llm type's options belong to its mode: a prompt option with ``mode: probe`` (or the reverse) is a mistake."""
    mode = options.get("mode", "prompt")
    if mode not in LLM_MODES:
        raise ConfigError(f"{where}: mode must be one of {', '.join(LLM_MODES)}, got {mode!r}")
    other = set(LLM_PROBE_OPTIONS if mode == "prompt" else LLM_PROMPT_OPTIONS)
    own = set(LLM_PROMPT_OPTIONS if mode == "prompt" else LLM_PROBE_OPTIONS)
    misplaced = sorted(set(options) & other - own)
    if misplaced:
        raise ConfigError(
            f"{where}: option(s) {', '.join(map(repr, misplaced))} belong to mode "
            f"{'probe' if mode == 'prompt' else 'prompt'}, not {mode!r}"
        )


MODEL_TYPES["llm"] = ModelType(
    "llm",
    "a decoder-only LLM (AutoModelForCausalLM): zero-shot emotion judge (mode prompt) or the paper's probe on its "
    "hidden states (mode probe); word vectors from its hidden states",
    needs_source=True,
    options=("mode", *dict.fromkeys((*LLM_PROMPT_OPTIONS, *LLM_PROBE_OPTIONS, "preprocess"))),
    emotion_model="eval_harness.models.prompt_judge:PromptJudge",
    word_embedder="eval_harness.models.factory:llm_words",
    context_vectors=True,
    check=_check_llm_options,
)


def model_type(name: str) -> ModelType:
    """The registered type ``name``.

    Raises:
        ConfigError: an unknown type (the message lists the types).
    """
    if name not in MODEL_TYPES:
        raise ConfigError(f"unknown model type {name!r}; model types: {', '.join(MODEL_TYPES)}")
    return MODEL_TYPES[name]


def check_options(type_name: str, options: Any, where: str = "options", seeded: bool = False) -> None:
    """Refuse options that the type does not take (a typo such as ``poolin``), naming the allowed ones.

    ``seeded``: ``seed`` is allowed too (the harness passes the sweep's seed to a trained model).

    Raises:
        ConfigError: ``options`` is not a mapping, or names an option the type does not take.
    """
    entry = model_type(type_name)
    if not isinstance(options, dict):
        raise ConfigError(f"{where} must be a mapping of option names to values, got {options!r}")
    if "seed" in options and not seeded:
        raise ConfigError(f"{where}: set the seed with the config's `seeds:` (or --seeds), not a model option")
    allowed = set(entry.options) | ({"seed"} if seeded and entry.trains else set())
    unknown = sorted(set(options) - allowed)
    if not unknown and entry.check is not None:
        entry.check(options, where)
    if unknown:
        raise ConfigError(
            f"{where}: unknown option(s) {', '.join(map(repr, unknown))} for model type {type_name!r}; "
            f"allowed: {', '.join(sorted(entry.options))}"
        )
