"""The ``eec`` suite (Câmara et al. 2022): emotion regressors scored on Equity Evaluation Corpora.

For a model and a language, per emotion (anger, fear, joy, sadness):

1. train (or load from the cache) the model's emotion-intensity regressor on SemEval-2018
   for that language and emotion, and record its Pearson r on the validation and test splits
   (unit ``dataset="semeval2018_affect", config=<language>``);
2. score the sentences of every EEC of the language whose emotion word is of that emotion
   (``en``: the three English EECs, ``es``: the Spanish one, ``ar``: the Arabic one);
3. fit the intersectional Beta regression ``logit(E[y]) = b0 + b1 minority + b2 female +
   b3 minority female`` (:func:`eval_harness.stats.betareg.fit_intersectional`, the ``eec_bias``
   metric) per EEC x emotion (unit ``dataset="eec", config=<EEC config>``). Noun-phrase
   sentences ("my mother") carry no group and are left out of the fit, as the metric does.

Records: ``metric="estimate"`` per term (intercept, group, gender, group:gender) with std_err,
p_value, ci_low, ci_high, stars, z, marginal_effect, n, group_levels, gender_levels; the
intersection's likelihood-ratio test (``metric="lr_statistic"``); the precision (``log_phi``);
the observed and predicted mean per group x gender cell (``metric="cell_mean"``, term
``"<group>|<gender>"``); and ``metric="pearson_r"`` with ``split`` for the regressors.
"""

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ...data import EEC_CONFIGS, EEC_CONFIGS_BY_LANGUAGE, EEC_EMOTIONS, EEC_REFERENCE_GROUP, load_eec
from ...errors import ConfigError
from ...runner.suite import Suite, Task, Unit, UnitKey
from ...stats.betareg import fit_intersectional
from .records import beta_regression_records, regressor_records

QUALITY_DATASET = "semeval2018_affect"


class EECSuite(Suite):
    name = "eec"
    description = "emotion regressors on the Equity Evaluation Corpora, Beta regression per EEC x emotion"
    languages = tuple(EEC_CONFIGS_BY_LANGUAGE)
    datasets = ("eec", "semeval2018_affect")
    options = {
        "emotions": list(EEC_EMOTIONS),  # which emotions to run
        "configs": [],  # EEC configs to run; a language with none listed runs all of its own
        "use_t": False,  # t tests with n - 4 df (the paper's wording) instead of z tests (R betareg)
    }

    def plan(self, model, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        emotions, configs = self._emotions(options), self._configs(language, options)
        return [UnitKey(dataset=QUALITY_DATASET, config=language, emotion=emotion) for emotion in emotions] + [
            UnitKey(dataset="eec", config=config, emotion=emotion) for config in configs for emotion in emotions
        ]

    @staticmethod
    def _emotions(options: Mapping[str, Any]) -> list[str]:
        unknown = [emotion for emotion in options["emotions"] if emotion not in EEC_EMOTIONS]
        if unknown or not options["emotions"]:
            raise ConfigError(f"eec: emotions must be some of {', '.join(EEC_EMOTIONS)}; got {options['emotions']}")
        return list(options["emotions"])

    @staticmethod
    def _configs(language: str, options: Mapping[str, Any]) -> list[str]:
        """The EEC configs of ``language`` listed in ``options["configs"]``, or all of them when none is."""
        unknown = [config for config in options["configs"] if config not in EEC_CONFIGS]
        if unknown:
            raise ConfigError(f"eec: unknown EEC config(s) {unknown}; configs: {', '.join(EEC_CONFIGS)}")
        available = EEC_CONFIGS_BY_LANGUAGE[language]
        return [config for config in options["configs"] if config in available] or available

    def prepare(self, task: Task, ctx) -> dict:
        """Per emotion of the pending units: the regressor (fitted or loaded) and its scores on the EECs."""
        emotions = [e for e in self._emotions(task.options) if any(unit.emotion == e for unit in task.units)]
        eec_configs = sorted({unit.config for unit in task.units if unit.dataset == "eec"})
        corpora = {name: load_eec(name).to_pandas() for name in eec_configs}
        prepared = {"use_t": task.options["use_t"], "scores": {}, "eec": {}}
        for emotion in emotions:
            regressor = ctx.models.emotion_regressor(task.model, task.language, emotion, task.seed)
            prepared["scores"][emotion] = regressor.scores
            for name in eec_configs:
                if not any(unit.config == name and unit.emotion == emotion for unit in task.units):
                    continue
                rows = corpora[name][corpora[name]["emotion"] == emotion]
                prepared["eec"][name, emotion] = {
                    "y": regressor.predict(rows["sentence"].tolist()),
                    "group": rows["group"].tolist(),
                    "gender": rows["gender"].tolist(),
                }
        return prepared

    def evaluate(self, unit: Unit, prepared: dict, ctx) -> list[dict]:
        if unit.dataset == QUALITY_DATASET:
            return regressor_records(prepared["scores"][unit.emotion])
        data = prepared["eec"][unit.config, unit.emotion]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fit_intersectional(
                data["y"],
                data["group"],
                data["gender"],
                reference_group=EEC_REFERENCE_GROUP[unit.config],
                reference_gender="male",
                use_t=prepared["use_t"],
            )
        notes = sorted({str(warning.message) for warning in caught})
        return beta_regression_records(result, note="; ".join(notes) or None)

    def headline(self, records: Sequence[dict]) -> dict | None:
        """The intersection coefficient for an EEC unit; the test-split Pearson r for a regressor unit."""
        for record in records:
            if record.get("term") == "group:gender" and record["metric"] == "estimate":
                return record
            if record["metric"] == "pearson_r" and record.get("split") == "test":
                return record
        return super().headline(records)


SUITE = EECSuite()
