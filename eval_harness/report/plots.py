"""The report's figures, as PNG bytes (matplotlib's Agg canvas; no pyplot, no global state).

Each function takes a run's annotated results (see :func:`findings.annotate`) and
returns the PNG, or None when the run has nothing to draw.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from scipy import stats

from .findings import DEFAULT_FAMILY, FAMILY_WORDS
from .tables import (
    BH_ONLY_MARK,
    BIAS_TERMS,
    BOOTSTRAP_MARK,
    CLUSTER_MARK,
    EXPLAINED_VARIANCE_METRICS,
    GENDER_SPACE_ROWS,
    GENDER_SPACE_SUITE,
    HOLM_MARK,
    eec_rows,
    marked_value,
    natural_order,
    term_label,
    xweat_monolingual,
)

DPI = 110
Z_95 = 1.959963984540054
MODEL_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def to_png(figure: Figure) -> bytes:
    """The figure rendered as PNG bytes."""
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return buffer.getvalue()


def _interval(row: pd.Series) -> tuple[float, float]:
    """The row's 95 % interval: recorded, else estimate +- the 97.5 % quantile of its test's reference
    distribution (t with the record's ``df`` when ``statistic_kind`` is ``"t"``, else normal) x std_err."""
    low, high = row.get("ci_low"), row.get("ci_high")
    if low is not None and high is not None and not (pd.isna(low) or pd.isna(high)):
        return float(low), float(high)
    df = row.get("df")
    critical = stats.t(float(df)).ppf(0.975) if row.get("statistic_kind") == "t" and pd.notna(df) else Z_95
    half = critical * float(row["std_err"]) if pd.notna(row["std_err"]) else 0.0
    return float(row["value"]) - half, float(row["value"]) + half


def _marker_fill(row: pd.Series) -> dict:
    """Filled: survives Holm; half-filled: survives Benjamini-Hochberg only; hollow: neither."""
    if bool(row.get("survives_holm", False)):
        return {"fillstyle": "full"}
    if bool(row.get("survives_bh", False)):
        return {"fillstyle": "left", "markerfacecoloralt": "white"}
    return {"markerfacecolor": "white"}


def forest_plot(results: pd.DataFrame, config: str, family: str = DEFAULT_FAMILY) -> bytes | None:
    """:func:`forest_figure` as PNG bytes."""
    figure = forest_figure(results, config, family)
    return None if figure is None else to_png(figure)


def forest_figure(results: pd.DataFrame, config: str, family: str = DEFAULT_FAMILY) -> Figure | None:
    """Coefficients with 95 % intervals for the group, gender and intersection terms of one EEC.

    One panel per emotion; within a panel, one row per term and the models side by side. Filled
    markers survive Holm, half-filled ones Benjamini-Hochberg only (the p-values adjusted within
    ``family``); faded ones come from a regressor with poor Pearson r; ``§`` marks a coefficient that is
    not significant once clustered by template.
    """
    family_words = f"Holm / BH adjusted {FAMILY_WORDS[family]}"
    rows = eec_rows(results)
    rows = rows[(rows["config"] == config) & rows["term"].isin(BIAS_TERMS)]
    if rows.empty:
        return None
    emotions = sorted(rows["emotion"].dropna().unique())
    models = sorted(rows["model"].unique())
    labels = [term_label(term, rows.iloc[0]) for term in BIAS_TERMS]
    figure = Figure(
        figsize=(3.2 * len(emotions) + 1.5, 0.45 * len(models) * len(BIAS_TERMS) + 1.8), layout="constrained"
    )
    axes = figure.subplots(1, len(emotions), sharex=True, sharey=True, squeeze=False)[0]
    spread = 0.7 / max(len(models), 1)
    for axis, emotion in zip(axes, emotions, strict=True):
        axis.axvline(0.0, color="0.5", linewidth=0.8)
        for m, model in enumerate(models):
            colour = MODEL_COLOURS[m % len(MODEL_COLOURS)]
            for t, term in enumerate(BIAS_TERMS):
                match = rows[(rows["emotion"] == emotion) & (rows["model"] == model) & (rows["term"] == term)]
                if match.empty:
                    continue
                row = match.iloc[0]
                low, high = _interval(row)
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
                    **_marker_fill(row),
                )
                if bool(row.get("loses_under_clustering", False)):
                    axis.annotate(CLUSTER_MARK, (high, y), xytext=(3, -4), textcoords="offset points", fontsize=8)
        axis.set_title(emotion)
        axis.set_xlabel("coefficient (logit scale)")
        axis.grid(axis="x", color="0.9")
        axis.xaxis.set_major_locator(MaxNLocator(4))
    axes[0].set_yticks(range(len(BIAS_TERMS)), labels)
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
        Line2D([], [], color="0.3", marker="o", markerfacecolor="white", linestyle="", label="hollow: neither"),
    ]
    if rows.get("loses_under_clustering", pd.Series(False, index=rows.index)).astype(bool).any():
        handles.append(Line2D([], [], linestyle="", label=f"{CLUSTER_MARK}: not significant clustered by template"))
    figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4), frameon=False)
    figure.suptitle(f"{config}: Beta-regression coefficients, 95 % intervals ({family_words})")
    return figure


def xweat_heatmap(results: pd.DataFrame, family: str = DEFAULT_FAMILY) -> bytes | None:
    """Monolingual XWEAT effect sizes, test x language, one panel per model, significance stars in the cells."""
    rows = xweat_monolingual(results)
    if rows.empty:
        return None
    models = sorted(rows["model"].unique())
    tests = sorted(rows["test"].dropna().unique(), key=natural_order)
    languages = list(dict.fromkeys(rows["language"]))
    widths = [max(2, len(rows[rows["model"] == model]["language"].unique())) for model in models]
    figure = Figure(figsize=(0.75 * sum(widths) + 2.5, 0.45 * len(tests) + 1.8))
    axes = figure.subplots(1, len(models), squeeze=False, gridspec_kw={"width_ratios": widths})[0]
    image = None
    for axis, model in zip(axes, models, strict=True):
        model_rows = rows[rows["model"] == model]
        model_languages = [language for language in languages if language in set(model_rows["language"])]
        grid = np.full((len(tests), len(model_languages)), np.nan)
        for _, row in model_rows.iterrows():
            i, j = tests.index(row["test"]), model_languages.index(row["language"])
            grid[i, j] = row["value"]
            axis.text(
                j,
                i,
                marked_value(row, 2),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if abs(row["value"]) > 1.3 else "black",
            )
        image = axis.imshow(np.ma.masked_invalid(grid), cmap="RdBu_r", vmin=-2, vmax=2, aspect="auto")
        axis.set_xticks(range(len(model_languages)), model_languages)
        axis.set_yticks(range(len(tests)), tests)
        axis.set_title(model, fontsize=10)
        axis.set_facecolor("0.85")
    figure.colorbar(image, ax=list(axes), label="effect size d", shrink=0.9)
    figure.suptitle(
        f"XWEAT effect sizes (*** p ≤ 0.01, ** p ≤ 0.05, * p ≤ 0.10; {HOLM_MARK} Holm, {BH_ONLY_MARK} BH only, "
        f"adjusted {FAMILY_WORDS[family]}; {BOOTSTRAP_MARK} bootstrap CI contains 0)"
    )
    return to_png(figure)


def explained_variance_plot(results: pd.DataFrame) -> bytes | None:
    """Share of variance per principal component: definitional-pair differences vs random pairs."""
    rows = results[(results["suite"] == GENDER_SPACE_SUITE) & results["metric"].isin(EXPLAINED_VARIANCE_METRICS)]
    if rows.empty:
        return None
    panels = list(rows.groupby(GENDER_SPACE_ROWS, sort=True))
    figure = Figure(figsize=(4.2 * len(panels) + 0.5, 3.4))
    axes = figure.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for axis, ((model, language, mode), panel) in zip(axes, panels, strict=True):
        for offset, (metric, label, colour) in zip(
            (-0.2, 0.2),
            zip(EXPLAINED_VARIANCE_METRICS, ("definitional pairs", "random pairs"), ("#d62728", "0.6"), strict=True),
            strict=True,
        ):
            curve = panel[panel["metric"] == metric]
            curve = curve.iloc[sorted(range(len(curve)), key=lambda i: natural_order(curve["term"].iloc[i]))]
            if curve.empty:
                continue
            positions = np.arange(1, len(curve) + 1) + offset
            errors = curve["std_err"].to_numpy(dtype=float)
            axis.bar(
                positions,
                curve["value"],
                width=0.4,
                color=colour,
                label=label,
                yerr=None if np.isnan(errors).all() else np.nan_to_num(errors),
                capsize=2,
            )
        axis.set_title(f"{model} ({language}, {mode})", fontsize=10)
        axis.set_xlabel("principal component")
        axis.set_xticks(range(1, int(panel["term"].nunique()) + 1))
    axes[0].set_ylabel("explained variance ratio")
    axes[0].legend(frameon=False)
    figure.suptitle("Gender direction: variance of definitional-pair differences per component")
    figure.subplots_adjust(top=0.82)
    return to_png(figure)
