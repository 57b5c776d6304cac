"""The ``xweat`` suite of ``xbias run``: WEAT tests T1-T10 per language and, with ``cross_lingual``, per
ordered language pair, over any model with word vectors (see :mod:`.pipeline` for the method)."""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...data.catalog import XWEAT_LANGUAGES
from ...errors import ConfigError
from ...runner.suite import Suite, Task, Unit, UnitKey
from ...stats.weat import DEFAULT_PERMUTATIONS, SIMILARITIES
from .pipeline import COVERAGE_THRESHOLD, XWEAT_TESTS, language_pairs, load_word_sets, run_xweat
from .records import xweat_records


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
    requires = "word_vectors"
    datasets = ("xweat",)
    options = {
        "tests": [],  # test names (empty: T1..T10)
        "cross_lingual": False,
        "word_mode": "template",
        "min_coverage": COVERAGE_THRESHOLD,
        "permutations": DEFAULT_PERMUTATIONS,
        "similarity": "cosine",
        # Uncertainty of d: a bootstrap resampling words within each set (0: none; 10,000 replicates add about
        # 20 ms to a test, all read from the test's one similarity matrix), and each word's leave-one-out change.
        "n_bootstrap": 10_000,
        "influence": True,
    }

    def validate_options(self, options: Mapping[str, Any]) -> None:
        """Test names, word mode, coverage threshold, permutation count and similarity, checked when the config
        is read (before any model loads)."""
        unknown = [test for test in options["tests"] if test not in XWEAT_TESTS]
        if unknown:
            raise ConfigError(f"unknown test(s) {unknown} in tests; XWEAT's tests: {', '.join(XWEAT_TESTS)}")
        if options["word_mode"] not in ("template", "static"):
            raise ConfigError(f"word_mode must be 'template' or 'static', got {options['word_mode']!r}")
        coverage = options["min_coverage"]
        if isinstance(coverage, bool) or not 0 <= coverage <= 1:
            raise ConfigError(
                f"min_coverage must be a fraction in [0, 1] (the share of a test's words the model must know; "
                f"XWEAT's is {COVERAGE_THRESHOLD}), got {coverage!r}"
            )
        permutations = options["permutations"]
        if isinstance(permutations, bool) or permutations < 1:
            raise ConfigError(f"permutations must be a whole number >= 1 (Monte-Carlo draws), got {permutations!r}")
        if options["similarity"] not in SIMILARITIES:
            raise ConfigError(f"similarity must be one of {', '.join(SIMILARITIES)}, got {options['similarity']!r}")
        n_bootstrap = options["n_bootstrap"]
        if isinstance(n_bootstrap, bool) or n_bootstrap < 0 or n_bootstrap == 1:
            raise ConfigError(f"n_bootstrap must be 0 (no bootstrap) or a whole number >= 2, got {n_bootstrap!r}")

    def expand_languages(self, languages: Sequence[str], options: Mapping[str, Any]) -> list[str]:
        pairs = language_pairs(languages, monolingual=True, cross_lingual=options["cross_lingual"])
        return [first if first == second else f"{first}-{second}" for first, second in pairs]

    def plan(self, model, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        return [UnitKey(dataset="xweat", config=language, test=test) for test in options["tests"] or XWEAT_TESTS]

    def prepare(self, task: Task, ctx) -> dict:
        targets_language, attributes_language = _pair(task.language)
        sets = {language: load_word_sets(language) for language in {targets_language, attributes_language}}
        embedder = ctx.models.word_embedder(task.model)
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
        # A model with word modes (an encoder's template / static vectors) reads them in the chosen mode and
        # keeps them in its embedding cache; static vectors are simply looked up.
        has_modes = bool(getattr(embedder, "word_modes", ()))
        mode = task.options["word_mode"] if has_modes else "static"
        words = sorted({word for roles in word_sets.values() for role in roles.values() for word in role.words})
        cache = getattr(embedder, "cache", None) if has_modes else None

        def embed(chunk: list[str]) -> np.ndarray:
            def compute(chunk: list[str]) -> np.ndarray:
                if has_modes:
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
            n_bootstrap=options["n_bootstrap"],
            influence=options["influence"],
        )
        return xweat_records(result)


def _pair(language: str) -> tuple[str, str]:
    """``"en-de"`` -> ``("en", "de")``; ``"en"`` -> ``("en", "en")``."""
    first, _, second = language.partition("-")
    return first, second or first


SUITE = XWEATSuite()
