"""The report's building blocks for figures, as PNG bytes (matplotlib's Agg canvas; no pyplot, no
global state).

The methods draw their own figures in their folders (``suites/<method>/report.py``: the EEC's forest
plot, the XWEAT heatmap, the gender-space variance curve) with these: rendering, a record's 95 %
interval, the marker of its multiple-testing verdict and the models' colours.
"""

from __future__ import annotations

import io

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from scipy import stats

DPI = 110
Z_95 = 1.959963984540054
MODEL_COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#8c564b",
    "#e377c2",
    "#17becf",
)


def to_png(figure: Figure) -> bytes:
    """The figure rendered as PNG bytes."""
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return buffer.getvalue()


def interval_95(row: pd.Series) -> tuple[float, float]:
    """The row's 95 % interval: recorded, else estimate +- the 97.5 % quantile of its test's
    reference distribution (t with the record's ``df`` when ``statistic_kind`` is ``"t"``, else
    normal) x std_err."""
    low, high = row.get("ci_low"), row.get("ci_high")
    if low is not None and high is not None and not (pd.isna(low) or pd.isna(high)):
        return float(low), float(high)
    df = row.get("df")
    critical = (
        stats.t(float(df)).ppf(0.975) if row.get("statistic_kind") == "t" and pd.notna(df) else Z_95
    )
    half = critical * float(row["std_err"]) if pd.notna(row["std_err"]) else 0.0
    return float(row["value"]) - half, float(row["value"]) + half


def marker_fill(row: pd.Series) -> dict:
    """Filled: survives Holm; half-filled: survives Benjamini-Hochberg only; hollow: neither."""
    if bool(row.get("survives_holm", False)):
        return {"fillstyle": "full"}
    if bool(row.get("survives_bh", False)):
        return {"fillstyle": "left", "markerfacecoloralt": "white"}
    return {"markerfacecolor": "white"}
