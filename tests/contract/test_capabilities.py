"""Every registered model type (and mode) keeps the promise of its capabilities: its word embedder and its emotion
model are instances of the protocols ``contract.capabilities.PROTOCOL_OF_CAPABILITY`` names, as built by the
factory and as a suite gets them from ``ctx.models`` (the runner's sharding wrappers, an lm-eval import's judges).

The protocols are ``@runtime_checkable``: ``isinstance`` checks that every method and attribute is there (mypy
checks their signatures where the suites use them, ``make lint``)."""

import numpy as np
import pytest
from helpers.tiny_causal_lm import build_tiny_causal_lm
from helpers.tiny_models import WORDS, build_tiny_bert, build_tiny_classifier

from eval_harness.contract import (
    CachedEmbedder,
    ContextEmbedder,
    EmotionScorer,
    Judge,
    ModalWordEmbedder,
    SentenceEncoder,
    StaticSpace,
    WordEmbedder,
)
from eval_harness.contract.capabilities import PROTOCOL_OF_CAPABILITY
from eval_harness.errors import InputError
from eval_harness.lmeval.importer import LoggedJudge, LoggedModels
from eval_harness.models import ModelResources, build_emotion_model, build_word_embedder
from eval_harness.models.registry import MODEL_TYPES, model_type
from eval_harness.runner.provider import ShardedEncoder, ShardedJudge, ShardedPredictions

WORD_CAPABILITIES = ("word_vectors", "context_vectors")


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """A source of every built-in type that needs one: the tests' tiny models and a small vector file."""
    root = tmp_path_factory.mktemp("capabilities")
    vectors = root / "vectors.vec"
    rows = np.random.default_rng(0).normal(size=(len(WORDS), 4))
    lines = [f"{word} {' '.join(map(str, row))}\n" for word, row in zip(WORDS, rows, strict=True)]
    vectors.write_text(f"{len(WORDS)} 4\n" + "".join(lines))
    return {
        "encoder": str(build_tiny_bert(root / "bert")),
        "classifier": str(build_tiny_classifier(root / "classifier")),
        "static_vectors": str(vectors),
        "static_mlp": str(vectors),
        "llm": str(build_tiny_causal_lm(root / "llm")),
        "svm_tfidf": None,
    }


def type_and_modes() -> list:
    """(type, options selecting the mode) of every registered type and each of its modes."""
    return [
        pytest.param(name, {"mode": mode.name} if mode else {}, id=f"{name}/{mode.name}" if mode else name)
        for name in MODEL_TYPES.names()
        for mode in model_type(name).modes or (None,)
    ]


def config(name, options, sources) -> dict:
    if name not in sources:
        pytest.fail(f"model type {name!r} has no source in this test: add one, so its capabilities are checked")
    return {"type": name, "options": options, **({"path": sources[name]} if sources[name] else {})}


@pytest.mark.parametrize(("name", "options"), type_and_modes())
def test_every_model_type_is_an_instance_of_the_protocols_of_its_capabilities(name, options, sources):
    capabilities = model_type(name).capabilities_for(options)
    resources = ModelResources(device="cpu", progress=False)
    emotion_model = build_emotion_model(config(name, options, sources), resources)
    for capability in capabilities - set(WORD_CAPABILITIES):
        assert isinstance(emotion_model, PROTOCOL_OF_CAPABILITY[capability]), (name, options, capability)
    assert ("judge" in capabilities) == isinstance(emotion_model, Judge)
    if "word_vectors" not in capabilities:
        return
    word_options = {key: value for key, value in options.items() if key != "mode"}
    embedder = build_word_embedder(config(name, word_options, sources), resources)
    for capability in capabilities & set(WORD_CAPABILITIES):
        assert isinstance(embedder, PROTOCOL_OF_CAPABILITY[capability]), (name, capability)
    # What the suites use when a word embedder has it: an encoder's word modes, sentence vectors and the cache.
    if "context_vectors" in capabilities:
        for protocol in (ModalWordEmbedder, SentenceEncoder, CachedEmbedder):
            assert isinstance(embedder, protocol), (name, protocol.__name__)
    else:
        assert isinstance(embedder, StaticSpace) and not isinstance(embedder, ContextEmbedder)


def test_every_capability_names_a_protocol_and_every_registered_one_is_known():
    declared = {c for name in MODEL_TYPES.names() for c in model_type(name).capabilities_for({})}
    declared |= {c for name in MODEL_TYPES.names() for mode in model_type(name).modes for c in mode.capabilities}
    assert declared == set(PROTOCOL_OF_CAPABILITY)


def test_a_protocol_refuses_what_lacks_a_member():
    class WordsOnly:
        def embed_words(self, words, language=None):
            return np.zeros((len(words), 2)), np.zeros(len(words), dtype=bool)

    assert isinstance(WordsOnly(), WordEmbedder)
    for protocol in (StaticSpace, ModalWordEmbedder, ContextEmbedder, SentenceEncoder, EmotionScorer, Judge):
        assert not isinstance(WordsOnly(), protocol), protocol.__name__


def test_what_ctx_models_gives_keeps_the_protocols(sources):
    """The runner's wrappers (sharded encode / predict / score) and an lm-eval import's logged judge."""
    resources = ModelResources(device="cpu", progress=False)
    encoder = build_word_embedder({"type": "encoder", "path": sources["encoder"]}, resources)
    sharded = ShardedEncoder(encoder, dist=None)
    for protocol in (WordEmbedder, ModalWordEmbedder, ContextEmbedder, SentenceEncoder, CachedEmbedder):
        assert isinstance(sharded, protocol), protocol.__name__
    regressor = build_emotion_model({"type": "classifier", "path": sources["classifier"]}, resources)
    assert isinstance(ShardedPredictions(regressor, dist=None), EmotionScorer)
    judge = build_emotion_model({"type": "llm", "path": sources["llm"]}, resources)
    assert isinstance(ShardedJudge(judge, dist=None), Judge)

    logged = LoggedModels({("en", "anger"): LoggedJudge({"i am angry": _row(0.75)}, "default", "a samples file")})
    judge = logged.emotion_regressor(None, "en", "anger", 0)
    assert isinstance(judge, Judge) and judge.with_prompt("default") is judge
    np.testing.assert_array_equal(judge.predict(["i am angry"]), [0.75])
    with pytest.raises(InputError, match="logged the prompt 'default' only, not 'expert'"):
        judge.with_prompt("expert")


def _row(value: float) -> dict:
    return {"value": value, "expected": value, "numeral_mass": 0.9, "argmax": 3}
