"""The model types a sweep config may name, and the regression heads a trained type may use, in one
place.

Each :class:`ModelType` says what a config's ``type:`` means: whether it needs a source
(``id``/``path``), the options its ``options:`` may hold, what it can give a suite (its
capabilities: an emotion model, word vectors, context vectors, a zero-shot ``judge``), and where
its builders live. A type with a ``mode`` option (``llm``) declares each mode (:class:`ModelMode`)
with its own emotion model, options and capabilities; the mode is checked here, once
(:func:`check_options`), and the factory dispatches on it. The builders are lazy
``"module:function"`` references, so reading and validating a config imports neither torch nor
transformers; :mod:`eval_harness.models.factory` resolves them when a model is built.

Both tables are :class:`eval_harness.registry.Registry` objects: :data:`MODEL_TYPES` (plug-ins add a
type with ``MODEL_TYPES.register(name, ModelType(...))`` or the entry-point group
``xbias.model_types``) and :data:`HEADS` (``"ridge"``, ``"mlp"``, ``"svr"``; group ``xbias.heads``).
A model's head is resolved here, once (:meth:`ModelType.head_for`: the ``head`` option, else the
type's ``default_head``), into a :class:`HeadDescription` (its name, whether it is seeded, whether
it refits), which planning reads without importing a head and the factory hands to the regressors.

Adding a model type is one entry here plus its builder(s) (see ``docs/architecture.md``);
``tests/models/test_registry.py`` checks that every entry's option names are exactly what its
builders accept.
"""

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigError, shown
from ..registry import Registry

# Options of every trained emotion model (EmotionRegressor / FeatureRegressor); ``seed`` comes from
# the sweep's ``seeds:``, never from a model's options.
TRAINING_OPTIONS = ("preprocess", "max_train", "head", "head_options", "refit_on_validation")
# The encoder options a saved probe records in its identity and is rebuilt with.
PROBE_ENCODER_OPTIONS = ("pooling", "layer", "prefix", "max_length")
# How an encoder is loaded and run (TransformerEncoder.from_pretrained).
ENCODER_OPTIONS = (*PROBE_ENCODER_OPTIONS, "batch_size", "device", "precision")
# How a static-vector file is read (StaticVectors.load).
VECTOR_OPTIONS = ("format", "lowercase")
# The llm type's modes: a zero-shot judge (prompt) or the paper's probe on its hidden states
# (probe).
# How a causal LM is loaded and run for the judge (CausalLM): weights' dtype, spread over devices,
# batches.
LLM_LOAD_OPTIONS = ("dtype", "precision", "device_map", "batch_size", "max_length", "device")
LLM_PROMPT_OPTIONS = (
    "answer",
    "scale",
    "prompts",
    "fit_sample",
    "max_new_tokens",
    *LLM_LOAD_OPTIONS,
)
LLM_PROBE_OPTIONS = (
    *ENCODER_OPTIONS,
    "share_dimensions",
    "head",
    "head_options",
    "max_train",
    "refit_on_validation",
)
# What a built-in option's value must be (a tuple: any of them; None: null allowed), so that a
# config check refuses a wrong one in one line and ``--model-args`` reads a value as its option's
# kind (``prefix=query: `` stays a string). An option not listed (head_options, label_map,
# ngram_range...) is checked where it is used.
OPTION_KINDS: dict[str, tuple[type | None, ...]] = {
    "pooling": (str,),
    "prefix": (str,),
    "layer": (int,),
    "max_length": (int, None),
    "batch_size": (int,),
    "device": (str, None),
    "precision": (str,),
    "share_dimensions": (bool,),
    "preprocess": (str, None),
    "max_train": (int, None),
    "head": (str, None),
    "refit_on_validation": (bool,),
    "mode": (str,),
    "format": (str,),
    "lowercase": (bool,),
    "dtype": (str, None),
    "device_map": (str, None),
    "answer": (str,),
    "fit_sample": (int, None),
    "max_new_tokens": (int, None),
    "preset": (str, None),
    "min_df": (int, float),
    "max_features": (int, None),
    "refit_vectorizer": (bool,),
    "score_raw_output": (bool,),
}
_KIND_WORDS = {
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    None: "null",
}


def option_kind_problem(name: str, value: Any) -> str | None:
    """Why ``value`` cannot be option ``name``'s (a sentence naming the kind it must be), or None
    when it can (or the option's kind is not listed in :data:`OPTION_KINDS`). A bool is never a
    number."""
    kinds = OPTION_KINDS.get(name)
    if kinds is None:
        return None
    for kind in kinds:
        if kind is None and value is None:
            return None
        if kind is bool and isinstance(value, bool):
            return None
        if kind in (int, float) and isinstance(value, kind) and not isinstance(value, bool):
            return None
        if kind is str and isinstance(value, str):
            return None
    words = " or ".join(_KIND_WORDS[kind] for kind in kinds)
    return f"option {name!r} must be {words}, got {shown(value)} ({type(value).__name__})"


@dataclass(frozen=True)
class ModelMode:
    """One value of a model type's ``mode`` option.

    Attributes:
        name: the value (``mode: probe``).
        emotion_model: ``"module:Class"`` of the emotion model this mode builds.
        options: the options that belong to this mode alone (given with another mode, they are an
        error).
        capabilities: what this mode adds to the type's capabilities (``judge``).
        defaults: ``"module:function"`` giving option defaults from the source, ``(source,
            trust_remote_code) -> dict``, or None.
        trains: whether this mode's emotion model is trained (False for a zero-shot judge, which
            still takes the sweep's seed to draw the tweets its fit scores).
    """

    name: str
    emotion_model: str
    options: tuple[str, ...]
    capabilities: frozenset[str] = frozenset()
    defaults: str | None = None
    trains: bool = True


@dataclass(frozen=True)
class ModelType:
    """One ``type:`` of a config's model entry.

    Attributes:
        name: the type's name in configs.
        description: one line for ``xbias list``.
        needs_source: whether a config must give ``id`` (Hub) or ``path`` (folder, file,
        ``pypi:NAME``).
        options: the option names ``options:`` may hold (every mode's).
        emotion_model: ``"module:Class"`` of its emotion model (an ``EmotionRegressor`` with
            ``build(source, options, resources)``); empty for a type with modes (each mode names its
            own).
        word_embedder: ``"module:function"`` giving its word vectors ``(source, options,
            resources)``, or None when the type has none.
        trains: whether its emotion model is trained (then it takes the sweep's seed).
        context_vectors: whether its word vectors can be read in context (words in sentences of a
        corpus).
        modes: the values of its ``mode`` option, the first the default (none: the type has no
        modes).
        loads_folder: a local ``path`` is a transformers folder (``from_pretrained``), never a file.
        default_head: the regression head its trained emotion model uses when ``head:`` is not given
            (None for a type that trains no head).
    """

    name: str
    description: str
    needs_source: bool
    options: tuple[str, ...]
    emotion_model: str = ""
    word_embedder: str | None = None
    trains: bool = True
    context_vectors: bool = False
    modes: tuple[ModelMode, ...] = ()
    loads_folder: bool = False
    default_head: str | None = None

    def mode(self, options: Mapping[str, Any], where: str = "options") -> ModelMode | None:
        """The mode ``options`` select (``mode:``, else the first), or None for a type without
        modes.

        Raises:
            ConfigError: an unknown mode, or an option that belongs to another mode.
        """
        if not self.modes:
            return None
        modes = {mode.name: mode for mode in self.modes}
        chosen = options.get("mode", self.modes[0].name)
        if chosen not in modes:
            raise ConfigError(f"{where}: mode must be one of {', '.join(modes)}, got {chosen!r}")
        for other in self.modes:
            misplaced = sorted(set(options) & set(other.options) - set(modes[chosen].options))
            if misplaced and other.name != chosen:
                raise ConfigError(
                    f"{where}: option(s) {', '.join(map(repr, misplaced))} "
                    f"belong to mode {other.name}, not {chosen!r}"
                )
        return modes[chosen]

    def emotion_model_for(self, options: Mapping[str, Any]) -> str:
        """``"module:Class"`` of the emotion model ``options`` build (their mode's, for a type with
        modes)."""
        mode = self.mode(options)
        return mode.emotion_model if mode is not None else self.emotion_model

    def trains_for(self, options: Mapping[str, Any] | None = None) -> bool:
        """Whether the emotion model ``options`` build is trained, so that its numbers carry
        training noise (the type's ``trains``, and its mode's)."""
        mode = self.mode(options or {})
        return self.trains and (mode is None or mode.trains)

    def seeded_for(self, options: Mapping[str, Any] | None = None) -> bool:
        """Whether training the emotion model ``options`` build draws on the sweep's seed, so that
        another seed trains another model: a seeded head (:meth:`head_for`: the MLP) or a random
        ``max_train`` subsample. A deterministic one (ridge, the SVR on every tweet) gives the same
        model whatever the seed, and is trained once. A trained type with no head (a plug-in's own
        training) is taken to be seeded."""
        options = options or {}
        if not self.trains_for(options):
            return False
        head = self.head_for(options)
        return options.get("max_train") is not None or head is None or head.seeded

    def head_for(self, options: Mapping[str, Any] | None = None) -> "HeadDescription | None":
        """The head the emotion model ``options`` build fits: the ``head`` option, else the type's
        ``default_head``. None for a model that fits no head (a zero-shot judge, a classifier, a
        plug-in's own training). The one place a default head is applied.

        Raises:
            ConfigError: an unknown head (the message lists them).
        """
        options = options or {}
        if not self.trains_for(options):
            return None
        name = options.get("head") or self.default_head
        return describe_head(name) if name is not None else None

    def capabilities_for(self, options: Mapping[str, Any] | None = None) -> frozenset[str]:
        """What a suite may ask of a model of this type with ``options``: ``emotion_model``,
        ``word_vectors``, ``context_vectors``, and what its mode adds (``judge``: a zero-shot judge,
        whose scores come with validity numbers)."""
        found = {"emotion_model"}
        if self.word_embedder is not None:
            found.add("word_vectors")
        if self.context_vectors:
            found.add("context_vectors")
        mode = self.mode(options or {})
        return frozenset(found | (mode.capabilities if mode is not None else frozenset()))


STATIC_VECTORS = ModelType(
    "static_vectors",
    "static word vectors (GloVe, fastText...): mean vector "
    "+ ridge head (head: mlp for the paper's baseline)",
    needs_source=True,
    options=(*VECTOR_OPTIONS, *TRAINING_OPTIONS),
    emotion_model="eval_harness.models.regressors:StaticVectorRegressor",
    word_embedder="eval_harness.models.factory:static_words",
    default_head="ridge",
)
_BUILTIN_TYPES = (
    ModelType(
        "encoder",
        "any AutoModel encoder: the paper's frozen-encoder "
        "probe; sentence, template and context word vectors",
        needs_source=True,
        options=(*ENCODER_OPTIONS, "share_dimensions", *TRAINING_OPTIONS),
        emotion_model="eval_harness.models.regressors:ProbeRegressor",
        word_embedder="eval_harness.models.factory:encoder_words",
        context_vectors=True,
        loads_folder=True,
        default_head="ridge",
    ),
    ModelType(
        "classifier",
        "an AutoModelForSequenceClassification emotion model, used as it is",
        needs_source=True,
        options=("label_map", "batch_size", "device", "max_length", "precision", "preprocess"),
        emotion_model="eval_harness.models.classifier:ClassifierScorer",
        trains=False,
        loads_folder=True,
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
        default_head="svr",
    ),
    STATIC_VECTORS,
    # The earlier name, kept: the paper's fastText baseline as it was, static vectors with the MLP
    # head.
    replace(
        STATIC_VECTORS,
        name="static_mlp",
        description="static word vectors with the MLP head (the paper's "
        "fastText baseline; static_vectors with head: mlp)",
        emotion_model="eval_harness.models.regressors:StaticMlpRegressor",
        default_head="mlp",
    ),
    ModelType(
        "llm",
        "a decoder-only LLM (AutoModelForCausalLM): zero-shot emotion "
        "judge (mode prompt) or the paper's probe on its hidden "
        "states (mode probe); word vectors from its hidden states",
        needs_source=True,
        options=("mode", *dict.fromkeys((*LLM_PROMPT_OPTIONS, *LLM_PROBE_OPTIONS, "preprocess"))),
        word_embedder="eval_harness.models.factory:llm_words",
        context_vectors=True,
        loads_folder=True,
        default_head="ridge",  # mode probe's (the judge trains no head)
        modes=(
            ModelMode(
                "prompt",
                "eval_harness.models.prompt_judge:PromptJudge",
                LLM_PROMPT_OPTIONS,
                capabilities=frozenset({"judge"}),
                trains=False,
            ),
            # The paper's probe on the LM's hidden states: an encoder probe (masked mean of the
            # layer at 2/3 of the depth unless pooling/layer say otherwise).
            ModelMode(
                "probe",
                "eval_harness.models.regressors:ProbeRegressor",
                LLM_PROBE_OPTIONS,
                defaults="eval_harness.models.prompt_judge:llm_probe_defaults",
            ),
        ),
    ),
)
MODEL_TYPES = Registry(
    "model type",
    builtins={entry.name: entry for entry in _BUILTIN_TYPES},
    entry_point_group="xbias.model_types",
)


@dataclass(frozen=True)
class HeadDescription:
    """A regression head as a model's training uses it: its name, whether seeded, whether refitting.

    Attributes:
        name: the head's name in :data:`HEADS` (``head:`` in a config).
        seeded: whether fitting it draws random numbers (an MLP's initialisation and shuffling):
            its class takes the model's ``seed``, and another seed trains another head; a head
            without one is trained once.
        refits: whether it can refit its chosen setting on train + validation (its class has
            ``refit``): what ``refit_on_validation`` needs.
    """

    name: str
    seeded: bool
    refits: bool


# The built-in heads, each its class and its description, so that planning a sweep imports no head
# (scipy, torch); tests/models/test_registry.py checks each description against its class.
_BUILTIN_HEADS = {
    "eval_harness.models.heads:RidgeHead": HeadDescription("ridge", seeded=False, refits=False),
    "eval_harness.models.heads:MlpHead": HeadDescription("mlp", seeded=True, refits=False),
    "eval_harness.models.heads:SvrHead": HeadDescription("svr", seeded=False, refits=True),
}
HEADS = Registry(
    "head",
    builtins={head.name: reference for reference, head in _BUILTIN_HEADS.items()},
    entry_point_group="xbias.heads",
)


def describe_head(name: str) -> HeadDescription:
    """The description of head ``name``: a built-in's as declared here, a plug-in's read from its
    class (seeded when it takes a ``seed``, refitting when it has ``refit``).

    Raises:
        ConfigError: an unknown head (the message lists them).
    """
    reference = HEADS.reference(name)
    if isinstance(reference, str) and reference in _BUILTIN_HEADS:
        return replace(_BUILTIN_HEADS[reference], name=name)
    head_class = HEADS.get(name)
    return HeadDescription(
        name,
        seeded="seed" in inspect.signature(head_class).parameters,
        refits=callable(getattr(head_class, "refit", None)),
    )


def refitting_heads() -> list[str]:
    """The built-in heads that can refit on train + validation (for a message naming them)."""
    return [head.name for head in _BUILTIN_HEADS.values() if head.refits]


def model_type(name: str) -> ModelType:
    """The registered type ``name``.

    Raises:
        ConfigError: an unknown type (the message lists the types).
    """
    return MODEL_TYPES.get(name)


def check_options(
    type_name: str, options: Any, where: str = "options", seeded: bool = False
) -> None:
    """Refuse options that the type does not take (a typo such as ``poolin``), naming the allowed
    ones, and options of another mode than the one chosen (with an unknown mode).

    ``seeded``: ``seed`` is allowed too (the harness passes the sweep's seed to a trained model).

    A value of the wrong kind (:data:`OPTION_KINDS`: ``prefix: {query: null}``, ``layer: "2"``) is
    refused too.

    Raises:
        ConfigError: ``options`` is not a mapping, names an option the type (or its mode) does not
            take, or gives one a value of the wrong kind.
    """
    entry = model_type(type_name)
    if not isinstance(options, dict):
        raise ConfigError(
            f"{where} must be a mapping of option names to values, got {shown(options)}"
        )
    if "seed" in options and not seeded:
        raise ConfigError(
            f"{where}: set the seed with the config's `seeds:` (or --seeds), not a model option"
        )
    allowed = set(entry.options) | ({"seed"} if seeded and entry.trains else set())
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ConfigError(
            f"{where}: unknown option(s) {', '.join(map(shown, unknown))} for model "
            f"type {shown(type_name)}; allowed: {', '.join(sorted(entry.options))}"
        )
    for name, value in options.items():
        problem = option_kind_problem(name, value)
        if problem is not None:
            raise ConfigError(f"{where}: {problem}")
    entry.mode(options, where)
