"""The EEC method's figure: a forest plot of the bias coefficients of one EEC, per emotion, models
side by side."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ...report.kit.families import DEFAULT_FAMILY, FAMILY_WORDS
from ...report.kit.plots import MODEL_COLOURS, interval_95, marker_fill, to_png
from .tables import CLUSTER_MARK, INTERCEPT, bias_terms, eec_rows, term_label


def forest_plot(results: pd.DataFrame, config: str, family: str = DEFAULT_FAMILY) -> bytes | None:
    """:func:`forest_figure` as PNG bytes."""
    figure = forest_figure(results, config, family)
    return None if figure is None else to_png(figure)


def forest_figure(
    results: pd.DataFrame, config: str, family: str = DEFAULT_FAMILY
) -> Figure | None:
    """Coefficients with 95 % intervals for the group, gender and intersection terms of one EEC
    (every coefficient but the intercept of a design with more levels or factors).

    One panel per emotion; within a panel, one row per term and the models side by side. Filled
    markers survive Holm, half-filled ones Benjamini-Hochberg only (the p-values adjusted within
    ``family``); faded ones come from a regressor with poor Pearson r; ``§`` marks a coefficient
    that is not significant once clustered by template.
    """
    family_words = f"Holm / BH adjusted {FAMILY_WORDS[family]}"
    rows = eec_rows(results)
    rows = rows[(rows["config"] == config) & (rows["term"] != INTERCEPT)]
    if rows.empty:
        return None
    emotions = sorted(rows["emotion"].dropna().unique())
    models = sorted(rows["model"].unique())
    terms = bias_terms(rows)
    labels = [term_label(term, rows.iloc[0]) for term in terms]
    figure = Figure(
        figsize=(3.2 * len(emotions) + 1.5, 0.45 * len(models) * len(terms) + 1.8),
        layout="constrained",
    )
    axes = figure.subplots(1, len(emotions), sharex=True, sharey=True, squeeze=False)[0]
    spread = 0.7 / max(len(models), 1)
    for axis, emotion in zip(axes, emotions, strict=True):
        axis.axvline(0.0, color="0.5", linewidth=0.8)
        for m, model in enumerate(models):
            colour = MODEL_COLOURS[m % len(MODEL_COLOURS)]
            for t, term in enumerate(terms):
                match = rows[
                    (rows["emotion"] == emotion) & (rows["model"] == model) & (rows["term"] == term)
                ]
                if match.empty:
                    continue
                row = match.iloc[0]
                low, high = interval_95(row)
                y = t + (m - (len(models) - 1) / 2) * spread
                faded = bool(row.get("poor_regressor", False))
                axis.errorbar(
                    row["value"],
                    y,
                    xerr=[[row["value"] - low], [high - row["value"]]],
                    fmt="o",
                    color=colour,
                    alpha=0.35 if faded else 1.0,
                    capsize=2,
                    markersize=6,
                    **marker_fill(row),
                )
                if bool(row.get("loses_under_clustering", False)):
                    axis.annotate(
                        CLUSTER_MARK,
                        (high, y),
                        xytext=(3, -4),
                        textcoords="offset points",
                        fontsize=8,
                    )
        axis.set_title(emotion)
        axis.set_xlabel("coefficient (logit scale)")
        axis.grid(axis="x", color="0.9")
        axis.xaxis.set_major_locator(MaxNLocator(4))
    axes[0].set_yticks(range(len(terms)), labels)
    axes[0].invert_yaxis()
    handles = [
        Line2D([], [], color=MODEL_COLOURS[m % len(MODEL_COLOURS)], marker="o", label=model)
        for m, model in enumerate(models)
    ]
    handles += [
        Line2D([], [], color="0.3", marker="o", linestyle="", label="filled: survives Holm"),
        Line2D(
            [],
            [],
            color="0.3",
            marker="o",
            linestyle="",
            fillstyle="left",
            markerfacecoloralt="white",
            label="half: Benjamini-Hochberg only",
        ),
        Line2D(
            [],
            [],
            color="0.3",
            marker="o",
            markerfacecolor="white",
            linestyle="",
            label="hollow: neither",
        ),
    ]
    if rows.get("loses_under_clustering", pd.Series(False, index=rows.index)).astype(bool).any():
        handles.append(
            Line2D(
                [], [], linestyle="", label=f"{CLUSTER_MARK}: not significant clustered by template"
            )
        )
    figure.legend(
        handles=handles, loc="outside lower center", ncols=min(len(handles), 4), frameon=False
    )
    figure.suptitle(f"{config}: Beta-regression coefficients, 95 % intervals ({family_words})")
    return figure
