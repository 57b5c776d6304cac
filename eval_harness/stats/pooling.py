"""Pooling one result over seeds (e.g. emotion regressors trained with different seeds, scored on
one EEC).

Estimates with standard errors: per-seed estimates ``q_s`` with standard errors ``u_s``, ``s =
1..m`` (``m >= 2``), all computed on the same sentences (so their sampling error is shared),
differing in the head's training noise:

    q_bar = mean_s q_s                            pooled estimate (both estimands)
    W     = mean_s u_s^2                          within-seed (sampling) variance
    B     = sum_s (q_s - q_bar)^2 / (m - 1)       between-seed variance (between_sd = sqrt(B))

Two estimands, two variances (``estimand``):

* ``"seed_mean"`` (the default): the measurement is the mean over seeds, and what it estimates is
  the effect of the mean over training runs. Its variance is ``T = W + B/m``: the sentences and
  templates are the same for every seed, so the sampling variance W is not divided by m, and only
  the training noise averages out. ``share = (B/m) / T`` is the share of it that is training noise,
  ``r = (B/m) / W``. Its degrees of freedom combine the sampling variance's (``df_complete``, e.g.
  ``G - 1`` templates with clustered standard errors; infinite when None) with the ``m - 1`` of B by
  Satterthwaite (1946), with the training variance at the upper end of its one-sided 75 % interval,
  ``B_u = B (m - 1) / chi2_{m-1}(0.25)`` (:func:`seed_mean_df`):

      df = (W + B_u/m)² / (W² / df_complete + (B_u/m)² / (m - 1))

  (``df_complete`` itself when B = 0; None = normal when both are infinite; ``m - 1`` when W = 0).
  Why not B
  itself: with 2 or 3 seeds B has 1 or 2 df, and the seeds often agree by chance; B's own df then
  read training noise as small and give the test sampling noise's many df, so that, when training
  noise dominates, the test rejected a true null 11 % of the time at m = 2 and 7 % at m = 3 (alpha 5
  %). With B_u the size stays within simulation error of alpha at m = 2, 3 and 5
  (``tests/stats/test_seed_mean_size.py``); as m grows
  ``B_u -> B`` and the df is Satterthwaite's. ``T`` itself keeps B.
* ``"one_head"``: Rubin's rules (Rubin 1987, treating the seeds like imputations), which answer
  another
  question: what one retrained head would show. ``T = W + (1 + 1/m) B`` is the variance of q_bar
  about one new head's value, so it does not shrink as seeds are added; ``share = (1 + 1/m) B / T``,
  ``r = (1 + 1/m) B / W``, Rubin's ``df = (m - 1) (1 + 1/r)^2`` and, with ``df_complete``, Barnard &
  Rubin's (1999) small-sample ``df = 1 / (1 / df_rubin + 1 / nu_obs)`` with ``lambda = (1 + 1/m) B /
  T`` and
  ``nu_obs = (nu_com + 1) / (nu_com + 3) nu_com (1 - lambda)``, which never exceeds ``nu_com``.

The pooled test is ``statistic = q_bar / std_err`` (``std_err = sqrt(T)``) against Student's t with
``df`` (the standard normal when ``df`` is None), two-sided, with a 95 % confidence interval.

Agreement across seeds, at level ``alpha``:

* ``share_same_sign``: the fraction of seeds with ``sign(q_s) == sign(q_bar)`` (an estimate of
  exactly 0 agrees with nothing but a pooled 0);
* ``share_significant``: the fraction of seeds with ``p_s <= alpha``;
* ``share_same_significance``: the fraction of seeds whose verdict (``p_s <= alpha``) equals the
  pooled verdict (``p <= alpha``).

``p_s`` are the seeds' own p-values when given (e.g. each fit's z or t test), else two-sided normal
p-values of ``q_s / u_s``.

A plain statistic without a standard error (e.g. the Pearson r of each seed's regressor) is pooled
by :func:`pool_statistic`: mean, standard deviation (``ddof = 1``), minimum and maximum over the
seeds.
"""

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..errors import InputError
from .estimands import DEFAULT_ESTIMAND, ESTIMANDS
from .results import Result

CONFIDENCE = 0.95


@dataclass(frozen=True)
class PooledEstimate(Result):
    """Estimates pooled over seeds for ``estimand`` (see the module docstring); ``df`` None means
    the normal reference."""

    estimand: str
    n_seeds: int
    estimate: float
    between_sd: float
    within_variance: float
    between_variance: float
    total_variance: float
    std_err: float
    between_share: float
    relative_increase_in_variance: float | None
    df: float | None
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    alpha: float
    share_same_sign: float
    share_significant: float
    share_same_significance: float

    def summary(self) -> str:
        reference = "normal" if self.df is None else f"t({self.df:.3g})"
        return (
            f"{ESTIMANDS[self.estimand].words} {self.n_seeds} seeds: {self.estimate:.4g} "
            f"(std_err {self.std_err:.3g}, {self.between_share:.0%} of its variance "
            f"between seeds, between-seed SD {self.between_sd:.3g}), {reference} p = "
            f"{self.p_value:.3g}, {CONFIDENCE:.0%} CI [{self.ci_low:.4g}, "
            f"{self.ci_high:.4g}]; same sign in {self.share_same_sign:.0%} of seeds, p "
            f"<= {self.alpha:g} in {self.share_significant:.0%}, same verdict as the "
            f"pooled test in {self.share_same_significance:.0%}"
        )


@dataclass(frozen=True)
class PooledStatistic(Result):
    """A statistic without a standard error over seeds: mean, SD (ddof = 1), min and max."""

    n_seeds: int
    mean: float
    sd: float
    min: float
    max: float

    def summary(self) -> str:
        return (
            f"over {self.n_seeds} seeds: mean {self.mean:.4g}, SD "
            f"{self.sd:.3g}, range [{self.min:.4g}, {self.max:.4g}]"
        )


def pool_estimates(
    estimates: Sequence[float],
    std_errs: Sequence[float],
    alpha: float = 0.05,
    p_values: Sequence[float] | None = None,
    df_complete: float | None = None,
    estimand: str = DEFAULT_ESTIMAND,
) -> PooledEstimate:
    """Pool per-seed estimates and standard errors for ``estimand`` (formulas in the module
    docstring).

    Args:
        estimates: one estimate per seed (at least 2).
        std_errs: the estimates' standard errors (>= 0, not all 0 when the estimates are all equal).
        alpha: the level of the significance verdicts (0 < alpha < 1).
        p_values: each seed's own p-value; default: two-sided normal p of estimate / std_err.
        df_complete: degrees of freedom of each seed's own test (its sampling variance's); default:
        infinite.
        estimand: ``"seed_mean"`` (the mean over seeds, variance W + B/m) or ``"one_head"`` (Rubin's
            rules: what one retrained head would show, W + (1 + 1/m) B).

    Raises:
        InputError: fewer than 2 seeds, mismatched lengths, non-finite values, negative standard
            errors, p-values outside [0, 1], a zero total variance, alpha or df_complete out of
            range.

    Examples
    --------
    >>> from eval_harness.stats.pooling import pool_estimates
    >>> p = pool_estimates([0.030, 0.034, 0.026], std_errs=[0.004, 0.005, 0.004], df_complete=10)
    >>> p.n_seeds, round(p.estimate, 4), round(p.std_err, 4), round(p.df, 2)
    (3, 0.03, 0.0049, 6.78)
    >>> round(p.between_share, 3), p.share_same_sign
    (0.219, 1.0)
    """
    q = _values("estimates", estimates)
    u = _values("std_errs", std_errs)
    if len(u) != len(q):
        raise InputError(
            f"estimates and std_errs must have the same length, got {len(q)} and {len(u)}"
        )
    if np.any(u < 0):
        raise InputError(f"std_errs must be >= 0, got {u[u < 0][:3].tolist()}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be between 0 and 1, got {alpha!r}")
    if estimand not in ESTIMANDS:
        raise InputError(f"estimand must be one of {', '.join(ESTIMANDS)}, got {estimand!r}")
    if df_complete is not None and (
        isinstance(df_complete, bool)
        or not isinstance(df_complete, numbers.Real)  # numpy's int64 too (a DataFrame's cell)
        or not df_complete > 0
    ):
        raise InputError(f"df_complete must be a positive number or None, got {df_complete!r}")
    if p_values is None:
        with np.errstate(divide="ignore"):
            p_seeds = 2 * stats.norm.sf(
                np.abs(q) / u
            )  # u = 0 with q != 0 gives p = 0; q = u = 0 is caught below
        p_seeds = np.where((q == 0) & (u == 0), 1.0, p_seeds)
    else:
        p_seeds = _values("p_values", p_values)
        if len(p_seeds) != len(q) or np.any((p_seeds < 0) | (p_seeds > 1)):
            raise InputError(f"p_values must be {len(q)} numbers in [0, 1], got {p_seeds.tolist()}")

    m = len(q)
    estimate = float(q.mean())
    within = float(np.mean(u**2))
    between = float(np.var(q, ddof=1))
    added = (
        between / m if estimand == "seed_mean" else (1 + 1 / m) * between
    )  # the seeds' part of the variance
    total = within + added
    if not total > 0:
        raise InputError(
            "the pooled variance is 0: every seed gave the same estimate "
            "with a standard error of 0; there is nothing to test"
        )
    if estimand == "seed_mean":
        satterthwaite = float(seed_mean_df(within, added, df_complete, m))
        df = None if math.isinf(satterthwaite) else satterthwaite
    else:
        df = _barnard_rubin_df(within, added, total, df_complete, m)
    reference = stats.norm() if df is None else stats.t(df)
    std_err = math.sqrt(total)
    statistic = estimate / std_err
    p_value = float(2 * reference.sf(abs(statistic)))
    critical = float(reference.ppf(0.5 + CONFIDENCE / 2))
    significant = p_value <= alpha
    return PooledEstimate(
        estimand=estimand,
        n_seeds=m,
        estimate=estimate,
        between_sd=math.sqrt(between),
        within_variance=within,
        between_variance=between,
        total_variance=total,
        std_err=std_err,
        between_share=added / total,
        relative_increase_in_variance=added / within if within > 0 else None,
        df=df,
        statistic=statistic,
        p_value=p_value,
        ci_low=estimate - critical * std_err,
        ci_high=estimate + critical * std_err,
        alpha=float(alpha),
        share_same_sign=float(np.mean(np.sign(q) == np.sign(estimate))),
        share_significant=float(np.mean(p_seeds <= alpha)),
        share_same_significance=float(np.mean((p_seeds <= alpha) == significant)),
    )


# The one-sided confidence level of the training variance the seed mean's df is computed at (module
# docstring).
TRAINING_VARIANCE_LEVEL = 0.75


def seed_mean_df(within, added, df_complete: float | None, m: int):
    """The seed mean's df (module docstring): ``(W + A_u)² / (W² / df_complete + A_u² / (m - 1))``,
    ``A_u`` the seeds' part ``added`` (B/m) at its upper :data:`TRAINING_VARIANCE_LEVEL` limit
    ``added (m - 1) / chi2_{m-1}(1 - level)``; ``inf`` where both parts have infinite df. Scalars or
    numpy arrays alike (the TOST planner evaluates it on a grid).

    Examples
    --------
    >>> from eval_harness.stats.pooling import seed_mean_df
    >>> float(seed_mean_df(within=1e-4, added=0.0, df_complete=10, m=3))
    10.0
    >>> float(seed_mean_df(within=0.0, added=1e-4, df_complete=10, m=3))
    2.0
    >>> round(float(seed_mean_df(within=1e-4, added=1e-4, df_complete=10, m=3)), 2)
    3.26
    """
    upper = np.asarray(added, dtype=float) * (
        (m - 1) / stats.chi2.ppf(1 - TRAINING_VARIANCE_LEVEL, m - 1)
    )
    within = np.asarray(within, dtype=float)
    inverse = upper**2 / (m - 1) + (within**2 / df_complete if df_complete else 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            inverse > 0, (within + upper) ** 2 / np.where(inverse > 0, inverse, 1.0), np.inf
        )


def _barnard_rubin_df(
    within: float, added: float, total: float, df_complete: float | None, m: int
) -> float | None:
    """Rubin's df, and Barnard & Rubin's small-sample version with ``df_complete`` (module
    docstring)."""
    inverse_df = 0.0 if added == 0 else 1 / ((m - 1) * (1 + within / added) ** 2)
    if df_complete is not None:
        observed_df = (df_complete + 1) / (df_complete + 3) * df_complete * (1 - added / total)
        inverse_df += math.inf if observed_df == 0 else 1 / observed_df
    if math.isinf(inverse_df):
        raise InputError(
            "the seeds' within-seed variance is 0 and "
            "df_complete was given: no degrees of freedom left"
        )
    return None if inverse_df == 0 else 1 / inverse_df


def pool_statistic(values: Sequence[float]) -> PooledStatistic:
    """Mean, SD (ddof = 1), min and max of a statistic over seeds (at least 2), e.g. Pearson r.

    The mean is the plain average (for Pearson r not a Fisher-z average).

    Examples
    --------
    >>> from eval_harness.stats.pooling import pool_statistic
    >>> r = pool_statistic([0.61, 0.58, 0.64])
    >>> r.n_seeds, round(r.mean, 3), round(r.sd, 3), r.min, r.max
    (3, 0.61, 0.03, 0.58, 0.64)
    """
    x = _values("values", values)
    return PooledStatistic(
        n_seeds=len(x),
        mean=float(x.mean()),
        sd=float(x.std(ddof=1)),
        min=float(x.min()),
        max=float(x.max()),
    )


def _values(name: str, values) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise InputError(f"{name} must be numbers: {error}") from None
    if array.ndim != 1 or len(array) < 2:
        raise InputError(
            f"{name} must be a one-dimensional sequence with one value "
            f"per seed and at least 2 seeds, got shape {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        raise InputError(f"{name} must be finite, got {array.tolist()}")
    return array
