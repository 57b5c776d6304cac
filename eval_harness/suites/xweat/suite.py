"""The ``xweat`` suite of ``xbias run``: WEAT tests T1-T10 per language and, with ``cross_lingual``,
per ordered language pair, over any model with word vectors (see :mod:`.pipeline` for the method) —
and, with ``measures``, the other association measures of the same tests:

- ``weat`` (default): WEAT on the model's word vectors (an encoder's in its ``word_mode``);
- ``rnd``, ``mac``, ``ect``, ``ripa``, ``rnsb``: the word-embedding association measures on the same
  word vectors, and any other registered in :data:`.measures.WORD_MEASURES`;
- ``seat``: WEAT on the sentence vectors of the words in bleached templates (:mod:`.seat`), for
  models with ``encode(texts)``; English templates are packaged, other languages' come from
  ``seat_templates``;
- ``ceat``: WEAT effect sizes over contexts sampled from a ``corpus``, combined by a random-effects
  model (:mod:`.ceat`), for models with contextual word vectors (the ``context_vectors``
  capability).

Why measures of one suite rather than suites of their own: they are the same ten tests, with the
same word sets, languages, language pairs, coverage rule and seeds; only what a word's rows are
differs (a word vector, the word's template sentences, its sampled contexts). One unit per test then
holds every measure of the test, one run computes them side by side, and the report puts them next
to each other; and the runner's registry stays as it is. Records: :mod:`.records`. Samples: every
unit keeps each word's coverage and association ``s(w, A, B)`` beside its unit file
(:mod:`.samples`, whose schema declares the columns).

A test asks for at most 10^7 Monte-Carlo draws of each kind (``permutations``, ``n_bootstrap``,
``ceat_samples``; about 10 s a test): a config asking for more is refused when it is read, saying
what it would take; ``XBIAS_MAX_DRAWS=<n>`` raises the limit
(:func:`~eval_harness.stats.weat.check_draw_budget`).
"""

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ...contract import (
    CachedEmbedder,
    ContextEmbedder,
    ModalWordEmbedder,
    SentenceEncoder,
    Suite,
    SuiteContext,
    Task,
    Unit,
    UnitKey,
    WordEmbedder,
)
from ...data.catalog import SEMEVAL_LANGUAGES, XWEAT_LANGUAGES
from ...errors import ConfigError, InputError
from ...stats.ceat import DEFAULT_SAMPLES
from ...stats.weat import (
    DEFAULT_PERMUTATIONS,
    SIMILARITIES,
    check_bootstrap_count,
    check_draw_counts,
)
from .ceat import embed_contexts, run_ceat, sample_contexts
from .measures import CONTEXT_MEASURES, WORD_MEASURES, run_association
from .pipeline import COVERAGE_THRESHOLD, XWEAT_TESTS, language_pairs, load_word_sets, run_xweat
from .records import XWEAT_RECORDS, association_records, ceat_records, seat_records, xweat_records
from .samples import XWEAT_SAMPLES, xweat_samples
from .seat import (
    TEMPLATES_KEY,
    PrecomputedSentences,
    SEATResult,
    resolve_templates,
    run_seat,
    set_sentences,
)

SEMEVAL_CORPUS = "semeval2018"
# An option that only one measure reads -> that measure (a config that sets it without the measure
# is refused).
MEASURE_OF_OPTION = {TEMPLATES_KEY: "seat", "corpus": "ceat"}


def measure_names() -> tuple[str, ...]:
    """The names the ``measures`` option takes: WEAT, the word measures
    (:data:`.measures.WORD_MEASURES`), SEAT and CEAT, in the order a unit's records come."""
    return ("weat", *WORD_MEASURES, *CONTEXT_MEASURES)


class PrecomputedWords:
    """A :class:`~eval_harness.contract.WordEmbedder` over vectors computed beforehand: ``(language,
    word) -> (vector, found)``."""

    def __init__(self, table: Mapping[tuple[str, str], tuple[np.ndarray, bool]]):
        self.table = table

    def embed_words(
        self, words: Sequence[str], language: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        if language is None:
            raise InputError(
                "the precomputed word vectors are per language: give the words' language"
            )
        rows = [self.table[(language, word)] for word in words]
        return np.stack([vector for vector, _ in rows]), np.array(
            [found for _, found in rows], dtype=bool
        )


class XWEATSuite(Suite):
    """WEAT tests per language, and (``cross_lingual``) for every ordered pair of the languages.

    A unit is one test on one language (``language="de"``) or pair (``language="en-de"``: targets
    in English, attributes in German). ``prepare`` embeds every word of a language's tests once per
    run (and keeps an encoder's vectors in the embedding cache), the words shared over the ranks;
    ``evaluate`` runs :func:`run_xweat` on one test, so a unit's Monte-Carlo draws are those of the
    library call. Encoders give word vectors by ``word_mode``
    (``"template"``: the word inside short templates of its language; ``"static"``: input
    embeddings). ``measures`` adds the other association measures (module docstring); SEAT's
    sentence vectors and CEAT's context vectors are computed in ``prepare`` too, once per language.
    """

    name = "xweat"
    description = (
        "WEAT tests T1-T10 per language (XWEAT); every ordered language pair with cross_lingual; "
        "RND, MAC, ECT, RIPA, RNSB, SEAT and CEAT with measures"
    )
    languages = XWEAT_LANGUAGES
    requires = "word_vectors"
    datasets = ("xweat",)
    records = XWEAT_RECORDS
    samples = XWEAT_SAMPLES
    report_section = "eval_harness.suites.xweat.report:SECTION"
    options = {
        "tests": [],  # test names (empty: T1..T10)
        "cross_lingual": False,
        "word_mode": "template",
        "min_coverage": COVERAGE_THRESHOLD,
        "permutations": DEFAULT_PERMUTATIONS,
        "similarity": "cosine",
        # Uncertainty of d: a bootstrap resampling words within each set (0: none; 10,000 replicates
        # add about 20 ms to a test, all read from the test's one similarity matrix), and each
        # word's leave-one-out change.
        "n_bootstrap": 10_000,
        "influence": True,
        "measures": ["weat"],  # any of measure_names()
        # seat: language -> templates (a list, {kind: list}, or a YAML/JSON file)
        TEMPLATES_KEY: None,
        "corpus": "",  # ceat: "semeval2018", or a text/csv/json/parquet file of sentences
        "corpus_column": "text",  # ceat: the column of a csv/json/parquet corpus
        "contexts_per_word": 100,  # ceat: sentences sampled per word (at most)
        "ceat_samples": DEFAULT_SAMPLES,  # ceat: samples N of one context per word
    }

    def validate_options(self, options: Mapping[str, Any]) -> None:
        """Test names, word mode, coverage threshold, permutation and bootstrap counts (and their
        bound, ``$XBIAS_MAX_DRAWS``), similarity and measures, checked when the config is read
        (before any model loads)."""
        unknown = [test for test in options["tests"] if test not in XWEAT_TESTS]
        if unknown:
            raise ConfigError(
                f"unknown test(s) {unknown} in tests; XWEAT's tests: {', '.join(XWEAT_TESTS)}"
            )
        if options["word_mode"] not in ("template", "static"):
            raise ConfigError(
                f"word_mode must be 'template' or 'static', got {options['word_mode']!r}"
            )
        coverage = options["min_coverage"]
        if isinstance(coverage, bool) or not 0 <= coverage <= 1:
            raise ConfigError(
                "min_coverage must be a fraction in [0, 1] (the share of a test's words "
                f"the model must know; XWEAT's is {COVERAGE_THRESHOLD}), got {coverage!r}"
            )
        permutations = options["permutations"]
        if isinstance(permutations, bool) or permutations < 1:
            raise ConfigError(
                "permutations must be a whole number >= 1 "
                f"(Monte-Carlo draws), got {permutations!r}"
            )
        if options["similarity"] not in SIMILARITIES:
            raise ConfigError(
                f"similarity must be one of {', '.join(SIMILARITIES)}, "
                f"got {options['similarity']!r}"
            )
        try:
            check_bootstrap_count(
                options["n_bootstrap"]
            )  # the option's one check, where WEAT's bootstrap is
            check_draw_counts(
                {name: options[name] for name in ("permutations", "n_bootstrap", "ceat_samples")}
            )
        except InputError as error:
            raise ConfigError(str(error)) from None
        measures, known = options["measures"], measure_names()
        if not measures or not all(isinstance(measure, str) for measure in measures):
            raise ConfigError(
                "measures must be a non-empty list of names "
                f"from {', '.join(known)}; got {measures!r}"
            )
        unknown = [measure for measure in measures if measure not in known]
        if unknown:
            raise ConfigError(
                f"unknown measure(s) {', '.join(map(repr, unknown))}; measures: {', '.join(known)}"
            )
        if len(set(measures)) != len(measures):
            raise ConfigError(f"measures names a measure twice: {measures}")
        for option, measure in MEASURE_OF_OPTION.items():
            if options[option] and measure not in measures:
                raise ConfigError(
                    f"`{option}` is read by measure {measure!r} "
                    f"only: add it to measures or drop {option}"
                )
        templates = options[TEMPLATES_KEY]
        if templates is not None and not (
            isinstance(templates, Mapping)
            and all(isinstance(language, str) for language in templates)
        ):
            raise ConfigError(
                f"{TEMPLATES_KEY} must map a language to its templates (a "
                "list, {kind: list} or a file), e.g. {de: ['Das ist "
                f"{{word}}.', '{{word}} ist hier.']}}; got {templates!r}"
            )
        if "ceat" in measures:
            _check_ceat_options(options)

    def expand_languages(self, languages: Sequence[str], options: Mapping[str, Any]) -> list[str]:
        # Languages are known here, not in validate_options: check what each measure needs of them.
        if "seat" in options["measures"]:
            for language in languages:
                try:
                    resolve_templates(language, options[TEMPLATES_KEY])
                except ConfigError as error:
                    raise ConfigError(f"suites.xweat: {error}") from None
        if "ceat" in options["measures"] and options["corpus"] == SEMEVAL_CORPUS:
            lacking = [language for language in languages if language not in SEMEVAL_LANGUAGES]
            if lacking:
                raise ConfigError(
                    f"suites.xweat: measure 'ceat': corpus {SEMEVAL_CORPUS!r} has "
                    f"{', '.join(SEMEVAL_LANGUAGES)} only, not {', '.join(lacking)}: "
                    "give `corpus:` a file of sentences in those languages"
                )
        pairs = language_pairs(languages, monolingual=True, cross_lingual=options["cross_lingual"])
        return [first if first == second else f"{first}-{second}" for first, second in pairs]

    def plan(self, model, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        if "ceat" in options["measures"] and "context_vectors" not in model.capabilities:
            raise ConfigError(
                "suites.xweat: measure 'ceat' needs contextual word vectors (the "
                f"context_vectors capability, e.g. an encoder); model {model.name!r} is "
                f"{model.type!r}: drop 'ceat' from measures or that model from the config"
            )
        return [
            UnitKey(dataset="xweat", config=language, test=test)
            for test in options["tests"] or XWEAT_TESTS
        ]

    def prepare(self, task: Task, ctx: SuiteContext) -> dict:
        options, measures = task.options, task.options["measures"]
        # Sorted: every rank must compute the languages' vectors (collective steps) in the same
        # order.
        languages = sorted(set(_pair(task.language)))
        # Read once per run (every model and language pair uses a language's sets): a key led by
        # None outlives models.
        sets = {
            language: ctx.shared(
                (None, "xweat-word-sets", language), partial(load_word_sets, language)
            )
            for language in languages
        }
        tests = options["tests"] or XWEAT_TESTS
        embedder = ctx.models.word_embedder(task.model)
        prepared: dict[str, Any] = {"sets": sets, "options": options}
        if set(measures) & {"weat", *WORD_MEASURES}:
            table = {}
            for language in languages:
                table.update(self._language_vectors(task, ctx, embedder, language, sets[language]))
            prepared["embedder"] = PrecomputedWords(table)
        if "seat" in measures:
            prepared["seat"] = self._seat_sentences(
                task, ctx, embedder, {lang: sets[lang] for lang in languages}, tests
            )
        if "ceat" in measures:
            if not isinstance(embedder, ContextEmbedder):
                raise ConfigError(
                    f"measure 'ceat': model {task.model.name!r} gives no context vectors"
                )
            prepared["contexts"] = {
                language: self._context_vectors(
                    task, ctx, embedder, language, sets[language], tests
                )
                for language in languages
            }
        return prepared

    @staticmethod
    def _language_vectors(
        task: Task, ctx: SuiteContext, embedder: WordEmbedder, language: str, word_sets: Mapping
    ) -> dict:
        """Vectors of every word of ``language``'s tests, keyed ``(language, word)``.

        Computed once per run and language (the language pairs of a cross-lingual sweep share
        them), the words shared over the ranks in fixed chunks; an encoder keeps each chunk in the
        run's embedding cache, so a warm re-run embeds nothing.
        """
        # A model with word modes (an encoder's template / static vectors) reads them in the chosen
        # mode and keeps them in its embedding cache; static vectors are simply looked up.
        modal = (
            embedder if isinstance(embedder, ModalWordEmbedder) and embedder.word_modes else None
        )
        mode = task.options["word_mode"] if modal is not None else "static"
        words = sorted(
            {word for roles in word_sets.values() for role in roles.values() for word in role.words}
        )
        cache = modal.cache if isinstance(modal, CachedEmbedder) else None

        def embed(chunk: list[str]) -> np.ndarray:
            def compute(chunk: list[str]) -> np.ndarray:
                if modal is not None:
                    vectors, found = modal.embed_words(chunk, language, mode=mode)
                else:
                    vectors, found = embedder.embed_words(chunk, language)
                return np.column_stack([vectors, found]).astype(np.float32)  # last column: found

            if not isinstance(modal, CachedEmbedder) or cache is None:
                return compute(chunk)
            return cache.get_or_compute(
                modal.fingerprint, f"words-{mode}-{language}", chunk, compute
            )

        def build() -> dict:
            rows = ctx.dist.map(
                embed, words, chunk_size=64, desc="word vectors" if ctx.show_progress else None
            )
            return {
                (language, word): (row[:-1], bool(row[-1]))
                for word, row in zip(words, rows, strict=True)
            }

        return ctx.shared((task.model.name, "xweat-words", language, mode), build)

    @staticmethod
    def _seat_sentences(
        task: Task, ctx: SuiteContext, embedder: WordEmbedder, sets: Mapping, tests: Sequence[str]
    ) -> dict:
        """SEAT's templates per language and the sentence vectors of the tests' words in them
        (``encoder``: a :class:`.seat.PrecomputedSentences`), or the reason the model cannot run
        SEAT (``skip_reason``)."""
        if not isinstance(embedder, SentenceEncoder):
            return {
                "skip_reason": f"model {task.model.name!r} ({task.model.type}) gives no sentence "
                "vectors (no encode(texts)); SEAT needs a sentence encoder"
            }
        templates = {
            language: resolve_templates(language, task.options[TEMPLATES_KEY]) for language in sets
        }
        table = {}
        for language, word_sets in sets.items():
            sentences = sorted(
                {
                    sentence
                    for test in tests
                    for word_set in word_sets[test].values()
                    for sentence in set_sentences(word_set, templates[language])
                }
            )

            def build(sentences: list[str] = sentences) -> dict:
                return dict(zip(sentences, np.asarray(embedder.encode(sentences)), strict=True))

            table.update(ctx.shared((task.model.name, "xweat-seat", language, tuple(tests)), build))
        return {"encoder": PrecomputedSentences(table), "templates": templates}

    @staticmethod
    def _context_vectors(
        task: Task,
        ctx: SuiteContext,
        embedder: ContextEmbedder,
        language: str,
        word_sets: Mapping,
        tests: Sequence[str],
    ) -> dict:
        """word -> its ``(n, dim)`` context vectors in ``language``'s corpus (CEAT), for the words
        of ``tests``.

        The contexts are drawn with the task's seed (:func:`.ceat.sample_contexts`); the (word,
        sentence) pairs are shared over the ranks in fixed chunks, each kept in the run's embedding
        cache.
        """
        options = task.options
        words = sorted(
            {word for test in tests for role in word_sets[test].values() for word in role.words}
        )
        cache = embedder.cache if isinstance(embedder, CachedEmbedder) else None
        dim = int(embedder.dim)

        def embed(chunk: list[tuple[str, str]]) -> np.ndarray:
            if not isinstance(embedder, CachedEmbedder) or cache is None:
                return embed_contexts(embedder, chunk, dim)
            keys = [f"{word}\t{sentence}" for word, sentence in chunk]  # a word holds no tab
            return cache.get_or_compute(
                embedder.fingerprint,
                f"contexts-{language}",
                keys,
                lambda _: embed_contexts(embedder, chunk, dim),
            )

        def build() -> dict:
            from ...data import (
                load_corpus,
            )  # here, not at the top: `datasets` is slow to import (xbias list)

            corpus = load_corpus(
                options["corpus"], column=options["corpus_column"], language=language
            )
            contexts = sample_contexts(
                words, corpus, options["contexts_per_word"], task.seed, language
            )
            requests = [(word, sentence) for word in words for sentence in contexts[word]]
            desc = f"CEAT context vectors ({language})" if ctx.show_progress else None
            rows = ctx.dist.map(embed, requests, chunk_size=256, desc=desc) if requests else []
            by_word: dict[str, list[np.ndarray]] = {word: [] for word in words}
            for (word, _), row in zip(requests, rows, strict=True):
                if row[-1] > 0:  # the encoder located the word in the sentence
                    by_word[word].append(row[:-1])
            return {
                word: np.array(vectors, dtype=np.float32).reshape(-1, dim)
                for word, vectors in by_word.items()
            }

        key = (task.model.name, "xweat-ceat", language, options["corpus"], options["corpus_column"])
        return ctx.shared((*key, options["contexts_per_word"], tuple(tests), task.seed), build)

    def evaluate(self, unit: Unit, prepared: dict, ctx: SuiteContext) -> list[dict]:
        options = prepared["options"]
        measures = options["measures"]
        pair, test = _pair(unit.language), unit.part("test")
        targets, attributes = prepared["sets"][pair[0]][test], prepared["sets"][pair[1]][test]
        records = []
        if "weat" in measures:
            (result,) = run_xweat(
                prepared["embedder"],
                [pair],
                tests=[test],
                word_sets=prepared["sets"],
                min_coverage=options["min_coverage"],
                seed=unit.seed,
                permutations=options["permutations"],
                similarity=options["similarity"],
                n_bootstrap=options["n_bootstrap"],
                influence=options["influence"],
            )
            records += xweat_records(result)
        word_measures = [measure for measure in WORD_MEASURES if measure in measures]
        if word_measures:
            association = run_association(
                prepared["embedder"],
                test,
                targets,
                attributes,
                word_measures,
                min_coverage=options["min_coverage"],
                seed=unit.seed,
            )
            records += association_records(association, with_coverage="weat" not in measures)
        if "seat" in measures:
            seat = prepared["seat"]
            if "skip_reason" in seat:
                seat_result = SEATResult(test, *pair, weat=None, skip_reason=seat["skip_reason"])
            else:
                seat_result = run_seat(
                    seat["encoder"],
                    test,
                    targets,
                    attributes,
                    seat["templates"],
                    seed=unit.seed,
                    permutations=options["permutations"],
                    similarity=options["similarity"],
                )
            records += seat_records(seat_result)
        if "ceat" in measures:
            ceat_result = run_ceat(
                prepared["contexts"],
                test,
                targets,
                attributes,
                n_samples=options["ceat_samples"],
                seed=unit.seed,
                min_coverage=options["min_coverage"],
            )
            records += ceat_records(ceat_result, options["corpus"], options["contexts_per_word"])
        return records

    def unit_samples(self, unit: Unit, prepared: dict, ctx: SuiteContext) -> dict:
        """Every word of the unit's test: found or not, and a target word's ``s(w, A, B)``
        (:mod:`.samples`)."""
        pair, test = _pair(unit.language), unit.part("test")
        targets, attributes = prepared["sets"][pair[0]][test], prepared["sets"][pair[1]][test]
        sets = {"X": targets["X"], "Y": targets["Y"], "A": attributes["A"], "B": attributes["B"]}
        similarity = prepared["options"]["similarity"]
        return xweat_samples(test, unit.language, sets, prepared.get("embedder"), similarity)


def _check_ceat_options(options: Mapping[str, Any]) -> None:
    corpus = options["corpus"]
    if not corpus:
        raise ConfigError(
            f"measure 'ceat' needs a corpus: set `corpus: {SEMEVAL_CORPUS}` or the path of "
            "a text file (one sentence per line) or a csv/json/parquet file of sentences"
        )
    if corpus != SEMEVAL_CORPUS and not Path(corpus).expanduser().is_file():
        raise ConfigError(
            f"corpus {corpus!r} is not a file; give a file of sentences or {SEMEVAL_CORPUS!r}"
        )
    for name, lowest in (("contexts_per_word", 1), ("ceat_samples", 2)):
        if options[name] < lowest:
            raise ConfigError(f"{name} must be at least {lowest}; got {options[name]}")


def _pair(language: str) -> tuple[str, str]:
    """``"en-de"`` -> ``("en", "de")``; ``"en"`` -> ``("en", "en")``."""
    first, _, second = language.partition("-")
    return first, second or first


SUITE = XWEATSuite()
