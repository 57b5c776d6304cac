"""Records of several seeds pooled into one number each (contract/seeds.py), and the end-of-run
table that shows the pooled value with the between-seed spread. Expected values are written out by
hand (the mean over seeds with Satterthwaite's df; Rubin 1987 for what one retrained head would
show)."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from toy_method import EMOTIONS, register_toy_suite

from eval_harness.contract.seeds import pool_seeds
from eval_harness.runner import parse_config, run_sweep
from eval_harness.suites import unregister_suite
from eval_harness.suites.eec.records import EEC_RECORDS

SCHEMAS = {
    "eec": EEC_RECORDS
}  # the split that keys a Pearson r, the clustered test pooled beside the own
KEY = dict(
    model="m",
    suite="eec",
    language="en",
    dataset="eec",
    config="en_arab_anglo",
    emotion="anger",
    test=None,
)


def _estimate(seed, value, std_err, p_value, **extra):
    return dict(
        KEY,
        term="group",
        metric="estimate",
        value=value,
        std_err=std_err,
        p_value=p_value,
        seed=seed,
        **extra,
    )


def _seed_records():
    values, std_errs = [0.10, 0.16, 0.04], [0.02, 0.03, 0.025]
    p_values = [float(2 * stats.norm.sf(abs(q / u))) for q, u in zip(values, std_errs, strict=True)]
    clustered = [0.05, 0.06, 0.055]
    records = [
        _estimate(
            seed,
            q,
            u,
            p,
            statistic_kind="z",
            df=None,
            contrast="logit difference, Arab vs Anglo, among men",
            lr_statistic=10.0
            + seed,  # a per-seed test that is not pooled: dropped, not shown with one seed's value
            clustered_std_err=c,
            clustered_p_value=float(2 * stats.t(10).sf(abs(q / c))),
            clustered_df=10,
            note=f"note {seed % 2}",
        )
        for seed, q, u, p, c in zip((0, 1, 2), values, std_errs, p_values, clustered, strict=True)
    ]
    return records, values, std_errs, p_values, clustered


def test_estimates_with_standard_errors_are_pooled_as_the_mean_over_seeds():
    records, values, std_errs, p_values, clustered = _seed_records()
    (pooled,) = pool_seeds(records, schemas=SCHEMAS)
    m, q_bar = 3, sum(values) / 3
    between = sum((q - q_bar) ** 2 for q in values) / (m - 1)
    within = sum(u**2 for u in std_errs) / m
    total = within + between / m  # the sentences are shared: only the training noise averages out
    # Satterthwaite's df with B/m at its upper 75 % limit, (B/m) 2 / chi2_2(0.25) = (B/m) / ln(4/3)
    # (chi2_2's quantile is -2 ln(1 - p)); the z tests' sampling variance has infinite df
    upper = between / m / math.log(4 / 3)
    df = (within + upper) ** 2 / (upper**2 / (m - 1))
    assert pooled["value"] == pytest.approx(q_bar, rel=1e-12)
    assert pooled["std_err"] == pytest.approx(math.sqrt(total), rel=1e-12)
    assert pooled["between_seed_share"] == pytest.approx(between / m / total, rel=1e-12)
    assert pooled["between_seed_sd"] == pytest.approx(math.sqrt(between), rel=1e-12)
    assert pooled["df"] == pytest.approx(df, rel=1e-10) and pooled["statistic_kind"] == "t"
    assert pooled["p_value"] == pytest.approx(
        2 * stats.t(df).sf(q_bar / math.sqrt(total)), rel=1e-10
    )
    half = stats.t(df).ppf(0.975) * math.sqrt(total)
    assert (pooled["ci_low"], pooled["ci_high"]) == pytest.approx(
        (q_bar - half, q_bar + half), rel=1e-10
    )
    assert pooled["share_same_sign"] == 1.0
    assert pooled["share_significant"] == pytest.approx(np.mean(np.array(p_values) <= 0.05))
    assert (pooled["n_seeds"], pooled["seeds"], pooled["pooling"], pooled["seed"]) == (
        3,
        [0, 1, 2],
        "seed_mean",
        None,
    )
    assert (pooled["seed_min"], pooled["seed_max"]) == (0.04, 0.16)
    assert "lr_statistic" not in pooled
    assert (
        pooled["contrast"] == "logit difference, Arab vs Anglo, among men"
        and pooled["note"] == "note 0; note 1"
    )
    # the template-clustered test the same way, its sampling variance with the seeds' t(10) df
    clustered_within = sum(c**2 for c in clustered) / m
    clustered_total = clustered_within + between / m
    clustered_df = (clustered_within + upper) ** 2 / (clustered_within**2 / 10 + upper**2 / (m - 1))
    assert pooled["clustered_std_err"] == pytest.approx(math.sqrt(clustered_total), rel=1e-12)
    assert pooled["clustered_df"] == pytest.approx(clustered_df, rel=1e-10)
    # without the suite's schema the clustered test is one field among others that differ between
    # seeds: dropped
    (unknown,) = pool_seeds(records)
    assert unknown["std_err"] == pooled["std_err"] and "clustered_std_err" not in unknown


def test_rubins_rules_answer_what_one_retrained_head_would_show():
    records, values, std_errs, _, clustered = _seed_records()
    (pooled,) = pool_seeds(records, schemas=SCHEMAS, estimand="one_head")
    m, q_bar = 3, sum(values) / 3
    between = sum((q - q_bar) ** 2 for q in values) / (m - 1)
    total = sum(u**2 for u in std_errs) / m + (1 + 1 / m) * between
    rubin_df = (m - 1) * (1 + (sum(u**2 for u in std_errs) / m) / ((1 + 1 / m) * between)) ** 2
    assert pooled["pooling"] == "rubin" and pooled["value"] == pytest.approx(q_bar, rel=1e-12)
    assert pooled["std_err"] == pytest.approx(math.sqrt(total), rel=1e-12)
    assert pooled["df"] == pytest.approx(rubin_df, rel=1e-10)
    assert pooled["p_value"] == pytest.approx(
        2 * stats.t(rubin_df).sf(q_bar / math.sqrt(total)), rel=1e-10
    )
    clustered_total = sum(c**2 for c in clustered) / m + (1 + 1 / m) * between
    assert pooled["clustered_std_err"] == pytest.approx(math.sqrt(clustered_total), rel=1e-12)
    assert pooled["clustered_df"] < 10 and pooled["clustered_p_value"] > pooled["p_value"]


def test_a_number_without_a_test_is_averaged_and_no_p_value_is_invented():
    records = [
        dict(
            KEY,
            term=None,
            metric="pearson_r",
            value=r,
            std_err=None,
            p_value=None,
            split=split,
            seed=seed,
            n=400,
        )
        for seed, r in enumerate((0.61, 0.58, 0.66))
        for split in ("validation", "test")
    ]
    pooled = pool_seeds(records, schemas=SCHEMAS)
    assert [record["split"] for record in pooled] == [
        "validation",
        "test",
    ]  # one per split, in order
    assert pooled[1]["value"] == pytest.approx(np.mean([0.61, 0.58, 0.66]), rel=1e-12)
    assert pooled[1]["between_seed_sd"] == pytest.approx(
        np.std([0.61, 0.58, 0.66], ddof=1), rel=1e-12
    )
    assert pooled[1]["pooling"] == "mean" and pooled[1]["n"] == 400 and pooled[1]["p_value"] is None
    # an MLP's selected epoch differs between seeds, its head does not: the head stays
    for record in records:
        record["selected"] = {"head": "mlp", "best_epoch": record["seed"] + 3}
    pooled = pool_seeds(records, schemas=SCHEMAS)
    assert [record["selected"] for record in pooled] == [{"head": "mlp"}] * 2
    cells = [
        dict(KEY, term="Arab|male", metric="cell_mean", value=v, predicted_mean=v + 0.01, seed=seed)
        for seed, v in enumerate((0.3, 0.5))
    ]
    (cell,) = pool_seeds(cells)
    assert cell["value"] == pytest.approx(0.4) and cell["predicted_mean"] == pytest.approx(0.41)
    # a standard error without a test (e.g. a baseline's) gets the mean's pooled SE but no p-value
    (baseline,) = pool_seeds(
        [dict(KEY, metric="baseline", value=v, std_err=0.01, seed=s) for s, v in enumerate((1, 2))]
    )
    assert (
        baseline["pooling"] == "seed_mean"
        and baseline.get("p_value") is None
        and "stars" not in baseline
    )


def test_seed_independent_numbers_are_kept_once_and_unpoolable_ones_per_seed():
    weat = [
        dict(KEY, suite="xweat", test="T1", metric="effect_size", value=1.2, p_value=p, seed=seed)
        for seed, p in enumerate((0.001, 0.0012))
    ]
    (kept,) = pool_seeds(weat)
    assert (kept["value"], kept["p_value"], kept["pooling"], kept["between_seed_sd"]) == (
        1.2,
        0.001,
        "identical",
        0,
    )
    varying = [
        dict(KEY, suite="gender_space", metric="knn_profession_r", value=v, p_value=1e-6, seed=seed)
        for seed, v in enumerate((0.6, 0.7))
    ]
    assert (
        pool_seeds(varying) == varying
    )  # a p-value without a standard error: nothing honest to pool
    skipped_once = [
        dict(KEY, metric="effect_size", value=v, seed=s) for s, v in enumerate((None, 0.4))
    ]
    assert pool_seeds(skipped_once) == skipped_once
    one_seed = [_estimate(0, 0.1, 0.02, 1e-6)]
    assert pool_seeds(one_seed) == one_seed and "n_seeds" not in pool_seeds(one_seed)[0]


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def test_the_end_of_run_table_shows_each_quantity_pooled_over_the_seeds(toy, tmp_path):
    config = parse_config(
        {
            "name": "seeds",
            "models": [{"name": "m1", "type": "svm_tfidf"}],
            "suites": {"toy": {"languages": ["en"], "n_configs": 1}},
            "seeds": [0, 1, 2],
        }
    )
    summary = run_sweep(config, tmp_path / "run", progress=False)
    lines = summary.table.splitlines()
    assert (
        len(lines) == 2 + 1 + 3
    )  # header, rule, ONE row for three seeds, blank line, two legend lines
    assert lines[-1].startswith("seeds 0, 1, 2: each cell is the mean over the seeds")
    records = [
        json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    ]
    header, row = lines[0].split(), lines[2].split()
    for emotion in EMOTIONS:
        values = [
            r["value"] for r in records if r["metric"] == "estimate" and r["emotion"] == emotion
        ]
        assert len(values) == 3
        cell = row[header.index(emotion)]
        mean, spread = cell.split("±")
        assert float(mean.rstrip("*")) == pytest.approx(np.mean(values), abs=5e-4)
        assert float(spread) == pytest.approx(np.std(values, ddof=1), abs=5e-4)


def test_the_report_states_its_estimand_and_one_head_is_rubins(toy, tmp_path):
    """`xbias report` pools a run's seeds as the mean over seeds and says so; `--seed-estimand
    one-head` gives Rubin's rules, whose standard errors are never smaller (W + (1 + 1/m) B against
    W + B/m)."""
    from eval_harness.cli import main

    config = {
        "name": "seeds",
        "models": [{"name": "m1", "type": "svm_tfidf"}],
        "suites": {"toy": {"languages": ["en"], "n_configs": 1}},
        "seeds": [0, 1, 2],
    }
    run_sweep(parse_config(config), tmp_path / "run", progress=False)
    tables = {}
    for estimand in ("seed-mean", "one-head"):
        out = tmp_path / estimand
        assert (
            main(
                [
                    "report",
                    "-q",
                    str(tmp_path / "run"),
                    "--out",
                    str(out),
                    "--seed-estimand",
                    estimand,
                ]
            )
            == 0
        )
        table = pd.read_csv(out / "results.csv")
        tables[estimand] = table[table["metric"] == "estimate"].set_index("emotion")
    assert set(tables["seed-mean"]["pooling"]) == {"seed_mean"} and set(
        tables["one-head"]["pooling"]
    ) == {"rubin"}
    assert (tables["one-head"]["std_err"] >= tables["seed-mean"]["std_err"]).all()
    assert np.allclose(tables["one-head"]["value"], tables["seed-mean"]["value"])
    try:
        code = main(["report", "-q", str(tmp_path / "run"), "--seed-estimand", "rubin"])
    except SystemExit as stopped:  # argparse's refusal
        code = stopped.code
    assert code == 2


def test_the_pooled_clustered_test_gives_its_own_mde_and_the_stability_shares_are_averaged():
    """The pooled record's ``mde`` is the effect at which the pooled clustered t test (on its
    Barnard-Rubin df) has 80 % power, solved here with scipy's noncentral t, not a mean of the
    seeds' MDEs; the stability shares (``seed_mean`` fields) are the seeds' mean; a per-seed label
    that differs is dropped."""
    from scipy.optimize import brentq

    values, clustered = [0.10, 0.16, 0.04], [0.05, 0.06, 0.055]
    records = [
        _estimate(
            seed,
            q,
            0.02,
            float(2 * stats.norm.sf(abs(q / 0.02))),
            clustered_std_err=c,
            clustered_p_value=float(2 * stats.t(10).sf(abs(q / c))),
            clustered_df=10,
            mde=0.123 + seed,  # each seed's own: not what the pooled test could detect
            stability_template_sign=share,
            stability_template_influential=str(seed),
        )
        for seed, q, c, share in zip((0, 1, 2), values, clustered, (1.0, 0.9, 0.65), strict=True)
    ]
    (pooled,) = pool_seeds(records, schemas=SCHEMAS)
    df = pooled["clustered_df"]
    critical = stats.t.ppf(0.975, df)

    def power(delta):
        lower = stats.nct.cdf(
            -critical, df, delta
        )  # NaN from scipy far in the tail, where it is ~0
        return stats.nct.sf(critical, df, delta) + np.nan_to_num(lower) - 0.8

    assert pooled["mde"] == pytest.approx(
        brentq(power, 0.1, 20) * pooled["clustered_std_err"], rel=1e-6
    )
    assert pooled["stability_template_sign"] == pytest.approx((1.0 + 0.9 + 0.65) / 3)
    assert "stability_template_influential" not in pooled


def test_a_difference_pooled_over_seeds_keeps_each_sides_effect_and_its_own_tests_mde():
    """A cross-language (or cross-model) difference pooled over three seeds: the effect in each
    condition is the seeds' mean and the MDE is that of the pooled t test (the seed mean's
    Satterthwaite df from G - 1 = 6, and Rubin's Barnard-Rubin df, computed here by hand), not
    dropped because the seeds' values differ."""
    from eval_harness.stats.power import minimum_detectable_effect
    from eval_harness.suites.eec_crosslingual.records import CROSSLINGUAL_RECORDS, DIFFERENCE_METRIC

    values, std_errs = [0.02, 0.05, 0.03], [0.010, 0.012, 0.011]
    records = [
        dict(
            KEY,
            suite="eec_crosslingual",
            term="group[Arab]|gender=female",
            metric=DIFFERENCE_METRIC,
            value=q,
            std_err=u,
            p_value=float(2 * stats.t(6).sf(abs(q / u))),
            statistic_kind="t",
            df=6,
            seed=seed,
            mde=0.5,
            reference_estimate=0.10 + seed / 100,
            other_estimate=0.12 + q + seed / 100,
            reference_std_err=0.01 + seed / 1000,
            other_regressor_r=0.6 + seed / 10,
        )
        for seed, q, u in zip((0, 1, 2), values, std_errs, strict=True)
    ]
    schemas = {"eec_crosslingual": CROSSLINGUAL_RECORDS}
    m, within, between = 3, np.mean(np.square(std_errs)), np.var(values, ddof=1)
    (mean,) = pool_seeds(records, schemas=schemas)
    mean_total = within + between / m
    upper = between / m / math.log(4 / 3)  # B/m at its upper 75 % limit (the df only)
    mean_df = (within + upper) ** 2 / (within**2 / 6 + upper**2 / (m - 1))
    assert mean["pooling"] == "seed_mean" and mean["std_err"] == pytest.approx(
        math.sqrt(mean_total), rel=1e-12
    )
    assert mean["df"] == pytest.approx(mean_df, rel=1e-10) and mean_df > 2
    assert mean["mde"] == pytest.approx(
        minimum_detectable_effect(math.sqrt(mean_total), mean_df), rel=1e-12
    )
    (pooled,) = pool_seeds(records, schemas=schemas, estimand="one_head")
    total = within + (1 + 1 / m) * between
    share = (1 + 1 / m) * between / total
    rubin_df = (m - 1) / share**2
    observed_df = (6 + 1) / (6 + 3) * 6 * (1 - share)
    df = 1 / (1 / rubin_df + 1 / observed_df)
    assert pooled["pooling"] == "rubin" and pooled["std_err"] == pytest.approx(
        math.sqrt(total), rel=1e-12
    )
    assert pooled["df"] == pytest.approx(df, rel=1e-9)
    # df is below 1 here (the seeds disagree a lot): the MDE is that of the t test on those df, as
    # the p-value is
    assert df < 1
    assert pooled["mde"] == pytest.approx(
        minimum_detectable_effect(math.sqrt(total), df), rel=1e-12
    )
    assert pooled["mde"] != 0.5
    assert pooled["reference_estimate"] == pytest.approx(0.11)
    assert pooled["other_estimate"] == pytest.approx(0.12 + np.mean(values) + 0.01)
    assert pooled["other_regressor_r"] == pytest.approx(0.7)
    assert (
        "reference_std_err" not in pooled
    )  # a per-seed standard error is not shown as the pooled one
