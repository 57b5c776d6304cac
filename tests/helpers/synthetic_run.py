"""A synthetic run folder in the harness's format, for the report tests.

Records shaped as eval_harness.suites.eec and eval_harness.suites.xweat write them (and as the
gender-space suite is expected to), seeded. EEC: real Beta-regression fits
(eval_harness.stats.betareg, written by eval_harness.suites.eec.records) of simulated predictions,
with planted biases (one with conditional effects of opposite signs) and one group difference that
varies by template (it loses its significance once clustered by template); regressor Pearson r with
one poor regressor (SVM-tfidf in Arabic). XWEAT: effect sizes monolingual in seven languages (one
test skipped by the coverage rule) and cross-lingual between three, with bootstrap intervals and
influential words (one test with a small p-value and an interval across 0). Gender-space measures
for two models.
"""

from __future__ import annotations

import hashlib
import json
from hashlib import sha256
from pathlib import Path

import numpy as np
import yaml
from scipy.special import expit

from eval_harness.contract.unit_file import unit_payload
from eval_harness.stats.betareg import fit_intersectional
from eval_harness.suites.eec.records import beta_regression_records

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
# The simulated EEC predictions: templates x (group x gender cells of PERSONS_PER_CELL persons each)
# and one noun-phrase row per template and group side, Beta-distributed with precision PRECISION.
N_TEMPLATES = 11
PERSONS_PER_CELL = 10
PRECISION = 150.0
# The planted biases: (model, config, emotion) -> logit coefficients of the simulated predictions.
# MiniLM's Arab-Anglo anger has conditional effects of opposite signs: Arab men angrier than Anglo
# men, Arab women less angry than Anglo women.
PLANTED = {
    (MINILM, "en_black_white", "anger"): {"group": -0.25},
    (SVM, "es_latino_anglo", "joy"): {"gender": 0.2},
    (MINILM, "en_arab_anglo", "anger"): {"group": 0.2, "group:gender": -0.4},
}
# A group difference that varies from template to template: (model, config, emotion) ->
# (coefficients, SD of the per-template group slope). Significant with model-based standard errors,
# not once clustered by template.
TEMPLATE_DRIVEN = {(SVM, "en_latino_anglo", "fear"): ({"group": 0.07}, {"group": 0.12})}
# How far another seed's regressor moves a planted coefficient (logit scale).
SEED_SD = 0.02
POOR_REGRESSOR = (SVM, "ar")
# One XWEAT test the coverage rule skips.
SKIPPED = (E5, "tr", "T9")
SKIPPED_COVERAGE = 0.62
# One XWEAT test whose permutation p is small while its bootstrap interval of d spans 0.
FRAGILE_WEAT = (E5, "de", "T7")
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


def _simulated_eec(
    rng: np.random.Generator, config: str, coefficients: dict, template_sd: dict
) -> dict:
    """Predictions for one EEC x emotion as a regressor would give them: Beta-distributed around
    ``logit(mu) = b0 + b1 minority + b2 female + b3 minority female`` over templates x persons, plus
    per-template random slopes (``template_sd``: term -> SD) and noun-phrase rows without a
    group."""
    reference, minority = GROUP_LEVELS[config]
    slopes = {
        term: rng.normal(0, template_sd.get(term, 0.0), N_TEMPLATES) for term in ("group", "gender")
    }
    rows = {"y": [], "group": [], "gender": [], "template_id": [], "person": []}
    for template in range(N_TEMPLATES):
        for m, group in enumerate((reference, minority)):
            for f, gender in enumerate(("male", "female")):
                for person in range(PERSONS_PER_CELL):
                    logit = (
                        coefficients["intercept"]
                        + (coefficients.get("group", 0.0) + slopes["group"][template]) * m
                        + (coefficients.get("gender", 0.0) + slopes["gender"][template]) * f
                        + coefficients.get("group:gender", 0.0) * m * f
                    )
                    rows["y"].append(
                        float(rng.beta(expit(logit) * PRECISION, (1 - expit(logit)) * PRECISION))
                    )
                    rows["group"].append(group)
                    rows["gender"].append(gender)
                    rows["template_id"].append(template)
                    rows["person"].append(f"{group}-{gender}-{person}")
            rows["y"].append(
                float(rng.beta(0.4 * PRECISION, 0.6 * PRECISION))
            )  # "my mother", no group
            rows["group"].append(None)
            rows["gender"].append("female")
            rows["template_id"].append(template)
            rows["person"].append(None)
    return rows


def _fitted_records(rows: dict, config: str) -> list[dict]:
    """The records eval_harness.suites.eec writes for one EEC x emotion (model-based SEs reported,
    the template-clustered test beside them)."""
    reference = GROUP_LEVELS[config][0]

    def fit(clusters=None):
        return fit_intersectional(
            rows["y"],
            rows["group"],
            rows["gender"],
            reference_group=reference,
            reference_gender="male",
            cov_type="cluster" if clusters else "model",
            clusters=clusters,
        )

    return beta_regression_records(fit(), clustered=fit({"template_id": rows["template_id"]}))


def eec_records(rng: np.random.Generator, seed: int = 0) -> list[list[dict]]:
    """Units as eval_harness.suites.eec writes them: regressor quality per (language, emotion), then
    per EEC x emotion a real Beta-regression fit of simulated predictions (coefficients with their
    contrasts, effects on the intensity scale, precision, cell means; model-based and
    template-clustered tests). Nothing is biased except :data:`PLANTED` and :data:`TEMPLATE_DRIVEN`;
    ``seed`` shifts every planted coefficient a little (another seed, another regressor)."""
    units = []
    for model in (MINILM, SVM):
        for language, configs in EEC_CONFIGS.items():
            for emotion in EMOTIONS:
                r = (
                    rng.uniform(0.2, 0.35)
                    if (model, language) == POOR_REGRESSOR
                    else rng.uniform(0.5, 0.72)
                )
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
                            seed=seed,
                        )
                        for split, shift in (("validation", 0.03), ("test", 0.0))
                    ]
                )
            for config in configs:
                for emotion in EMOTIONS:
                    key = (model, config, emotion)
                    added, template_sd = TEMPLATE_DRIVEN.get(key, ({}, {}))
                    planted = {**PLANTED.get(key, {}), **added}
                    coefficients = {
                        "intercept": rng.normal(-0.4, 0.3),
                        **{term: value + rng.normal(0, SEED_SD) for term, value in planted.items()},
                    }
                    rows = _simulated_eec(rng, config, coefficients, template_sd)
                    units.append(
                        [
                            _record(
                                model,
                                "eec",
                                language,
                                "eec",
                                config,
                                record.pop("metric"),
                                record.pop("value"),
                                emotion=emotion,
                                seed=seed,
                                **record,
                            )
                            for record in _fitted_records(rows, config)
                        ]
                    )
    return units


def _xweat_test(model, language, test, effect, targets, attributes, coverage, rng) -> list[dict]:
    """One XWEAT unit as eval_harness.suites.xweat writes it: effect_size and statistic (or both
    None when the coverage rule skipped the test) and the test's coverage (the smallest set
    fraction)."""
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
        skipped = dict(
            status="skipped", note=f"set A keeps {coverage:.0%} of its words, below the 80% rule"
        )
        return [
            {
                **_record(
                    model,
                    "xweat",
                    language,
                    "xweat",
                    language,
                    "effect_size",
                    0.0,
                    **common,
                    **skipped,
                ),
                "value": None,
            },
            {
                **_record(
                    model,
                    "xweat",
                    language,
                    "xweat",
                    language,
                    "statistic",
                    0.0,
                    **common,
                    **skipped,
                ),
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
    # the bootstrap interval of d and the words whose removal moves it most
    bootstrap_std_err = rng.uniform(0.1, 0.3)
    uncertainty = dict(
        ci_low=effect - 1.96 * bootstrap_std_err,
        ci_high=min(effect + 1.96 * bootstrap_std_err, 2.0),
        confidence_level=0.95,
        bootstrap_std_err=bootstrap_std_err,
        n_bootstrap=10_000,
        influential_words=[
            {
                "word": f"{test.lower()}_{role}{k}",
                "role": role,
                "change": change,
                "effect_size_without": effect + change,
            }
            for k, (role, change) in enumerate(
                zip("XAB", sorted(rng.normal(0, 0.1, 3), key=abs, reverse=True), strict=True)
            )
        ],
    )
    if (
        model,
        language,
        test,
    ) == FRAGILE_WEAT:  # GloVe's T7 in the demo: a small p, a bootstrap CI across 0
        details["p_value"] = 0.0002
        uncertainty.update(ci_low=-0.55, ci_high=1.87, bootstrap_std_err=0.62)
    return [
        _record(
            model,
            "xweat",
            language,
            "xweat",
            language,
            "effect_size",
            effect,
            **details,
            **uncertainty,
        ),
        _record(
            model,
            "xweat",
            language,
            "xweat",
            language,
            "statistic",
            effect * rng.uniform(0.2, 0.4),
            **details,
        ),
        cover,
    ]


def xweat_records(rng: np.random.Generator) -> list[list[dict]]:
    """One unit per test: monolingual (language "de") and cross-lingual (language "en-de")."""
    units = []
    for model, languages in ((MINILM, ("en",)), (E5, XWEAT_LANGUAGES)):
        for language in languages:
            for test in XWEAT_TESTS:
                effect = (
                    1.54
                    if (model, language, test) == FRAGILE_WEAT
                    else float(np.clip(rng.normal(0.9, 0.5), -1.9, 1.9))
                )
                coverage = (
                    SKIPPED_COVERAGE
                    if (model, language, test) == SKIPPED
                    else rng.choice([1.0, 1.0, rng.uniform(0.8, 1.0)])
                )
                units.append(
                    _xweat_test(model, language, test, effect, language, language, coverage, rng)
                )
    for targets in CROSS_LINGUAL:
        for attributes in CROSS_LINGUAL:
            if targets != attributes:
                for test in XWEAT_TESTS:
                    effect = float(np.clip(rng.normal(0.6, 0.5), -1.9, 1.9))
                    units.append(
                        _xweat_test(
                            E5,
                            f"{targets}-{attributes}",
                            test,
                            effect,
                            targets,
                            attributes,
                            1.0,
                            rng,
                        )
                    )
    return units


def gender_space_records(rng: np.random.Generator) -> list[list[dict]]:
    """Units as eval_harness.suites.gender_space writes them (static mode): one per measure."""
    units = []
    for model in (GLOVE, MINILM):

        def record(test, metric, value, model=model, **extra):
            return _record(
                model,
                "gender_space",
                "en",
                "gender_lists",
                "static",
                metric,
                value,
                test=test,
                mode="static",
                **extra,
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


def dataset_fingerprint(dataset: str) -> str:
    """A stand-in for a dataset's fingerprint (16 hex digits, as
    eval_harness.data.dataset_fingerprint gives)."""
    return hashlib.sha256(dataset.encode()).hexdigest()[:16]


def write_synthetic_run(folder: Path, suites=tuple(SUITES), seeds: tuple[int, ...] = (0,)) -> Path:
    """Write config.yaml, run.json, units/*.json and results.jsonl for ``suites`` into ``folder``,
    laid out as eval_harness.runner.store writes them for a complete run (run.json records
    results.jsonl's sha256). With several ``seeds`` the EEC units are simulated once per seed
    (another seed, another regressor); the other suites' numbers do not depend on the seed and are
    written once per seed, the same."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "units").mkdir(exist_ok=True)
    config = {
        "name": "synthetic",
        "seeds": list(seeds),
        "models": [
            {"name": MINILM, "type": "encoder"},
            {"name": SVM, "type": "svm_tfidf"},
            {"name": E5, "type": "encoder"},
            {"name": GLOVE, "type": "static_mlp"},
        ],
        "suites": {suite: {"languages": ["en"]} for suite in suites},
    }
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    units = []
    for suite in suites:
        if suite == "eec":
            units += [
                unit for seed in seeds for unit in eec_records(np.random.default_rng(seed), seed)
            ]
        else:
            once = SUITES[suite](np.random.default_rng(len(suite)))
            units += [
                [{**record, "seed": seed} for record in unit] for seed in seeds for unit in once
            ]
    all_records = []
    for unit in (
        units
    ):  # as the harness stamps each record: the fingerprint of the dataset it was computed on
        for record in unit:
            record.setdefault("dataset_fingerprint", dataset_fingerprint(record["dataset"]))
    for index, unit in enumerate(units):
        unit_id = f"{unit[0]['suite']}-{index:03d}"
        key = {
            name: unit[0][name]
            for name in ("model", "suite", "language", "dataset", "config", "seed")
        }
        payload = unit_payload(
            unit_id, key, CONFIG_HASH, unit, seconds=0.5, finished_at=FINISHED_AT
        )
        (folder / "units" / f"{unit_id}.json").write_text(json.dumps(payload), encoding="utf-8")
        all_records += unit
    run_info = {
        "config_hash": CONFIG_HASH,
        "name": "synthetic",
        "seeds": list(seeds),
        "versions": {"python": "3.11", "xbias": "0.1.0"},
        "status": "complete",
        "num_processes": 1,
        "units_planned": len(units),
        "units_resumed": 0,
        "skipped": [],
        "units_computed": len(units),
    }
    results = "".join(json.dumps(record) + "\n" for record in all_records).encode("utf-8")
    (folder / "results.jsonl").write_bytes(results)
    # As the runner records it when a run ends: what the report verifies results.jsonl against.
    run_info["results"] = {
        "file": "results.jsonl",
        "records": len(all_records),
        "sha256": sha256(results).hexdigest(),
    }
    (folder / "run.json").write_text(json.dumps(run_info, indent=2), encoding="utf-8")
    return folder
