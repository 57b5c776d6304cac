"""A forest plot of differences of identity effects between two conditions (two languages, two models)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ...report.plots import MODEL_COLOURS, interval_95, marker_fill, to_png
from .sentences import effect_label


def difference_plot(rows: pd.DataFrame, series: str, title: str, xlabel: str) -> bytes | None:
    """:func:`difference_figure` as PNG bytes (None without rows)."""
    figure = difference_figure(rows, series, title, xlabel)
    return None if figure is None else to_png(figure)


def difference_figure(rows: pd.DataFrame, series: str, title: str, xlabel: str) -> Figure | None:
    """Differences with their 95 % intervals: one panel per emotion, one line per effect (in the order of the
    fit), the values of column ``series`` (models, pairs) side by side in colours. Filled markers survive Holm,
    half-filled ones Benjamini-Hochberg only, hollow ones neither (when the rows carry those verdicts); faded
    ones come from a poor regressor (``poor_regressor``)."""
    rows = rows[rows["value"].notna()]
    if rows.empty:
        return None
    emotions = sorted(rows["emotion"].dropna().unique())
    names = list(dict.fromkeys(rows["term"]))
    labels = [effect_label(rows[rows["term"] == name].iloc[0]) for name in names]
    keys = list(dict.fromkeys(rows[series]))
    figure = Figure(figsize=(3.4 * len(emotions) + 2.6, 0.32 * len(keys) * len(names) + 1.9), layout="constrained")
    axes = figure.subplots(1, len(emotions), sharex=True, sharey=True, squeeze=False)[0]
    spread = 0.7 / max(len(keys), 1)
    for axis, emotion in zip(axes, emotions, strict=True):
        axis.axvline(0.0, color="0.5", linewidth=0.8)
        for k, key in enumerate(keys):
            shown = rows[(rows["emotion"] == emotion) & (rows[series] == key)]
            for _, row in shown.iterrows():
                low, high = interval_95(row)
                axis.errorbar(
                    row["value"],
                    names.index(row["term"]) + (k - (len(keys) - 1) / 2) * spread,
                    xerr=[[row["value"] - low], [high - row["value"]]],
                    fmt="o",
                    color=MODEL_COLOURS[k % len(MODEL_COLOURS)],
                    alpha=0.35 if bool(row.get("poor_regressor", False)) else 1.0,
                    capsize=2,
                    markersize=5,
                    **marker_fill(row),
                )
        axis.set_title(emotion)
        axis.set_xlabel(xlabel)
        axis.grid(axis="x", color="0.9")
        axis.xaxis.set_major_locator(MaxNLocator(4))
    axes[0].set_yticks(range(len(names)), labels)
    axes[0].invert_yaxis()
    handles = [
        Line2D([], [], color=MODEL_COLOURS[k % len(MODEL_COLOURS)], marker="o", label=str(key))
        for k, key in enumerate(keys)
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4), frameon=False)
    figure.suptitle(title)
    return figure
