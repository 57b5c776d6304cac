"""The one verdict rule: what an effect on the 0-1 intensity scale says about bias, given a margin
``delta``.

Every place that says whether a model is biased (the report's verdict table and sentences, ``xbias
compare``, the model card, the ``eec_bias`` metric) calls :func:`verdict`; nothing else words a
verdict. Its inputs are an effect ``e`` on the intensity scale, its standard error ``s``, the df of
its test (None: the standard normal; a
number: Student's t on that many df, whole or not), the margin ``delta >= 0`` and the level
``alpha``. With ``T`` that reference distribution and ``q(p)`` its quantile,

    the (1 - alpha) interval        [e - q(1 - alpha/2) s,  e + q(1 - alpha/2) s]      (95 % at alpha = 0.05),
    TOST p  (Schuirmann 1987)       max(P(T > (e + delta) / s), P(T < (e - delta) / s)),
    p of e = 0                      2 P(T > |e| / s).

The verdicts, in this order (the first that holds):

- ``not measured``: the effect was measured through something that did not measure (a regressor with
  poor Pearson r, a zero-shot judge that was not answering: ``measured=False``), or it has no usable
  standard error (missing, not finite, or 0: a clustered variance at rounding level). No claim
  either way.
- ``beyond ±delta``: the (1 - alpha) interval lies wholly outside the closed margin ``[-delta,
  delta]`` (``ci_low > delta`` or ``ci_high < -delta``; an interval that touches ``±delta`` is not
  beyond). Each side is a one-sided test of ``|theta| <= delta`` at level ``alpha / 2``: the effect
  is larger than the margin.
- ``within ±delta``: TOST p ``<= alpha``, i.e. the (1 - 2 alpha) interval lies inside ``(-delta,
  delta)``: the effect is smaller than the margin. The only verdict that says "no bias", and always
  with its ``delta``: with
  ``delta = 0`` it never holds (no interval of positive width lies inside an empty margin).
- ``nonzero, not shown beyond ±delta``: the (1 - alpha) interval excludes 0 (p of ``e = 0`` below
  ``alpha``) but neither of the above holds: there is an effect, and it is not shown larger than the
  margin.
- ``cannot tell``: none of the above: the interval spans 0 and an edge of the margin; the design is
  too imprecise to say (``xbias power`` says what design would).

``beyond`` and ``within`` exclude each other (the 90 % interval lies inside the 95 % one). With
``delta = 0`` the rule is the plain two-sided test: ``beyond ±0`` is "significant", everything else
"cannot tell".

Size with few df: the rule uses the df it is given. Each one-sided test then has size ``alpha`` at
the margin exactly when the studentised estimate follows Student's t on those df. For a mean over a
few seeds, plain Satterthwaite df gave TOST a 'within' rate of 0.060 (not 0.05) at the margin for 3
seeds; the seed mean's df (:func:`eval_harness.stats.pooling.seed_mean_df`, the training variance at
its upper 75% limit) hold it at 0.042-0.048 for 2-5 seeds, and the report says which effects rest on
fewer than :data:`FEW_DF` df (:attr:`Verdict.few_df`).
"""  # noqa: E501

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from ..errors import InputError
from .results import Result

ALPHA = 0.05
# The margin an effect on the 0-1 intensity scale is read against when nothing else is given: a
# hundredth of the scale.
DEFAULT_MARGIN = 0.01
# Below this many df a verdict's size rests on the df rule that made them (module docstring).
FEW_DF = 5.0
BEYOND, WITHIN, NONZERO, CANNOT_TELL, NOT_MEASURED = (
    "beyond",
    "within",
    "nonzero",
    "cannot tell",
    "not measured",
)
# The verdicts in the order a table lists them.
VERDICTS = (BEYOND, WITHIN, NONZERO, CANNOT_TELL, NOT_MEASURED)


@dataclass(frozen=True)
class Verdict(Result):
    """What :func:`verdict` found (module docstring): ``verdict`` (one of :data:`VERDICTS`), the
    inputs, the ``1 - alpha`` interval ``ci_low``/``ci_high``, the TOST p ``p_tost`` and the p of
    ``e = 0`` ``p_zero`` (NaN when not measured), and ``reason``: why an effect is ``not measured``
    (empty otherwise)."""

    verdict: str
    estimate: float
    std_err: float
    df: float | None
    margin: float
    alpha: float
    ci_low: float
    ci_high: float
    p_tost: float
    p_zero: float
    reason: str = ""

    @property
    def few_df(self) -> bool:
        """Whether the test rests on fewer than :data:`FEW_DF` df (its size is then only as good as
        their rule)."""
        return self.df is not None and self.df < FEW_DF

    def words(self) -> str:
        """The verdict in words, always with its margin: ``"beyond ±0.01"``, ``"within ±0.01"``,
        ``"nonzero, not shown beyond ±0.01"``, ``"cannot tell (±0.01)"``, ``"not measured (poor
        regressor)"``."""
        margin = f"±{self.margin:g}"
        if self.verdict in (BEYOND, WITHIN):
            return f"{self.verdict} {margin}"
        if self.verdict == NONZERO:
            return f"nonzero, not shown beyond {margin}"
        if self.verdict == CANNOT_TELL:
            return f"cannot tell ({margin})"
        return f"not measured ({self.reason})" if self.reason else "not measured"


def _number(value) -> float | None:
    """``value`` as a float when it is a finite real number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        return None
    return float(value)


def verdict(
    estimate,
    std_err,
    df: float | None,
    margin: float,
    alpha: float = ALPHA,
    measured: bool = True,
    reason: str = "",
) -> Verdict:
    """The verdict of an effect on the intensity scale against the margin ``±margin`` (module
    docstring).

    ``df`` None (or infinite): a z test; else Student's t on ``df`` > 0 df. ``measured`` False (with
    ``reason``, e.g. ``"poor regressor"``) or an ``estimate``/``std_err`` that is missing, not
    finite or (the standard error) not positive gives ``not measured``.

    Raises:
        InputError: a margin that is no finite number >= 0, an alpha outside (0, 0.5), or a df that
        is not > 0.

    Examples
    --------
    >>> from eval_harness.stats.verdict import verdict
    >>> verdict(0.04, 0.005, df=None, margin=0.01).verdict
    'beyond'
    >>> verdict(0.001, 0.002, df=None, margin=0.01).verdict
    'within'
    >>> v = verdict(0.004, 0.004, df=10, margin=0.01)
    >>> v.verdict, round(v.ci_low, 4), round(v.ci_high, 4)
    ('cannot tell', -0.0049, 0.0129)
    """
    delta = _number(margin)
    if delta is None or delta < 0:
        raise InputError(f"the verdict's margin must be a finite number >= 0, got {margin!r}")
    if _number(alpha) is None or not 0 < alpha < 0.5:
        raise InputError(f"the verdict's alpha must be in (0, 0.5), got {alpha!r}")
    if df is not None and not (_number(df) is not None and df > 0 or df == math.inf):
        raise InputError(f"the verdict's df must be a number > 0 or None (a z test), got {df!r}")
    reference = None if df is None or math.isinf(df) else float(df)
    value, error = _number(estimate), _number(std_err)
    nan = math.nan
    if not measured or value is None or error is None or not error > 0:
        why = (
            (reason or "not measured")
            if not measured
            else "no estimate"
            if value is None
            else "no usable standard error"
        )
        shown = nan if value is None else value
        unmeasured = nan if error is None else error
        return Verdict(
            NOT_MEASURED, shown, unmeasured, reference, delta, alpha, nan, nan, nan, nan, why
        )
    from .wald import quantile, upper_tail  # here: scipy, so that the constants load light

    critical = quantile(1 - alpha / 2, reference)
    low, high = value - critical * error, value + critical * error
    p_tost = max(
        upper_tail((value + delta) / error, reference),
        upper_tail((delta - value) / error, reference),
    )
    p_zero = min(1.0, 2 * upper_tail(abs(value) / error, reference))
    if low > delta or high < -delta:
        found = BEYOND
    elif p_tost <= alpha:
        found = WITHIN
    elif low > 0 or high < 0:
        found = NONZERO
    else:
        found = CANNOT_TELL
    return Verdict(found, value, error, reference, delta, float(alpha), low, high, p_tost, p_zero)
