"""The model-type registry says exactly what its builders accept, declares capabilities per type and
mode, and the factory dispatches through it."""

import re
from dataclasses import replace
from pathlib import Path

import pytest

from eval_harness.errors import ConfigError, InputError
from eval_harness.models.factory import build_emotion_model
from eval_harness.models.registry import (
    ENCODER_OPTIONS,
    HEADS,
    LLM_LOAD_OPTIONS,
    LLM_PROMPT_OPTIONS,
    MODEL_TYPES,
    VECTOR_OPTIONS,
    HeadDescription,
    ModelMode,
    ModelType,
    check_options,
    describe_head,
    model_type,
)
from eval_harness.registry import Registry, resolve

DOCS = Path(__file__).resolve().parents[2] / "docs"
# What a builder takes besides its emotion model's constructor options: how the source is loaded.
# (The llm type builds a judge on a loaded CausalLM, or, with mode: probe, an encoder probe.)
LOADING_OPTIONS = {
    "encoder": set(ENCODER_OPTIONS),
    "static_mlp": set(VECTOR_OPTIONS),
    "static_vectors": set(VECTOR_OPTIONS),
    "llm/prompt": set(LLM_LOAD_OPTIONS),
    "llm/probe": set(ENCODER_OPTIONS),
}


def emotion_models(entry):
    """(name, reference, options) of each emotion model a type builds: its own, or one per mode."""
    if not entry.modes:
        return [(entry.name, entry.emotion_model, set(entry.options))]
    shared = set(entry.options) - {name for mode in entry.modes for name in mode.options} - {"mode"}
    return [
        (f"{entry.name}/{mode.name}", mode.emotion_model, shared | set(mode.options))
        for mode in entry.modes
    ]


@pytest.mark.parametrize("name", sorted(MODEL_TYPES))
def test_the_registered_options_are_what_the_builders_accept(name):
    entry = MODEL_TYPES.get(name)
    for label, reference, options in emotion_models(entry):
        model_class = resolve(reference)
        constructor = set(model_class.option_names()) - {"seed", "vector_options"}
        runtime = set(model_class.RUNTIME_PARAMETERS) - {"progress"}
        accepted = constructor | runtime | LOADING_OPTIONS.get(label, set())
        assert options <= accepted, (label, sorted(options - accepted))
        assert constructor <= options, (label, sorted(constructor - options))
    if entry.word_embedder is not None:
        assert callable(resolve(entry.word_embedder))


def test_model_types_and_heads_are_lazy_registries():
    assert isinstance(MODEL_TYPES, Registry) and isinstance(HEADS, Registry)
    assert (
        HEADS.reference("mlp") == "eval_harness.models.heads:MlpHead"
    )  # nothing imported to list them
    assert HEADS.get("svr").__name__ == "SvrHead"
    plugin = ModelType(
        "toy_type", "a plug-in type", needs_source=False, options=(), emotion_model="x:Y"
    )
    MODEL_TYPES.register("toy_type", plugin)
    try:
        assert model_type("toy_type") is plugin and "toy_type" in MODEL_TYPES
    finally:
        MODEL_TYPES.unregister("toy_type")
    with pytest.raises(ConfigError, match="unknown head 'forest'; heads: mlp, ridge, svr"):
        HEADS.get("forest")


def test_a_built_in_heads_description_says_what_its_class_does():
    # Planning reads the descriptions without importing a head: each must say what its class does.
    for name in HEADS.names():
        head_class = HEADS.get(name)
        described = describe_head(name)
        assert described.name == name
        assert described.seeded is ("seed" in head_class.__dataclass_fields__), name
        assert described.refits is hasattr(head_class, "refit"), name
    assert [name for name in HEADS.names() if describe_head(name).seeded] == ["mlp"]


def test_a_plug_in_heads_description_is_read_from_its_class():
    class CoinHead:  # takes a seed, cannot refit
        def __init__(self, seed: int = 0):
            self.seed = seed

    HEADS.register("coin", CoinHead)
    try:
        assert describe_head("coin") == HeadDescription("coin", seeded=True, refits=False)
        assert model_type("encoder").seeded_for({"head": "coin"})
    finally:
        HEADS.unregister("coin")


def test_the_head_is_resolved_once_from_the_option_or_the_types_default():
    assert model_type("encoder").head_for() == describe_head("ridge")
    assert model_type("svm_tfidf").head_for().name == "svr"
    assert model_type("static_mlp").head_for().name == "mlp"
    assert model_type("llm").head_for({"mode": "probe", "head": "mlp"}).name == "mlp"
    assert model_type("llm").head_for({"mode": "prompt"}) is None  # a zero-shot judge fits no head
    assert model_type("classifier").head_for() is None


def test_the_factory_hands_the_regressor_the_head_its_type_resolves():
    # A type whose default head is not its regressor class's: the model fits the head planning
    # counted seeds for.
    ridge_tfidf = replace(model_type("svm_tfidf"), name="svm_ridge", default_head="ridge")
    MODEL_TYPES.register("svm_ridge", ridge_tfidf)
    try:
        model = build_emotion_model({"type": "svm_ridge"})
        assert model.head_description == describe_head("ridge")
        assert model.options()["head"] == "ridge" and not ridge_tfidf.seeded_for()
    finally:
        MODEL_TYPES.unregister("svm_ridge")
    assert build_emotion_model({"type": "svm_tfidf"}).head_description == describe_head("svr")
    refitted_mlp = {"type": "svm_tfidf", "options": {"head": "mlp", "refit_on_validation": True}}
    with pytest.raises(InputError, match=r"needs a head that refits .*\(svr\), not 'mlp'"):
        build_emotion_model(refitted_mlp)


def test_the_seed_plan_asks_the_head_whether_its_training_is_seeded():
    assert not model_type("encoder").seeded_for() and model_type("encoder").seeded_for(
        {"head": "mlp"}
    )
    assert not model_type("svm_tfidf").seeded_for() and model_type("svm_tfidf").seeded_for(
        {"max_train": 100}
    )
    assert model_type("static_mlp").seeded_for() and not model_type("static_vectors").seeded_for()
    assert not model_type("llm").seeded_for({"mode": "prompt"}) and not model_type(
        "llm"
    ).seeded_for({"mode": "probe"})
    assert model_type("llm").seeded_for({"mode": "probe", "head": "mlp"})
    with pytest.raises(ConfigError, match="unknown head 'forest'"):
        model_type("encoder").seeded_for({"head": "forest"})


def test_capabilities_follow_the_builders_and_the_mode():
    assert "word_vectors" in model_type("encoder").capabilities_for()
    assert "context_vectors" in model_type("encoder").capabilities_for()
    assert model_type("svm_tfidf").capabilities_for() == {"emotion_model"}
    assert not model_type("svm_tfidf").needs_source and model_type("static_mlp").needs_source
    llm = model_type("llm")
    assert "judge" in llm.capabilities_for() and "judge" in llm.capabilities_for({"mode": "prompt"})
    assert (
        "judge" not in llm.capabilities_for({"mode": "probe"})
        and "word_vectors" in llm.capabilities_for()
    )
    assert all(
        "judge" not in model_type(name).capabilities_for() for name in MODEL_TYPES if name != "llm"
    )


def test_the_mode_chooses_the_emotion_model_and_its_defaults():
    llm = model_type("llm")
    assert [mode.name for mode in llm.modes] == ["prompt", "probe"] and isinstance(
        llm.modes[0], ModelMode
    )
    assert llm.emotion_model_for({}) == llm.emotion_model_for({"mode": "prompt"})
    assert resolve(llm.emotion_model_for({})).__name__ == "PromptJudge"
    assert resolve(llm.emotion_model_for({"mode": "probe"})).__name__ == "ProbeRegressor"
    assert (
        llm.mode({"mode": "probe"}).defaults
        == "eval_harness.models.prompt_judge:llm_probe_defaults"
    )
    assert set(llm.mode({}).options) == set(LLM_PROMPT_OPTIONS)


def test_bad_types_and_options_are_named():
    with pytest.raises(
        ConfigError, match="unknown model type 'bert'; model types: classifier, encoder, llm"
    ):
        model_type("bert")
    with pytest.raises(
        ConfigError,
        match=r"unknown option\(s\) 'poolin' for model type 'encoder'; allowed: .*pooling",
    ):
        check_options("encoder", {"poolin": "mean"})
    with pytest.raises(ConfigError, match="seeds:"):
        check_options("svm_tfidf", {"seed": 3})
    check_options("svm_tfidf", {"seed": 3}, seeded=True)  # the harness passes the sweep's seed
    with pytest.raises(ConfigError, match="unknown option"):
        check_options(
            "classifier", {"seed": 3}, seeded=True
        )  # a classifier is not trained: no seed


def test_llm_options_belong_to_their_mode():
    check_options("llm", {"mode": "prompt", "scale": [1, 5], "dtype": "bf16", "device_map": "auto"})
    check_options("llm", {"mode": "probe", "pooling": "last", "layer": 20, "head": "mlp"})
    with pytest.raises(ConfigError, match="'pooling' belong to mode probe, not 'prompt'"):
        check_options("llm", {"pooling": "last"})
    with pytest.raises(
        ConfigError, match="'device_map', 'scale' belong to mode prompt, not 'probe'"
    ):
        check_options("llm", {"mode": "probe", "scale": [1, 5], "device_map": "auto"})
    with pytest.raises(ConfigError, match="mode must be one of prompt, probe"):
        check_options("llm", {"mode": "chat"})


def _documented(type_name: str) -> str:
    """Where docs/ documents a type's options: its section of docs/models.md; the llm type's in
    docs/llm.md, its probe mode's as the encoder's section."""
    sections = re.split(r"^## ", (DOCS / "models.md").read_text(), flags=re.M)
    if type_name == "llm":
        return (DOCS / "llm.md").read_text() + _documented("encoder")
    heading = re.compile(rf"`{type_name}`|`\w+` \(and `{type_name}`\)")
    return next(section for section in sections if heading.match(section))


@pytest.mark.parametrize("name", sorted(MODEL_TYPES))
def test_every_option_a_type_takes_is_documented(name):
    # The options are declared once, in the registry; the docs, where people read them, must not
    # go stale.
    text = _documented(name)
    options = MODEL_TYPES.get(name).options
    assert [option for option in options if not re.search(rf"`{option}\b", text)] == []
