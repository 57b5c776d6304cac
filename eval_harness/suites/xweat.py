"""XWEAT (Lauscher & Glavaš 2019): the ten WEAT tests per language and across languages, over any WordEmbedder.

A *WordEmbedder* has ``embed_words(words, language) -> (vectors (n, d), found (n,) bool)``:
:class:`~eval_harness.models.static.StaticVectors` (one language),
:class:`~eval_harness.models.static.AlignedStaticSpaces` (monolingual spaces aligned by Procrustes) or a
multilingual encoder's word mode.

- **Monolingual** test (language L, L): targets X, Y and attributes A, B all in L.
- **Cross-lingual** test (L1, L2): targets in L1 and attributes in L2, embedded in one shared space;
  :func:`language_pairs` gives every ordered pair of distinct languages.
- **Coverage rule** (XWEAT's): words missing from the embedder are dropped and reported per set; a test
  is *skipped*, with the reason in its result (not an exception), when any of the four sets keeps less
  than ``min_coverage`` (default 80 %) of its words. Sets are not truncated to equal sizes (XWEAT pops
  words until they are; :func:`eval_harness.stats.weat.weat` supports unequal sizes).
- Monte-Carlo seeds: unit ``(test, L1, L2)`` draws from ``SeedSequence(seed, spawn_key=crc32(key))``, so a
  result does not depend on which other tests ran or in what order.

Word lists come from the ``xweat`` dataset (:func:`eval_harness.data.load_xweat`), or are given directly.
"""

import re
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ..data.xweat import XWEAT_LANGUAGES
from ..errors import InputError
from ..stats.weat import DEFAULT_PERMUTATIONS, WEATResult, weat
from . import Suite, Task, Unit, UnitKey

COVERAGE_THRESHOLD = 0.8
XWEAT_TESTS = tuple(f"T{number}" for number in range(1, 11))
# The xweat dataset's role names -> WEAT's set names.
DATASET_ROLES = {"target_x": "X", "target_y": "Y", "attribute_a": "A", "attribute_b": "B"}
SET_ROLES = tuple(DATASET_ROLES.values())


@dataclass(frozen=True)
class WordSet:
    """One WEAT word set in one language: ``role`` is ``"X"``, ``"Y"``, ``"A"`` or ``"B"``."""

    role: str
    name: str
    language: str
    words: tuple[str, ...]


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
        return {**asdict(self), "missing": list(self.missing), "n_found": self.n_found, "fraction": self.fraction}


@dataclass(frozen=True)
class XWEATResult:
    """One test on one (target language, attribute language) pair: a WEAT result, or the reason it was skipped.

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
    """test -> role -> :class:`WordSet` from rows with ``test``, ``role``, ``set_name``, ``words`` (the dataset's)."""
    sets: dict[str, dict[str, WordSet]] = {}
    for row in rows:
        if row["role"] not in DATASET_ROLES:
            raise InputError(
                f"unknown XWEAT role {row['role']!r} in test {row['test']}; expected {list(DATASET_ROLES)}"
            )
        role = DATASET_ROLES[row["role"]]
        sets.setdefault(row["test"], {})[role] = WordSet(role, row["set_name"], language, tuple(row["words"]))
    incomplete = {test: sorted(roles) for test, roles in sets.items() if set(roles) != set(SET_ROLES)}
    if incomplete:
        raise InputError(f"XWEAT tests without all four sets X, Y, A, B ({language}): {incomplete}")
    return sets


def load_word_sets(language: str) -> dict[str, dict[str, WordSet]]:
    """The ``xweat`` dataset's word sets of ``language``: test -> role -> :class:`WordSet`."""
    from ..data import load_xweat

    return word_sets_from_rows(load_xweat(language), language)


def xweat_dictionaries(languages: Sequence[str], pivot: str = "en") -> dict[str, list[tuple[str, str]]]:
    """language -> ``(english word, translation)`` pairs from the XWEAT translations (every form of a word).

    For :meth:`AlignedStaticSpaces.fit <eval_harness.models.static.AlignedStaticSpaces.fit>` with the
    English space as pivot. Aligning on the very words the tests use makes the alignment as good as it
    can be for those words; give a larger, disjoint dictionary to measure bias in a space aligned
    independently of the tests.
    """
    from ..data import load_xweat_translations

    if pivot != "en":
        raise InputError(f"the XWEAT translations go from English; use pivot='en' (got {pivot!r})")
    return {
        language: [(row["english"], form) for row in load_xweat_translations(language) for form in row["forms"]]
        for language in languages
        if language != pivot
    }


def language_pairs(
    languages: Sequence[str], monolingual: bool = True, cross_lingual: bool = False
) -> list[tuple[str, str]]:
    """(target language, attribute language) pairs: ``(L, L)`` and/or every ordered ``(L1, L2)``, ``L1 != L2``."""
    pairs = [(language, language) for language in languages] if monolingual else []
    if cross_lingual:
        pairs += [(first, second) for first in languages for second in languages if first != second]
    return pairs


def set_coverage(embedder, word_set: WordSet) -> tuple[np.ndarray, SetCoverage]:
    """The vectors of the words ``embedder`` knows, and the set's coverage report."""
    vectors, found = embedder.embed_words(list(word_set.words), word_set.language)
    found = np.asarray(found, dtype=bool)
    missing = tuple(word for word, known in zip(word_set.words, found, strict=True) if not known)
    coverage = SetCoverage(word_set.role, word_set.name, word_set.language, len(word_set.words), missing)
    return np.asarray(vectors)[found], coverage


def run_test(
    embedder,
    test: str,
    targets: Mapping[str, WordSet],
    attributes: Mapping[str, WordSet],
    min_coverage: float = COVERAGE_THRESHOLD,
    **weat_options,
) -> XWEATResult:
    """One WEAT test: ``targets`` holds sets ``"X"``, ``"Y"``; ``attributes`` holds ``"A"``, ``"B"``.

    ``weat_options`` go to :func:`eval_harness.stats.weat.weat` (similarity, permutations, seed, ...).
    """
    _check_min_coverage(min_coverage)
    sets = [targets["X"], targets["Y"], attributes["A"], attributes["B"]]
    embedded = [set_coverage(embedder, word_set) for word_set in sets]
    coverage = tuple(report for _, report in embedded)
    reasons = [_coverage_problem(report, min_coverage) for report in coverage]
    reasons = [reason for reason in reasons if reason]
    target_language, attribute_language = sets[0].language, sets[2].language
    if reasons:
        return XWEATResult(test, target_language, attribute_language, coverage, None, "; ".join(reasons))
    result = weat(*(vectors for vectors, _ in embedded), **weat_options)
    return XWEATResult(test, target_language, attribute_language, coverage, result)


def run_xweat(
    embedder,
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
        word_sets: language -> test -> role -> :class:`WordSet`; languages not given are read with ``load``.
        min_coverage: the coverage rule's threshold (0.8 as XWEAT).
        seed: base seed of the Monte-Carlo draws (``None``: fresh entropy); each unit derives its own.
        load: reads one language's word sets (default: the ``xweat`` dataset).
        weat_options: passed to :func:`eval_harness.stats.weat.weat`.
    """
    _check_min_coverage(min_coverage)
    languages = sorted({language for pair in pairs for language in pair})
    sets = {language: (word_sets or {}).get(language) or load(language) for language in languages}
    results = []
    for target_language, attribute_language in tqdm(pairs, desc="XWEAT language pairs", disable=None):
        target_sets, attribute_sets = sets[target_language], sets[attribute_language]
        names = list(tests) if tests is not None else sorted(target_sets, key=_natural_key)
        unknown = [name for name in names if name not in target_sets or name not in attribute_sets]
        if unknown:
            raise InputError(
                f"test(s) {unknown} missing from the word sets of {target_language!r}/{attribute_language!r}; "
                f"available: {sorted(target_sets, key=_natural_key)}"
            )
        for name in names:
            unit_seed = None if seed is None else _unit_seed(seed, name, target_language, attribute_language)
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
    """A pandas DataFrame of ``field`` for ``test``: rows target language, columns attribute language.

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
        np.nan, index=pd.Index(languages, name="targets"), columns=pd.Index(languages, name="attributes")
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
        f"set {coverage.role} ({coverage.name}, {coverage.language}) keeps {coverage.n_found} of {coverage.n_words} "
        f"words ({coverage.fraction:.0%}), below the {min_coverage:.0%} coverage rule; missing: {shown}"
    )


def _check_min_coverage(min_coverage: float) -> None:
    if not (isinstance(min_coverage, int | float) and 0 <= min_coverage <= 1) or isinstance(min_coverage, bool):
        raise InputError(f"min_coverage must be a fraction in [0, 1]; got {min_coverage!r}")


def _unit_seed(seed: int, test: str, target_language: str, attribute_language: str) -> np.random.SeedSequence:
    key = zlib.crc32(f"{test}|{target_language}|{attribute_language}".encode())
    return np.random.SeedSequence(entropy=seed, spawn_key=(key,))


def _natural_key(name: str) -> tuple:
    """``T2`` before ``T10``."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


# -- the ``xweat`` suite of ``xbias run`` -------------------------------------------------------------------------


class PrecomputedWords:
    """A WordEmbedder over vectors computed beforehand: ``(language, word) -> (vector, found)``."""

    def __init__(self, table: Mapping[tuple[str, str], tuple[np.ndarray, bool]]):
        self.table = table

    def embed_words(self, words: Sequence[str], language: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        rows = [self.table[(language, word)] for word in words]
        return np.stack([vector for vector, _ in rows]), np.array([found for _, found in rows], dtype=bool)


class XWEATSuite(Suite):
    """WEAT tests per language, and (``cross_lingual``) for every ordered pair of the languages.

    A unit is one test on one language (``language="de"``) or pair (``language="en-de"``: targets
    in English, attributes in German). ``prepare`` embeds every word of a language's tests once per
    run (and keeps an encoder's vectors in the embedding cache), the words shared over the ranks;
    ``evaluate`` runs :func:`run_xweat` on one test, so a unit's Monte-Carlo draws are those of the
    library call. Encoders give word vectors by ``word_mode``
    (``"template"``: the word inside short templates of its language; ``"static"``: input embeddings).
    """

    name = "xweat"
    description = "WEAT tests T1-T10 per language (XWEAT); every ordered language pair with cross_lingual"
    languages = XWEAT_LANGUAGES
    model_types = ("encoder", "static_mlp")
    datasets = ("xweat",)
    options = {
        "tests": [],  # test names (empty: T1..T10)
        "cross_lingual": False,
        "word_mode": "template",
        "min_coverage": COVERAGE_THRESHOLD,
        "permutations": DEFAULT_PERMUTATIONS,
        "similarity": "cosine",
    }

    def expand_languages(self, languages: Sequence[str], options: Mapping[str, Any]) -> list[str]:
        pairs = language_pairs(languages, monolingual=True, cross_lingual=options["cross_lingual"])
        return [first if first == second else f"{first}-{second}" for first, second in pairs]

    def plan(self, model, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        return [UnitKey(dataset="xweat", config=language, test=test) for test in options["tests"] or XWEAT_TESTS]

    def prepare(self, task: Task, ctx) -> dict:
        from ..runner.loading import word_embedder

        targets_language, attributes_language = _pair(task.language)
        sets = {language: load_word_sets(language) for language in {targets_language, attributes_language}}
        embedder = word_embedder(task.model, ctx)
        table = {}
        for language in sets:
            table.update(self._language_vectors(task, ctx, embedder, language, sets[language]))
        return {"sets": sets, "embedder": PrecomputedWords(table), "options": task.options}

    @staticmethod
    def _language_vectors(task: Task, ctx, embedder, language: str, word_sets) -> dict:
        """Vectors of every word of ``language``'s tests, keyed ``(language, word)``.

        Computed once per run and language (the language pairs of a cross-lingual sweep share
        them), the words shared over the ranks in fixed chunks; an encoder keeps each chunk in the
        run's embedding cache, so a warm re-run embeds nothing.
        """
        mode = task.options["word_mode"] if task.model.type == "encoder" else "static"
        words = sorted({word for roles in word_sets.values() for role in roles.values() for word in role.words})
        cache = getattr(embedder, "cache", None) if task.model.type == "encoder" else None

        def embed(chunk: list[str]) -> np.ndarray:
            def compute(chunk: list[str]) -> np.ndarray:
                if task.model.type == "encoder":
                    vectors, found = embedder.embed_words(chunk, language, mode=mode)
                else:
                    vectors, found = embedder.embed_words(chunk, language)
                return np.column_stack([vectors, found]).astype(np.float32)  # last column: found

            if cache is None:
                return compute(chunk)
            return cache.get_or_compute(embedder.fingerprint, f"words-{mode}-{language}", chunk, compute)

        def build() -> dict:
            rows = ctx.dist.map(embed, words, chunk_size=64, desc="word vectors" if ctx.show_progress else None)
            return {(language, word): (row[:-1], bool(row[-1])) for word, row in zip(words, rows, strict=True)}

        return ctx.shared((task.model.name, "xweat-words", language, mode), build)

    def evaluate(self, unit: Unit, prepared: dict, ctx) -> list[dict]:
        options = prepared["options"]
        pair = _pair(unit.language)
        (result,) = run_xweat(
            prepared["embedder"],
            [pair],
            tests=[unit.test],
            word_sets=prepared["sets"],
            min_coverage=options["min_coverage"],
            seed=unit.seed,
            permutations=options["permutations"],
            similarity=options["similarity"],
        )
        return xweat_records(result)


def xweat_records(result: XWEATResult) -> list[dict]:
    """Long-format records of one test: ``effect_size`` and ``statistic`` (None, with the skip reason in
    ``note``, when the coverage rule skipped it) and ``coverage`` (the smallest fraction of a set's words found)."""
    languages = {"targets_language": result.target_language, "attributes_language": result.attribute_language}
    coverage = {
        "metric": "coverage",
        "value": min(report.fraction for report in result.coverage),
        "missing": {report.role: list(report.missing) for report in result.coverage if report.missing},
        **languages,
    }
    if result.weat is None:
        skipped = {"value": None, "status": "skipped", "note": result.skip_reason, **languages}
        return [{"metric": "effect_size", **skipped}, {"metric": "statistic", **skipped}, coverage]
    weat_result = result.weat
    details = {
        "p_value": weat_result.p_value,
        "p_value_method": weat_result.p_value_method,
        "n_permutations": weat_result.n_permutations,
        "p_value_mc_std_err": weat_result.mc_std_err,
        "n_x": weat_result.n_x,
        "n_y": weat_result.n_y,
        "n_a": weat_result.n_a,
        "n_b": weat_result.n_b,
        "similarity": weat_result.similarity,
        "alternative": weat_result.alternative,
        "ddof": weat_result.ddof,
        "status": "ok",
        **languages,
    }
    return [
        {"metric": "effect_size", "value": weat_result.effect_size, **details},
        {"metric": "statistic", "value": weat_result.statistic, **details},
        coverage,
    ]


def _pair(language: str) -> tuple[str, str]:
    """``"en-de"`` -> ``("en", "de")``; ``"en"`` -> ``("en", "en")``."""
    first, _, second = language.partition("-")
    return first, second or first


SUITE = XWEATSuite()
