"""A forest plot of differences of identity effects between two conditions (two languages, two
models)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ....report.kit.plots import MODEL_COLOURS, interval_95, marker_fill, to_png
from ..measurement import INTENSITY_SCALE_WIDTH
from .sentences import effect_label

# The axis shows differences within +-1, the width of the 0-1 intensity scale: an interval reaching
# beyond (a test on very few degrees of freedom) is cut there and its cut end marked, so that it
# does not squash the others.
AXIS_BOUND = INTENSITY_SCALE_WIDTH


def difference_plot(rows: pd.DataFrame, series: str, title: str, xlabel: str) -> bytes | None:
    """:func:`difference_figure` as PNG bytes (None without rows)."""
    figure = difference_figure(rows, series, title, xlabel)
    return None if figure is None else to_png(figure)


def difference_figure(rows: pd.DataFrame, series: str, title: str, xlabel: str) -> Figure | None:
    """Differences with their 95 % intervals: one panel per emotion, one line per effect (in the
    order of the fit), the values of column ``series`` (models, pairs) side by side in colours.
    Filled markers survive Holm, half-filled ones Benjamini-Hochberg only, hollow ones neither (when
    the rows carry those verdicts); faded ones come from a poor regressor (``poor_regressor``).
    Intervals beyond +-:data:`AXIS_BOUND` are cut at the axis, their cut end marked with a triangle,
    and the axis label says so."""
    rows = rows[rows["value"].notna()]
    if rows.empty:
        return None
    emotions = sorted(rows["emotion"].dropna().unique())
    names = list(dict.fromkeys(rows["term"]))
    labels = [effect_label(rows[rows["term"] == name].iloc[0]) for name in names]
    keys = list(dict.fromkeys(rows[series]))
    figure = Figure(
        figsize=(3.4 * len(emotions) + 2.6, 0.32 * len(keys) * len(names) + 1.9),
        layout="constrained",
    )
    axes = figure.subplots(1, len(emotions), sharex=True, sharey=True, squeeze=False)[0]
    spread = 0.7 / max(len(keys), 1)
    intervals = [interval_95(row) for _, row in rows.iterrows()]
    reach = max(max(abs(low), abs(high)) for low, high in intervals)
    cut = reach > AXIS_BOUND
    for axis, emotion in zip(axes, emotions, strict=True):
        axis.axvline(0.0, color="0.5", linewidth=0.8)
        for k, key in enumerate(keys):
            shown = rows[(rows["emotion"] == emotion) & (rows[series] == key)]
            for _, row in shown.iterrows():
                low, high = interval_95(row)
                position = names.index(row["term"]) + (k - (len(keys) - 1) / 2) * spread
                colour, alpha = (
                    MODEL_COLOURS[k % len(MODEL_COLOURS)],
                    0.35 if bool(row.get("poor_regressor")) else 1.0,
                )
                shown_low, shown_high = max(low, -AXIS_BOUND), min(high, AXIS_BOUND)
                axis.errorbar(
                    row["value"],
                    position,
                    xerr=[
                        [max(row["value"] - shown_low, 0.0)],
                        [max(shown_high - row["value"], 0.0)],
                    ],
                    fmt="o",
                    color=colour,
                    alpha=alpha,
                    capsize=2,
                    markersize=5,
                    **marker_fill(row),
                )
                for end, edge, marker in ((low, -AXIS_BOUND, "<"), (high, AXIS_BOUND, ">")):
                    if (end < edge) if edge < 0 else (end > edge):
                        axis.plot(
                            edge, position, marker=marker, color=colour, alpha=alpha, markersize=6
                        )
        axis.set_title(emotion)
        axis.set_xlabel(xlabel + (f"\n(intervals beyond ±{AXIS_BOUND:g} cut: ◂ ▸)" if cut else ""))
        if cut:
            axis.set_xlim(-AXIS_BOUND * 1.05, AXIS_BOUND * 1.05)
        axis.grid(axis="x", color="0.9")
        axis.xaxis.set_major_locator(MaxNLocator(4))
    axes[0].set_yticks(range(len(names)), labels)
    axes[0].invert_yaxis()
    handles = [
        Line2D([], [], color=MODEL_COLOURS[k % len(MODEL_COLOURS)], marker="o", label=str(key))
        for k, key in enumerate(keys)
    ]
    figure.legend(
        handles=handles, loc="outside lower center", ncols=min(len(handles), 4), frameon=False
    )
    figure.suptitle(title)
    return figure
