"""XWEAT (Lauscher & Glavaš 2019): the ten WEAT tests per language and across languages, over any
WordEmbedder.

A :class:`~eval_harness.contract.WordEmbedder` (a capability protocol of the contract) has
``embed_words(words, language) -> (vectors (n, d), found (n,) bool)``:
:class:`~eval_harness.models.static.StaticVectors` (one language),
:class:`~eval_harness.models.static.AlignedStaticSpaces` (monolingual spaces aligned by Procrustes)
or a multilingual encoder's word mode.

- **Monolingual** test (language L, L): targets X, Y and attributes A, B all in L.
- **Cross-lingual** test (L1, L2): targets in L1 and attributes in L2, embedded in one shared space;
  :func:`language_pairs` gives every ordered pair of distinct languages.
- **Coverage rule** (XWEAT's): words missing from the embedder are dropped and reported per set; a
  test is *skipped*, with the reason in its result (not an exception), when any of the four sets
  keeps less than ``min_coverage`` (default 80 %) of its words. Sets are not truncated to equal
  sizes (XWEAT pops words until they are; :func:`eval_harness.stats.weat.weat` supports unequal
  sizes).
- Monte-Carlo seeds: unit ``(test, L1, L2)`` draws from ``SeedSequence(seed,
  spawn_key=crc32(key))``, so a result does not depend on which other tests ran or in what order.

Word lists come from the ``xweat`` dataset (:func:`eval_harness.data.load_xweat`), or are given
directly.
"""

import re
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from ...contract import WordEmbedder
from ...errors import InputError
from ...stats.weat import WEATResult, weat
from ...stats.word_sets import distinct_rows

COVERAGE_THRESHOLD = 0.8
XWEAT_TESTS = tuple(f"T{number}" for number in range(1, 11))
# The xweat dataset's role names -> WEAT's set names.
DATASET_ROLES = {"target_x": "X", "target_y": "Y", "attribute_a": "A", "attribute_b": "B"}
SET_ROLES = tuple(DATASET_ROLES.values())


@dataclass(frozen=True)
class WordSet:
    """One WEAT word set in one language: ``role`` is ``"X"``, ``"Y"``, ``"A"`` or ``"B"``.

    Every word list of the suite enters here (WEAT, the association measures, SEAT and CEAT all read
    ``words``): a word listed more than once is kept once, at its first position, with one
    :class:`~eval_harness.errors.DuplicateWordsWarning` (:mod:`eval_harness.stats.word_sets`, WEFE's
    convention).
    """

    role: str
    name: str
    language: str
    words: tuple[str, ...]

    def __post_init__(self):
        label = f"{self.role} ({self.name}, {self.language})"
        words = tuple(str(word) for word in self.words)
        kept = distinct_rows({label: words}, stacklevel=4)[label]
        object.__setattr__(self, "words", tuple(words[row] for row in kept))


# language -> test -> role -> WordSet
WordSets = Mapping[str, Mapping[str, Mapping[str, WordSet]]]


@dataclass(frozen=True)
class SetCoverage:
    """Which words of one set the embedder knows.

    Attributes:
        role, name, language: the set.
        n_words: words in the set.
        missing: the words the embedder does not know (in set order).
    """

    role: str
    name: str
    language: str
    n_words: int
    missing: tuple[str, ...]

    @property
    def n_found(self) -> int:
        return self.n_words - len(self.missing)

    @property
    def fraction(self) -> float:
        return self.n_found / self.n_words if self.n_words else 0.0

    def to_dict(self) -> dict:
        return {
            **asdict(self),
            "missing": list(self.missing),
            "n_found": self.n_found,
            "fraction": self.fraction,
        }


@dataclass(frozen=True)
class XWEATResult:
    """One test on one (target language, attribute language) pair: a WEAT result, or the reason it
    was skipped.

    Attributes:
        test: e.g. ``"T1"``.
        target_language, attribute_language: equal for a monolingual test.
        coverage: the four sets' :class:`SetCoverage`, in X, Y, A, B order.
        weat: the :class:`~eval_harness.stats.weat.WEATResult`, ``None`` when skipped.
        skip_reason: why the test was skipped (``None`` when it ran).
    """

    test: str
    target_language: str
    attribute_language: str
    coverage: tuple[SetCoverage, ...]
    weat: WEATResult | None
    skip_reason: str | None = None

    @property
    def status(self) -> str:
        return "skipped" if self.weat is None else "ok"

    @property
    def cross_lingual(self) -> bool:
        return self.target_language != self.attribute_language

    def to_dict(self) -> dict:
        return {
            "test": self.test,
            "target_language": self.target_language,
            "attribute_language": self.attribute_language,
            "status": self.status,
            "skip_reason": self.skip_reason,
            "coverage": [set_coverage.to_dict() for set_coverage in self.coverage],
            "weat": None if self.weat is None else self.weat.to_dict(),
        }

    def summary(self) -> str:
        where = f"{self.test} [{self.target_language}->{self.attribute_language}]"
        if self.weat is None:
            return f"{where} skipped: {self.skip_reason}"
        return f"{where} {self.weat.summary()}"


def word_sets_from_rows(rows: Iterable[Mapping], language: str) -> dict[str, dict[str, WordSet]]:
    """test -> role -> :class:`WordSet` from rows with ``test``, ``role``, ``set_name``, ``words``
    (the dataset's)."""
    sets: dict[str, dict[str, WordSet]] = {}
    for row in rows:
        if row["role"] not in DATASET_ROLES:
            raise InputError(
                f"unknown XWEAT role {row['role']!r} in test "
                f"{row['test']}; expected {list(DATASET_ROLES)}"
            )
        role = DATASET_ROLES[row["role"]]
        sets.setdefault(row["test"], {})[role] = WordSet(
            role, row["set_name"], language, tuple(row["words"])
        )
    incomplete = {
        test: sorted(roles) for test, roles in sets.items() if set(roles) != set(SET_ROLES)
    }
    if incomplete:
        raise InputError(f"XWEAT tests without all four sets X, Y, A, B ({language}): {incomplete}")
    return sets


def load_word_sets(language: str) -> dict[str, dict[str, WordSet]]:
    """The ``xweat`` dataset's word sets of ``language``: test -> role -> :class:`WordSet`."""
    from ...data import load_xweat

    return word_sets_from_rows(load_xweat(language), language)


def xweat_dictionaries(
    languages: Sequence[str], pivot: str = "en"
) -> dict[str, list[tuple[str, str]]]:
    """language -> ``(english word, translation)`` pairs from the XWEAT translations (every form of
    a word).

    For :meth:`AlignedStaticSpaces.fit <eval_harness.models.static.AlignedStaticSpaces.fit>` with
    the English space as pivot. Aligning on the very words the tests use makes the alignment as good
    as it can be for those words; give a larger, disjoint dictionary to measure bias in a space
    aligned independently of the tests.
    """
    from ...data import load_xweat_translations

    if pivot != "en":
        raise InputError(f"the XWEAT translations go from English; use pivot='en' (got {pivot!r})")
    return {
        language: [
            (row["english"], form)
            for row in load_xweat_translations(language)
            for form in row["forms"]
        ]
        for language in languages
        if language != pivot
    }


def language_pairs(
    languages: Sequence[str], monolingual: bool = True, cross_lingual: bool = False
) -> list[tuple[str, str]]:
    """(target language, attribute language) pairs: ``(L, L)`` and/or every ordered ``(L1, L2)``,
    ``L1 != L2``."""
    pairs = [(language, language) for language in languages] if monolingual else []
    if cross_lingual:
        pairs += [(first, second) for first in languages for second in languages if first != second]
    return pairs


def set_coverage(embedder: WordEmbedder, word_set: WordSet) -> tuple[np.ndarray, SetCoverage]:
    """The vectors of the words ``embedder`` knows, and the set's coverage report."""
    vectors, found = embedder.embed_words(list(word_set.words), word_set.language)
    found = np.asarray(found, dtype=bool)
    missing = tuple(word for word, known in zip(word_set.words, found, strict=True) if not known)
    coverage = SetCoverage(
        word_set.role, word_set.name, word_set.language, len(word_set.words), missing
    )
    return np.asarray(vectors)[found], coverage


def run_test(
    embedder: WordEmbedder,
    test: str,
    targets: Mapping[str, WordSet],
    attributes: Mapping[str, WordSet],
    min_coverage: float = COVERAGE_THRESHOLD,
    **weat_options,
) -> XWEATResult:
    """One WEAT test: ``targets`` holds sets ``"X"``, ``"Y"``; ``attributes`` holds ``"A"``,
    ``"B"``.

    ``weat_options`` go to :func:`eval_harness.stats.weat.weat` (similarity, permutations, seed,
    ...).
    """
    _check_min_coverage(min_coverage)
    sets = [targets["X"], targets["Y"], attributes["A"], attributes["B"]]
    embedded = [set_coverage(embedder, word_set) for word_set in sets]
    coverage = tuple(report for _, report in embedded)
    problems = (_coverage_problem(report, min_coverage) for report in coverage)
    reasons = [reason for reason in problems if reason] + [
        f"target set {report.role} keeps {len(vectors)} "
        "word(s); an effect size needs at least two in each"
        for vectors, report in embedded[:2]
        if len(vectors) < 2
    ]
    target_language, attribute_language = sets[0].language, sets[2].language
    if reasons:
        return XWEATResult(
            test, target_language, attribute_language, coverage, None, "; ".join(reasons)
        )
    # The words behind the vectors (those found), so that the influence list names them.
    words = {
        ws.role: [w for w in ws.words if w not in report.missing]
        for ws, report in zip(sets, coverage, strict=True)
    }
    x, y, a, b = (vectors for vectors, _ in embedded)
    result = weat(x, y, a, b, words=words, **weat_options)
    return XWEATResult(test, target_language, attribute_language, coverage, result)


def run_xweat(
    embedder: WordEmbedder,
    pairs: Sequence[tuple[str, str]],
    tests: Sequence[str] | None = None,
    word_sets: WordSets | None = None,
    min_coverage: float = COVERAGE_THRESHOLD,
    seed: int | None = 0,
    load: Callable[[str], Mapping[str, Mapping[str, WordSet]]] = load_word_sets,
    **weat_options,
) -> list[XWEATResult]:
    """Run ``tests`` (default: all, T1..T10) for every (target language, attribute language) pair.

    Args:
        embedder: a WordEmbedder whose space holds both languages of every pair.
        pairs: from :func:`language_pairs`.
        tests: test names; default every test of the word sets, in natural order.
        word_sets: language -> test -> role -> :class:`WordSet`; languages not given are read with
        ``load``.
        min_coverage: the coverage rule's threshold (0.8 as XWEAT).
        seed: base seed of the Monte-Carlo draws (``None``: fresh entropy); each unit derives its
        own.
        load: reads one language's word sets (default: the ``xweat`` dataset).
        weat_options: passed to :func:`eval_harness.stats.weat.weat`.
    """
    from tqdm.auto import (
        tqdm,
    )  # here: tqdm.auto imports asyncio, which `xbias list` (it lists this suite) never needs

    _check_min_coverage(min_coverage)
    languages = sorted({language for pair in pairs for language in pair})
    sets = {language: (word_sets or {}).get(language) or load(language) for language in languages}
    results = []
    for target_language, attribute_language in tqdm(
        pairs, desc="XWEAT language pairs", disable=None
    ):
        target_sets, attribute_sets = sets[target_language], sets[attribute_language]
        names = list(tests) if tests is not None else sorted(target_sets, key=_natural_key)
        unknown = [name for name in names if name not in target_sets or name not in attribute_sets]
        if unknown:
            raise InputError(
                f"test(s) {unknown} missing from the word sets of "
                f"{target_language!r}/{attribute_language!r}; "
                f"available: {sorted(target_sets, key=_natural_key)}"
            )
        for name in names:
            unit_seed = (
                None
                if seed is None
                else _unit_seed(seed, name, target_language, attribute_language)
            )
            results.append(
                run_test(
                    embedder,
                    name,
                    target_sets[name],
                    attribute_sets[name],
                    min_coverage=min_coverage,
                    seed=unit_seed,
                    **weat_options,
                )
            )
    return results


def cross_lingual_matrix(results: Iterable[XWEATResult], test: str, field: str = "effect_size"):
    """A pandas DataFrame of ``field`` for ``test``: rows target language, columns attribute
    language.

    Cells of skipped tests (and pairs not run) are NaN; the diagonal holds the monolingual results.
    """
    import pandas as pd

    cells = {}
    for result in results:
        if result.test == test:
            value = None if result.weat is None else getattr(result.weat, field)
            cells[(result.target_language, result.attribute_language)] = value
    if not cells:
        raise InputError(f"no result for test {test!r}")
    languages = sorted({language for pair in cells for language in pair})
    matrix = pd.DataFrame(
        np.nan,
        index=pd.Index(languages, name="targets"),
        columns=pd.Index(languages, name="attributes"),
    )
    for (target_language, attribute_language), value in cells.items():
        if value is not None:
            matrix.loc[target_language, attribute_language] = value
    return matrix


def _coverage_problem(coverage: SetCoverage, min_coverage: float) -> str | None:
    if coverage.n_found and coverage.fraction >= min_coverage:
        return None
    shown = ", ".join(coverage.missing[:8]) + (
        f", ... (+{len(coverage.missing) - 8} more)" if len(coverage.missing) > 8 else ""
    )
    return (
        f"set {coverage.role} ({coverage.name}, {coverage.language}) keeps "
        f"{coverage.n_found} of {coverage.n_words} words ({coverage.fraction:.0%}), "
        f"below the {min_coverage:.0%} coverage rule; missing: {shown}"
    )


def _check_min_coverage(min_coverage: float) -> None:
    if not (isinstance(min_coverage, int | float) and 0 <= min_coverage <= 1) or isinstance(
        min_coverage, bool
    ):
        raise InputError(f"min_coverage must be a fraction in [0, 1]; got {min_coverage!r}")


def _unit_seed(
    seed: int, test: str, target_language: str, attribute_language: str
) -> np.random.SeedSequence:
    key = zlib.crc32(f"{test}|{target_language}|{attribute_language}".encode())
    return np.random.SeedSequence(entropy=seed, spawn_key=(key,))


def measure_seed(
    seed: int, test: str, target_language: str, attribute_language: str, measure: str
) -> int:
    """The integer seed of ``measure``'s draws in unit ``(test, L1, L2)``: from ``SeedSequence(seed,
    spawn_key= (crc32(key), crc32(measure)))``, so each measure has a stream of its own, independent
    of WEAT's and of the other units (an int, so that the records can state it)."""
    key = zlib.crc32(f"{test}|{target_language}|{attribute_language}".encode())
    sequence = np.random.SeedSequence(entropy=seed, spawn_key=(key, zlib.crc32(measure.encode())))
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


def _natural_key(name: str) -> tuple:
    """``T2`` before ``T10``."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))
