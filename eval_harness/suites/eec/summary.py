"""The EEC method's part of the report's one-screen summary: per model a heatmap of the EEC effects with their
marks, the strongest effects in plain words, and the regressors' and judges' quality at a glance.

The heatmap's cells are the three effects on the predicted-intensity scale that the three bias coefficients
of ``y ~ minority + female + minority:female`` read as: the group difference among the reference gender
(``group_within_reference_gender``, minority minus reference, among men), the gender difference within the
reference group (``gender_within_reference_group``, women minus men) and the interaction as a
difference-in-differences (``group:gender_did``); rows are the EEC configs, columns emotion x effect. The colour
is the effect (red: the first-named people are predicted higher), its scale symmetric around 0; a cell's text
is its marks (stars for the unadjusted p, † Holm, ‡ Benjamini-Hochberg only, § not significant clustered by
template); a faded cell comes through a regressor with poor Pearson r or a judge that was not answering.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from ...report.document import Bullets, Image, Paragraph, Table
from ...report.plots import to_png
from ...report.tables import format_number, stars_of, survival_mark
from .sentences import MAX_P, effect_sentences
from .tables import EEC_SUITE, EFFECT_METRIC

# The effects the heatmap shows, in column order within an emotion, and their column labels.
SUMMARY_EFFECTS = {
    "group_within_reference_gender": "group",
    "gender_within_reference_group": "gender",
    "group:gender_did": "both",
}
STRONGEST = 5
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


def effect_grid(rows: pd.DataFrame, model: str) -> tuple[list[str], list[tuple[str, str]], np.ndarray, list]:
    """One model's heatmap: its configs (rows), (emotion, effect) columns, the values (NaN where none) and each
    cell's record (None where none)."""
    own = rows[rows["model"] == model]
    configs = sorted(own["config"].dropna().unique())
    columns = [(emotion, effect) for emotion in sorted(own["emotion"].dropna().unique()) for effect in SUMMARY_EFFECTS]
    values = np.full((len(configs), len(columns)), np.nan)
    records: list = [[None] * len(columns) for _ in configs]
    for _, row in own.iterrows():
        i, j = configs.index(row["config"]), columns.index((row["emotion"], row["term"]))
        values[i, j], records[i][j] = float(row["value"]), row
    return configs, columns, values, records


def effects_heatmap(results: pd.DataFrame) -> bytes | None:
    """The heatmap of every model's EEC effects (module docstring) as PNG bytes; None without EEC effects."""
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
            if bool(row.get("poor_regressor", False)):  # faded: measured through a poor regressor
                axis.add_patch(_fade_patch(j, i))
            dark = abs(norm(values[i, j]) - 0.5) > 0.35  # white marks on the darkest cells
            marks = stars_of(row) + survival_mark(row)
            axis.text(j, i, marks, ha="center", va="center", fontsize=6.5, color="white" if dark else "black")
        axis.set_title(model, fontsize=9, loc="left")
        axis.set_yticks(range(len(configs)), configs, fontsize=7)
        axis.set_xticks(range(len(columns)), [SUMMARY_EFFECTS[effect] for _, effect in columns], fontsize=6.5)
        axis.tick_params(axis="x", rotation=90, length=0)
        for k in range(1, len(columns) // len(SUMMARY_EFFECTS)):
            axis.axvline(k * len(SUMMARY_EFFECTS) - 0.5, color="white", linewidth=2)
        top = axis.secondary_xaxis("top")
        emotions = list(dict.fromkeys(emotion for emotion, _ in columns))
        top.set_xticks([k * len(SUMMARY_EFFECTS) + 1 for k in range(len(emotions))], emotions, fontsize=7)
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


def strongest_sentences(results: pd.DataFrame, n: int = STRONGEST) -> tuple[list[str], bool]:
    """The ``n`` strongest EEC effects in plain words (smallest p first): those that survive Holm and come
    through a regressor of good quality, else (second value False) the smallest p-values up to :data:`MAX_P`."""
    ranked = sorted((s for sentences in effect_sentences(results).values() for s in sentences), key=lambda s: s.p_value)
    effects = results[(results["suite"] == EEC_SUITE) & (results["metric"] == EFFECT_METRIC)]
    verdicts = {(row.model, row.config, row.emotion, row.term): row for row in effects.itertuples()}

    def robust(sentence) -> bool:
        row = verdicts.get((sentence.model, sentence.config, sentence.emotion, sentence.effect))
        return bool(getattr(row, "survives_holm", False)) and not bool(getattr(row, "poor_regressor", False))

    strong = [sentence for sentence in ranked if robust(sentence)]
    chosen = strong or ranked
    return [f"{sentence.config}: {sentence.text}" for sentence in chosen[:n]], bool(strong)


def quality_table(quality: pd.DataFrame, validity: pd.DataFrame, min_regressor_r: float) -> pd.DataFrame:
    """Per model its regressors' test Pearson r (how many, lowest, median, how many poor) and, for a zero-shot
    judge, its lowest mean numeral mass; from the section's ``regressor_quality`` (``regressor_r`` per model,
    language, emotion) and ``judge_validity`` (``numeral_mass``)."""
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
) -> list:
    """The EEC blocks of the report's summary (module docstring); none without EEC effects. ``quality`` and
    ``validity``: the regressors' Pearson r and the judges' numeral mass (:func:`quality_table`)."""
    png = effects_heatmap(results)
    if png is None:
        return []
    blocks: list = [
        Image(
            "summary_eec_effects",
            png,
            "EEC effects per model on the predicted-intensity scale: rows EEC, columns emotion × effect (group: "
            "minority minus reference among men; gender: women minus men in the reference group; both: the "
            "interaction as a difference-in-differences). Red: the first-named people are predicted higher. Marks: "
            "* p ≤ 0.05 unadjusted, † survives Holm, ‡ Benjamini-Hochberg only, § not significant clustered by "
            "template; faded: through a regressor with poor r or a judge that was not answering.",
        )
    ]
    sentences, robust = strongest_sentences(results)
    if sentences:
        lead = (
            "The strongest EEC effects (surviving Holm, through a regressor of good quality):"
            if robust
            else f"No EEC effect both survives Holm and comes through a good regressor; the smallest p-values "
            f"(≤ {MAX_P:.2f}):"
        )
        blocks += [Paragraph(lead), Bullets(tuple(sentences))]
    table = quality_table(quality, validity, min_regressor_r)
    if not table.empty:
        poor = quality.loc[quality["regressor_r"] < min_regressor_r, "model"].nunique()
        unanswering = validity.loc[validity["numeral_mass"] < min_numeral_mass, "model"].nunique()
        blocks.append(
            Table(
                table,
                f"Regressor and judge quality: {poor} model(s) with a regressor below r = "
                f"{min_regressor_r:g}, {unanswering} judge(s) under {min_numeral_mass:.0%} numeral mass",
            )
        )
    return blocks
