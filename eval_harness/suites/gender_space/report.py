"""The gender-space method's section of the report: the explained-variance curve of the definitional
pairs against random pairs (a plot and a table) and the other measures per model, language and mode;
and the numbers a gender-space run puts on a model card.

It reads the records :data:`.records.GENDER_SPACE_RECORDS` declares and reaches the report only
through its building blocks, the kit (:mod:`eval_harness.report.kit.document`, ``tables``,
``plots``, ``families``, ``method_section``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ...report.kit.document import Image, Section, Table
from ...report.kit.method_section import CardMetric, KnownSections, ReportSection, ReportSettings
from ...report.kit.plots import to_png
from ...report.kit.tables import format_number, marked_value, natural_order

GENDER_SPACE_SUITE = "gender_space"
EXPLAINED_VARIANCE_METRICS = ("explained_variance_ratio", "baseline_explained_variance_ratio")
GENDER_SPACE_ROWS = ["model", "language", "config"]
CARD_TASK = ("feature-extraction", "Gender space", "gender_space")


def gender_space_table(results: pd.DataFrame, known: KnownSections) -> pd.DataFrame:
    """The gender-space measures other than the explained-variance curve: rows model x language x
    mode (the dataset config: static or contextual vectors)."""
    rows = results[
        (results["suite"] == GENDER_SPACE_SUITE)
        & ~results["metric"].isin(EXPLAINED_VARIANCE_METRICS)
    ]
    if rows.empty:
        return pd.DataFrame()
    cells = rows.assign(cell=[marked_value(row, known) for _, row in rows.iterrows()])
    table = cells.pivot_table(
        index=GENDER_SPACE_ROWS, columns="metric", values="cell", aggfunc="first"
    )
    table.columns.name = None
    return table.fillna("").reset_index().rename(columns={"config": "mode"})


def explained_variance_table(results: pd.DataFrame) -> pd.DataFrame:
    """Share of variance of the definitional-pair differences along the first components, vs random
    pairs."""
    rows = results[
        (results["suite"] == GENDER_SPACE_SUITE)
        & results["metric"].isin(EXPLAINED_VARIANCE_METRICS)
    ]
    if rows.empty:
        return pd.DataFrame()
    table = rows.pivot_table(
        index=[*GENDER_SPACE_ROWS, "metric"], columns="term", values="value", aggfunc="first"
    )
    table = table[sorted(table.columns, key=natural_order)]
    table.columns.name = None
    return table.map(lambda v: format_number(v, 3)).reset_index().rename(columns={"config": "mode"})


def explained_variance_plot(results: pd.DataFrame) -> bytes | None:
    """Share of variance per principal component: definitional-pair differences vs random pairs."""
    rows = results[
        (results["suite"] == GENDER_SPACE_SUITE)
        & results["metric"].isin(EXPLAINED_VARIANCE_METRICS)
    ]
    if rows.empty:
        return None
    panels = list(rows.groupby(GENDER_SPACE_ROWS, sort=True))
    figure = Figure(figsize=(4.2 * len(panels) + 0.5, 3.4))
    axes = figure.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for axis, ((model, language, mode), panel) in zip(axes, panels, strict=True):
        for offset, (metric, label, colour) in zip(
            (-0.2, 0.2),
            zip(
                EXPLAINED_VARIANCE_METRICS,
                ("definitional pairs", "random pairs"),
                ("#d62728", "0.6"),
                strict=True,
            ),
            strict=True,
        ):
            curve = panel[panel["metric"] == metric]
            curve = curve.iloc[
                sorted(range(len(curve)), key=lambda i: natural_order(curve["term"].iloc[i]))
            ]
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


def gender_space_section(results: pd.DataFrame, known: KnownSections) -> Section | None:
    measures = gender_space_table(results, known)
    variance = explained_variance_table(results)
    if measures.empty and variance.empty:
        return None
    blocks: list = []
    png = explained_variance_plot(results)
    if png:
        blocks.append(
            Image(
                "gender_space_explained_variance",
                png,
                "Explained variance per principal component: definitional pairs vs random pairs",
            )
        )
    if not variance.empty:
        blocks.append(Table(variance, "Explained variance ratio per component"))
    if not measures.empty:
        blocks.append(Table(measures, "Gender-space measures"))
    return Section("Gender space", tuple(blocks))


class GenderSpaceSection(ReportSection):
    """The gender-space method's section (module docstring): it shows every record of its suite."""

    suite = GENDER_SPACE_SUITE
    order = 30
    shown_metrics = None
    card_metrics = {
        metric: CardMetric(*CARD_TASK, label=metric.replace("_", " "))
        for metric in (
            "direct_bias",
            "clustering_accuracy",
            "classification_accuracy",
            "knn_profession_r",
        )
    }
    dataset_titles = {"gender_lists": "Gender word lists"}

    def sections(self, results: pd.DataFrame, settings: ReportSettings) -> list[Section]:
        section = gender_space_section(results, settings.sections)
        return [] if section is None else [section]


SECTION = GenderSpaceSection()
