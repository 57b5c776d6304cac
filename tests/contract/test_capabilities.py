"""Every registered model type (and mode) keeps the promise of its capabilities: its word embedder
and its emotion model are instances of the protocols
``contract.capabilities.PROTOCOL_OF_CAPABILITY`` names, as built by the factory and as a suite gets
them from ``ctx.models`` (the runner's sharding wrappers, an lm-eval import's judges).

The protocols are ``@runtime_checkable``: ``isinstance`` checks that every method and attribute is
there (mypy checks their signatures where the suites use them, ``make lint``). :func:`keeps` also
looks each member up the way ``isinstance`` does from Python 3.12 on (``inspect.getattr_static``:
past a wrapper's ``__getattr__``), so that a promise kept here only through ``__getattr__`` fails on
3.11 too."""

import inspect
import typing

import numpy as np
import pytest
from helpers.tiny_causal_lm import build_tiny_causal_lm
from helpers.tiny_models import WORDS, build_tiny_bert, build_tiny_classifier

from eval_harness.contract import capabilities as cap
from eval_harness.errors import InputError
from eval_harness.lmeval.importer import LoggedJudge, LoggedModels
from eval_harness.models import ModelResources, build_emotion_model, build_word_embedder
from eval_harness.models.registry import MODEL_TYPES, model_type
from eval_harness.runner.provider import ShardedEncoder, ShardedJudge, ShardedPredictions

WORD_CAPABILITIES = ("word_vectors", "context_vectors")
ABSENT = object()


def members(protocol: type) -> set[str]:
    """The methods and properties a protocol declares, its bases' included."""
    bases = [
        klass
        for klass in protocol.__mro__
        if klass not in (object, typing.Protocol, typing.Generic)
    ]
    return {name for klass in bases for name in vars(klass) if not name.startswith("_")}


def keeps(obj, protocol: type) -> bool:
    """``isinstance(obj, protocol)``, on Python 3.11 and as Python 3.12 decides it (members found
    statically)."""
    return isinstance(obj, protocol) and all(
        inspect.getattr_static(obj, name, ABSENT) is not ABSENT for name in members(protocol)
    )


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """A source of every built-in type that needs one: the tests' tiny models and a small vector
    file."""
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
        pytest.param(
            name, {"mode": mode.name} if mode else {}, id=f"{name}/{mode.name}" if mode else name
        )
        for name in MODEL_TYPES.names()
        for mode in model_type(name).modes or (None,)
    ]


def config(name, options, sources) -> dict:
    if name not in sources:
        pytest.fail(
            f"model type {name!r} has no source in this "
            "test: add one, so its capabilities are checked"
        )
    return {"type": name, "options": options, **({"path": sources[name]} if sources[name] else {})}


@pytest.mark.parametrize(("name", "options"), type_and_modes())
def test_every_model_type_is_an_instance_of_the_protocols_of_its_capabilities(
    name, options, sources
):
    capabilities = model_type(name).capabilities_for(options)
    resources = ModelResources(device="cpu", progress=False)
    emotion_model = build_emotion_model(config(name, options, sources), resources)
    for capability in capabilities - set(WORD_CAPABILITIES):
        assert keeps(emotion_model, cap.PROTOCOL_OF_CAPABILITY[capability]), (
            name,
            options,
            capability,
        )
    assert ("judge" in capabilities) == keeps(emotion_model, cap.Judge)
    if "word_vectors" not in capabilities:
        return
    word_options = {key: value for key, value in options.items() if key != "mode"}
    embedder = build_word_embedder(config(name, word_options, sources), resources)
    for capability in capabilities & set(WORD_CAPABILITIES):
        assert keeps(embedder, cap.PROTOCOL_OF_CAPABILITY[capability]), (name, capability)
    # What the suites use when a word embedder has it: an encoder's word modes, sentence vectors and
    # the cache.
    if "context_vectors" in capabilities:
        for protocol in (cap.ModalWordEmbedder, cap.SentenceEncoder, cap.CachedEmbedder):
            assert keeps(embedder, protocol), (name, protocol.__name__)
    else:
        assert keeps(embedder, cap.StaticSpace) and not isinstance(embedder, cap.ContextEmbedder)


def test_every_capability_names_a_protocol_and_every_registered_one_is_known():
    declared = {c for name in MODEL_TYPES.names() for c in model_type(name).capabilities_for({})}
    declared |= {
        c
        for name in MODEL_TYPES.names()
        for mode in model_type(name).modes
        for c in mode.capabilities
    }
    assert declared == set(cap.PROTOCOL_OF_CAPABILITY)


def test_a_protocol_refuses_what_lacks_a_member():
    class WordsOnly:
        def embed_words(self, words, language=None):
            return np.zeros((len(words), 2)), np.zeros(len(words), dtype=bool)

    assert keeps(WordsOnly(), cap.WordEmbedder)
    for protocol in (
        cap.StaticSpace,
        cap.ModalWordEmbedder,
        cap.ContextEmbedder,
        cap.SentenceEncoder,
        cap.EmotionScorer,
        cap.Judge,
    ):
        assert not isinstance(WordsOnly(), protocol), protocol.__name__

    # a wrapper whose members come through __getattr__ only: no instance from Python 3.12 on
    class Delegating:
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

    assert isinstance(Delegating(WordsOnly()), cap.WordEmbedder) and not keeps(
        Delegating(WordsOnly()), cap.WordEmbedder
    )
    assert members(cap.Judge) == {"scores", "predict", "score", "prompt_names", "with_prompt"}


def test_what_ctx_models_gives_keeps_the_protocols(sources):
    """The runner's wrappers (sharded encode / predict / score) and an lm-eval import's logged
    judge."""
    resources = ModelResources(device="cpu", progress=False)
    encoder = build_word_embedder({"type": "encoder", "path": sources["encoder"]}, resources)
    sharded = ShardedEncoder(encoder, dist=None)
    for protocol in (
        cap.WordEmbedder,
        cap.ModalWordEmbedder,
        cap.ContextEmbedder,
        cap.SentenceEncoder,
        cap.CachedEmbedder,
    ):
        assert keeps(sharded, protocol), protocol.__name__
    regressor = build_emotion_model(
        {"type": "classifier", "path": sources["classifier"]}, resources
    )
    assert keeps(ShardedPredictions(regressor, dist=None), cap.EmotionScorer)
    judge = build_emotion_model({"type": "llm", "path": sources["llm"]}, resources)
    assert keeps(ShardedJudge(judge, dist=None), cap.Judge)

    logged = LoggedModels(
        {("en", "anger"): LoggedJudge({"i am angry": _row(0.75)}, "default", "a samples file")}
    )
    judge = logged.emotion_regressor(None, "en", "anger", 0)
    assert keeps(judge, cap.Judge) and judge.with_prompt("default") is judge
    np.testing.assert_array_equal(judge.predict(["i am angry"]), [0.75])
    with pytest.raises(InputError, match="logged the prompt 'default' only, not 'expert'"):
        judge.with_prompt("expert")


def _row(value: float) -> dict:
    return {"value": value, "expected": value, "numeral_mass": 0.9, "argmax": 3}
