"""The ``gender_space`` suite (Basta et al. 2019): five gender-bias measures of a model's word
vectors.

For a model and a language (English: the word lists are English):

- with a ``corpus`` (option, or ``--corpus``), **context mode**: the words' contextual vectors
  in sentences of the corpus (``encoder`` models only);
- without one, **static mode**: the model's word vectors (``static_mlp``: its static vectors,
  e.g. GloVe; ``encoder``: its ``word_mode`` vectors, template or input-embedding).

Units: one per measure, ``dataset="gender_lists", config=<mode>, test=<measure>`` with measure
``subspace``, ``direct_bias``, ``clustering``, ``classification`` or ``knn``. ``prepare`` computes
all five at once (:mod:`eval_harness.suites.gender_space.pipeline`; the direct bias needs the
subspace's direction and the measures share the embedded words); ``evaluate`` returns each measure's
records (:meth:`~eval_harness.suites.gender_space.pipeline.GenderSpaceReport.records`). The first
record of a unit carries ``skipped``: the words of its lists left out and why (no vector, no
context).

The biased-word lists come from a reference static space (option ``reference``: ``"glove"``, the
packaged GloVe 6B 50d, or a vector file); the measures' settings are the options named as
:class:`~eval_harness.suites.gender_space.pipeline.GenderSpaceSettings`' fields (the sweep seed is
the seed).
"""

from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from ...contract import (
    ContextEmbedder,
    ModalWordEmbedder,
    Suite,
    SuiteContext,
    Task,
    Unit,
    UnitKey,
    WordEmbedder,
)
from ...errors import ConfigError
from .records import GENDER_SPACE_RECORDS, gender_space_records
from .settings import GenderSpaceSettings

MEASURES = ("subspace", "direct_bias", "clustering", "classification", "knn")
HEADLINE_METRICS = {
    "subspace": "explained_variance_ratio",  # the first record: pc1
    "direct_bias": "direct_bias",
    "clustering": "clustering_accuracy",
    "classification": "classification_accuracy",
    "knn": "knn_profession_r",
}
# Which skipped-word list concerns which measure.
SKIPPED_LISTS = {
    "subspace": "definitional_pairs",
    "direct_bias": "professions",
    "clustering": "biased_words",
    "classification": "biased_words",
    "knn": "professions",
}
SETTING_NAMES = tuple(f.name for f in fields(GenderSpaceSettings) if f.name != "seed")


class WordModeEmbedder:
    """An encoder's ``embed_words`` in one word mode, as a plain
    :class:`~eval_harness.contract.WordEmbedder`."""

    def __init__(self, encoder: ModalWordEmbedder, mode: str):
        self.encoder, self.mode = encoder, mode

    def embed_words(
        self, words: Sequence[str], language: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        return self.encoder.embed_words(words, language, mode=self.mode)


class GenderSpaceSuite(Suite):
    name = "gender_space"
    description = (
        "gender subspace, direct bias, clustering, classification, kNN "
        "of professions (Basta et al. 2019); in context with a corpus"
    )
    languages = ("en",)
    requires = "word_vectors"
    datasets = ("gender_lists",)
    records = GENDER_SPACE_RECORDS
    report_section = "eval_harness.suites.gender_space.report:SECTION"
    options = {
        # "" (static mode), "semeval2018", or a text/csv/json/parquet file of sentences
        "corpus": "",
        "corpus_column": "text",  # the column of a csv/json/parquet corpus
        "max_sentences": 0,  # sample this many corpus sentences (0: all)
        "word_mode": "template",  # an encoder's word vectors in static mode: "template" or "static"
        "reference": "glove",  # the reference space of the biased lists: "glove" or a vector file
        **{name: getattr(GenderSpaceSettings(), name) for name in SETTING_NAMES},
    }

    def validate_options(self, options: Mapping[str, Any]) -> None:
        """The measures' settings (whole numbers, positive, consistent), the word mode, the corpus
        and its sample size, checked when the config is read (before any model loads)."""
        flags = [name for name in SETTING_NAMES if isinstance(options[name], bool)]
        if flags:
            raise ConfigError(f"{', '.join(flags)} must be numbers, not true/false")
        GenderSpaceSettings.from_mapping({name: options[name] for name in SETTING_NAMES})
        if options["word_mode"] not in ("template", "static"):
            raise ConfigError(
                f"word_mode must be 'template' or 'static', got {options['word_mode']!r}"
            )
        if isinstance(options["max_sentences"], bool) or options["max_sentences"] < 0:
            raise ConfigError(
                "max_sentences must be a whole number >= 0 "
                f"(0: all), got {options['max_sentences']!r}"
            )
        corpus = options["corpus"]
        if corpus and corpus != "semeval2018" and not Path(corpus).expanduser().is_file():
            raise ConfigError(
                f"corpus {corpus!r} is not a file; give a text file (one "
                "sentence per line), a csv/json/jsonl/parquet file with "
                "a `corpus_column`, 'semeval2018', or '' (static mode)"
            )
        for name in ("corpus_column", "reference"):
            if not options[name]:
                raise ConfigError(f"{name} must be a non-empty string")

    def plan(self, model, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        mode = _mode(model, options)
        return [UnitKey(dataset="gender_lists", config=mode, test=measure) for measure in MEASURES]

    def prepare(self, task: Task, ctx: SuiteContext) -> dict:
        # Here, not at the top: the numerics and `datasets` are slow to import (xbias list, config
        # checks).
        from ...data import load_corpus
        from .pipeline import (
            GenderWordLists,
            evaluate_contextual,
            evaluate_static,
            reference_biased_words,
        )

        options = task.options
        settings = GenderSpaceSettings.from_mapping(
            {**{name: options[name] for name in SETTING_NAMES}, "seed": task.seed}
        )
        lists = GenderWordLists.load()
        biased = reference_biased_words(
            ctx.models.static_vectors(options["reference"]), lists, settings
        )
        embedder = ctx.models.word_embedder(task.model)
        if _mode(task.model, options) == "context":
            if not isinstance(embedder, ContextEmbedder):
                raise ConfigError(
                    f"gender_space: model {task.model.name!r} gives no context vectors"
                )
            corpus = load_corpus(
                options["corpus"],
                column=options["corpus_column"],
                max_sentences=options["max_sentences"],
                seed=task.seed,
                language=task.language,
            )
            report = evaluate_contextual(
                embedder,
                corpus,
                biased,
                lists,
                settings,
                show_progress=ctx.show_progress,
                status=ctx.status,
            )
        else:
            # A model with word modes (an encoder) gives its vectors in the configured mode.
            space: WordEmbedder = embedder
            if isinstance(embedder, ModalWordEmbedder) and embedder.word_modes:
                space = WordModeEmbedder(embedder, options["word_mode"])
            report = evaluate_static(space, biased, lists, settings, language=task.language)
        by_measure: dict[str, list[dict]] = {measure: [] for measure in MEASURES}
        for record in gender_space_records(report):
            by_measure[record["test"]].append(record)
        for measure, records in by_measure.items():
            records[0]["skipped"] = [dict(item) for item in report.skipped[SKIPPED_LISTS[measure]]]
            records[0]["counts"] = dict(report.counts)
        return {"records": by_measure}

    def evaluate(self, unit: Unit, prepared: dict, ctx: SuiteContext) -> list[dict]:
        return prepared["records"][unit.test]

    def headline(self, records: Sequence[dict]) -> dict | None:
        for record in records:
            if record["metric"] == HEADLINE_METRICS.get(record.get("test") or ""):
                return record
        return records[0] if records else None


def _mode(model, options: Mapping[str, Any]) -> str:
    if not options["corpus"]:
        return "static"
    if "context_vectors" not in model.capabilities:
        raise ConfigError(
            "gender_space: a corpus (context mode) needs a model with contextual "
            f"word vectors (an encoder); {model.name!r} is {model.type!r}, whose "
            "vectors have no context (drop the corpus for static mode)"
        )
    return "context"


SUITE = GenderSpaceSuite()
