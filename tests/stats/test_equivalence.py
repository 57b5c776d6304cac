"""TOST (stats/equivalence.py): its p-values against a direct computation, and in simulation its
size at the margin and its power (tost_power, seed_mean_tost_power), with the template-clustered
standard error (t on T - 1 df) and with seed pooling's (the mean over seeds: W + B/m on
Satterthwaite df)."""

import math

import numpy as np
import pytest
from scipy import stats

from eval_harness.errors import InputError
from eval_harness.stats.equivalence import (
    CANNOT_TELL,
    NOT_WITHIN,
    WITHIN,
    seed_mean_tost_power,
    tost,
    tost_power,
)
from eval_harness.stats.pooling import pool_estimates

MARGIN = 0.02


@pytest.mark.parametrize("df", [None, float("inf"), 6, 2.4])
@pytest.mark.parametrize("estimate", [-0.031, -0.004, 0.0, 0.012, 0.05])
def test_tost_p_values_are_the_two_one_sided_tests(estimate, df):
    """p_lower = P(T > (e + d) / s), p_upper = P(T < (e - d) / s) by scipy's t and normal, the
    interval e -+ t_0.95 s, and the verdict from them."""
    std_err = 0.008
    dist = stats.norm() if df is None or math.isinf(df) else stats.t(df)
    p_lower = dist.sf((estimate + MARGIN) / std_err)
    p_upper = dist.cdf((estimate - MARGIN) / std_err)
    result = tost(estimate, std_err, df, MARGIN)
    assert result.p_lower == pytest.approx(p_lower, rel=1e-10, abs=1e-300)
    assert result.p_upper == pytest.approx(p_upper, rel=1e-10, abs=1e-300)
    assert result.p_value == max(result.p_lower, result.p_upper)
    half = dist.ppf(0.95) * std_err
    assert (result.ci_low, result.ci_high) == pytest.approx(
        (estimate - half, estimate + half), rel=1e-10
    )
    inside = -MARGIN < result.ci_low and result.ci_high < MARGIN
    assert (result.verdict == WITHIN) == inside == (result.p_value <= 0.05)
    outside = result.ci_low >= MARGIN or result.ci_high <= -MARGIN
    assert (result.verdict == NOT_WITHIN) == outside
    assert (result.verdict == CANNOT_TELL) == (not inside and not outside)


def test_verdict_words_name_the_margin():
    assert tost(0.001, 0.002, 6, 0.01).words().startswith("within ±0.01 (TOST p = ")
    assert tost(0.05, 0.002, 6, 0.01).words() == "not within ±0.01"
    assert tost(0.008, 0.004, 6, 0.01).words() == "cannot tell whether within ±0.01"


def _binomial_se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


def share_within(estimates, std_errs, dfs, margin: float = MARGIN) -> float:
    """The share of replicates whose TOST finds 'within ±margin'."""
    dfs = np.broadcast_to(dfs, np.shape(estimates))
    verdicts = [
        tost(e, s, d, margin).verdict for e, s, d in zip(estimates, std_errs, dfs, strict=True)
    ]
    return float(np.mean([verdict == WITHIN for verdict in verdicts]))


def clustered_replicates(effect: float, n: int, rng, templates: int = 7):
    """``n`` template-clustered estimates of a contrast: per template the effect plus a template
    shift (SD 0.02) plus its cell means' noise (SD 0.01); the estimate is the mean over templates
    and its standard error the clustered one, sd / sqrt(T), on T - 1 df. Returns (estimates,
    standard errors, df, true sigma)."""
    per_template = (
        effect + rng.normal(0, 0.02, (n, templates)) + rng.normal(0, 0.01, (n, templates))
    )
    sd = math.sqrt(0.02**2 + 0.01**2)
    return (
        per_template.mean(1),
        per_template.std(1, ddof=1) / math.sqrt(templates),
        templates - 1,
        sd / math.sqrt(templates),
    )


def seed_pooled_replicates(effect: float, n: int, rng, seeds: int = 3):
    """``n`` seed-pooled estimates: the corpus' noise (clustered as above, shared by every seed: the
    seeds score the same sentences) plus each seed's own shift (SD 0.006), each seed's clustered
    standard error, pooled by :func:`pool_estimates` with the clustered df as the complete-data df.
    Returns (estimates, standard errors, df, the estimator's true sigma)."""
    estimates, std_errs, df, sigma = clustered_replicates(effect, n, rng)
    shifts = rng.normal(0, 0.006, (n, seeds))
    pooled = [
        pool_estimates(q + shift, [u] * seeds, df_complete=df)
        for q, u, shift in zip(estimates, std_errs, shifts, strict=True)
    ]
    dfs = np.array([np.inf if p.df is None else p.df for p in pooled])
    return (
        np.array([p.estimate for p in pooled]),
        np.array([p.std_err for p in pooled]),
        dfs,
        math.sqrt(sigma**2 + 0.006**2 / seeds),
    )


@pytest.mark.parametrize("replicates", [clustered_replicates, seed_pooled_replicates])
@pytest.mark.parametrize("edge", [-MARGIN, MARGIN])
def test_tost_size_at_the_margin_is_at_most_alpha(replicates, edge):
    """A true effect exactly at an edge of the margin is found 'within' in at most 5 % of 1,000
    replicates, up to three binomial standard errors (0.021)."""
    n = 1000
    rng = np.random.default_rng(17 if edge > 0 else 18)
    estimates, std_errs, dfs, _ = replicates(edge, n, rng)
    assert share_within(estimates, std_errs, dfs) <= 0.05 + 3 * _binomial_se(0.05, n)


def test_tost_power_matches_simulation_with_the_clustered_standard_error():
    """At effect 0.004 the share of 1,000 clustered replicates found 'within ±0.02' is tost_power's,
    within three binomial standard errors (the clustered estimate and its SE are exactly N and
    scaled chi on 6 df)."""
    n = 1000
    rng = np.random.default_rng(3)
    estimates, std_errs, df, sigma = clustered_replicates(0.004, n, rng)
    within = share_within(estimates, std_errs, df)
    expected = tost_power(0.004, sigma, df, MARGIN)
    assert 0.2 < expected < 0.9  # a power that the check can tell from 0 and 1
    assert within == pytest.approx(expected, abs=3 * _binomial_se(expected, n))


@pytest.mark.parametrize(("effect", "margin"), [(0.0, MARGIN), (0.004, 1.5 * MARGIN)])
def test_tost_power_matches_simulation_with_the_seed_pooled_standard_error(effect, margin):
    """The share of 1,000 seed-pooled replicates (3 seeds, the mean over seeds, W + B/m on
    Satterthwaite df) found 'within' is seed_mean_tost_power's, within three binomial standard
    errors; the power is far from 0 and 1."""
    n = 1000
    rng = np.random.default_rng(4)
    estimates, std_errs, dfs, _ = seed_pooled_replicates(effect, n, rng)
    within = share_within(estimates, std_errs, dfs, margin)
    sampling_var = (
        0.02**2 + 0.01**2
    ) / 7  # the clustered estimate's variance (clustered_replicates)
    expected = seed_mean_tost_power(effect, sampling_var, 6, 0.006**2, 3, margin)
    assert 0.2 < expected < 0.9
    assert within == pytest.approx(expected, abs=3 * _binomial_se(expected, n))


def test_seed_mean_tost_power_without_seed_variance_is_tost_power():
    """With no training variance the pooled SE is the clustered one on its own df: the two
    computations agree to the midpoint rule's error (1 / grid)."""
    sampling_var = (0.02**2 + 0.01**2) / 7
    pooled = seed_mean_tost_power(0.004, sampling_var, 6, 0.0, 3, MARGIN)
    assert pooled == pytest.approx(
        tost_power(0.004, math.sqrt(sampling_var), 6, MARGIN), abs=1 / 400
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: tost(0.0, 0.01, 6, 0.0), "margin must be a finite number > 0"),
        (lambda: tost(0.0, 0.01, 6, float("nan")), "margin must be a finite number > 0"),
        (lambda: tost(0.0, 0.0, 6, 0.01), "std_err must be > 0"),
        (lambda: tost(float("nan"), 0.01, 6, 0.01), "estimate must be a finite number"),
        (lambda: tost(0.0, 0.01, 0, 0.01), "df must be a number > 0"),
        (lambda: tost(0.0, 0.01, 6, 0.01, alpha=0.6), r"alpha must be in \(0, 0.5\)"),
    ],
)
def test_bad_tost_arguments_are_one_line_errors(call, message):
    with pytest.raises(InputError, match=message):
        call()
