"""The ``eec_crosslingual`` suite: a model's EEC effects compared between English and a translation
of the EEC.

For a model and a translated language (``languages: [es, ar]``: each against English, task language
``en-es``, ``en-ar``), per emotion: the model's emotion regressors of both languages (trained on
SemEval-2018 or loaded from the cache, as the ``eec`` suite does: a run with both suites trains each
once), the English sentences scored by the English regressor and their aligned translations by the
other one, and one joint Beta regression per translated EEC x emotion (unit ``dataset="eec",
config=<translated EEC>``) whose records are every identity effect's difference between the
languages, each with its own test (:mod:`.pipeline`, :mod:`.records`). Every unit keeps its aligned
pairs with both scores beside its unit file (:mod:`.samples`), so it can be refitted without the
model.

Options: ``emotions``; ``cov_type`` (``cluster``, the default: the comparison is paired by template,
or ``model``) and ``cluster_by`` (``[template_id]``; one or two of ``template_id``, ``person``,
``sentence``); ``use_t`` (None: t(G - 1) clustered, z model-based); ``sample``: aligned pairs per
template x group x gender cell, the same pairs for every seed (0: every pair).
"""

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from ...contract import EmotionScorer, Judge, Suite, SuiteContext, Task, Unit, UnitKey
from ...data.catalog import (
    EEC_CONFIGS_BY_LANGUAGE,
    EEC_EMOTIONS,
    EEC_REFERENCE_GROUP,
    EEC_TRANSLATIONS,
)
from ...errors import ConfigError, InputError
from ..eec.paired.fit import check_cluster_by
from ..eec.paired.records import difference_records, skipped_record
from ..eec.suite import SAMPLE_SEED, noted_fit, stratified_sample
from .pipeline import CLUSTER_SOURCES, ENGLISH, align, language_contrasts
from .records import CROSSLINGUAL_RECORDS, DIFFERENCE_METRIC
from .samples import CROSSLINGUAL_SAMPLES, crosslingual_samples

# A translated language -> its translated EEC configs.
TRANSLATED_CONFIGS = {
    language: [config for config in configs if config in EEC_TRANSLATIONS]
    for language, configs in EEC_CONFIGS_BY_LANGUAGE.items()
    if any(config in EEC_TRANSLATIONS for config in configs)
}


def pair_languages(task_language: str) -> tuple[str, str]:
    """``"en-ar"`` -> ``("en", "ar")``."""
    english, _, other = task_language.partition("-")
    return english, other


class EECCrosslingualSuite(Suite):
    name = "eec_crosslingual"
    description = (
        "EEC effects compared between English and a translation, on "
        "aligned sentences: one joint Beta regression per translated EEC "
        "x emotion, every effect's difference between the languages tested"
    )
    languages = tuple(TRANSLATED_CONFIGS)
    datasets = ("eec", "semeval2018_affect")
    records = CROSSLINGUAL_RECORDS
    samples = CROSSLINGUAL_SAMPLES
    report_section = "eval_harness.suites.eec_crosslingual.report:SECTION"
    trains = True  # the emotion regressors of both languages, per seed
    options = {
        "emotions": list(EEC_EMOTIONS),
        "use_t": None,  # None: t(G - 1) with clustered standard errors, z with model-based ones
        # the comparison is paired by template; "model" for model-based standard errors
        "cov_type": "cluster",
        "cluster_by": [
            "template_id"
        ],  # one or two of template_id, person, sentence (the aligned pair)
        # aligned pairs per template x group x gender cell, the same for every seed (0: every pair)
        "sample": 0,
    }

    def validate_options(self, options: Mapping[str, Any]) -> None:
        if not (options["use_t"] is None or isinstance(options["use_t"], bool)):
            raise ConfigError(
                f"use_t must be true, false or null (automatic), got {options['use_t']!r}"
            )
        try:
            check_cluster_by(options["cov_type"], options["cluster_by"], tuple(CLUSTER_SOURCES))
        except InputError as error:
            raise ConfigError(str(error)) from None
        unknown = [emotion for emotion in options["emotions"] if emotion not in EEC_EMOTIONS]
        if unknown or not options["emotions"]:
            raise ConfigError(
                f"emotions must be some of {', '.join(EEC_EMOTIONS)}; got {options['emotions']}"
            )
        if isinstance(options["sample"], bool) or options["sample"] < 0:
            raise ConfigError(
                "sample must be a whole number of pairs per "
                f"cell (0: all), got {options['sample']!r}"
            )

    def expand_languages(self, languages: Sequence[str], options: Mapping[str, Any]) -> list[str]:
        """Each translated language against English: ``es`` -> ``en-es``."""
        return [f"{ENGLISH}-{language}" for language in languages]

    def plan(self, model, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        _, other = pair_languages(language)
        return [
            UnitKey(dataset="eec", config=config, emotion=emotion)
            for config in TRANSLATED_CONFIGS[other]
            for emotion in options["emotions"]
        ]

    def prepare(self, task: Task, ctx: SuiteContext) -> dict:
        """Per emotion of the pending units: both languages' regressors and their scores on the
        aligned pairs."""
        from ...data import (
            load_eec,
        )  # here, not at the top: `datasets` is slow to import (xbias list)

        options, languages = task.options, pair_languages(task.language)
        configs = sorted({unit.part("config") for unit in task.units})
        alignments = {
            config: align(
                load_eec(EEC_TRANSLATIONS[config]).to_pandas(), load_eec(config).to_pandas()
            )
            for config in configs
        }
        prepared: dict = {"options": options, "alignments": alignments, "fits": {}}
        judge = "judge" in task.model.capabilities
        for emotion in [
            e for e in options["emotions"] if any(unit.emotion == e for unit in task.units)
        ]:
            regressors = {}
            for language in languages:
                ctx.status(
                    f"{task.model.name} {language} {emotion}: the "
                    "emotion regressor (trained once, then cached)"
                )
                regressors[language] = ctx.models.emotion_regressor(
                    task.model, language, emotion, task.seed
                )
            for config in configs:
                pairs = alignments[config].pairs
                pairs = pairs[pairs["emotion"] == emotion]
                if options["sample"]:
                    pairs = stratified_sample(pairs, options["sample"], SAMPLE_SEED)
                ctx.status(
                    f"{task.model.name} {task.language} {emotion}: "
                    f"scoring {len(pairs)} pairs of {config}"
                )
                scored = {
                    language: _scores(regressors[language], pairs[column].tolist(), judge)
                    for language, column in zip(languages, ("sentence_en", "sentence"), strict=True)
                }
                prepared["fits"][config, emotion] = {
                    "pairs": pairs,
                    "scores": scored,
                    "regressors": regressors,
                }
        return prepared

    def evaluate(self, unit: Unit, prepared: dict, ctx: SuiteContext) -> list[dict]:
        options, (english, other), config = (
            prepared["options"],
            pair_languages(unit.language),
            unit.part("config"),
        )
        data = prepared["fits"][config, unit.emotion]
        alignment = prepared["alignments"][config]
        english_scores, other_scores = data["scores"][english], data["scores"][other]
        fields = {
            "reference_language": english,
            "other_language": other,
            "english_config": EEC_TRANSLATIONS[config],
            "n_pairs": len(data["pairs"]),
            "n_english_only": alignment.n_english_only,
            "n_translation_only": alignment.n_translation_only,
            "reference_regressor_r": _test_r(data["regressors"][english]),
            "other_regressor_r": _test_r(data["regressors"][other]),
            "reference_numeral_mass": _mean(english_scores["numeral_mass"]),
            "other_numeral_mass": _mean(other_scores["numeral_mass"]),
        }

        def fit(cov_type: str):
            return language_contrasts(
                data["pairs"],
                english_scores["y"],
                other_scores["y"],
                other,
                {"group": EEC_REFERENCE_GROUP[config], "gender": "male"},
                cov_type=cov_type,
                cluster_by=options["cluster_by"],
                use_t=options["use_t"],
            )

        try:
            try:
                result, notes = noted_fit(fit, options["cov_type"])
            except InputError as error:
                if options["cov_type"] != "cluster":
                    raise
                # E.g. a model that scores both groups alike within every template (names SVM-tfidf
                # never saw): the clustered covariance is singular. Model-based standard errors
                # stand in, as in the eec suite.
                result, notes = noted_fit(fit, "model")
                notes.add(f"no clustered standard errors ({error}); model-based ones instead")
        except (
            InputError
        ) as error:  # no fit at all (e.g. scores constant within the cells): the unit says why
            return [skipped_record(f"no joint fit: {error}", fields, DIFFERENCE_METRIC)]
        return difference_records(
            result, {**fields, "note": "; ".join(sorted(notes)) or None}, DIFFERENCE_METRIC
        )

    def unit_samples(self, unit: Unit, prepared: dict, ctx: SuiteContext) -> dict:
        (english, other), config = pair_languages(unit.language), unit.part("config")
        data = prepared["fits"][config, unit.emotion]
        return crosslingual_samples(
            config,
            EEC_TRANSLATIONS[config],
            unit.language,
            data["pairs"],
            data["scores"][english],
            data["scores"][other],
        )

    def headline(self, records: Sequence[dict]) -> dict | None:
        """The difference of the group effect averaged over genders."""
        for record in records:
            if record.get("kind") == "average" and record.get("effect_term") == "group":
                return record
        return super().headline(records)


def _scores(regressor: EmotionScorer, texts: list[str], judge: bool) -> dict:
    """The predicted intensities of ``texts`` (``y``) and, for a zero-shot judge, its numeral mass
    on each."""
    if not judge:
        return {"y": regressor.predict(texts), "numeral_mass": None}
    scores = cast(Judge, regressor).score(
        texts
    )  # what the judge capability promises (tests/contract)
    return {"y": scores.value, "numeral_mass": scores.numeral_mass}


def _mean(values) -> float | None:
    return None if values is None else float(np.mean(values))


def _test_r(regressor) -> float | None:
    scores = getattr(regressor, "scores", None)
    return None if scores is None else scores.pearson_test


SUITE = EECCrosslingualSuite()
