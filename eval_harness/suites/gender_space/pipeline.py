"""The five gender-space measures of Basta et al. (2019) over a word-vector space or an encoder.

Two entry points, one report:

- :func:`evaluate_static` -- a static space (a :class:`~eval_harness.contract.WordEmbedder`,
  ``embed_words(words, language)``: :class:`~eval_harness.models.static.StaticVectors`, an
  aligned multilingual space, an encoder's word modes);
- :func:`evaluate_contextual` -- contextual vectors of words in sentences of a corpus (a
  :class:`~eval_harness.contract.ContextEmbedder`: ``embed_words_in_contexts(words,
  sentences_per_word)``).

Both need the word lists (:class:`GenderWordLists`, Bolukbasi et al. 2016 and Zhao et
al. 2018, from the ``gender_lists`` dataset) and the biased words of a *reference* static
space (:func:`reference_biased_words`): as in Gonen & Goldberg (2019) and Basta et al.
(2019), a word's original bias is its projection on ``he - she`` in that space, which
labels the most male-/female-biased words the clustering, classification and kNN use.

How the words meet the encoder in context mode:

- definitional pairs: a sampled sentence with either word of a pair, and the same sentence
  with the word swapped for its pair (every occurrence of either word, case kept); the
  difference is ``v(male word) - v(female word)``; a pair neither of whose words occurs in
  the corpus is skipped (one is enough: the swap writes the other);
- random-pair baseline: a sentence with a random reference-vocabulary word ``a`` and the
  same sentence with ``a`` swapped for another random word ``b``; as many differences as
  the definitional pairs gave, so the two spectra are comparable;
- professions (direct bias, kNN): sentences that contain none of the definitional words;
- the extended biased list (clustering, classification, kNN candidates): one random
  sentence per word and run (``settings.n_runs`` runs; the clustering list is the top
  of the extended list, so it reuses the same draws).

A word missing from the vocabulary (static) or from the corpus (context) is reported in
:attr:`GenderSpaceReport.skipped` and left out of that measure; a measure errors only when
too few words remain. A word seen in fewer sentences than there are runs reuses its sentences.
"""

from __future__ import annotations

import re
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ...contract import ContextEmbedder, StaticSpace, WordEmbedder
from ...errors import InputError
from ...stats import gender_space as space_stats
from ..contexts import embed_in_contexts
from .settings import GenderSpaceSettings

__all__ = [
    "BiasedWords",
    "ContextIndex",
    "GenderSpaceReport",
    "GenderSpaceSettings",
    "GenderWordLists",
    "evaluate_contextual",
    "evaluate_static",
    "reference_biased_words",
    "swap_words",
]

_WORD_SHAPE = re.compile(r"[a-z]+")
# Whole words as the encoder locates them (no word character on either side).
_TOKENS = re.compile(r"\w+")


# -------------------------------------------------------------------------- settings and word lists


@dataclass(frozen=True)
class GenderWordLists:
    """The word lists the measures need.

    Attributes:
        definitional_pairs: ``(male, female)`` pairs that define gender (she-he, woman-man...).
        professions: profession words (underscored phrases such as ``adjunct_professor`` are
            kept; a space without them reports them missing).
        gender_specific: lowercase words that are gendered by definition; they are left out
            of the biased lists and of the neutral professions.
        male_word, female_word: the words whose difference gives each word's original bias.
    """

    definitional_pairs: tuple[tuple[str, str], ...]
    professions: tuple[str, ...]
    gender_specific: frozenset[str]
    male_word: str = "he"
    female_word: str = "she"

    @classmethod
    def load(cls) -> GenderWordLists:
        """The lists of the shipped ``gender_lists`` dataset (built on first use)."""
        from ...data import load_gender_lists

        pairs = load_gender_lists("definitional_pairs")
        gendered: set[str] = set()
        for config in (
            "gender_specific_full",
            "male_words",
            "female_words",
            "equalize_pairs",
            "definitional_pairs",
        ):
            gendered.update(_words_of(load_gender_lists(config)))
        return cls(
            definitional_pairs=tuple((row["male"], row["female"]) for row in pairs),
            professions=tuple(load_gender_lists("professions")["word"]),
            gender_specific=frozenset(word.lower() for word in gendered),
        )

    @property
    def definitional_words(self) -> frozenset[str]:
        return frozenset(word.lower() for pair in self.definitional_pairs for word in pair)

    @property
    def neutral_professions(self) -> tuple[str, ...]:
        """Professions that are not gendered by definition (the set ``N`` of direct bias)."""
        return tuple(p for p in self.professions if p.lower() not in self.gender_specific)


def _words_of(dataset) -> list[str]:
    """Every string of a word-list dataset's string columns (pairs give both words)."""
    words: list[str] = []
    for name, feature in dataset.features.items():
        if getattr(feature, "dtype", None) == "string":
            words.extend(value for value in dataset[name] if value)
    return words


@dataclass(frozen=True)
class BiasedWords:
    """Words ranked by their original bias in a reference static space.

    Attributes:
        vocabulary: the filtered reference vocabulary (lowercase letters only, at most
            ``max_word_length`` long, not gender-specific), frequency order.
        bias: ``cos(w, he - she)`` of each vocabulary word (positive = male-biased).
        extended_male, extended_female: the ``n_extended_words`` most biased words per
            gender, most biased first; the clustering uses their first ``n_cluster_words``.
        professions: the neutral professions found in the reference space.
        profession_bias: their original bias.
        missing_professions: neutral professions absent from the reference space.
    """

    vocabulary: tuple[str, ...]
    bias: np.ndarray
    extended_male: tuple[str, ...]
    extended_female: tuple[str, ...]
    professions: tuple[str, ...]
    profession_bias: np.ndarray
    missing_professions: tuple[str, ...]


def reference_biased_words(
    reference: WordEmbedder, lists: GenderWordLists, settings: GenderSpaceSettings | None = None
) -> BiasedWords:
    """The biased-word lists of Gonen & Goldberg (2019) from a reference static space.

    Vocabulary: the first ``settings.vocabulary_size`` words of ``reference.words``
    (vector files are frequency-ordered) that are lowercase letters only, at most
    ``max_word_length`` long and not gender-specific. Bias:
    ``b(w) = cos(w, he - she)`` (:func:`~eval_harness.stats.gender_space.gender_projection`).

    Args:
        reference: a static space with ``words`` (frequency order) and ``embed_words``.
        lists: the word lists.
        settings: the measures' settings (vocabulary size and list lengths).
    """
    settings = settings or GenderSpaceSettings()
    if not isinstance(reference, StaticSpace):
        raise InputError(
            "the reference space must be a static space "
            "with a frequency-ordered `words` list (GloVe)"
        )
    vocabulary = [
        word
        for word in reference.words[: settings.vocabulary_size]
        if _WORD_SHAPE.fullmatch(word)
        and len(word) <= settings.max_word_length
        and word not in lists.gender_specific
    ]
    anchors, found = reference.embed_words([lists.male_word, lists.female_word], None)
    if not found.all():
        raise InputError(
            f"the reference space lacks {lists.male_word!r} or "
            f"{lists.female_word!r}: no he - she axis to rank words"
        )
    vectors, _ = reference.embed_words(vocabulary, None)
    bias = space_stats.gender_projection(vectors, anchors[0], anchors[1])
    male, female = space_stats.most_biased(bias, settings.n_extended_words)
    professions = lists.neutral_professions
    profession_vectors, profession_found = reference.embed_words(professions, None)
    return BiasedWords(
        vocabulary=tuple(vocabulary),
        bias=bias,
        extended_male=tuple(vocabulary[i] for i in male),
        extended_female=tuple(vocabulary[i] for i in female),
        professions=tuple(p for p, ok in zip(professions, profession_found, strict=True) if ok),
        profession_bias=space_stats.gender_projection(
            profession_vectors[profession_found], anchors[0], anchors[1]
        ),
        missing_professions=tuple(
            p for p, ok in zip(professions, profession_found, strict=True) if not ok
        ),
    )


# ---------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class GenderSpaceReport:
    """The five measures for one model (static or contextual).

    Attributes:
        mode: ``"static"`` or ``"context"``.
        measures: the five results (:class:`~eval_harness.stats.gender_space.GenderSpaceMeasures`).
        skipped: per list, the words left out and why (``{"word": ..., "reason": ...}``).
        counts: per list, how many words (or sentences) were used.
        settings: the settings used.
    """

    mode: str
    measures: space_stats.GenderSpaceMeasures
    skipped: Mapping[str, tuple[Mapping[str, str], ...]] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)
    settings: GenderSpaceSettings = field(default_factory=GenderSpaceSettings)

    def to_dict(self) -> dict:
        return {
            "mode": self.mode,
            **self.measures.to_dict(),
            "skipped": {
                name: [dict(item) for item in items] for name, items in self.skipped.items()
            },
            "counts": dict(self.counts),
            "settings": self.settings.to_dict(),
        }

    def summary(self) -> str:
        lines = [f"gender space ({self.mode} vectors)", self.measures.summary()]
        for name, items in self.skipped.items():
            by_reason: dict[str, list[str]] = {}
            for item in items:
                by_reason.setdefault(item["reason"], []).append(item["word"])
            for reason, words in by_reason.items():
                more = f" (+{len(words) - 8} more)" if len(words) > 8 else ""
                lines.append(
                    f"skipped {len(words)} {name} ({reason}): {', '.join(words[:8])}{more}"
                )
        return "\n".join(lines)


class _Rows:
    """Vectors labelled by role, word, run and bias: the input of ``gender_space_measures``."""

    def __init__(self):
        self.vectors: list[np.ndarray] = []
        self.role: list[str] = []
        self.word: list[str] = []
        self.run: list[int] = []
        self.bias: list[float] = []

    def add(self, vectors, role: str, words: Sequence[str], run: int = 0, bias=None) -> None:
        if not len(words):
            return
        vectors = np.asarray(vectors, dtype=np.float64).reshape(len(words), -1)
        self.vectors.extend(vectors)
        self.role.extend([role] * len(words))
        self.word.extend(words)
        self.run.extend([run] * len(words))
        self.bias.extend([np.nan] * len(words) if bias is None else list(bias))

    def components(self, asked: int) -> int:
        """``asked``, or as many principal components as the pair rows have (``min(n, d)``), saying
        so with one warning when that is fewer: the suite's default (10) is "up to 10", and a run is
        not stopped because some definitional pairs were missing from a model's vocabulary."""
        n_pairs = self.role.count("pair_male")
        possible = min(n_pairs, len(self.vectors[0])) if n_pairs else asked
        if asked > possible:
            warnings.warn(
                f"gender_space: n_components={asked}, but {n_pairs} "
                f"definitional pair rows of dimension {len(self.vectors[0])} "
                f"have {possible} principal components; {possible} are reported",
                RuntimeWarning,
                # the caller of _measure_space: evaluate_static or evaluate_contextual
                stacklevel=4,
            )
        return min(asked, possible)

    def measure(
        self, settings: GenderSpaceSettings, n_runs: int | None
    ) -> space_stats.GenderSpaceMeasures:
        return space_stats.gender_space_measures(
            np.array(self.vectors),
            self.role,
            word=self.word,
            run=self.run,
            bias=np.array(self.bias),
            n_components=self.components(settings.n_components),
            c=settings.c,
            n_cluster_words=settings.n_cluster_words,
            n_train=settings.n_train,
            n_runs=n_runs,
            k=settings.k,
            seed=settings.seed,
        )


def _initial_skipped(biased: BiasedWords) -> dict[str, list]:
    """The skipped-word lists, starting with the professions the reference space lacks."""
    return {
        "definitional_pairs": [],
        "professions": [
            {"word": p, "reason": "not in the reference space"} for p in biased.missing_professions
        ],
        "biased_words": [],
    }


def _usable_pairs(
    pairs,
    missing_words: Callable[[tuple[str, str]], list[str]],
    min_pairs: int,
    reason: str,
    skipped: list,
) -> list[tuple[str, str]]:
    """Pairs with no missing word; the others are reported; fewer than ``min_pairs`` left is an
    error."""
    kept = []
    for male, female in pairs:
        missing = missing_words((male, female))
        if missing:
            skipped.append(
                {"word": f"{male}/{female}", "reason": f"{reason}: {', '.join(missing)}"}
            )
        else:
            kept.append((male, female))
    if len(kept) < min_pairs:
        raise InputError(
            f"only {len(kept)} definitional pair(s) usable (need "
            f"{min_pairs}); skipped: {[item['word'] for item in skipped]} "
            f"({reason}); use a space or corpus that has these words"
        )
    return kept


def _profession_bias(biased: BiasedWords, professions: Sequence[str]) -> list[float]:
    bias_of = dict(zip(biased.professions, biased.profession_bias.tolist(), strict=True))
    return [bias_of[p] for p in professions]


class _ModeSteps(ABC):
    """Where a mode's vectors come from: the four steps :func:`_measure_space` takes in order.

    The steps share one random generator (``settings.seed``) and draw from it in the order they run,
    so the order of the steps is part of the numbers. ``counts`` gathers what the steps kept, in the
    order the report lists it.
    """

    mode: str
    # Contexts per word (static vectors: 1), and the ``n_runs`` the measures are given (None: the
    # rows' runs).
    context_runs: int
    measure_runs: int | None

    def __init__(self, settings: GenderSpaceSettings):
        self.settings = settings
        self.rng = np.random.default_rng(settings.seed)
        self.counts: dict[str, int] = {}

    @abstractmethod
    def definitional_pairs(self, rows: _Rows, skipped: list) -> None:
        """Add the rows of the definitional pairs (``pair_male``, ``pair_female``)."""

    @abstractmethod
    def random_pairs(self, rows: _Rows) -> None:
        """Add the rows of the random-pair baseline (``random_first``, ``random_second``, a run per
        draw)."""

    @abstractmethod
    def professions(self, skipped: list) -> dict[str, np.ndarray]:
        """Each profession's vectors, ``(context_runs, d)``."""

    @abstractmethod
    def biased_words(self, skipped: list) -> dict[str, np.ndarray]:
        """Each word of the extended biased lists' vectors, ``(context_runs, d)``."""


def _measure_space(steps: _ModeSteps, biased: BiasedWords) -> GenderSpaceReport:
    """The five measures of one mode: its four steps' vectors as rows, measured, with what was
    skipped."""
    skipped = _initial_skipped(biased)
    rows = _Rows()
    steps.definitional_pairs(rows, skipped["definitional_pairs"])
    steps.random_pairs(rows)
    profession_vectors = steps.professions(skipped["professions"])
    word_vectors = steps.biased_words(skipped["biased_words"])
    professions = list(profession_vectors)
    profession_bias = _profession_bias(biased, professions)
    for run in range(steps.context_runs):
        rows.add(
            [profession_vectors[p][run] for p in professions],
            "neutral",
            professions,
            run,
            profession_bias,
        )
        for role, listed in (("male", biased.extended_male), ("female", biased.extended_female)):
            kept = [w for w in listed if w in word_vectors]
            rows.add([word_vectors[w][run] for w in kept], role, kept, run=run)
    result = rows.measure(steps.settings, n_runs=steps.measure_runs)
    return GenderSpaceReport(
        mode=steps.mode,
        measures=result,
        skipped={name: tuple(items) for name, items in skipped.items()},
        counts={
            **steps.counts,
            "professions": len(professions),
            "cluster_words": 0 if result.clustering is None else result.clustering.n_words,
            "extended_words": len(word_vectors),
        },
        settings=steps.settings,
    )


# ---------------------------------------------------------------------------- static mode


class _StaticSteps(_ModeSteps):
    """The steps on a static space: each word's one vector, a word the space lacks skipped."""

    mode = "static"
    context_runs = 1
    reason = "not in the vocabulary"

    def __init__(
        self,
        space: WordEmbedder,
        biased: BiasedWords,
        lists: GenderWordLists,
        settings: GenderSpaceSettings,
        language: str | None,
    ):
        super().__init__(settings)
        self.space, self.biased, self.lists, self.language = space, biased, lists, language
        # Clustering and kNN are deterministic for static vectors; classification draws n_runs
        # splits.
        self.measure_runs = settings.n_runs

    def present(
        self, words: Sequence[str], skipped_list: list | None = None
    ) -> dict[str, np.ndarray]:
        """The vectors of the ``words`` the space has; the others added to ``skipped_list``."""
        vectors, found = self.space.embed_words(list(words), self.language)
        if skipped_list is not None:
            skipped_list.extend(
                {"word": w, "reason": self.reason}
                for w, ok in zip(words, found, strict=True)
                if not ok
            )
        return {w: v for w, v, ok in zip(words, np.asarray(vectors), found, strict=True) if ok}

    def definitional_pairs(self, rows: _Rows, skipped: list) -> None:
        pair_vectors = self.present(
            sorted({w for pair in self.lists.definitional_pairs for w in pair})
        )
        self.pairs = _usable_pairs(
            self.lists.definitional_pairs,
            lambda pair: [w for w in pair if w not in pair_vectors],
            self.settings.min_pairs,
            self.reason,
            skipped,
        )
        rows.add([pair_vectors[m] for m, _ in self.pairs], "pair_male", [m for m, _ in self.pairs])
        rows.add(
            [pair_vectors[f] for _, f in self.pairs], "pair_female", [f for _, f in self.pairs]
        )
        self.counts["definitional_pairs"] = len(self.pairs)

    def random_pairs(self, rows: _Rows) -> None:
        # A random sample of the reference vocabulary, twice what the draws need (some may be
        # missing from the space); embedding the whole vocabulary would waste an encoder's time.
        vocabulary, n_draws = self.biased.vocabulary, self.settings.n_baseline_draws
        sample_size = min(len(vocabulary), 4 * len(self.pairs) * n_draws)
        sample = self.rng.choice(len(vocabulary), size=sample_size, replace=False)
        pool = self.present([vocabulary[i] for i in np.sort(sample)])
        pool_words = list(pool)
        for draw in range(n_draws):
            chosen = space_stats.random_pair_indices(len(pool_words), len(self.pairs), self.rng)
            for role, column in (("random_first", 0), ("random_second", 1)):
                words = [pool_words[i] for i in chosen[:, column]]
                rows.add([pool[w] for w in words], role, words, run=draw)
        self.counts["baseline_pool"] = len(pool_words)

    def professions(self, skipped: list) -> dict[str, np.ndarray]:
        return {p: v[None] for p, v in self.present(self.biased.professions, skipped).items()}

    def biased_words(self, skipped: list) -> dict[str, np.ndarray]:
        words = self.biased.extended_male + self.biased.extended_female
        return {w: v[None] for w, v in self.present(words, skipped).items()}


def evaluate_static(
    space: WordEmbedder,
    biased: BiasedWords,
    lists: GenderWordLists,
    settings: GenderSpaceSettings | None = None,
    language: str | None = None,
) -> GenderSpaceReport:
    """The five measures on a static space (see the module docstring).

    Clustering and kNN are deterministic for static vectors (1 run); classification
    draws ``settings.n_runs`` random splits. The baseline pairs are drawn from a random
    sample of the reference vocabulary (the words of it the space knows).

    Args:
        space: a :class:`~eval_harness.contract.WordEmbedder` (``embed_words(words, language) ->
        (vectors, found)``).
        biased: the reference's biased words (:func:`reference_biased_words`).
        lists: the word lists.
        settings: the measures' settings.
        language: passed to ``embed_words``.
    """
    steps = _StaticSteps(space, biased, lists, settings or GenderSpaceSettings(), language)
    return _measure_space(steps, biased)


# ---------------------------------------------------------------------------- context mode


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def swap_words(sentence: str, mapping: Mapping[str, str]) -> str:
    """``sentence`` with every whole-word occurrence of a key of ``mapping`` replaced by its
    value, case-insensitively, keeping the case shape (``She`` -> ``He``, ``SHE`` -> ``HE``).

    All replacements happen at once, so ``{"he": "she", "she": "he"}`` swaps the two.
    """
    lowered = {key.lower(): value for key, value in mapping.items()}
    pattern = re.compile(
        r"(?<!\w)(" + "|".join(map(re.escape, sorted(lowered, key=len, reverse=True))) + r")(?!\w)",
        re.IGNORECASE,
    )
    return pattern.sub(
        lambda match: _match_case(match.group(0), lowered[match.group(0).lower()]), sentence
    )


class ContextIndex:
    r"""Which sentences of a corpus contain which words (whole words, case-insensitive).

    Words are runs of word characters (``\w+``), the rule the encoder locates words by:
    ``"nurse's"`` contains ``nurse``, ``"nurse2"`` does not.
    """

    def __init__(self, sentences: Iterable[str]):
        self.sentences = [str(s) for s in sentences if str(s).strip()]
        if not self.sentences:
            raise InputError(
                "the corpus has no sentences: give a text file or dataset column with text"
            )
        self._tokens = [frozenset(_TOKENS.findall(s.lower())) for s in self.sentences]
        self._postings: dict[str, list[int]] = {}
        for row, tokens in enumerate(self._tokens):
            for token in tokens:
                self._postings.setdefault(token, []).append(row)

    def __len__(self) -> int:
        return len(self.sentences)

    def contains(self, row: int, word: str) -> bool:
        """Whether sentence ``row`` contains ``word``."""
        return word.lower() in self._tokens[row]

    def sentence_ids(self, word: str, avoid: frozenset[str] = frozenset()) -> list[int]:
        """Rows of the sentences that contain ``word`` and none of the words in ``avoid``."""
        rows = self._postings.get(word.lower(), [])
        return [row for row in rows if not self._tokens[row] & avoid] if avoid else list(rows)

    def sample(
        self, word: str, n: int, rng: np.random.Generator, avoid: frozenset[str] = frozenset()
    ) -> list[str]:
        """``n`` random sentences with ``word`` (without replacement when there are enough); [] if
        none."""
        rows = self.sentence_ids(word, avoid)
        if not rows:
            return []
        chosen = rng.choice(len(rows), size=n, replace=len(rows) < n)
        return [self.sentences[rows[i]] for i in chosen]


def _pair_contexts(
    index: ContextIndex, pairs, n_per_pair: int, rng
) -> list[tuple[str, str, str, str]]:
    """``(male, female, sentence with male, same sentence with female)`` for sampled sentences."""
    swaps = []
    for male, female in pairs:
        sentence_ids = sorted(set(index.sentence_ids(male)) | set(index.sentence_ids(female)))
        for row in rng.choice(sentence_ids, size=min(n_per_pair, len(sentence_ids)), replace=False):
            sentence = index.sentences[row]
            swapped = swap_words(sentence, {male: female, female: male})
            if index.contains(row, male):
                swaps.append((male, female, sentence, swapped))
            else:
                swaps.append((male, female, swapped, sentence))
    return swaps


def _swapped_pair_vectors(encoder: ContextEmbedder, swaps) -> tuple[np.ndarray, np.ndarray, int]:
    """Vectors of both sides of each swap; swaps the encoder could not locate on a side are
    dropped."""
    vectors, found = embed_in_contexts(
        encoder, [(m, s) for m, _, s, _ in swaps] + [(f, s) for _, f, _, s in swaps]
    )
    n = len(swaps)
    both = found[:n] & found[n:]
    return vectors[:n][both], vectors[n:][both], int((~both).sum())


def _per_run_vectors(
    encoder: ContextEmbedder, contexts: Mapping[str, list[str]], n_runs: int
) -> tuple[dict[str, np.ndarray], list]:
    """``word -> (n_runs, d)`` vectors, one context per run; words the encoder could not locate
    in one of their sentences are returned separately (they cannot take part in every run)."""
    words = [w for w, sentences in contexts.items() if sentences]
    vectors, found = embed_in_contexts(encoder, [(w, s) for w in words for s in contexts[w]])
    vectors, found = vectors.reshape(len(words), n_runs, -1), found.reshape(len(words), n_runs)
    complete = np.asarray(found.all(axis=1))
    kept = {w: v for w, v, ok in zip(words, vectors, complete, strict=True) if ok}
    return kept, [w for w, ok in zip(words, complete, strict=True) if not ok]


class _ContextSteps(_ModeSteps):
    """The steps on contextual vectors: each word in sentences of a corpus, a word it lacks
    skipped."""

    mode = "context"
    measure_runs = None
    reason = "no sentence of the corpus contains it"
    unlocated = (
        "the encoder found no token of it in a sampled sentence "
        "(cut off by truncation, or inside an unknown token)"
    )

    def __init__(
        self,
        encoder: ContextEmbedder,
        index: ContextIndex,
        biased: BiasedWords,
        lists: GenderWordLists,
        settings: GenderSpaceSettings,
        progress: bool,
        status: Callable[[str], None] | None,
    ):
        super().__init__(settings)
        self.encoder, self.index, self.biased, self.lists, self.status = (
            encoder,
            index,
            biased,
            lists,
            status,
        )
        self.context_runs = settings.n_runs
        self.steps = tqdm(total=4, desc="gender space: contextual vectors", disable=not progress)
        self.counts["corpus_sentences"] = len(index)

    def say(self, message: str) -> None:
        """Show what the next embedding step does (the bar's postfix, and ``status``)."""
        self.steps.set_postfix_str(message)
        if self.status is not None:
            self.status(f"gender space, {message}")

    def definitional_pairs(self, rows: _Rows, skipped: list) -> None:
        # A pair needs one of its words in the corpus: the swap writes the other.
        pairs = _usable_pairs(
            self.lists.definitional_pairs,
            lambda pair: [] if any(self.index.sentence_ids(w) for w in pair) else list(pair),
            self.settings.min_pairs,
            self.reason,
            skipped,
        )
        swaps = _pair_contexts(self.index, pairs, self.settings.contexts_per_pair, self.rng)
        self.say(f"definitional pairs: {len(swaps)} sentences and their swapped copies")
        male_vectors, female_vectors, lost_pairs = _swapped_pair_vectors(self.encoder, swaps)
        if len(male_vectors) < 2:
            raise InputError(
                "the encoder located the pair words in only "
                f"{len(male_vectors)} swapped sentence pair(s)"
            )
        rows.add(male_vectors, "pair_male", [f"pair{i}" for i in range(len(male_vectors))])
        rows.add(female_vectors, "pair_female", [f"pair{i}" for i in range(len(female_vectors))])
        self.counts.update(
            definitional_pairs=len(pairs),
            pair_differences=len(male_vectors),
            pair_contexts_unlocated=lost_pairs,
        )
        self.steps.update()

    def random_pairs(self, rows: _Rows) -> None:
        # The biased words' contexts are drawn first: the generator's draws keep the order they
        # always had.
        extended = self.biased.extended_male + self.biased.extended_female
        self.contexts = {w: self.index.sample(w, self.settings.n_runs, self.rng) for w in extended}
        n_differences = self.counts["pair_differences"]
        pool = [w for w in self.biased.vocabulary if self.index.sentence_ids(w)]
        if len(pool) < 2 * n_differences:
            raise InputError(
                f"only {len(pool)} reference-vocabulary words occur in the corpus; "
                f"the random-pair baseline needs {2 * n_differences} (two per pair "
                "difference): use a larger corpus or fewer contexts_per_pair"
            )
        draws = []
        self.say(
            f"random-pair baseline: {self.settings.n_baseline_draws} "
            f"draws of {n_differences} swapped sentences"
        )
        for _ in range(self.settings.n_baseline_draws):
            indices = space_stats.random_pair_indices(len(pool), n_differences, self.rng)
            chosen = [(pool[a], pool[b]) for a, b in indices]
            sentences = [self.index.sample(a, 1, self.rng)[0] for a, _ in chosen]
            draws.append(
                _swapped_pair_vectors(
                    self.encoder,
                    [
                        (a, b, s, swap_words(s, {a: b}))
                        for (a, b), s in zip(chosen, sentences, strict=True)
                    ],
                )
            )
        # A pair the encoder cannot locate is rare (truncation): every draw keeps as many pairs as
        # the shortest.
        size = min(len(first) for first, _, _ in draws)
        for draw, (first, second, _) in enumerate(draws):
            labels = [f"random{i}" for i in range(size)]
            rows.add(first[:size], "random_first", labels, run=draw)
            rows.add(second[:size], "random_second", labels, run=draw)
        self.steps.update()

    def professions(self, skipped: list) -> dict[str, np.ndarray]:
        n_runs, avoid = self.settings.n_runs, self.lists.definitional_words
        contexts = {
            p: self.index.sample(p, n_runs, self.rng, avoid=avoid) for p in self.biased.professions
        }
        skipped.extend(
            {
                "word": p,
                "reason": "no sentence of the corpus contains it without a definitional word",
            }
            for p in self.biased.professions
            if not contexts[p]
        )
        self.say(f"professions: {len(contexts)} words in context, {n_runs} runs")
        vectors, lost = _per_run_vectors(self.encoder, contexts, n_runs)
        skipped.extend({"word": p, "reason": self.unlocated} for p in lost)
        if not vectors:
            raise InputError(
                "no profession occurs in the corpus (without "
                "a definitional word): no direct bias or kNN"
            )
        self.steps.update()
        return vectors

    def biased_words(self, skipped: list) -> dict[str, np.ndarray]:
        extended = self.biased.extended_male + self.biased.extended_female
        skipped.extend({"word": w, "reason": self.reason} for w in extended if not self.contexts[w])
        self.say(
            f"biased words: {len(self.contexts)} words in context, {self.settings.n_runs} runs"
        )
        vectors, lost = _per_run_vectors(self.encoder, self.contexts, self.settings.n_runs)
        skipped.extend({"word": w, "reason": self.unlocated} for w in lost)
        return vectors

    def finish(self) -> None:
        """Close the progress bar: its last step, the measures, is done."""
        self.steps.update()
        self.steps.close()


def evaluate_contextual(
    encoder: ContextEmbedder,
    corpus: Iterable[str] | ContextIndex,
    biased: BiasedWords,
    lists: GenderWordLists,
    settings: GenderSpaceSettings | None = None,
    show_progress: bool = True,
    status: Callable[[str], None] | None = None,
) -> GenderSpaceReport:
    """The five measures on contextual vectors of words in sentences of ``corpus``.

    See the module docstring for how sentences are chosen. Clustering, classification
    and kNN run ``settings.n_runs`` times, each on a fresh context draw; the direct bias
    averages each profession over its ``n_runs`` contexts.

    Args:
        encoder: has ``embed_words_in_contexts(words, sentences_per_word, on_missing)``
            returning ``{word: (k, d)}`` (a :class:`~eval_harness.models.ContextVectors`).
        corpus: sentences (any iterable of str) or a prepared :class:`ContextIndex`.
        biased: the reference's biased words (:func:`reference_biased_words`).
        lists: the word lists.
        settings: the measures' settings.
        show_progress: a tqdm bar over the embedding steps.
        status: called with what each embedding step is doing (how many sentences), before it
        starts.
    """
    settings = settings or GenderSpaceSettings()
    index = corpus if isinstance(corpus, ContextIndex) else ContextIndex(corpus)
    steps = _ContextSteps(encoder, index, biased, lists, settings, show_progress, status)
    report = _measure_space(steps, biased)
    steps.finish()
    return report
