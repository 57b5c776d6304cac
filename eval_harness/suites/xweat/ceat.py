"""CEAT (Guo & Caliskan 2021) on the XWEAT tests: WEAT effect sizes from sampled contexts, combined.

1. **Contexts** (:func:`sample_contexts`): for every word of a test, the sentences of a corpus that
   contain it as a whole word (case-insensitive: the rule by which the encoder locates a word), of
   which at most ``contexts_per_word`` are drawn at random without replacement. The draw of a word
   depends only on the seed, the language and the word, so a word has the same contexts whichever
   tests run.
2. **Context vectors** (:func:`embed_contexts`): the encoder's context mode,
   ``embed_words_in_contexts(words, sentences_per_word)``: the word's tokens pooled inside each
   sentence. A sentence in which the encoder cannot locate the word (cut off by truncation) gives no
   vector.
3. **Combination** (:func:`run_ceat`): :func:`eval_harness.stats.ceat.ceat` draws ``n_samples``
   samples of one context vector per word, computes each sample's WEAT effect size and CEAT's
   variance, and combines them by a DerSimonian–Laird random-effects model (combined effect size,
   its SE and p, tau^2, Q, I^2).

Coverage: a word with no context vector is left out and reported; as for WEAT, a test is skipped
(with the reason) when a set keeps less than ``min_coverage`` of its words. Cross-lingual: the
target words' contexts come from the target language's corpus, the attribute words' from the
attribute language's.
"""

import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...contract import ContextEmbedder
from ...errors import InputError
from ...stats.ceat import DEFAULT_SAMPLES, CEATResult, ceat
from ..contexts import embed_in_contexts
from .pipeline import (
    COVERAGE_THRESHOLD,
    SetCoverage,
    WordSet,
    _check_min_coverage,
    _coverage_problem,
    measure_seed,
)

CONFIDENCE_LEVEL = 0.95
_TOKENS = re.compile(r"\w+")


@dataclass(frozen=True)
class CEATTestResult:
    """CEAT on one test and (target language, attribute language) pair, or the reason it was
    skipped.

    Attributes:
        test, target_language, attribute_language: the unit.
        coverage: per set (X, Y, A, B), the words without any context vector (``missing``).
        ceat: the :class:`~eval_harness.stats.ceat.CEATResult` (``None`` when skipped).
        seed: the integer seed of the sample draws (:func:`~.pipeline.measure_seed`).
        skip_reason: why the test was skipped.
    """

    test: str
    target_language: str
    attribute_language: str
    coverage: tuple[SetCoverage, ...]
    ceat: CEATResult | None
    seed: int
    skip_reason: str | None = None

    @property
    def status(self) -> str:
        return "skipped" if self.ceat is None else "ok"

    def confidence_interval(self, level: float = CONFIDENCE_LEVEL) -> tuple[float, float]:
        """The normal ``level`` interval of the combined effect size: CES -/+ z_{(1+level)/2} SE.

        Raises:
            InputError: the test was skipped (no combined effect size)."""
        from scipy import (
            stats as scipy_stats,
        )  # scipy on use: `xbias list` and config checks load none

        if self.ceat is None:
            raise InputError(
                f"CEAT {self.test} was skipped ({self.skip_reason}): it has no confidence interval"
            )
        half = scipy_stats.norm.ppf((1 + level) / 2) * self.ceat.meta.std_err
        return self.ceat.meta.combined_effect - half, self.ceat.meta.combined_effect + half


def sample_contexts(
    words: Sequence[str], sentences: Sequence[str], contexts_per_word: int, seed: int, language: str
) -> dict[str, list[str]]:
    """word -> at most ``contexts_per_word`` sentences that contain it (as a whole word,
    case-insensitive), drawn without replacement from ``default_rng([seed, crc32(language|word)])``
    and kept in corpus order; ``[]`` for a word the corpus lacks."""
    if (
        isinstance(contexts_per_word, bool)
        or not isinstance(contexts_per_word, int)
        or contexts_per_word < 1
    ):
        raise InputError(f"contexts_per_word must be a positive integer; got {contexts_per_word!r}")
    postings: dict[str, set[int]] = {}
    for row, sentence in enumerate(sentences):
        for token in set(_TOKENS.findall(sentence.lower())):
            postings.setdefault(token, set()).add(row)
    contexts = {}
    for word in words:
        tokens = _TOKENS.findall(word.lower())
        candidates = (
            set.intersection(*(postings.get(token, set()) for token in tokens)) if tokens else set()
        )
        # The encoder's rule (a whole word: no word character on either side), on the candidate
        # sentences only.
        pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)", re.IGNORECASE)
        rows = sorted(row for row in candidates if pattern.search(sentences[row]))
        if len(rows) > contexts_per_word:
            rng = np.random.default_rng([seed, zlib.crc32(f"{language}|{word}".encode())])
            rows = sorted(rng.choice(rows, size=contexts_per_word, replace=False).tolist())
        contexts[word] = [sentences[row] for row in rows]
    return contexts


def embed_contexts(
    encoder: ContextEmbedder, requests: Sequence[tuple[str, str]], dim: int
) -> np.ndarray:
    """``(len(requests), dim + 1)``: for each ``(word, sentence)``, the word's context vector and,
    in the last column, 1 where the encoder located the word in the sentence (else 0 and a zero
    vector)."""
    rows = np.zeros((len(requests), dim + 1), dtype=np.float32)
    if requests:
        vectors, found = embed_in_contexts(encoder, requests)
        if found.any():  # else the vectors have no column
            rows[found, :dim] = vectors[found]
        rows[:, dim] = found
    return rows


def run_ceat(
    contexts: Mapping[str, Mapping[str, np.ndarray]],
    test: str,
    targets: Mapping[str, WordSet],
    attributes: Mapping[str, WordSet],
    n_samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    min_coverage: float = COVERAGE_THRESHOLD,
) -> CEATTestResult:
    """CEAT on one test: ``targets`` holds sets ``"X"``, ``"Y"``; ``attributes`` holds ``"A"``,
    ``"B"``.

    Args:
        contexts: language -> word -> its ``(n_contexts, dim)`` context vectors (a word absent, or
            with no row, has no context).
        n_samples: CEAT's samples ``N``.
        seed: base seed; the sample draws use :func:`~.pipeline.measure_seed` of the unit.
        min_coverage: the coverage rule's threshold, on the words with at least one context.
    """
    _check_min_coverage(min_coverage)
    sets = [targets["X"], targets["Y"], attributes["A"], attributes["B"]]
    target_language, attribute_language = sets[0].language, sets[2].language
    unit_seed = measure_seed(seed, test, target_language, attribute_language, "ceat")
    found, coverage = [], []
    for word_set in sets:
        vectors = contexts.get(word_set.language, {})
        kept = {
            word: vectors[word] for word in word_set.words if word in vectors and len(vectors[word])
        }
        missing = tuple(word for word in word_set.words if word not in kept)
        coverage.append(
            SetCoverage(
                word_set.role, word_set.name, word_set.language, len(word_set.words), missing
            )
        )
        found.append(kept)
    reasons = [
        reason
        for reason in (_coverage_problem(report, min_coverage) for report in coverage)
        if reason
    ]
    unit = (test, target_language, attribute_language, tuple(coverage))
    if reasons:
        reason = (
            "words without a context vector (not in the corpus, or not located by the encoder): "
        )
        return CEATTestResult(*unit, None, unit_seed, reason + "; ".join(reasons))
    x, y, a, b = found
    return CEATTestResult(*unit, ceat(x, y, a, b, n_samples=n_samples, seed=unit_seed), unit_seed)
