"""When an EEC test is no measurement: what the report and ``xbias compare`` print instead of its
numbers.

An effect on the 0-1 intensity scale is a difference of two intensities, so it lies within ±1. A
test whose minimum detectable effect (80 % power) is larger than the scale's width, whose 95 %
interval is wider than it, or whose t reference has fewer than 1 degree of freedom (seeds whose
heads disagree, pooled on few templates) cannot tell any effect the scale allows from none. The
record keeps its numbers; what is printed says so in words, with what would fix it
(:data:`WHAT_WOULD_FIX_IT`).
"""

import math
from collections.abc import Mapping
from typing import Any

# The width of the intensity scale: an MDE or interval beyond it is no size an intensity effect can
# have.
INTENSITY_SCALE_WIDTH = 1.0
WHAT_WOULD_FIX_IT = (
    "more templates or names, more seeds for a seeded head (its training "
    "noise shrinks as 1/seeds), or a deterministic head (ridge, the default)"
)
DF_FIELDS = ("df", "clustered_df")


def measurement_problem(row: Mapping[str, Any]) -> str:
    """Why the row's test is no measurement, in words (``""`` when it is one): an ``mde`` above
    :data:`INTENSITY_SCALE_WIDTH`, an interval ``ci_low``..``ci_high`` wider than it, or a ``df``
    (or ``clustered_df``) below 1."""
    problems = []
    mde = finite_number(row.get("mde"))
    if mde is not None and mde > INTENSITY_SCALE_WIDTH:
        problems.append(
            f"its minimum detectable effect ({mde:.3g}) "
            "is larger than the whole 0-1 intensity scale"
        )
    low, high = finite_number(row.get("ci_low")), finite_number(row.get("ci_high"))
    if low is not None and high is not None and high - low > INTENSITY_SCALE_WIDTH:
        problems.append("its 95% interval is wider than the whole 0-1 intensity scale")
    dfs = [
        df
        for df in (finite_number(row.get(name)) for name in DF_FIELDS)
        if df is not None and df < 1
    ]
    if dfs:
        problems.append(f"its t test has {min(dfs):.2g} degrees of freedom, fewer than 1")
    return "; ".join(problems)


def no_measurement_words(row: Mapping[str, Any]) -> str:
    """``"no measurement: <why>; what would fix it: <fix>"`` for a row that is none, ``""``
    otherwise."""
    problem = measurement_problem(row)
    return f"no measurement: {problem}; what would fix it: {WHAT_WOULD_FIX_IT}" if problem else ""


def format_mde(mde: Any, digits: int = 3) -> str:
    """An MDE as a table shows it: the number within the scale, ``"> scale"`` beyond it, ``""`` when
    missing."""
    value = finite_number(mde)
    if value is None:
        return ""
    return f"{value:.{digits}g}" if value <= INTENSITY_SCALE_WIDTH else "> scale"


def format_interval(low: Any, high: Any, digits: int = 4) -> str:
    """``"[-0.0120, 0.0340]"``, or ``"wider than the scale"`` for an interval wider than the
    intensity scale."""
    low, high = finite_number(low), finite_number(high)
    if low is None or high is None:
        return ""
    if high - low > INTENSITY_SCALE_WIDTH:
        return "wider than the scale"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def finite_number(value: Any) -> float | None:
    """``value`` as a finite float, or None (missing, a bool, not a number, NaN or infinite)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
