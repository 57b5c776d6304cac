"""A synthetic run folder in the harness's format, for the report tests.

Records shaped as eval_harness.suites.eec and eval_harness.suites.xweat write them (and as the
gender-space suite is expected to), seeded: Beta-regression coefficients with two planted strong
effects, regressor Pearson r with one poor regressor (SVM-tfidf in Arabic), XWEAT effect sizes
monolingual in seven languages (one test skipped by the coverage rule) and cross-lingual between
three, gender-space measures for two models.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import yaml
from scipy import stats
from scipy.special import expit

from eval_harness.runner.unit_file import unit_payload
from eval_harness.stats.betareg import significance_stars

MINILM = "all-MiniLM-L6-v2"
SVM = "svm-tfidf"
E5 = "multilingual-e5-small"
GLOVE = "glove-6B-50d"
EEC_CONFIGS = {
    "en": ("en_black_white", "en_latino_anglo", "en_arab_anglo"),
    "es": ("es_latino_anglo",),
    "ar": ("ar_arab_anglo",),
}
GROUP_LEVELS = {
    "en_black_white": ["European", "African-American"],
    "en_latino_anglo": ["Anglo", "Latino"],
    "es_latino_anglo": ["Anglo", "Latino"],
    "en_arab_anglo": ["Anglo", "Arab"],
    "ar_arab_anglo": ["Anglo", "Arab"],
}
EMOTIONS = ("anger", "fear", "joy", "sadness")
TERMS = ("intercept", "group", "gender", "group:gender")
XWEAT_LANGUAGES = ("en", "de", "es", "it", "hr", "ru", "tr")
XWEAT_TESTS = ("T1", "T2", "T6", "T7", "T8", "T9", "T10")
CROSS_LINGUAL = ("en", "de", "es")
# The planted findings: (model, config, emotion, term) -> logit coefficient.
PLANTED = {(MINILM, "en_black_white", "anger", "group"): -0.12, (SVM, "es_latino_anglo", "joy", "gender"): 0.1}
POOR_REGRESSOR = (SVM, "ar")
# One XWEAT test the coverage rule skips.
SKIPPED = (E5, "tr", "T9")
SKIPPED_COVERAGE = 0.62
SKIP_BELOW = 0.8
CONFIG_HASH = "synthetic0001"
FINISHED_AT = "2026-01-01T00:00:00+0000"


def _record(model, suite, language, dataset, config, metric, value, **fields) -> dict:
    record = dict(
        model=model,
        suite=suite,
        language=language,
        dataset=dataset,
        config=config,
        emotion=None,
        test=None,
        term=None,
        metric=metric,
        value=float(value),
        std_err=None,
        p_value=None,
        seed=0,
    )
    record.update(fields)
    return record


def _two_sided(z: float) -> float:
    return float(2 * stats.norm.sf(abs(z)))


def eec_records(rng: np.random.Generator) -> list[list[dict]]:
    """Units as eval_harness.suites.eec writes them: regressor quality per (language, emotion), then per
    EEC x emotion the four coefficients (the LR test of the intersection on the group:gender record),
    the precision and the observed (and predicted) mean of each group x gender cell."""
    units = []
    for model in (MINILM, SVM):
        for language, configs in EEC_CONFIGS.items():
            for emotion in EMOTIONS:
                r = rng.uniform(0.2, 0.35) if (model, language) == POOR_REGRESSOR else rng.uniform(0.5, 0.72)
                units.append(
                    [
                        _record(
                            model,
                            "eec",
                            language,
                            "semeval2018_affect",
                            language,
                            "pearson_r",
                            r + shift,
                            emotion=emotion,
                            split=split,
                            n=400,
                            model_type="encoder",
                            n_train=1700,
                        )
                        for split, shift in (("validation", 0.03), ("test", 0.0))
                    ]
                )
            for config in configs:
                for emotion in EMOTIONS:
                    intercept = rng.normal(-0.4, 0.3)
                    fit = dict(
                        n=1440,
                        n_excluded=160,
                        converged=True,
                        squeezed=False,
                        statistic_kind="z",
                        df=None,
                        note=None,
                        group_levels=GROUP_LEVELS[config],
                        gender_levels=["male", "female"],
                    )
                    unit = []
                    for term in TERMS:
                        planted = PLANTED.get((model, config, emotion, term))
                        std_err = 0.012 if term == "intercept" or planted else rng.uniform(0.015, 0.03)
                        estimate = intercept if term == "intercept" else planted or rng.normal(0, 0.015)
                        p_value = _two_sided(estimate / std_err)
                        mu = expit(intercept)
                        unit.append(
                            _record(
                                model,
                                "eec",
                                language,
                                "eec",
                                config,
                                "estimate",
                                estimate,
                                emotion=emotion,
                                term=term,
                                std_err=std_err,
                                p_value=p_value,
                                ci_low=estimate - 1.959964 * std_err,
                                ci_high=estimate + 1.959964 * std_err,
                                stars=significance_stars(p_value),
                                statistic=estimate / std_err,
                                marginal_effect=mu if term == "intercept" else estimate * mu * (1 - mu),
                                **fit,
                            )
                        )
                    unit[-1].update(
                        lr_statistic=(unit[-1]["value"] / unit[-1]["std_err"]) ** 2, lr_p_value=unit[-1]["p_value"]
                    )
                    unit.append(
                        _record(
                            model,
                            "eec",
                            language,
                            "eec",
                            config,
                            "log_phi",
                            3.2,
                            emotion=emotion,
                            std_err=0.04,
                            phi=24.5,
                            n=1440,
                        )
                    )
                    coefficients = [record["value"] for record in unit[:4]]
                    for group_index, group in enumerate(GROUP_LEVELS[config]):
                        for female, gender in enumerate(("male", "female")):
                            predicted = expit(
                                coefficients[0]
                                + coefficients[1] * group_index
                                + coefficients[2] * female
                                + coefficients[3] * group_index * female
                            )
                            unit.append(
                                _record(
                                    model,
                                    "eec",
                                    language,
                                    "eec",
                                    config,
                                    "cell_mean",
                                    predicted + rng.normal(0, 0.003),
                                    emotion=emotion,
                                    term=f"{group}|{gender}",
                                    predicted_mean=predicted,
                                    n=360,
                                )
                            )
                    units.append(unit)
    return units


def _xweat_test(model, language, test, effect, targets, attributes, coverage, rng) -> list[dict]:
    """One XWEAT unit as eval_harness.suites.xweat writes it: effect_size and statistic (or both None when
    the coverage rule skipped the test) and the test's coverage (the smallest set fraction)."""
    pair = dict(targets_language=targets, attributes_language=attributes)
    common = dict(test=test, **pair)
    cover = _record(
        model,
        "xweat",
        language,
        "xweat",
        language,
        "coverage",
        coverage,
        missing={"A": ["word"]} if coverage < 1 else {},
        **common,
    )
    if coverage < SKIP_BELOW:
        skipped = dict(status="skipped", note=f"set A keeps {coverage:.0%} of its words, below the 80% rule")
        return [
            {
                **_record(model, "xweat", language, "xweat", language, "effect_size", 0.0, **common, **skipped),
                "value": None,
            },
            {
                **_record(model, "xweat", language, "xweat", language, "statistic", 0.0, **common, **skipped),
                "value": None,
            },
            cover,
        ]
    # a permutation p-value: no smaller than 1 / (n_permutations + 1)
    details = dict(
        p_value=float(np.clip(np.exp(-6 * effect), 1e-4, 1.0)),
        p_value_method="monte_carlo",
        n_permutations=9999,
        status="ok",
        **common,
    )
    return [
        _record(model, "xweat", language, "xweat", language, "effect_size", effect, **details),
        _record(model, "xweat", language, "xweat", language, "statistic", effect * rng.uniform(0.2, 0.4), **details),
        cover,
    ]


def xweat_records(rng: np.random.Generator) -> list[list[dict]]:
    """One unit per test: monolingual (language "de") and cross-lingual (language "en-de")."""
    units = []
    for model, languages in ((MINILM, ("en",)), (E5, XWEAT_LANGUAGES)):
        for language in languages:
            for test in XWEAT_TESTS:
                effect = float(np.clip(rng.normal(0.9, 0.5), -1.9, 1.9))
                coverage = (
                    SKIPPED_COVERAGE
                    if (model, language, test) == SKIPPED
                    else rng.choice([1.0, 1.0, rng.uniform(0.8, 1.0)])
                )
                units.append(_xweat_test(model, language, test, effect, language, language, coverage, rng))
    for targets in CROSS_LINGUAL:
        for attributes in CROSS_LINGUAL:
            if targets != attributes:
                for test in XWEAT_TESTS:
                    effect = float(np.clip(rng.normal(0.6, 0.5), -1.9, 1.9))
                    units.append(
                        _xweat_test(E5, f"{targets}-{attributes}", test, effect, targets, attributes, 1.0, rng)
                    )
    return units


def gender_space_records(rng: np.random.Generator) -> list[list[dict]]:
    """Units as eval_harness.suites.gender_space writes them (static mode): one per measure."""
    units = []
    for model in (GLOVE, MINILM):

        def record(test, metric, value, model=model, **extra):
            return _record(
                model, "gender_space", "en", "gender_lists", "static", metric, value, test=test, mode="static", **extra
            )

        ratios = np.sort(rng.dirichlet(np.r_[8.0, np.ones(9)]))[::-1]
        baseline = np.sort(rng.dirichlet(np.full(10, 3.0)))[::-1]
        units.append(
            [
                record("subspace", "explained_variance_ratio", ratio, term=f"pc{k + 1}", n=10)
                for k, ratio in enumerate(ratios)
            ]
            + [
                record(
                    "subspace",
                    "baseline_explained_variance_ratio",
                    ratio,
                    term=f"pc{k + 1}",
                    std_err=0.003,
                    std=0.03,
                    n=100,
                )
                for k, ratio in enumerate(baseline)
            ]
        )
        units.append([record("direct_bias", "direct_bias", rng.uniform(0.05, 0.1), n=300, c=1.0)])
        for measure in ("clustering", "classification"):
            accuracy = rng.uniform(0.8, 1.0)
            units.append(
                [
                    record(
                        measure,
                        f"{measure}_accuracy",
                        accuracy,
                        min=accuracy - 0.02,
                        max=accuracy + 0.01,
                        runs=10,
                        n=1000,
                    )
                ]
            )
        r = rng.uniform(0.5, 0.8)
        units.append(
            [
                record(
                    "knn",
                    "knn_profession_r",
                    r,
                    p_value=float(1e-8 * rng.uniform()),
                    min=r - 0.05,
                    max=r + 0.05,
                    runs=10,
                    n=300,
                    k=100,
                )
            ]
        )
    return units


SUITES = {"eec": eec_records, "xweat": xweat_records, "gender_space": gender_space_records}


def write_synthetic_run(folder: Path, suites=tuple(SUITES), seed: int = 0) -> Path:
    """Write config.yaml, run.json, units/*.json and results.jsonl for ``suites`` into ``folder``, laid out
    as eval_harness.runner.store writes them for a complete run."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "units").mkdir(exist_ok=True)
    config = {
        "name": "synthetic",
        "seeds": [seed],
        "models": [
            {"name": MINILM, "type": "encoder"},
            {"name": SVM, "type": "svm_tfidf"},
            {"name": E5, "type": "encoder"},
            {"name": GLOVE, "type": "static_mlp"},
        ],
        "suites": {suite: {"languages": ["en"]} for suite in suites},
    }
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    all_records, n_units = [], 0
    for suite in suites:
        for index, unit in enumerate(SUITES[suite](rng)):
            unit_id = f"{suite}-{index:03d}"
            key = {name: unit[0][name] for name in ("model", "suite", "language", "dataset", "config")}
            payload = unit_payload(unit_id, key, CONFIG_HASH, unit, seconds=0.5, finished_at=FINISHED_AT)
            (folder / "units" / f"{unit_id}.json").write_text(json.dumps(payload), encoding="utf-8")
            all_records += unit
            n_units += 1
    run_info = {
        "config_hash": CONFIG_HASH,
        "name": "synthetic",
        "seeds": [seed],
        "versions": {"python": "3.11", "xbias": "0.1.0"},
        "status": "complete",
        "num_processes": 1,
        "units_planned": n_units,
        "units_resumed": 0,
        "skipped": [],
        "units_computed": n_units,
    }
    (folder / "run.json").write_text(json.dumps(run_info, indent=2), encoding="utf-8")
    with (folder / "results.jsonl").open("w", encoding="utf-8") as out:
        for record in all_records:
            out.write(json.dumps(record) + "\n")
    return folder
