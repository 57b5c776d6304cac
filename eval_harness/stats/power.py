"""The power of a Wald test, and the minimum effect a design could detect, from a standard error.

A two-sided level-``alpha`` test of ``estimate / std_err`` against a reference distribution (the
standard normal, or Student's t with ``df`` degrees of freedom) rejects when ``|T| > c``, ``c`` its
``1 - alpha / 2`` quantile. If the true effect is ``delta * std_err``, then ``T`` is ``N(delta,
1)`` (z) or noncentral t with noncentrality ``delta`` (t), and the power is

    power(delta) = P(T > c) + P(T < -c)          (both tails; exact under those models).

The minimum detectable effect (MDE) at power ``pi`` is ``delta* std_err`` with ``power(delta*) =
pi`` (found by root finding; ``delta*`` is 2.80158 for z at alpha = 0.05 and pi = 0.8, a hair below
the one-tail approximation ``z_{0.975} + z_{0.8} = 2.80159``; with t on 10 df it is 3.1100, on 6 df
3.3669). ``delta*`` depends only on ``(df, alpha, pi)``, so every effect of a fit shares it: a "not
significant" effect then reads as "this design could not have detected less than its MDE", not as
"no effect".

:func:`power_at` gives ``power(delta)`` for an effect in the estimate's units (a design's power
against a planned effect); :func:`minimum_detectable_effect` solves it for ``delta*``.
"""

import functools
import math
import numbers

from ..errors import InputError

ALPHA = 0.05
POWER = 0.80
# Beyond this many standard errors an MDE says nothing (a t test on ~0.1 df; scipy's noncentral t
# fails there).
MAX_NONCENTRALITY = 1e9


def _check(alpha: float, power: float | None = None, df: float | None = None) -> None:
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha!r}")
    if power is not None and not alpha < power < 1:
        raise InputError(f"power must be in (alpha, 1) = ({alpha}, 1), got {power!r}")
    if df is not None and not (
        isinstance(df, numbers.Real) and not isinstance(df, bool) and math.isfinite(df) and df > 0
    ):
        raise InputError(f"df must be a finite number > 0 or None (a z test), got {df!r}")


def power_at(effect: float, std_err: float, df: float | None = None, alpha: float = ALPHA) -> float:
    """Power of the two-sided level-``alpha`` Wald test when the true effect is ``effect``.

    The formula is in the module docstring; :func:`minimum_detectable_effect` is its inverse.

    Example:
        >>> from eval_harness.stats.power import minimum_detectable_effect, power_at
        >>> mde = minimum_detectable_effect(0.01)  # a z test with a standard error of 0.01
        >>> round(mde, 4), round(power_at(mde, 0.01), 3)
        (0.028, 0.8)
        >>> round(power_at(0.02, 0.01, df=10), 3)  # two standard errors, a t test on 10 df
        0.44
    """
    _check(alpha, df=df)
    if not (isinstance(std_err, numbers.Real) and std_err > 0):
        raise InputError(f"std_err must be a number > 0, got {std_err!r}")
    return _power(abs(effect) / std_err, df, alpha)


def _power(noncentrality: float, df: float | None, alpha: float) -> float:
    from scipy import stats  # scipy on use: `xbias list` and config checks load none

    if df is None:
        critical = stats.norm.ppf(1 - alpha / 2)
        return float(
            stats.norm.sf(critical - noncentrality) + stats.norm.cdf(-critical - noncentrality)
        )
    critical = stats.t.ppf(1 - alpha / 2, df)
    # scipy's noncentral t gives NaN for the far tail at few df (1 df, noncentrality 8): that tail
    # is ~0.
    lower = float(stats.nct.cdf(-critical, df, noncentrality))
    return float(stats.nct.sf(critical, df, noncentrality)) + (
        lower if math.isfinite(lower) else 0.0
    )


@functools.lru_cache(maxsize=256)
def detectable_noncentrality(
    df: float | None = None, alpha: float = ALPHA, power: float = POWER
) -> float:
    """``delta*`` with ``power(delta*) = power``: the MDE in standard errors (module docstring)."""
    _check(alpha, power, df)
    upper = 1.0
    while not _power(upper, df, alpha) >= power:
        if upper > MAX_NONCENTRALITY or not math.isfinite(_power(upper, df, alpha)):
            raise InputError(
                f"no effect under {MAX_NONCENTRALITY:.0e} standard "
                f"errors reaches {power:.0%} power on {df:.3g} "
                "degrees of freedom: the test can detect nothing"
            )
        upper *= 2
    from scipy import optimize

    return float(
        optimize.brentq(lambda d: _power(d, df, alpha) - power, 0.0, upper, xtol=1e-12, rtol=1e-12)
    )


def minimum_detectable_effect(
    std_err: float, df: float | None = None, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The smallest true effect the test detects with probability ``power``: ``delta*(df, alpha,
    power) * std_err``.

    ``df`` None: a z test; else Student's t with ``df`` degrees of freedom, whole (``G - 1``
    clusters) or not (Barnard-Rubin's after pooling seeds, which can fall below 1): the df the test
    itself used.

    Examples
    --------
    >>> from eval_harness.stats.power import minimum_detectable_effect
    >>> round(minimum_detectable_effect(0.01), 4)
    0.028
    >>> round(minimum_detectable_effect(0.01, df=5), 4)
    0.0351
    """
    if (
        isinstance(std_err, bool)
        or not isinstance(std_err, numbers.Real)
        or not (math.isfinite(std_err) and std_err > 0)
    ):
        raise InputError(f"std_err must be a finite number > 0, got {std_err!r}")
    return detectable_noncentrality(None if df is None else float(df), alpha, power) * float(
        std_err
    )
