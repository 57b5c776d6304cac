"""WEAT's minimum detectable effect: at the reported MDE a permutation test, simulated here from
scratch on normal associations, rejects in 80 % of the replicates (within binomial error); below it,
less often."""

import math
import re

import numpy as np
import pytest
from scipy import stats

from eval_harness.errors import InputError
from eval_harness.stats.weat_power import weat_minimum_detectable_effect

REPLICATES = 2000
PERMUTATIONS = 499
ALPHA = 0.05


def within_shift(d: float, n_x: int, n_y: int) -> float:
    """The shift, in within-set SDs, of two normal sets whose pooled population has WEAT effect size
    ``d``: solves d = delta / sqrt(1 + p (1 - p) delta^2), p = n_x / (n_x + n_y) (the union's
    variance holds the shift)."""
    share = n_x / (n_x + n_y)
    return d / math.sqrt(1 - share * (1 - share) * d * d)


def simulated_power(d: float, n_x: int, n_y: int, alternative: str, seed: int = 0) -> float:
    """Share of replicates in which a Monte-Carlo permutation test of sum(s_x) (p = (k+1)/(n+1))
    rejects at ALPHA, for s_x ~ N(delta, 1), s_y ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    delta = within_shift(d, n_x, n_y)
    rejections = 0
    for _ in range(REPLICATES):
        pooled = np.concatenate([rng.normal(delta, 1.0, n_x), rng.normal(0.0, 1.0, n_y)])
        shuffled = rng.permuted(np.tile(pooled, (PERMUTATIONS, 1)), axis=1)
        centre = n_x * pooled.mean()
        observed, drawn = pooled[:n_x].sum() - centre, shuffled[:, :n_x].sum(axis=1) - centre
        if alternative == "two-sided":
            observed, drawn = abs(observed), np.abs(drawn)
        p_value = (np.count_nonzero(drawn >= observed) + 1) / (PERMUTATIONS + 1)
        rejections += p_value <= ALPHA
    return rejections / REPLICATES


@pytest.mark.parametrize(
    ("n_x", "n_y", "alternative"), [(8, 8, "greater"), (12, 8, "greater"), (8, 8, "two-sided")]
)
def test_the_permutation_test_has_80_percent_power_at_the_reported_mde(n_x, n_y, alternative):
    mde = weat_minimum_detectable_effect(n_x, n_y, alternative)
    # 3 binomial standard errors of a share of 0.8 in REPLICATES draws: 0.027
    tolerance = 3 * math.sqrt(0.8 * 0.2 / REPLICATES)
    assert simulated_power(mde, n_x, n_y, alternative) == pytest.approx(0.8, abs=tolerance)
    assert simulated_power(0.6 * mde, n_x, n_y, alternative, seed=1) < 0.8 - tolerance


def test_the_mde_is_the_noncentral_t_answer_on_the_union_scale():
    """8 + 8 one-sided: the delta where a one-sided t test on 14 df has power 0.8, put on d's
    scale."""
    critical = stats.t.ppf(0.95, 14)
    scale = math.sqrt(1 / 8 + 1 / 8)
    delta = next(
        d / 1e4 for d in range(5000, 30000) if stats.nct.sf(critical, 14, d / 1e4 / scale) >= 0.8
    )  # first grid point with 80 % power
    expected = delta / math.sqrt(1 + 0.25 * delta**2)
    assert weat_minimum_detectable_effect(8, 8) == pytest.approx(expected, abs=1e-4)
    assert weat_minimum_detectable_effect(25, 25) < weat_minimum_detectable_effect(8, 8)


@pytest.mark.parametrize(
    ("n_x", "n_y", "alternative", "message"),
    [
        (1, 1, "greater", "n_x + n_y >= 3"),
        (8, 0, "greater", "n_x, n_y >= 1"),
        (8, 8, "less", "unknown alternative"),
    ],
)
def test_bad_sizes_or_alternative_are_input_errors(n_x, n_y, alternative, message):
    with pytest.raises(InputError, match=re.escape(message)):
        weat_minimum_detectable_effect(n_x, n_y, alternative)
