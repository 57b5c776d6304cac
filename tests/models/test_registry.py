"""The model-type registry says exactly what its builders accept, and the factory dispatches through it."""

import pytest

from eval_harness.errors import ConfigError
from eval_harness.models.registry import (
    ENCODER_OPTIONS,
    LLM_LOAD_OPTIONS,
    LLM_PROBE_OPTIONS,
    MODEL_TYPES,
    VECTOR_OPTIONS,
    check_options,
    model_type,
)
from eval_harness.registry import resolve

# What a builder takes besides its emotion model's constructor options: how the source is loaded.
# (The llm type builds a judge on a loaded CausalLM, or, with mode: probe, an encoder probe.)
LOADING_OPTIONS = {
    "encoder": set(ENCODER_OPTIONS),
    "static_mlp": set(VECTOR_OPTIONS),
    "llm": {"mode", *LLM_LOAD_OPTIONS, *LLM_PROBE_OPTIONS},
}


@pytest.mark.parametrize("name", sorted(MODEL_TYPES))
def test_the_registered_options_are_what_the_builders_accept(name):
    entry = MODEL_TYPES[name]
    model_class = resolve(entry.emotion_model)
    constructor = set(model_class.option_names()) - {"seed", "vector_options"}
    runtime = set(model_class.RUNTIME_PARAMETERS) - {"progress"}
    accepted = constructor | runtime | LOADING_OPTIONS.get(name, set())
    assert set(entry.options) <= accepted, sorted(set(entry.options) - accepted)
    assert constructor <= set(entry.options), sorted(constructor - set(entry.options))
    if entry.word_embedder is not None:
        assert callable(resolve(entry.word_embedder))


def test_capabilities_follow_the_builders():
    assert "word_vectors" in MODEL_TYPES["encoder"].capabilities
    assert "context_vectors" in MODEL_TYPES["encoder"].capabilities
    assert MODEL_TYPES["svm_tfidf"].capabilities == {"emotion_model"}
    assert not MODEL_TYPES["svm_tfidf"].needs_source and MODEL_TYPES["static_mlp"].needs_source


def test_bad_types_and_options_are_named():
    with pytest.raises(ConfigError, match="unknown model type 'bert'; model types: encoder"):
        model_type("bert")
    with pytest.raises(ConfigError, match=r"unknown option\(s\) 'poolin' for model type 'encoder'; allowed: .*pooling"):
        check_options("encoder", {"poolin": "mean"})
    with pytest.raises(ConfigError, match="seeds:"):
        check_options("svm_tfidf", {"seed": 3})
    check_options("svm_tfidf", {"seed": 3}, seeded=True)  # the harness passes the sweep's seed
    with pytest.raises(ConfigError, match="unknown option"):
        check_options("classifier", {"seed": 3}, seeded=True)  # a classifier is not trained: no seed


def test_llm_options_belong_to_their_mode():
    check_options("llm", {"mode": "prompt", "scale": [1, 5], "dtype": "bf16", "device_map": "auto"})
    check_options("llm", {"mode": "probe", "pooling": "last", "layer": 20, "head": "mlp"})
    with pytest.raises(ConfigError, match="'pooling' belong to mode probe, not 'prompt'"):
        check_options("llm", {"pooling": "last"})
    with pytest.raises(ConfigError, match="'device_map', 'scale' belong to mode prompt, not 'probe'"):
        check_options("llm", {"mode": "probe", "scale": [1, 5], "device_map": "auto"})
    with pytest.raises(ConfigError, match="mode must be one of prompt, probe"):
        check_options("llm", {"mode": "chat"})
