"""The report's section on the xweat suite's association measures: each measure next to WEAT, per
test and language, and CEAT's combination with its interval and heterogeneity.

It reads the records :data:`.records.XWEAT_RECORDS` declares: ``effect_size`` (WEAT), every word
measure of :data:`.measures.WORD_MEASURES` (its column and legend are its entry's), ``seat`` and
``ceat``.
"""

from __future__ import annotations

import pandas as pd

from ...report.kit.document import Bullets, Paragraph, Section, Table
from ...report.kit.method_section import KnownSections, ReportSettings
from ...report.kit.tables import (
    format_number,
    format_p,
    marked_value,
    natural_order,
    significance_legend,
)
from .measures import CONTEXT_MEASURES, WORD_MEASURES

XWEAT_SUITE = "xweat"
# WEAT, SEAT and CEAT: the effect size d of WEAT's test on word, template-sentence and context
# vectors.
OTHER_COLUMNS: dict[tuple[str, str | None], str] = {
    ("effect_size", None): "WEAT d",
    ("seat", None): "SEAT d",
    ("ceat", None): "CEAT d",
}
LEGEND_HEAD = (
    "Targets X, Y and attributes A, B are the test's sets (T1: flowers, insects; "
    "pleasant, unpleasant). WEAT d, SEAT d, CEAT d: effect sizes (0: no association; "
    "> 0: X goes with A and Y with B) on word vectors, on the sentence vectors of "
    "the words in bleached templates, and combined over sampled corpus contexts."
)
LEGEND_TAIL = "Only WEAT, SEAT and CEAT test a hypothesis (stars); the others are descriptive."


def association_metrics() -> tuple[str, ...]:
    """The xweat suite's association measures besides WEAT: the word measures, SEAT and CEAT."""
    return (*WORD_MEASURES, *CONTEXT_MEASURES)


def columns() -> dict[tuple[str, str | None], str]:
    """(metric, term) -> column header, in the order the table shows them: WEAT, SEAT, CEAT, then
    each word measure's terms."""
    word_columns = {
        (name, term): measure.column(term)
        for name, measure in WORD_MEASURES.items()
        for term in measure.shape.terms
    }
    return {**OTHER_COLUMNS, **word_columns}


def legend() -> str:
    """The table's legend: the sets, the three effect sizes, each word measure's sentence."""
    return " ".join(
        (LEGEND_HEAD, *(measure.legend_line() for measure in WORD_MEASURES.values()), LEGEND_TAIL)
    )


def _rows(results: pd.DataFrame) -> pd.DataFrame:
    """The xweat records the section shows: WEAT's effect sizes and every other measure's
    records."""
    return results[
        (results["suite"] == XWEAT_SUITE)
        & results["metric"].isin(("effect_size", *association_metrics()))
    ]


def measures_table(results: pd.DataFrame, model: str, known: KnownSections) -> pd.DataFrame:
    """One model's measures: rows test x language (``"en-de"``: targets in English, attributes in
    German), a column per measure (and set) that was run; WEAT, SEAT and CEAT with their
    significance marks (and the ``known`` sections' flags)."""
    rows = _rows(results)
    rows = rows[rows["model"] == model]
    if rows.empty:
        return pd.DataFrame()
    headers = columns()
    lines: dict[tuple[str, str], dict[str, str]] = {}
    for _, row in rows.iterrows():
        header = headers.get((row["metric"], None if pd.isna(row["term"]) else row["term"]))
        if header is not None:
            line = lines.setdefault(
                (row["test"], row["language"]), {"test": row["test"], "language": row["language"]}
            )
            line[header] = marked_value(row, known)
    shown = [
        header for header in headers.values() if any(header in line for line in lines.values())
    ]
    order = sorted(lines, key=lambda key: (natural_order(key[0]), "-" in key[1], key[1]))
    return pd.DataFrame([lines[key] for key in order], columns=["test", "language", *shown]).fillna(
        ""
    )


def ceat_table(results: pd.DataFrame, model: str, known: KnownSections) -> pd.DataFrame:
    """One model's CEAT results: combined effect size with its interval, SE, p, and the
    heterogeneity."""
    rows = results[
        (results["suite"] == XWEAT_SUITE)
        & (results["metric"] == "ceat")
        & (results["model"] == model)
    ]
    rows = rows[rows["value"].notna()]
    if rows.empty:
        return pd.DataFrame()
    interval = f"{rows['confidence_level'].iloc[0]:.0%} CI"
    body = []
    for _, row in rows.iterrows():
        body.append(
            {
                "test": row["test"],
                "language": row["language"],
                "CEAT d": marked_value(row, known),
                interval: f"[{format_number(row['ci_low'])}, {format_number(row['ci_high'])}]",
                f"{interval} (words and contexts)": _words_contexts_interval(row),
                "SE": format_number(row["std_err"], 4),
                "p": format_p(row["p_value"]),
                "tau^2": format_number(row["tau2"], 4),
                "Q (df)": f"{format_number(row['q'], 1)} ({int(row['df'])})",
                "I^2": f"{row['i2']:.0%}",
                "samples": f"{int(row['n_samples']):,}",
                "contexts per word": f"{int(row['min_contexts'])}-{int(row['max_contexts'])}",
            }
        )
    table = pd.DataFrame(body)
    order = sorted(
        range(len(table)), key=lambda i: (natural_order(table["test"][i]), table["language"][i])
    )
    return table.iloc[order].reset_index(drop=True)


def _words_contexts_interval(row: pd.Series) -> str:
    low, high = row.get("words_contexts_ci_low"), row.get("words_contexts_ci_high")
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return ""
    return f"[{format_number(low)}, {format_number(high)}]"


def skipped_notes(results: pd.DataFrame) -> list[str]:
    """One line per measure record skipped (coverage rule, no sentence encoder, no context), with
    its reason."""
    rows = _rows(results)
    rows = rows[rows["metric"].isin(association_metrics())]
    if "status" not in rows.columns:
        return []
    rows = rows[rows["status"] == "skipped"]
    return [
        f"{row['model']}, {row['test']}, {row['language']}, "
        f"{row['metric']}: {row.get('note') or 'skipped'}"
        for _, row in rows.iterrows()
    ]


def association_section(results: pd.DataFrame, settings: ReportSettings) -> Section | None:
    """The section, or ``None`` when the run has no association measure besides WEAT."""
    rows = _rows(results)
    measured = rows[rows["metric"].isin(association_metrics())]
    if measured.empty:
        return None
    subsections = []
    for model in dict.fromkeys(measured["model"]):
        measures = measures_table(results, model, settings.sections)
        blocks: list = [Table(measures, f"{model}: association measures per test and language")]
        ceat = ceat_table(results, model, settings.sections)
        if not ceat.empty:
            blocks.append(
                Table(
                    ceat,
                    f"{model}: CEAT, random-effects combination of "
                    "the sampled effect sizes (DerSimonian-Laird)",
                )
            )
        subsections.append(Section(f"Association measures: {model}", tuple(blocks)))
    blocks = [Paragraph(legend())]
    if (measured["metric"] == "ceat").any():
        blocks.append(
            Paragraph(
                "CEAT draws one context per word many times; each draw gives a WEAT effect "
                "size, and a random-effects model combines them: tau^2 is the variance of "
                "the effect between draws (how much the contexts change it), I^2 the share "
                "of the variation it explains, Q its heterogeneity statistic. Its CI "
                "treats the draws as independent studies and narrows with their number, "
                "although every draw reads the same words; the CI over words and contexts "
                "(a bootstrap that draws the words of each set again, then their contexts) "
                "does not, and is the one to read for a claim about the words' population."
            )
        )
    skipped = skipped_notes(results)
    if skipped:
        blocks += [Paragraph("Measures that did not run:", warning=True), Bullets(tuple(skipped))]
    blocks.append(
        Paragraph(significance_legend(settings.sections, settings.alpha, settings.family))
    )
    return Section("Association measures (XWEAT tests)", tuple(blocks), tuple(subsections))
