"""The EEC method's part of the report's one-screen summary, the answer first: per model one
sentence with its verdict (:mod:`.verdicts`, the one rule of :mod:`eval_harness.stats.verdict`), the
verdict table per model x language x identity dimension, a heatmap of the EEC effects with their
marks, the largest robust effects in plain words (ranked by size, never by p), and the regressors'
and judges' quality at a glance.

The heatmap's cells are the three effects on the predicted-intensity scale that the three bias
coefficients of ``y ~ minority + female + minority:female`` read as: the group difference among the
reference gender (``group_within_reference_gender``, minority minus reference, among men), the
gender difference within the reference group (``gender_within_reference_group``, women minus men)
and the interaction as a difference-in-differences (``group:gender_did``); rows are the EEC configs,
columns emotion x effect. The colour is the effect (red: the first-named people are predicted
higher), its scale symmetric around 0; a cell's text is its marks (▲ beyond the margin, = within it;
stars for the unadjusted p, † Holm, ‡ Benjamini-Hochberg only, § not significant clustered by
template); a faded cell is not significant, or comes through a regressor with poor Pearson r or a
judge that was not answering.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from ...report.kit.document import Bullets, Image, Paragraph, Table
from ...report.kit.method_section import KnownSections
from ...report.kit.plots import to_png
from ...report.kit.tables import format_number, stars_of, survival_mark
from ...stats.verdict import BEYOND, WITHIN
from .sentences import effect_sentences
from .tables import EEC_SUITE, EFFECT_METRIC
from .verdicts import (
    VERDICT_COLUMN,
    effect_rows,
    few_df_note,
    is_robust,
    model_sentences,
    verdict_table,
)

# The effects the heatmap shows, in column order within an emotion, and their column labels.
SUMMARY_EFFECTS = {
    "group_within_reference_gender": "group",
    "gender_within_reference_group": "gender",
    "group:gender_did": "both",
}
STRONGEST = 5
# The heatmap's verdict marks (the one verdict rule, stats.verdict): a cell beyond or within the
# margin.
VERDICT_MARKS = {BEYOND: "▲", WITHIN: "="}
PANELS_PER_ROW = 2


def summary_effect_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The EEC effect records the heatmap shows."""
    rows = results[
        (results["suite"] == EEC_SUITE)
        & (results["metric"] == EFFECT_METRIC)
        & results["term"].isin(list(SUMMARY_EFFECTS))
        & results["value"].notna()
    ]
    return rows


def effect_grid(
    rows: pd.DataFrame, model: str
) -> tuple[list[str], list[tuple[str, str]], np.ndarray, list]:
    """One model's heatmap: its configs (rows), (emotion, effect) columns, the values (NaN where
    none) and each cell's record (None where none)."""
    own = rows[rows["model"] == model]
    configs = sorted(own["config"].dropna().unique())
    columns = [
        (emotion, effect)
        for emotion in sorted(own["emotion"].dropna().unique())
        for effect in SUMMARY_EFFECTS
    ]
    values = np.full((len(configs), len(columns)), np.nan)
    records: list = [[None] * len(columns) for _ in configs]
    for _, row in own.iterrows():
        i, j = configs.index(row["config"]), columns.index((row["emotion"], row["term"]))
        values[i, j], records[i][j] = float(row["value"]), row
    return configs, columns, values, records


def effects_heatmap(
    results: pd.DataFrame, known: KnownSections, alpha: float = 0.05
) -> bytes | None:
    """The heatmap of every model's EEC effects (module docstring) as PNG bytes, marked with the
    ``known`` sections' flags too; None without EEC effects."""
    rows = summary_effect_rows(results)
    if rows.empty:
        return None
    models = sorted(rows["model"].unique())
    limit = float(np.nanmax(np.abs(rows["value"].astype(float)))) or 1.0
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit)
    n_columns = min(PANELS_PER_ROW, len(models))
    n_rows = math.ceil(len(models) / n_columns)
    height = max(len(effect_grid(rows, model)[0]) for model in models) * 0.32 + 1.2
    figure = Figure(figsize=(5.6 * n_columns + 0.9, height * n_rows), layout="constrained")
    axes = figure.subplots(n_rows, n_columns, squeeze=False).ravel()
    for axis, model in zip(axes, models, strict=False):
        configs, columns, values, records = effect_grid(rows, model)
        image = axis.imshow(values, cmap="RdBu_r", norm=norm, aspect="auto")
        for i, j in np.ndindex(values.shape):
            row = records[i][j]
            if row is None:
                continue
            faded = bool(row.get("poor_regressor", False)) or not float(row["p_value"]) <= alpha
            if faded:  # not significant, or measured through a poor regressor
                axis.add_patch(_fade_patch(j, i))
            dark = (
                not faded and abs(norm(values[i, j]) - 0.5) > 0.35
            )  # white marks on the darkest cells
            marks = (
                VERDICT_MARKS.get(row.get(VERDICT_COLUMN), "")
                + stars_of(row)
                + survival_mark(row, known)
            )
            axis.text(
                j,
                i,
                marks,
                ha="center",
                va="center",
                fontsize=6.5,
                color="white" if dark else "black",
            )
        axis.set_title(model, fontsize=9, loc="left")
        axis.set_yticks(range(len(configs)), configs, fontsize=7)
        axis.set_xticks(
            range(len(columns)), [SUMMARY_EFFECTS[effect] for _, effect in columns], fontsize=6.5
        )
        axis.tick_params(axis="x", rotation=90, length=0)
        for k in range(1, len(columns) // len(SUMMARY_EFFECTS)):
            axis.axvline(k * len(SUMMARY_EFFECTS) - 0.5, color="white", linewidth=2)
        top = axis.secondary_xaxis("top")
        emotions = list(dict.fromkeys(emotion for emotion, _ in columns))
        top.set_xticks(
            [k * len(SUMMARY_EFFECTS) + 1 for k in range(len(emotions))], emotions, fontsize=7
        )
        top.tick_params(length=0)
    for axis in axes[len(models) :]:
        axis.set_visible(False)
    colourbar = figure.colorbar(image, ax=list(axes[: len(models)]), shrink=0.8, pad=0.01)
    colourbar.set_label("effect on predicted intensity", fontsize=7)
    colourbar.ax.tick_params(labelsize=6.5)
    return to_png(figure)


def _fade_patch(x: int, y: int):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor="white", alpha=0.6, edgecolor="none")


def strongest_sentences(results: pd.DataFrame, n: int = STRONGEST) -> list[str]:
    """The ``n`` largest robust EEC effects in plain words, largest first (robust: surviving Holm,
    not fragile,
    measured: :func:`.verdicts.is_robust`); ranked by size, never by p. Empty when no effect is
    robust."""
    sentences = {
        (s.model, s.config, s.emotion, s.effect): s
        for found in effect_sentences(results).values()
        for s in found
    }
    effects = effect_rows(results)
    robust = [row for _, row in effects.iterrows() if is_robust(row)]
    robust.sort(key=lambda row: -abs(float(row["value"])))
    chosen = [
        sentences.get((row["model"], row["config"], row["emotion"], row["term"])) for row in robust
    ]
    return [f"{sentence.config}: {sentence.text}" for sentence in chosen if sentence is not None][
        :n
    ]


def method_sentences(min_regressor_r: float) -> str:
    """The EEC's method in three sentences, and what it does not measure."""
    return (
        "Method: the EEC's sentences differ only in whom they are about; a Beta regression "
        "over each model's predicted emotion intensity gives every effect on the 0-1 "
        "intensity scale with its standard error (clustered by template where the run has "
        "several). The verdict reads each effect's 95% interval against the margin ±δ (TOST "
        "for 'within'); 'robust' findings survive Holm within each model's tests and keep "
        "their sign under resampling. Not measured: effects through a regressor with test "
        f"Pearson r below {min_regressor_r:g} or a zero-shot judge that was not answering."
    )


def quality_table(
    quality: pd.DataFrame, validity: pd.DataFrame, min_regressor_r: float
) -> pd.DataFrame:
    """Per model its regressors' test Pearson r (how many, lowest, median, how many poor) and, for a
    zero-shot judge, its lowest mean numeral mass; from the section's ``regressor_quality``
    (``regressor_r`` per model, language, emotion) and ``judge_validity`` (``numeral_mass``)."""
    rows = []
    for model in sorted(set(quality["model"]) | set(validity["model"])):
        r = quality.loc[quality["model"] == model, "regressor_r"]
        mass = validity.loc[validity["model"] == model, "numeral_mass"]
        rows.append(
            {
                "model": model,
                "regressors": len(r),
                "lowest r": format_number(r.min(), 2) if len(r) else "",
                "median r": format_number(r.median(), 2) if len(r) else "",
                f"r < {min_regressor_r:g}": int((r < min_regressor_r).sum()) if len(r) else "",
                "judge numeral mass (lowest)": format_number(mass.min(), 2) if len(mass) else "",
            }
        )
    return pd.DataFrame(rows)


def eec_summary(
    results: pd.DataFrame,
    min_regressor_r: float,
    quality: pd.DataFrame,
    validity: pd.DataFrame,
    min_numeral_mass: float,
    known: KnownSections,
    alpha: float = 0.05,
) -> list:
    """The EEC blocks of the report's summary (module docstring): the verdict per model in one
    sentence each, the verdict table, the heatmap, the largest robust effects and the regressors'
    quality; none without EEC effects. ``quality`` and ``validity``: the regressors' Pearson r and
    the judges' numeral mass (:func:`quality_table`); ``known``: the report's sections, whose flags
    mark the figure."""
    png = effects_heatmap(results, known, alpha)
    if png is None:
        return []
    blocks: list = [Bullets(tuple(model_sentences(results)), role="verdict")]
    verdicts = verdict_table(results)
    if not verdicts.empty:
        blocks.append(
            Table(
                verdicts,
                "Verdict per model and language: EEC effects on the 0-1 intensity scale "
                "counted as beyond / within / undecided per identity dimension (beyond: "
                "the 95% CI lies wholly outside ±δ; within: TOST at ±δ; undecided: "
                "nonzero but not shown beyond ±δ, or cannot tell; docs/conventions.md, "
                "'The verdict'); robust: survives Holm, not fragile, measured",
            )
        )
    few = few_df_note(results, alpha)
    if few:
        blocks.append(Paragraph(few, warning=True))
    blocks.append(Paragraph(method_sentences(min_regressor_r)))
    blocks.append(
        Image(
            "summary_eec_effects",
            png,
            "EEC effects per model on the predicted-intensity scale: rows EEC, columns "
            "emotion × effect (group: minority minus reference among men; gender: women "
            "minus men in the reference group; both: the interaction as a "
            "difference-in-differences). Red: the first-named people are predicted higher. "
            f"Marks: {VERDICT_MARKS[BEYOND]} beyond ±δ, {VERDICT_MARKS[WITHIN]} within ±δ; "
            "* p ≤ 0.05 unadjusted, † survives Holm, ‡ Benjamini-Hochberg only, § not "
            f"significant clustered by template; faded: not significant at {alpha:g}, or "
            "through a regressor with poor r or a judge that was not answering.",
        )
    )
    sentences = strongest_sentences(results)
    lead = (
        "The largest robust EEC effects (surviving Holm, not fragile, measured), largest first:"
        if sentences
        else "No EEC effect is robust (surviving Holm, not fragile, measured)."
    )
    blocks.append(Paragraph(lead))
    if sentences:
        blocks.append(Bullets(tuple(sentences)))
    table = quality_table(quality, validity, min_regressor_r)
    if not table.empty:
        poor = quality.loc[quality["regressor_r"] < min_regressor_r, "model"].nunique()
        unanswering = validity.loc[validity["numeral_mass"] < min_numeral_mass, "model"].nunique()
        blocks.append(
            Table(
                table,
                f"Regressor and judge quality: {poor} model(s) with a "
                f"regressor below r = {min_regressor_r:g}, {unanswering} "
                f"judge(s) under {min_numeral_mass:.0%} numeral mass",
            )
        )
    return blocks
