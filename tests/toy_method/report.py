"""The toy method's section of ``xbias report``, in the method's own folder: a headline table (model
x language x config, a column per emotion), a sentence per estimate with p <= 0.10, and a figure. It
uses the report's building blocks only, and reads the fields its records declare
(:data:`.records.TOY_RECORDS`)."""

import pandas as pd
from matplotlib.figure import Figure

from eval_harness.report.kit.document import Bullets, Image, Paragraph, Section, Table
from eval_harness.report.kit.method_section import KnownSections, ReportSection
from eval_harness.report.kit.plots import to_png
from eval_harness.report.kit.tables import format_p, marked_value

TITLE = "Toy method"
MAX_P = 0.10


def headline_table(rows: pd.DataFrame, known: KnownSections) -> pd.DataFrame:
    """The estimates, marked (with the ``known`` sections' flags): rows model x language x config, a
    column per emotion."""
    estimates = rows[rows["metric"] == "estimate"]
    cells = estimates.assign(cell=[marked_value(row, known) for _, row in estimates.iterrows()])
    table = cells.pivot_table(
        index=["model", "language", "config"],
        columns="emotion",
        values="cell",
        aggfunc="first",
        sort=False,
    )
    table.columns.name = None
    return table.reset_index()


def sentences(rows: pd.DataFrame) -> list[str]:
    """One sentence per estimate with p <= MAX_P, smallest p first."""
    shown = rows[(rows["metric"] == "estimate") & (rows["p_value"] <= MAX_P)].sort_values(
        "p_value", kind="stable"
    )
    return [
        f"{row['model']}, {row['config']}, {row['emotion']}: the toy "
        f"estimate is {row['value']:+.3f} (p = {format_p(row['p_value'])})."
        for _, row in shown.iterrows()
    ]


def estimates_figure(rows: pd.DataFrame) -> bytes:
    estimates = rows[rows["metric"] == "estimate"]
    figure = Figure(figsize=(5, 3))
    axis = figure.subplots()
    axis.bar(range(len(estimates)), estimates["value"].to_numpy(dtype=float))
    axis.set_xlabel("unit")
    axis.set_ylabel("toy estimate")
    return to_png(figure)


class ToySection(ReportSection):
    shown_metrics = ("estimate", "total_length")

    def sections(self, results, settings) -> list[Section]:
        rows = self.rows(results)
        if rows.empty:
            return []
        blocks = [
            Table(
                headline_table(rows, settings.sections),
                "Toy estimates per unit (marked like every table of the report)",
            ),
            Paragraph(f"In plain words (estimates with p ≤ {MAX_P:.2f}):"),
            Bullets(tuple(sentences(rows)) or ("none",)),
            Image("toy_estimates", estimates_figure(rows), "The toy estimates, unit by unit"),
        ]
        return [Section(TITLE, tuple(blocks))]


SECTION = ToySection()
