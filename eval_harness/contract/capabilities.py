"""What a suite may ask of a model, as :class:`typing.Protocol` types: the capabilities of
``docs/architecture.md``.

A suite gets its models from ``ctx.models`` (:class:`~eval_harness.contract.suite.ModelProvider`)
and never imports a model class; these protocols are the methods and attributes it may use, checked
by mypy in the suites (``make lint``) and at run time by ``isinstance`` (every one is
``@runtime_checkable``). A model type declares its capabilities in ``models/registry.py``;
:data:`PROTOCOL_OF_CAPABILITY` says which protocol each one promises, and
``tests/contract/test_capabilities.py`` builds every registered type and mode and checks that it
keeps the promise.

- ``word_vectors``: the type's word embedder is a :class:`WordEmbedder`;
- ``context_vectors``: it is also a :class:`ContextEmbedder` (a word's vectors in given sentences);
- ``emotion_model``: its emotion model is an :class:`EmotionScorer`;
- ``judge``: that emotion model is a :class:`Judge` (scores with validity numbers, prompt
  paraphrases).

Beyond the capabilities a suite may use what a word embedder offers when it has it: sentence vectors
(:class:`SentenceEncoder`, SEAT), word modes (:class:`ModalWordEmbedder`, an encoder's template /
static vectors) and the run's embedding cache (:class:`CachedEmbedder`). It asks with
``isinstance``, which reads attributes only.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class WordEmbedder(Protocol):
    """Word vectors: ``embed_words(words, language) -> (vectors (n, d), found (n,) bool)``, a zero
    row where ``found`` is False (a word the model does not know). ``language`` is ignored by a
    monolingual space."""

    def embed_words(
        self, words: Sequence[str], language: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]: ...


@runtime_checkable
class StaticSpace(WordEmbedder, Protocol):
    """A static vector space that lists its vocabulary, most frequent word first (a reference space:
    GloVe)."""

    @property
    def words(self) -> Sequence[str]: ...


@runtime_checkable
class ModalWordEmbedder(WordEmbedder, Protocol):
    """A word embedder with several ways of reading a word (an encoder: ``"template"``,
    ``"static"``)."""

    @property
    def word_modes(self) -> tuple[str, ...]: ...

    def embed_words(
        self, words: Sequence[str], language: str | None = None, mode: str = "static"
    ) -> tuple[np.ndarray, np.ndarray]: ...


@runtime_checkable
class ContextEmbedder(Protocol):
    """A word's vectors inside given sentences: ``embed_words_in_contexts(words, sentences_per_word,
    on_missing)`` -> word -> ``(k, dim)`` (one row per sentence in which the word was located; the
    result may say which, in ``sentence_indices``); ``on_missing``: ``"warn"``, ``"raise"`` or
    ``"ignore"`` for unlocated words."""

    @property
    def dim(self) -> int: ...

    def embed_words_in_contexts(
        self,
        words: Sequence[str],
        sentences_per_word: Mapping[str, Sequence[str]],
        on_missing: str = "warn",
    ) -> Mapping[str, np.ndarray]: ...


@runtime_checkable
class SentenceEncoder(Protocol):
    """Sentence vectors: ``encode(texts) -> (len(texts), dim)``, one row per text, in order."""

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class VectorCache(Protocol):
    """The run's embedding cache: ``compute(texts)`` once per (fingerprint, mode, texts), then read
    back."""

    def get_or_compute(
        self,
        fingerprint: str,
        mode: str,
        texts: Sequence[str],
        compute: Callable[[list[str]], np.ndarray],
    ) -> np.ndarray: ...


@runtime_checkable
class CachedEmbedder(Protocol):
    """A model whose vectors may be kept in the run's embedding cache, under its content
    ``fingerprint``."""

    @property
    def fingerprint(self) -> str: ...

    @property
    def cache(self) -> VectorCache | None: ...


class RegressorQuality(Protocol):
    """An emotion model's quality on SemEval-2018 (what the EEC's ``pearson_r`` records read)."""

    @property
    def model_type(self) -> str: ...

    @property
    def pearson_validation(self) -> float: ...

    @property
    def pearson_test(self) -> float: ...

    @property
    def n_train(self) -> int: ...

    @property
    def n_validation(self) -> int: ...

    @property
    def n_test(self) -> int: ...

    @property
    def selected(self) -> dict: ...


@runtime_checkable
class EmotionScorer(Protocol):
    """An emotion-intensity model, fitted for one (language, emotion): ``predict(texts) -> (n,)`` in
    [0, 1], and its quality on SemEval-2018 (``scores``; None before it is fitted)."""

    @property
    def scores(self) -> RegressorQuality | None: ...

    def predict(self, texts: Sequence[str]) -> np.ndarray: ...


class JudgeScores(Protocol):
    """A zero-shot judge's scores of n texts: ``value`` (the score, what ``predict`` gives),
    ``numeral_mass`` (the probability its answer fell on the scale's numerals) and ``validity()``
    (their summary numbers)."""

    @property
    def value(self) -> np.ndarray: ...

    @property
    def numeral_mass(self) -> np.ndarray: ...

    def validity(self) -> dict: ...


@runtime_checkable
class Judge(EmotionScorer, Protocol):
    """A zero-shot judge (an LLM asked for a score): its scores with their validity numbers, and the
    same judge asking with another paraphrase of its prompt (``prompt_names()``, the reported one
    first)."""

    def score(self, texts: Sequence[str]) -> JudgeScores: ...

    def prompt_names(self) -> tuple[str, ...]: ...

    def with_prompt(self, name: str) -> "Judge": ...


# What each capability of ``models/registry.py`` promises: of the type's word embedder
# (``word_vectors``, ``context_vectors``) or of its emotion model (``emotion_model``, ``judge``).
PROTOCOL_OF_CAPABILITY: Mapping[str, type] = {
    "word_vectors": WordEmbedder,
    "context_vectors": ContextEmbedder,
    "emotion_model": EmotionScorer,
    "judge": Judge,
}
