"""The size of the seed mean's test and of its TOST with few seeds, when training noise dominates,
in a brute-force simulation of the estimator itself (docs/conventions.md, "Seed means from few
seeds").

Each replicate draws G = 11 templates, each with its own contrast (SD 0.03) that every seed shares
(the same sentences), and m trained heads, each shifting the effect by its own seed effect (SD 0.05)
and adding its own noise per template (SD 0.005). Each head's effect is the mean of its per-template
contrasts with their clustered standard error on G - 1 df, as the eec suite tests it; the seeds are
pooled as their mean (:func:`~eval_harness.stats.pooling.pool_estimates`), whose variance is then a
median 84 % to 88 % training noise. The test of a true null must reject at alpha = 0.05, and the
TOST of an effect at the edge of its margin must say "within" at alpha, each within three binomial
standard errors of 3,000 replicates. The same replicates with plain Satterthwaite df (the seeds' B
on its own m - 1 df) reject too often at m = 2: the simulation tells a test that does not hold its
size.
"""

import math

import numpy as np
import pytest
from scipy import stats

from eval_harness.stats.equivalence import WITHIN, tost
from eval_harness.stats.pooling import pool_estimates, seed_mean_df

TEMPLATES, TEMPLATE_SD, SEED_SD, HEAD_NOISE_SD = 11, 0.03, 0.05, 0.005
REPLICATES, ALPHA = 3000, 0.05
# Far beyond the estimate's SD: the TOST's size at +margin is its upper one-sided test's, the lower
# one never binds.
MARGIN = 1.0
SLACK = 3 * math.sqrt(ALPHA * (1 - ALPHA) / REPLICATES)
CHECKED = (
    40  # replicates pooled by pool_estimates itself, to show the vectorised pooling below is its
)


def pooled_tests(rng: np.random.Generator, seeds: int, effect: float) -> dict[str, np.ndarray]:
    """Every replicate's pooled estimate, standard error, df and p-value, and its p-value on plain
    Satterthwaite df.

    The estimator itself, brute force: each seed's per-template contrasts, their mean and clustered
    standard error, pooled as the mean over seeds (W + B/m); the df by the code's rule
    (:func:`seed_mean_df`), checked against :func:`pool_estimates` on the first replicates."""
    shared = rng.normal(0, TEMPLATE_SD, (REPLICATES, 1, TEMPLATES))
    shifts = rng.normal(0, SEED_SD, (REPLICATES, seeds, 1))
    contrasts = (
        effect + shared + shifts + rng.normal(0, HEAD_NOISE_SD, (REPLICATES, seeds, TEMPLATES))
    )
    estimates, std_errs = (
        contrasts.mean(axis=2),
        contrasts.std(axis=2, ddof=1) / math.sqrt(TEMPLATES),
    )
    within, added = np.mean(std_errs**2, axis=1), np.var(estimates, axis=1, ddof=1) / seeds
    estimate, std_err = estimates.mean(axis=1), np.sqrt(within + added)
    df = seed_mean_df(within, added, TEMPLATES - 1, seeds)
    plain_df = (within + added) ** 2 / (within**2 / (TEMPLATES - 1) + added**2 / (seeds - 1))
    tests = {
        "estimate": estimate,
        "std_err": std_err,
        "df": df,
        "between_share": added / (within + added),
        "p_value": 2 * stats.t.sf(np.abs(estimate - effect) / std_err, df),
        "plain_p_value": 2 * stats.t.sf(np.abs(estimate - effect) / std_err, plain_df),
    }
    for k in range(CHECKED):
        pooled = pool_estimates(estimates[k] - effect, std_errs[k], df_complete=TEMPLATES - 1)
        assert (pooled.std_err, pooled.df, pooled.p_value) == pytest.approx(
            (std_err[k], df[k], tests["p_value"][k]), rel=1e-9
        )
    return tests


@pytest.mark.parametrize("seeds", [2, 3, 5])
def test_the_seed_means_test_and_tost_hold_their_size_when_training_noise_dominates(seeds):
    rng = np.random.default_rng(4700 + seeds)
    null = pooled_tests(rng, seeds, 0.0)
    assert np.median(null["between_share"]) > 0.8  # training noise dominates
    assert np.mean(null["p_value"] <= ALPHA) == pytest.approx(ALPHA, abs=SLACK)
    if seeds == 2:  # plain Satterthwaite df reject about 11 % of true nulls here
        assert np.mean(null["plain_p_value"] <= ALPHA) > ALPHA + 2 * SLACK
    edge = pooled_tests(rng, seeds, MARGIN)
    verdicts = [
        tost(estimate, std_err, df, MARGIN).verdict
        for estimate, std_err, df in zip(edge["estimate"], edge["std_err"], edge["df"], strict=True)
    ]
    assert np.mean([verdict == WITHIN for verdict in verdicts]) == pytest.approx(ALPHA, abs=SLACK)
