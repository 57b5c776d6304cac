"""The power planner on real scores (slow: loads e5), both ways: from the whole en_arab_anglo EEC to
a ``sample: 4`` run of the same model the planner's predicted MDE is within 25 % of the MDE the
suite reports for the median effect (measured 1.00), and from the sample to the whole EEC too, as
the median over 20 sample seeds (measured 0.79; docs/conventions.md).

Each sentence is scored once (tests/helpers/e5_eec_scores.py: the e5 ridge probe, trained on 300 +
100 SemEval tweets per emotion); the sample is the suite's own stratified sample of those rows, and
both units' records come from the suite's own ``evaluate`` on them, as a run with ``sample: 0`` and
with ``sample: 4`` writes them. Two emotions (anger and fear, the first two) x 7 effects = 14
effects: each emotion is its own head and its own fit, so the median is over two independent sets of
components. Over the suite's stratified samples with seeds 0 to 19, the whole EEC's median reported
MDE lies inside the 80 % interval (design_power.LEVEL) the sample predicts for it in 19 of the 20
(measured; each effect's own, 223 of the 280, 195 before issue 46's interval;
docs/conventions.md)."""

import numpy as np
import pytest
from helpers.e5_eec_scores import e5_eec_scores

from eval_harness.contract import Unit
from eval_harness.stats.design_power import LEVEL, Design, design_mde, mde_interval
from eval_harness.suites.eec.planner import components_of
from eval_harness.suites.eec.suite import (
    SAMPLE_SEED,
    SUITE,
    names_per_cell,
    sentences_per_cell,
    stratified_sample,
)

pytestmark = pytest.mark.slow

CONFIG, EMOTIONS, SAMPLE = "en_arab_anglo", ["anger", "fear"], 4
FACTORS = {"group": "Anglo", "gender": "male"}


def unit_data(rows, pool: float | None, pool_names: float | None) -> dict:
    """A unit's prepared data as the suite's ``prepare`` makes it, from rows that carry their scores
    ``y``."""
    return {
        "rows": rows,
        "numeral_mass": None,
        "validity": None,
        "prompts": None,
        "y": rows["y"].to_numpy(),
        "factors": {factor: rows[factor].tolist() for factor in FACTORS},
        "references": FACTORS,
        "template_id": rows["template_id"].tolist(),
        "person": rows["person"].tolist(),
        "pool": pool,
        "pool_names": pool_names,
    }


def effects(rows, pool: float | None, emotion: str, pool_names: float | None = None) -> list[dict]:
    """The suite's effect records of one EEC x emotion unit on ``rows``."""
    options = {**SUITE.options, "stability_resamples": 0, "sample": SAMPLE if pool else 0}
    prepared = {"options": options, "eec": {(CONFIG, emotion): unit_data(rows, pool, pool_names)}}
    unit = Unit(
        model="e5", suite="eec", language="en", dataset="eec", config=CONFIG, emotion=emotion
    )
    return [
        record for record in SUITE.evaluate(unit, prepared, None) if record["metric"] == "effect"
    ]


@pytest.fixture(scope="module")
def scores(multilingual_e5):
    """Each emotion's rows of the EEC with their scores ``y``, scored once for the module."""
    return e5_eec_scores(multilingual_e5, CONFIG, EMOTIONS)


@pytest.fixture(scope="module")
def whole_and_sample(scores):
    whole, sample = [], []
    for emotion, rows in scores.items():
        pool = sentences_per_cell(
            rows
        )  # M and P as the suite's prepare counts them before it samples
        pool_names = names_per_cell(rows)
        drawn = stratified_sample(
            rows, SAMPLE, SAMPLE_SEED, tuple(FACTORS)
        )  # the rows a sample: 4 run scores
        whole += effects(rows[rows["group"].notna()], None, emotion)
        sample += effects(drawn[drawn["group"].notna()], pool, emotion, pool_names)
    return whole, sample


def test_the_layouts_are_the_suites(whole_and_sample):
    whole, sample = whole_and_sample
    assert len(whole) == len(sample) == 7 * len(EMOTIONS)
    layout = ("planner_templates", "planner_per_cell", "planner_pool", "planner_pool_names")
    assert {tuple(r[name] for name in layout) for r in whole} == {(7, 50.0, 50.0, 10.0)}
    assert {tuple(r[name] for name in layout) for r in sample} == {(7, 4.0, 50.0, 10.0)}


def test_the_planner_predicts_the_sample_runs_mde_from_the_whole_eec(whole_and_sample):
    whole, sample = whole_and_sample
    designs = [
        (c, Design(c.templates, SAMPLE, pool=c.pool, names=c.names))
        for c in map(components_of, whole)
    ]
    predicted = [design_mde(c, design) for c, design in designs]
    assert np.median(predicted) == pytest.approx(np.median([r["mde"] for r in sample]), rel=0.25)


def whole_eec_plans(scores, seed: int) -> list:
    """The components of every effect of a ``sample: 4`` run with stratified-sample ``seed``, each
    with the whole crossed EEC's design: ``[(components, design)]``."""
    plans = []
    for emotion, rows in scores.items():
        drawn = stratified_sample(rows, SAMPLE, seed, tuple(FACTORS))
        records = effects(
            drawn[drawn["group"].notna()], sentences_per_cell(rows), emotion, names_per_cell(rows)
        )
        plans += [
            (c, Design(c.templates, c.pool, pool=c.pool, names=c.names))
            for c in map(components_of, records)
        ]
    return plans


def test_the_planner_predicts_the_whole_eecs_mde_from_the_sample_run(scores, whole_and_sample):
    """Over the suite's stratified samples with seeds 0 to 19, the median of the samples'
    predictions (each the median over the 14 effects) is the whole EEC's median reported MDE within
    25 % (measured 0.79; 0.84 before issue 46's unbiased components; one sample's ranges from 0.25
    to 2.03, so one seed alone is no check: seed 0's is 0.71, 0.81 before)."""
    whole, _ = whole_and_sample
    reported = np.median([r["mde"] for r in whole])
    ratios = [
        np.median([design_mde(*plan) for plan in whole_eec_plans(scores, seed)]) / reported
        for seed in range(20)
    ]
    assert np.median(ratios) == pytest.approx(1.0, rel=0.25)


def test_the_samples_interval_holds_the_whole_eecs_mde_over_sample_seeds(scores, whole_and_sample):
    """Over the stratified samples with seeds 0 to 19 (each the rows a ``sample: 4`` run with that
    seed scores), the interval at LEVEL the sample's records predict for the whole EEC's median MDE
    over the 14 effects (the medians of the effects' interval ends) holds the whole EEC's median
    reported MDE for at least 80 % of the seeds less three binomial standard errors (11 of 20;
    measured 19). The reported MDE is itself an estimate on 6 df, so this is looser than the
    simulated coverage (tests/stats/test_design_power.py)."""
    whole, _ = whole_and_sample
    reported = np.median([r["mde"] for r in whole])
    inside = []
    for seed in range(20):
        low, high = np.median(
            [mde_interval(*plan) for plan in whole_eec_plans(scores, seed)], axis=0
        )
        inside.append(low <= reported <= high)
    assert np.mean(inside) >= LEVEL - 3 * np.sqrt(LEVEL * (1 - LEVEL) / len(inside))
