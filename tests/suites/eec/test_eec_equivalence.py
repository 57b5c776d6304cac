"""The eec suite's equivalence margin and power-planner fields, and the report's words for a result
that is not
significant: the TOST p against scipy's one-sided t tails, the planner's number of templates against
a scan of the noncentral t power computed here."""

import math
import re

import numpy as np
import pandas as pd
import pytest
from helpers.betareg_reference import crossed_rows
from scipy import stats

from eval_harness.contract import Unit
from eval_harness.contract.records import make_record
from eval_harness.errors import ConfigError
from eval_harness.report import annotate
from eval_harness.stats.equivalence import reference_df, tost
from eval_harness.stats.verdict import verdict
from eval_harness.suites.eec.planner import equivalence_of
from eval_harness.suites.eec.records import EEC_RECORDS
from eval_harness.suites.eec.sentences import undetected_sentences
from eval_harness.suites.eec.suite import SUITE
from eval_harness.suites.eec.verdicts import effect_verdict

LEVELS = {"group": ("Anglo", "Arab"), "gender": ("male", "female")}
UNIT = Unit(
    model="m", suite="eec", language="en", dataset="eec", config="en_arab_anglo", emotion="anger"
)


def null_data(seed: int = 0) -> dict:
    """11 templates x 40 names (10 per cell), Beta scores around 0.3 with a template shift; no group
    effect."""
    rows = crossed_rows(LEVELS, 11, 10)
    rng = np.random.default_rng(seed)
    mu = 0.30 + 0.02 * rows["index"]["gender"] + rng.normal(0, 0.01, 11)[rows["template"]]
    return {
        "y": rng.beta(mu * 40, (1 - mu) * 40),
        "factors": {factor: list(rows["labels"][factor]) for factor in LEVELS},
        "references": {factor: levels[0] for factor, levels in LEVELS.items()},
        "template_id": [int(t) for t in rows["template"]],
        "person": [str(p) for p in rows["person"]],
        "validity": None,
    }


def unit_records(data: dict, **options) -> list[dict]:
    prepared = {"options": {**SUITE.options, "stability_resamples": 0, **options}, "eec": {}}
    prepared["eec"]["en_arab_anglo", "anger"] = data
    return [make_record(UNIT, r, EEC_RECORDS) for r in SUITE.evaluate(UNIT, prepared, ctx=None)]


def test_every_effect_carries_the_margin_and_the_planners_components():
    data = null_data()
    effects = [r for r in unit_records(data) if r["metric"] == "effect"]
    assert len(effects) == 7 and {r["equivalence_margin"] for r in effects} == {0.01}
    frame = pd.DataFrame({"y": data["y"], "t": data["template_id"], **data["factors"]})
    within = (
        frame.groupby(["t", "group", "gender"])["y"].var(ddof=1).mean()
    )  # balanced: the pooled variance
    for record in effects:
        assert (record["planner_templates"], record["planner_per_cell"]) == (11, pytest.approx(10))
        # unbiased, not truncated at 0 (a null design's is below 0 about half the time); inside its
        # interval
        assert (
            record["planner_template_var_low"]
            <= record["planner_template_var"]
            <= record["planner_template_var_high"]
        )
        if record["term"] in ("group_ame", "group:gender_did"):  # the effects of all four cells
            assert record["planner_within_var"] == pytest.approx(within, rel=1e-9)
    unmarked = [r for r in unit_records(data, equivalence_margin=0) if r["metric"] == "effect"]
    assert not any("equivalence_margin" in r for r in unmarked)


def templates_for_80_percent_power(
    record: dict, effect: float, template_var: str = "planner_template_var"
) -> int:
    """The smallest T whose two-sided 5 % t test (T - 1 df) has 80 % power at ``effect``, by scipy's
    noncentral t, with the per-template variance the planner's components give: ``template_var``
    (the estimate or an end of its interval; sigma2_T >= 0 is imposed on the design's variance) + k
    within_var / N."""
    per_template = max(0.0, record[template_var]) + (
        record["planner_weight_square_sum"]
        * record["planner_within_var"]
        / record["planner_per_cell"]
    )
    for templates in range(2, 5000):
        df, shift = templates - 1, effect / math.sqrt(per_template / templates)
        critical = stats.t.ppf(0.975, df)
        if stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift) >= 0.8:
            return templates
    raise AssertionError("no design up to 5000 templates")


def test_a_result_that_is_not_significant_says_its_equivalence_test_and_the_templates_that_would_detect_delta():  # noqa: E501
    results = annotate(pd.DataFrame.from_records(unit_records(null_data())))
    (line,) = undetected_sentences(results)["en_arab_anglo"]
    row = results[(results["metric"] == "effect") & (results["term"] == "group_ame")].iloc[0]
    assert row["p_value"] > 0.05 and row["statistic_kind"] == "t" and row["df"] == 10
    tails = (
        stats.t.sf((row["value"] + 0.01) / row["std_err"], 10),
        stats.t.cdf((row["value"] - 0.01) / row["std_err"], 10),
    )
    found = re.search(
        r"Arab vs Anglo \(averaged [^)]*\) .*?not shown within ±0\.01 either \(TOST "
        r"p = ([0-9.e-]+)\); about (\d+) templates \((\d+)-(\d+)\) would detect 0\.01",
        line,
    )
    assert found, line
    assert found.group(1) == f"{max(tails):.2g}"  # printed to 2 significant digits
    assert int(found.group(2)) == templates_for_80_percent_power(row, 0.01)
    # the interval of that count: the same scan at either end of sigma2_T's 80 % interval
    low, high = (
        templates_for_80_percent_power(row, 0.01, f"planner_template_var_{end}")
        for end in ("low", "high")
    )
    assert (int(found.group(3)), int(found.group(4))) == (low, high) and low <= int(
        found.group(2)
    ) <= high


def test_a_bad_margin_is_a_config_error():
    with pytest.raises(ConfigError, match="equivalence margin must be a finite number > 0"):
        SUITE.validate_options({**SUITE.options, "equivalence_margin": -0.1})


def test_pooled_seeds_average_the_components_and_add_the_seeds_spread():
    """Two seeds' records pooled: each effect's planner variances are the seeds' mean, its design
    fields stay, and the planner's seed variance is the square of the pooled record's between-seed
    SD over 2 seeds."""
    from eval_harness.contract.seeds import pool_seeds
    from eval_harness.suites.eec.planner import components_of

    seeds = [[dict(r, seed=seed) for r in unit_records(null_data(seed))] for seed in (0, 1)]
    pooled = pool_seeds([r for records in seeds for r in records], schemas={"eec": EEC_RECORDS})
    for term in ("group_ame", "group:gender_did"):
        (row,) = [r for r in pooled if r["metric"] == "effect" and r["term"] == term]
        each = [
            next(r for r in records if r["metric"] == "effect" and r["term"] == term)
            for records in seeds
        ]
        assert row["planner_template_var"] == pytest.approx(
            np.mean([r["planner_template_var"] for r in each])
        )
        assert row["planner_within_var"] == pytest.approx(
            np.mean([r["planner_within_var"] for r in each])
        )
        assert row["planner_templates"] == 11 and row["equivalence_margin"] == 0.01
        components = components_of(row)
        assert components.seeds == 2
        assert components.seed_var == pytest.approx(
            np.var([r["value"] for r in each], ddof=1), rel=1e-9
        )


@pytest.mark.parametrize("kind", ["t", "z"])
def test_the_tost_and_the_verdict_read_a_records_df_only_for_a_t_test(kind):
    """A z record that still carries a df is tested on the normal by the planner's TOST and by the
    verdict, a t record on t(df): both read the one rule, stats.equivalence.reference_df."""
    row = {"value": 0.004, "std_err": 0.004, "df": 3.0, "statistic_kind": kind}
    row["equivalence_margin"] = 0.012
    df = 3.0 if kind == "t" else None
    assert reference_df(kind, 3.0) == df
    expected = tost(0.004, 0.004, df, 0.012)
    assert equivalence_of(row) == expected
    assert expected.verdict == ("cannot tell" if kind == "t" else "within")  # t(3)'s tails decide
    assert effect_verdict(row) == verdict(0.004, 0.004, df, 0.012)
