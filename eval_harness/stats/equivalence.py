"""Equivalence tests: two one-sided tests (TOST) that an effect lies within a margin ``+-delta``.

A test of ``theta = 0`` that does not reject is no evidence that ``theta`` is small. The claim
"``|theta| < delta``" is tested on its own (Schuirmann 1987): with ``T`` the test's reference
distribution (Student's t with ``df`` degrees of freedom, the standard normal when ``df`` is
infinite), estimate ``e`` and standard error ``s``,

    p_lower = P(T > (e + delta) / s)       the test of H0: theta <= -delta against theta > -delta;
    p_upper = P(T < (e - delta) / s)       the test of H0: theta >= +delta against theta < +delta;
    p_tost  = max(p_lower, p_upper)        the test of H0: |theta| >= delta against |theta| < delta.

``p_tost <= alpha`` exactly when the ``1 - 2 alpha`` interval ``e -+ t_{1 - alpha} s`` (90 % at
alpha = 0.05) lies inside ``(-delta, delta)``. Its size is at most ``alpha`` at either edge of the
margin (each one-sided test has size ``alpha`` there, and the intersection-union test needs both to
reject). The verdict has three values:

- ``within``: ``p_tost <= alpha``: the effect is within ``+-delta``;
- ``not within``: the interval lies wholly beyond ``+delta`` or beyond ``-delta`` (``min(1 -
  p_lower, 1 - p_upper) <= alpha``, the one-sided test that ``|theta| > delta`` rejects its null):
  larger than the margin;
- ``cannot tell``: neither: the interval straddles an edge of the margin; the design is too
  imprecise to say.

The test reads the estimate, the standard error and the df of the headline test, whatever made them
(a template-clustered sandwich on ``G - 1`` df, model-based z, seed pooling's variance and df), so
that the equivalence verdict and the significance verdict share one standard error;
:func:`reference_df` is the one rule for which df a record's test has (a t test's; none for a z
test).

For planning, :func:`tost_power` and :func:`seed_mean_tost_power` give the probability that the test
finds ``within`` at a true effect: with one standard error (clustered: t on its df), and for a mean
over seeds.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from ..errors import InputError
from .results import Result

ALPHA = 0.05
WITHIN, NOT_WITHIN, CANNOT_TELL = "within", "not within", "cannot tell"


@dataclass(frozen=True)
class Equivalence(Result):
    """The TOST of ``|theta| < margin`` (module docstring): both one-sided p-values, ``p_value``
    (their max), the ``1 - 2 alpha`` interval ``ci_low``/``ci_high`` and the verdict (``within``,
    ``not within``, ``cannot tell``)."""

    estimate: float
    std_err: float
    df: float | None
    margin: float
    alpha: float
    p_lower: float
    p_upper: float
    p_value: float
    ci_low: float
    ci_high: float
    verdict: str

    def words(self, with_p: bool = False) -> str:
        """``"within ±0.01 (TOST p = 0.003)"``, ``"not within ±0.01"``, ``"cannot tell whether
        within ±0.01"`` (``with_p``: every verdict with its TOST p)."""
        p = f" (TOST p = {self.p_value:.2g})"
        if self.verdict == WITHIN:
            return f"within ±{self.margin:g}{p}"
        verdict = "not within" if self.verdict == NOT_WITHIN else "cannot tell whether within"
        return f"{verdict} ±{self.margin:g}" + (p if with_p else "")


# The width of the emotion-intensity scale (0 to 1) every EEC score and difference lies on.
INTENSITY_WIDTH = 1.0


def check_margin(margin, width: float = math.inf) -> float:
    """Check an equivalence margin and return it as a float.

    InputError unless it is a finite number > 0 and below ``width``, the width of the scale it is on
    (1 for the intensity scale: a margin that wide calls every difference equivalent).

    Examples
    --------
    >>> from eval_harness.stats.equivalence import check_margin
    >>> check_margin(0.01, width=1)
    0.01
    >>> check_margin(0, width=1)
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: the equivalence margin must be a finite number > 0, got 0
    """
    if (
        isinstance(margin, bool)
        or not isinstance(margin, numbers.Real)
        or not (math.isfinite(margin) and margin > 0)
    ):
        raise InputError(f"the equivalence margin must be a finite number > 0, got {margin!r}")
    if margin >= width:
        raise InputError(
            f"the equivalence margin must be below the scale's width {width:g}, got {margin!r}"
        )
    return float(margin)


def reference_df(statistic_kind: str | None, df: float | None) -> float | None:
    """The df a TOST or a verdict reads for a test of ``statistic_kind``: ``df`` for a t, else None.

    None means the standard normal: a z test's record or fit may still carry a df, which its test
    never used, so the equivalence test and the verdict must not use it either.

    Examples
    --------
    >>> reference_df("t", 12.5)
    12.5
    >>> reference_df("z", 12.5) is None
    True
    """
    return df if statistic_kind == "t" else None


def tost(
    estimate: float, std_err: float, df: float | None, margin: float, alpha: float = ALPHA
) -> Equivalence:
    """Two one-sided tests of ``|theta| < margin`` at level ``alpha`` (module docstring).

    ``df`` None or infinite: the standard normal; else Student's t with ``df`` > 0 degrees of
    freedom (whole or
    not: seed pooling's df are fractional). Raises InputError for a margin, a standard error or an
    alpha that is not usable, and for an estimate that is not a finite number.

    Examples
    --------
    >>> from eval_harness.stats.equivalence import tost
    >>> e = tost(0.002, 0.003, df=None, margin=0.01)
    >>> e.verdict, round(e.p_value, 4), round(e.ci_low, 4), round(e.ci_high, 4)
    ('within', 0.0038, -0.0029, 0.0069)
    >>> tost(0.02, 0.003, df=9, margin=0.01).verdict
    'not within'
    """
    margin = check_margin(margin)
    if not 0 < alpha < 0.5:
        raise InputError(
            f"alpha must be in (0, 0.5) for a TOST (its interval is 1 - 2 alpha), got {alpha!r}"
        )
    for name, value in (("estimate", estimate), ("std_err", std_err)):
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not math.isfinite(value)
        ):
            raise InputError(f"the TOST's {name} must be a finite number, got {value!r}")
    if not std_err > 0:
        raise InputError(f"the TOST's std_err must be > 0, got {std_err!r}")
    if df is not None and (isinstance(df, bool) or not isinstance(df, numbers.Real) or not df > 0):
        raise InputError(f"the TOST's df must be a number > 0 or None (a z test), got {df!r}")
    from .wald import (
        quantile,
        upper_tail,
    )  # here: scipy; check_margin stays light for reading a config

    reference = None if df is None or math.isinf(df) else float(df)
    p_lower = upper_tail((estimate + margin) / std_err, reference)
    p_upper = upper_tail((margin - estimate) / std_err, reference)
    critical = quantile(1 - alpha, reference)
    low, high = estimate - critical * std_err, estimate + critical * std_err
    if max(p_lower, p_upper) <= alpha:
        verdict = WITHIN
    elif low >= margin or high <= -margin:
        verdict = NOT_WITHIN
    else:
        verdict = CANNOT_TELL
    return Equivalence(
        estimate=float(estimate),
        std_err=float(std_err),
        df=reference,
        margin=margin,
        alpha=float(alpha),
        p_lower=p_lower,
        p_upper=p_upper,
        p_value=max(p_lower, p_upper),
        ci_low=float(low),
        ci_high=float(high),
        verdict=verdict,
    )


def tost_power(
    effect: float, sigma: float, df: float | None, margin: float, alpha: float = ALPHA
) -> float:
    """The probability that :func:`tost` finds ``within`` when the true effect is ``effect``, the
    estimate is ``N(effect, sigma^2)`` and its standard error is ``sigma`` (``df`` None) or ``sigma
    sqrt(chi2_df / df)``, independent of the estimate (a t test on ``df`` degrees of freedom):

        power = E_s [ Phi((margin - c s - effect) / sigma) - Phi((-margin + c s - effect) / sigma)
        ]_+ ,

    ``c = t_{1 - alpha}(df)``; the expectation over ``s`` is a one-dimensional integral (zero once
    ``c s`` reaches the margin: the interval is then wider than the margin whatever the estimate).

    Example:
        >>> from eval_harness.stats.equivalence import tost_power
        >>> round(tost_power(0.0, 0.004, 10, 0.01), 2)  # no effect, SE 0.004 on 10 df, margin 0.01
        0.51
        >>> round(tost_power(0.0, 0.004, None, 0.01), 2)  # the same with a known standard error (z)
        0.61
    """
    from scipy import integrate, stats

    from .wald import quantile

    margin = check_margin(margin)
    if not sigma > 0:
        raise InputError(f"sigma must be > 0, got {sigma!r}")

    def given(s: float, critical: float) -> float:
        half = margin - critical * s
        if half <= 0:
            return 0.0
        return float(
            stats.norm.cdf((half - effect) / sigma) - stats.norm.cdf((-half - effect) / sigma)
        )

    if df is None or math.isinf(df):
        return given(sigma, quantile(1 - alpha, None))
    critical = quantile(1 - alpha, float(df))
    # s = sigma sqrt(x / df), x ~ chi2(df); integrate over x up to where c s reaches the margin.
    x_max = df * (margin / (critical * sigma)) ** 2
    value, _ = integrate.quad(
        lambda x: given(sigma * math.sqrt(x / df), critical) * stats.chi2.pdf(x, df),
        0.0,
        x_max,
        limit=200,
    )
    return float(value)


def seed_mean_tost_power(
    effect: float,
    within_var: float,
    within_df: float | None,
    between_var: float,
    seeds: int,
    margin: float,
    alpha: float = ALPHA,
    grid: int = 400,
) -> float:
    """The probability that :func:`tost` finds ``within`` for an effect pooled over ``seeds`` scored
    on the same
    sentences (:func:`eval_harness.stats.pooling.pool_estimates`, ``estimand="seed_mean"``): the
    estimate is ``N(effect, sigma^2)``, ``sigma^2 = V_W + V_B / m`` (``within_var`` V_W, the
    sampling variance every seed shares; ``between_var`` V_B, the seeds' training variance), and the
    test's variance and df are estimated:

        W ~ V_W chi2_nu / nu   (nu = within_df; W = V_W when None),   B ~ V_B chi2_{m-1} / (m - 1),
        s^2 = W + B / m,   df = :func:`~eval_harness.stats.pooling.seed_mean_df` (as pooling computes it),
        power = E_{W,B} [ Phi((h - effect) / sigma) - Phi((-h - effect) / sigma) ]_+,   h = margin - t_{1-alpha}(df) s,

    W, B and the estimate independent (a normal sample's mean and variance). The expectation is the
    midpoint rule on ``grid`` quantiles of each chi-square (an error of order 1 / grid). With ``V_B
    = 0`` it is :func:`tost_power` on ``nu`` df.

    Example:
        >>> from eval_harness.stats.equivalence import seed_mean_tost_power
        >>> # no effect, sampling SE 0.004 on 10 df, 3 seeds whose training SD is 0.003, margin 0.01
        >>> round(seed_mean_tost_power(0.0, 0.004**2, 10, 0.003**2, 3, 0.01), 2)
        0.35
        >>> round(seed_mean_tost_power(0.0, 0.004**2, 10, 0.0, 3, 0.01), 2)  # tost_power's
        0.51
    """  # noqa: E501
    import numpy as np
    from scipy import stats

    from .pooling import seed_mean_df

    margin = check_margin(margin)
    if not (within_var >= 0 and between_var >= 0 and within_var + between_var > 0) or seeds < 2:
        raise InputError("seed pooling needs >= 2 seeds and variances >= 0, not both 0")
    sigma = math.sqrt(within_var + between_var / seeds)
    levels = (np.arange(grid) + 0.5) / grid
    finite = within_df is not None and math.isfinite(within_df)
    w = (
        within_var * stats.chi2.ppf(levels, within_df) / within_df
        if finite
        else np.array([within_var])
    )
    b = between_var * stats.chi2.ppf(levels, seeds - 1) / (seeds - 1) / seeds
    w, b = np.meshgrid(w, b, indexing="ij")
    variance = w + b
    df = seed_mean_df(w, b, within_df if finite else None, seeds)
    half = margin - stats.t.ppf(1 - alpha, df) * np.sqrt(variance)
    given = stats.norm.cdf((half - effect) / sigma) - stats.norm.cdf((-half - effect) / sigma)
    return float(np.mean(np.where(half > 0, given, 0.0)))
