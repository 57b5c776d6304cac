"""Wald tests of an estimate with a standard error: the ratio, a two-sided p-value, a 95 % interval and the
minimum detectable effect, against the standard normal (``df`` None) or Student's t with ``df`` degrees of
freedom. Shared by the Beta regressions (one fit, k-level designs, contrasts between conditions)."""

from scipy import stats

from ..errors import InputError
from .power import minimum_detectable_effect

CONFIDENCE = 0.95


def reference_distribution(df: int | None):
    """The frozen scipy distribution the Wald ratio is compared with: ``norm()`` or ``t(df)``."""
    return stats.norm() if df is None else stats.t(df)


def wald_test(estimate: float, std_err: float, df: int | None) -> dict:
    """``estimate``, ``std_err``, ``statistic = estimate / std_err``, two-sided ``p_value``, ``ci_low``/``ci_high``
    (95 %) and ``mde`` (80 % power at alpha = 0.05, :func:`~eval_harness.stats.power.minimum_detectable_effect`).

    Raises InputError when ``std_err`` is not positive (a singular covariance).
    """
    if not std_err > 0:
        raise InputError(
            f"a standard error is {std_err!r}: the covariance is singular (e.g. two-way clusters that explain "
            "every row); use one-way clustering or cov_type='model'"
        )
    reference = reference_distribution(df)
    ratio = estimate / std_err
    critical = reference.ppf(0.5 + CONFIDENCE / 2)
    return {
        "estimate": float(estimate),
        "std_err": float(std_err),
        "statistic": float(ratio),
        "p_value": float(2 * reference.sf(abs(ratio))),
        "ci_low": float(estimate - critical * std_err),
        "ci_high": float(estimate + critical * std_err),
        "mde": float(minimum_detectable_effect(float(std_err), df)),
    }
