"""Wald tests of an estimate with a standard error: the ratio, a two-sided p-value, a 95 % interval
and the minimum detectable effect, against the standard normal (``df`` None) or Student's t with
``df`` degrees of freedom. Shared by the Beta regressions (one fit, k-level designs, contrasts
between conditions)."""

from scipy import special

from ..errors import InputError
from .power import minimum_detectable_effect

CONFIDENCE = 0.95


def upper_tail(statistic: float, df: int | None) -> float:
    """The upper tail ``P(T > statistic)`` of the standard normal or of Student's t.

    ``T`` is standard normal for ``df`` None, else Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> from eval_harness.stats.wald import upper_tail
    >>> round(upper_tail(1.96, None), 4), round(upper_tail(1.96, 5), 4)
    (0.025, 0.0536)
    """
    return float(special.ndtr(-statistic) if df is None else special.stdtr(df, -statistic))


def quantile(probability: float, df: int | None) -> float:
    """The ``probability`` quantile of the standard normal or of Student's t.

    The normal for ``df`` None, else Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> from eval_harness.stats.wald import quantile
    >>> round(quantile(0.975, None), 4), round(quantile(0.975, 5), 4)
    (1.96, 2.5706)
    """
    return float(special.ndtri(probability) if df is None else special.stdtrit(df, probability))


def wald_test(
    estimate: float, std_err: float, df: int | None, name: str, zero_untested: bool = False
) -> dict:
    """The Wald test of one estimate, as the fields of a record.

    ``estimate``, ``std_err``, ``statistic = estimate / std_err``, two-sided ``p_value``,
    ``ci_low``/``ci_high`` (95 %) and ``mde`` (80 % power at alpha = 0.05,
    :func:`~eval_harness.stats.power.minimum_detectable_effect`).

    Raises InputError, naming the quantity (``name``), when ``std_err`` is not positive: 0 where a
    clustered variance is at rounding level (``beta_likelihood.Covariances.variances``); with
    ``zero_untested``, such an estimate gets no test instead (:func:`untested`).

    Examples
    --------
    >>> from eval_harness.stats.wald import wald_test
    >>> test = wald_test(0.03, 0.01, df=None, name="group")
    >>> [round(test[field], 4) for field in ("statistic", "p_value", "ci_low", "ci_high", "mde")]
    [3.0, 0.0027, 0.0104, 0.0496, 0.028]
    >>> wald_test(0.03, 0.0, df=None, name="group")
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: the standard error of group is 0: its clustered ...
    """
    if zero_untested and not std_err > 0:
        return untested(estimate)
    if not std_err > 0:
        raise InputError(
            f"the standard error of {name} is {std_err:g}: its clustered variance is at "
            "rounding level (e.g. scores alike within every cluster); use cov_type='model'"
        )
    ratio = estimate / std_err
    critical = quantile(0.5 + CONFIDENCE / 2, df)
    return {
        "estimate": float(estimate),
        "std_err": float(std_err),
        "statistic": float(ratio),
        "p_value": 2 * upper_tail(abs(ratio), df),
        "ci_low": float(estimate - critical * std_err),
        "ci_high": float(estimate + critical * std_err),
        "mde": float(minimum_detectable_effect(float(std_err), df)),
    }


def untested(estimate: float) -> dict:
    """The fields of :func:`wald_test` for an estimate with no test of its own (standard error 0).

    ``std_err`` 0, the statistic, p-value, interval and MDE NaN (one side of a comparison, whose
    difference is tested).

    Examples
    --------
    >>> from eval_harness.stats.wald import untested
    >>> fields = untested(0.02)
    >>> fields["estimate"], fields["std_err"], fields["p_value"]
    (0.02, 0.0, nan)
    """
    nan = float("nan")
    return {
        "estimate": float(estimate),
        "std_err": 0.0,
        "statistic": nan,
        "p_value": nan,
        "ci_low": nan,
        "ci_high": nan,
        "mde": nan,
    }
