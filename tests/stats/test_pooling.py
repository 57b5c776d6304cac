"""Pooling over seeds: the mean over seeds (W + B/m, Satterthwaite df) and Rubin's rules (what one
retrained head would show) with the agreement shares on hand-worked examples, a plain statistic, bad
input."""

import math

import numpy as np
import pytest
from scipy import stats

from eval_harness.errors import InputError
from eval_harness.stats.pooling import pool_estimates, pool_statistic


def test_rubin_rules_hand_example_all_seeds_agree():
    # q = [0.10, 0.14, 0.12], u = [0.01, 0.02, 0.02], m = 3.
    # q_bar = 0.12; B = (0.02^2 + 0.02^2 + 0) / 2 = 0.0004 (between SD 0.02); W = (1 + 4 + 4)e-4 / 3
    # = 0.0003;
    # T = 0.0003 + (4/3) 0.0004 = 1/1200; r = (4/3) 0.0004 / 0.0003 = 16/9; df = 2 (1 + 9/16)^2 =
    # 625/128; the seeds' share of T: (4/3) 0.0004 / (1/1200) = 0.64.
    pooled = pool_estimates([0.10, 0.14, 0.12], [0.01, 0.02, 0.02], estimand="one_head")
    assert pooled.n_seeds == 3
    assert pooled.estimate == pytest.approx(0.12, abs=1e-15)
    assert pooled.between_variance == pytest.approx(0.0004, abs=1e-15)
    assert pooled.between_sd == pytest.approx(0.02, abs=1e-15)
    assert pooled.within_variance == pytest.approx(0.0003, abs=1e-15)
    assert pooled.total_variance == pytest.approx(1 / 1200, abs=1e-15)
    assert pooled.std_err == pytest.approx(math.sqrt(1 / 1200), abs=1e-15)
    assert pooled.relative_increase_in_variance == pytest.approx(16 / 9, abs=1e-12)
    assert pooled.between_share == pytest.approx(0.64, abs=1e-12)
    assert pooled.df == pytest.approx(625 / 128, abs=1e-12)
    statistic = 0.12 / math.sqrt(1 / 1200)  # 4.1569
    assert pooled.statistic == pytest.approx(statistic, abs=1e-12)
    assert pooled.p_value == pytest.approx(2 * stats.t.sf(statistic, 625 / 128), abs=1e-12)
    half_width = stats.t.ppf(0.975, 625 / 128) * math.sqrt(1 / 1200)
    assert (pooled.ci_low, pooled.ci_high) == (
        pytest.approx(0.12 - half_width),
        pytest.approx(0.12 + half_width),
    )
    # Every seed positive and significant (z = 10, 7, 6); the pooled test too (p ~ 0.01).
    assert pooled.p_value < 0.05
    assert (pooled.share_same_sign, pooled.share_significant, pooled.share_same_significance) == (
        1.0,
        1.0,
        1.0,
    )


def test_rubin_rules_hand_example_seeds_disagree():
    # q = [0.05, -0.01, 0.02], u = 0.02 each: q_bar = 0.02; B = (0.03^2 + 0.03^2) / 2 = 0.0009; W =
    # 0.0004;
    # T = 0.0004 + (4/3) 0.0009 = 0.0016, std_err 0.04, statistic 0.5; r = 3, df = 2 (1 + 1/3)^2 =
    # 32/9.
    # Seeds: z = 2.5 (p 0.012), -0.5, 1.0 -> same sign 2/3, significant 1/3; pooled p ~ 0.65 -> same
    # verdict 2/3.
    pooled = pool_estimates([0.05, -0.01, 0.02], [0.02, 0.02, 0.02], estimand="one_head")
    assert pooled.std_err == pytest.approx(0.04, abs=1e-15)
    assert pooled.statistic == pytest.approx(0.5, abs=1e-12)
    assert pooled.between_share == pytest.approx(0.75, abs=1e-12)  # (4/3) 0.0009 / 0.0016
    assert pooled.df == pytest.approx(32 / 9, abs=1e-12)
    assert pooled.p_value == pytest.approx(2 * stats.t.sf(0.5, 32 / 9), abs=1e-12)
    assert pooled.share_same_sign == pytest.approx(2 / 3)
    assert pooled.share_significant == pytest.approx(1 / 3)
    assert pooled.share_same_significance == pytest.approx(2 / 3)

    # Barnard & Rubin with nu_com = 10: lambda = 0.0012 / 0.0016 = 0.75; nu_obs = 11/13 * 10 * 0.25
    # = 55/26;
    # df = 1 / (9/32 + 26/55) = 1760/1327.
    small_sample = pool_estimates(
        [0.05, -0.01, 0.02], [0.02, 0.02, 0.02], df_complete=10, estimand="one_head"
    )
    assert small_sample.df == pytest.approx(1760 / 1327, abs=1e-12)
    assert small_sample.p_value == pytest.approx(2 * stats.t.sf(0.5, 1760 / 1327), abs=1e-12)

    # The seeds' own p-values (e.g. t tests) replace the normal ones in the shares: here none is
    # significant.
    own = pool_estimates([0.05, -0.01, 0.02], [0.02, 0.02, 0.02], p_values=[0.06, 0.7, 0.4])
    assert (own.share_significant, own.share_same_significance) == (0.0, 1.0)
    # A larger alpha changes the verdicts: at 0.35 the seeds with z = 2.5 and 1.0 (p 0.012, 0.317)
    # count.
    assert pool_estimates(
        [0.05, -0.01, 0.02], [0.02, 0.02, 0.02], alpha=0.35
    ).share_significant == pytest.approx(2 / 3)


def test_identical_seeds_give_the_within_variance_and_a_normal_reference():
    pooled = pool_estimates([0.3, 0.3, 0.3, 0.3], [0.1, 0.1, 0.1, 0.1])
    assert (pooled.between_variance, pooled.between_sd, pooled.between_share, pooled.df) == (
        0.0,
        0.0,
        0.0,
        None,
    )
    assert pooled.std_err == pytest.approx(0.1) and pooled.p_value == pytest.approx(
        2 * stats.norm.sf(3.0)
    )
    assert pool_estimates(
        [0.3, 0.3], [0.1, 0.1], df_complete=10, estimand="one_head"
    ).df == pytest.approx(11 / 13 * 10)
    # The seed mean keeps the sampling variance's own df when no seed moved the value.
    assert pool_estimates([0.3, 0.3], [0.1, 0.1], df_complete=10).df == 10
    assert pool_estimates([0.3, 0.3], [0.1, 0.1], df_complete=np.int64(10)).df == 10


def test_seed_mean_hand_example():
    # q = [0.10, 0.14, 0.12], u = [0.01, 0.02, 0.02], m = 3: W = 0.0003, B = 0.0004, B/m = 4/30000;
    # T = W + B/m = 13/30000; the training noise's share (B/m)/T = 4/13;
    # the df: Satterthwaite's with B/m at its upper 75 % limit, (B/m) * 2 / chi2_2(0.25) = (B/m) k,
    # k = 1 / ln(4/3) (chi2_2's quantile is -2 ln(1 - p)): without df_complete (9 + 4k)^2 / ((4k)^2
    # / 2);
    # with df_complete = 6 (7 templates): (9 + 4k)^2 / (81/6 + (4k)^2 / 2).
    k = 1 / math.log(4 / 3)
    df, clustered_df = (
        2 * (9 + 4 * k) ** 2 / (4 * k) ** 2,
        (9 + 4 * k) ** 2 / (81 / 6 + (4 * k) ** 2 / 2),
    )
    pooled = pool_estimates([0.10, 0.14, 0.12], [0.01, 0.02, 0.02])
    assert pooled.estimand == "seed_mean" and pooled.estimate == pytest.approx(0.12, abs=1e-15)
    assert pooled.total_variance == pytest.approx(13 / 30000, abs=1e-15)
    assert pooled.std_err == pytest.approx(math.sqrt(13 / 30000), abs=1e-15)
    assert pooled.between_share == pytest.approx(4 / 13, abs=1e-12)
    assert pooled.relative_increase_in_variance == pytest.approx(4 / 9, abs=1e-12)
    assert pooled.df == pytest.approx(df, rel=1e-12)
    clustered = pool_estimates([0.10, 0.14, 0.12], [0.01, 0.02, 0.02], df_complete=6)
    assert clustered.df == pytest.approx(clustered_df, rel=1e-12)
    statistic = 0.12 / math.sqrt(13 / 30000)
    assert clustered.p_value == pytest.approx(2 * stats.t.sf(statistic, clustered_df), abs=1e-12)
    half_width = stats.t.ppf(0.975, clustered_df) * math.sqrt(13 / 30000)
    assert clustered.ci_high - clustered.ci_low == pytest.approx(2 * half_width, abs=1e-12)
    # Rubin's variance is larger: the mean's variance drops the between-seed part that one new head
    # would add.
    assert (
        pooled.std_err
        < pool_estimates([0.10, 0.14, 0.12], [0.01, 0.02, 0.02], estimand="one_head").std_err
    )


def test_seed_mean_variance_shrinks_with_seeds_rubins_does_not():
    # The same spread (B) and sampling variance (W) with m = 3 and m = 30: the mean's variance W +
    # B/m falls toward W, Rubin's W + (1 + 1/m) B stays near W + B.
    for m in (3, 30):
        q = 0.1 + 0.05 * stats.norm.ppf((np.arange(m) + 0.5) / m)
        q = 0.1 + (q - q.mean()) / q.std(ddof=1) * 0.05  # B = 0.0025 exactly
        u = np.full(m, 0.02)
        mean = pool_estimates(q, u)
        rubin = pool_estimates(q, u, estimand="one_head")
        assert mean.total_variance == pytest.approx(0.0004 + 0.0025 / m, rel=1e-12)
        assert rubin.total_variance == pytest.approx(0.0004 + (1 + 1 / m) * 0.0025, rel=1e-12)


def test_pool_statistic_hand_example():
    # r = [0.50, 0.52, 0.47, 0.51]: mean 0.5; squared deviations 0, 4e-4, 9e-4, 1e-4 -> SD
    # sqrt(0.0014 / 3).
    pooled = pool_statistic([0.50, 0.52, 0.47, 0.51])
    assert pooled.n_seeds == 4
    assert pooled.mean == pytest.approx(0.5, abs=1e-15)
    assert pooled.sd == pytest.approx(math.sqrt(0.0014 / 3), abs=1e-15)
    assert (pooled.min, pooled.max) == (0.47, 0.52)
    assert pooled.to_dict() == {
        "n_seeds": 4,
        "mean": pooled.mean,
        "sd": pooled.sd,
        "min": 0.47,
        "max": 0.52,
    }
    assert "over 4 seeds: mean 0.5" in pooled.summary()


def test_to_dict_and_summary():
    pooled = pool_estimates([0.05, -0.01, 0.02], [0.02, 0.02, 0.02])
    d = pooled.to_dict()
    assert d["estimate"] == pooled.estimate and d["df"] == pooled.df and d["alpha"] == 0.05
    assert d["estimand"] == "seed_mean"
    assert not any(isinstance(v, float) and np.isnan(v) for v in d.values())
    assert (
        "mean over 3 seeds" in pooled.summary() and "same sign in 67% of seeds" in pooled.summary()
    )
    rubin = pool_estimates([0.05, -0.01, 0.02], [0.02, 0.02, 0.02], estimand="one_head")
    assert "one retrained head (Rubin's rules) from 3 seeds" in rubin.summary()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"estimates": [0.1], "std_errs": [0.1]}, r"at least 2 seeds, got shape \(1,\)"),
        ({"estimates": [0.1, 0.2], "std_errs": [0.1]}, r"at least 2 seeds"),
        ({"estimates": [0.1, 0.2, 0.3], "std_errs": [0.1, 0.1]}, r"same length, got 3 and 2"),
        ({"estimates": [0.1, np.nan], "std_errs": [0.1, 0.1]}, r"estimates must be finite"),
        (
            {"estimates": [0.1, 0.2], "std_errs": [0.1, -0.1]},
            r"std_errs must be >= 0, got \[-0.1\]",
        ),
        ({"estimates": ["a", "b"], "std_errs": [0.1, 0.1]}, r"estimates must be numbers"),
        ({"estimates": [0.1, 0.1], "std_errs": [0.0, 0.0]}, r"the pooled variance is 0"),
        (
            {"estimates": [0.1, 0.2], "std_errs": [0.1, 0.1], "alpha": 1.5},
            r"alpha must be between 0 and 1",
        ),
        (
            {"estimates": [0.1, 0.2], "std_errs": [0.1, 0.1], "p_values": [0.1, 2.0]},
            r"p_values must be 2 numbers",
        ),
        (
            {"estimates": [0.1, 0.2], "std_errs": [0.1, 0.1], "df_complete": 0},
            r"df_complete must be a positive",
        ),
        (
            {"estimates": [0.1, 0.2], "std_errs": [0.1, 0.1], "df_complete": True},
            r"df_complete must be a positive",
        ),
        (
            {"estimates": [0.1, 0.2], "std_errs": [0.1, 0.1], "estimand": "rubin"},
            r"estimand must be one of",
        ),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(InputError, match=message):
        pool_estimates(**kwargs)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([0.5], r"at least 2 seeds"),
        ([0.5, np.inf], r"values must be finite"),
        ([[0.5, 0.4]], r"got shape \(1, 2\)"),
    ],
)
def test_pool_statistic_bad_input(values, message):
    with pytest.raises(InputError, match=message):
        pool_statistic(values)
