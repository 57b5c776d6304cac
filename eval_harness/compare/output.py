"""What ``xbias compare`` writes into its own folder: ``comparison.csv`` (every record),
``comparison.md`` (the sides, the table, plain sentences, the figures), ``eec_differences.png``
(forest plot of the EEC differences, one panel per emotion, one colour per EEC) and
``weat_differences.png``.

Holm's adjustment runs over every test of the comparison (``p_holm``, ``survives_holm`` at the
report's ``ALPHA``,
0.05: :func:`eval_harness.stats.multiple_testing.holm_of_tested`): the sentences say the differences
that survive it, and for the others the range of differences the design could have detected.
``comparison.md`` is a :class:`~eval_harness.report.kit.document.Document` rendered as the report's
Markdown is.

The folder is written whole, with the marker that says xbias's compare wrote it: a folder that is
not new, empty or an earlier comparison holding only its own files is refused before any work
(:func:`comparison_folder`, the write rule of :func:`eval_harness.io.write_problem`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..contract.records import ESTIMAND_SENTENCES
from ..io import OutputFolder, output_folder, write_output_folder
from ..report.kit.document import (
    Bullets,
    Document,
    Image,
    Section,
    Table,
    csv_bytes,
    render_markdown,
)
from ..report.kit.families import ALPHA
from ..report.kit.plots import interval_95, marker_fill, to_png
from ..stats.multiple_testing import holm_of_tested
from ..suites.eec.measurement import (
    INTENSITY_SCALE_WIDTH,
    WHAT_WOULD_FIX_IT,
    format_interval,
    format_mde,
)
from ..suites.eec.paired.plots import difference_plot
from ..suites.eec.paired.sentences import difference_claim, effect_label
from ..suites.eec.planner import equivalence_of
from ..suites.eec.verdicts import effect_verdict
from ..suites.eec.wording import format_effect
from .contrasts import EEC_METRIC, WEAT_METRIC
from .pairing import Side

CSV_NAME, MARKDOWN_NAME = "comparison.csv", "comparison.md"
EEC_FIGURE, WEAT_FIGURE = "eec_differences.png", "weat_differences.png"
# What a comparison folder's marker says: only a folder with it (or a new or empty one) is replaced.
COMPARE_OWNER = {"writer": "xbias compare"}
COMPARE_FOLDER = OutputFolder(COMPARE_OWNER, "the comparison", "--out", "xbias compare")


@dataclass(frozen=True)
class ComparisonFiles:
    """The files written (None: nothing of that kind to show) and the records' table."""

    folder: Path
    csv: Path
    markdown: Path
    eec_figure: Path | None
    weat_figure: Path | None
    results: pd.DataFrame


def comparison_table(records: list[dict], margin: float | None = None) -> pd.DataFrame:
    """The records as one table, with ``p_holm`` and ``survives_holm`` (Holm over every tested row,
    at ``ALPHA``) and, with a ``margin``, each EEC difference's equivalence
    (:func:`with_equivalence`)."""
    table = pd.DataFrame(records)
    for column in ("value", "p_value", "note"):
        if column not in table:
            table[column] = np.nan
    table["p_holm"] = holm_of_tested(table["p_value"].to_numpy(dtype=float))
    table["survives_holm"] = table["p_holm"] <= ALPHA
    return with_equivalence(table, margin)


def with_equivalence(table: pd.DataFrame, margin: float | None) -> pd.DataFrame:
    """``table`` with, on each tested EEC difference, ``equivalence_margin``, ``tost_p_value`` and
    ``equivalence`` (within, not within, cannot tell: :func:`eval_harness.stats.equivalence.tost` on
    the row's own standard error and df), and ``verdict``, the difference's verdict at the margin by
    the one rule the report and the card use (:mod:`eval_harness.stats.verdict`); unchanged without
    a margin."""
    if margin is None:
        return table
    table = table.copy()
    rows = (table["metric"] == EEC_METRIC) & table["p_value"].notna()
    table.loc[rows, "equivalence_margin"] = float(margin)
    tests = {index: equivalence_of(row, ALPHA) for index, row in table[rows].iterrows()}
    table["tost_p_value"] = pd.Series(
        {i: t.p_value for i, t in tests.items() if t is not None}, dtype=float
    )
    table["equivalence"] = pd.Series(
        {i: t.verdict for i, t in tests.items() if t is not None}, dtype=object
    )
    verdicts = {index: effect_verdict(row, ALPHA).words() for index, row in table[rows].iterrows()}
    table["verdict"] = pd.Series(
        verdicts, dtype=object
    )  # the one rule (stats.verdict), as the report words it
    return table


def equivalence_line(table: pd.DataFrame) -> list[str]:
    """``"Within ±0.01 (TOST at 0.05): 20 of 28 EEC differences; not within: 1; cannot tell: 7
    ..."``."""
    if "equivalence" not in table or not table["equivalence"].notna().any():
        return []
    margin = table["equivalence_margin"].dropna().iloc[0]
    counts = table["equivalence"].value_counts()
    total = int(counts.sum())
    return [
        f"Equivalence within ±{margin:g} (two one-sided tests at {ALPHA:g}, each "
        f"on its difference's own standard error): {int(counts.get('within', 0))} "
        f"of {total} EEC differences are within ±{margin:g} (B changed them by "
        f"less than {margin:g}); {int(counts.get('not within', 0))} are not "
        f"within; {int(counts.get('cannot tell', 0))} cannot tell (their 90% "
        "interval straddles an edge of the margin)."
    ]


def words(side: Side, letter: str) -> str:
    return f"under model {letter} ({side.label})"


def sentences(table: pd.DataFrame, a: Side, b: Side) -> list[str]:
    """A sentence per difference that survives Holm; then what the others could have shown (their
    MDE range)."""
    lines = []
    for _, row in table[table["survives_holm"]].iterrows():
        p = f"p = {row['p_value']:.2g}, Holm {row['p_holm']:.2g}"
        interval = f"95% CI {row['ci_low']:.3f} to {row['ci_high']:.3f}"
        if row["metric"] == EEC_METRIC:
            claim = difference_claim(row, words(b, "B"), words(a, "A"))
            lines.append(f"{row['config']}: {claim} ({interval}, {p}).")
        else:
            direction = "larger" if row["value"] > 0 else "smaller"
            lines.append(
                f"WEAT {row['test']} ({row['language']}): the effect size is "
                f"{format_effect(row['value'])} {direction} {words(b, 'B')} "
                f"({row['other_estimate']:.2f}) than {words(a, 'A')} "
                f"({row['reference_estimate']:.2f}) ({interval}, {p})."
            )
    rest = table[table["p_value"].notna() & ~table["survives_holm"]]
    for metric, what in (
        (EEC_METRIC, "EEC effect differences"),
        (WEAT_METRIC, "WEAT effect-size differences"),
    ):
        shown = rest[rest["metric"] == metric]
        if len(shown):
            other = " other" if table["survives_holm"].any() else ""
            wide = (
                shown["mde"] > INTENSITY_SCALE_WIDTH
                if metric == EEC_METRIC
                else pd.Series(False, index=shown.index)
            )
            measured = shown.loc[~wide, "mde"].dropna()
            detect = (
                f"; the design could detect differences of {measured.min():.3g} "
                f"to {measured.max():.3g} with 80 % power (their MDE)"
                if len(measured)
                else ""
            )
            beyond = (
                f"; {int(wide.sum())} of them are no measurement: their MDE is larger than "
                "the whole 0-1 intensity scale (large standard errors, or few degrees of "
                f"freedom where seeds disagree); what would fix it: {WHAT_WOULD_FIX_IT}"
                if wide.any()
                else ""
            )
            lines.append(
                f"{len(shown)}{other} {what} are not significant after Holm{detect}{beyond}."
            )
    lines += equivalence_line(table)
    skipped = table[table["p_value"].isna()]
    for _, row in skipped.iterrows():
        where = f"{row.get('config') or row.get('test')} {row.get('emotion') or ''}"
        lines.append(f"Not compared: {where}: {as_flags(str(row['note']))}")
    return lines or ["Nothing was compared."]


# What a skipped fit's note names in Python (the stats layer's words) -> the xbias compare flag that
# does it.
PYTHON_TO_FLAG = {
    "cov_type='model'": "--cov-type model",
    "cov_type='cluster'": "--cov-type cluster",
}


def as_flags(note: str) -> str:
    """``note`` with the Python option it names (``cov_type='model'``) written as the command's flag
    (``--cov-type model``): the words a person at the command line can act on."""
    for python, flag in PYTHON_TO_FLAG.items():
        note = note.replace(python, flag)
    return note


def nothing_compared(table: pd.DataFrame) -> str | None:
    """When every difference was skipped: one line saying why (the first note) and the flag that
    works; None when at least one difference was tested or nothing was there to compare."""
    skipped = table[table["p_value"].isna()] if "p_value" in table else table.iloc[:0]
    if len(skipped) == 0 or len(skipped) < len(table):
        return None
    notes = skipped["note"].dropna().astype(str)
    why = as_flags(notes.iloc[0]) if len(notes) else "every joint fit failed"
    hint = "" if "--cov-type model" in why else "; try --cov-type model"
    return f"compared 0 differences: all {len(skipped)} were skipped ({why}{hint})"


def seeds_line(table: pd.DataFrame) -> list[str]:
    """The line that says which seeds were pooled (none when every difference comes from one
    seed)."""
    if "seeds" not in table or not table["n_seeds"].notna().any():
        return []
    seeds = sorted({seed for listed in table["seeds"].dropna() for seed in listed})
    return [
        f"Seeds {', '.join(map(str, seeds))}: "
        f"{ESTIMAND_SENTENCES['seed_mean']} (both models' training noise)."
    ]


def difference_table(table: pd.DataFrame) -> pd.DataFrame:
    """One line per tested difference: unit, effect, A, B, B - A, its interval, p, Holm and MDE
    (and, with a margin, the equivalence verdict with its TOST p), as display strings."""
    lines = []
    for _, row in table[table["p_value"].notna()].iterrows():
        if row["metric"] == EEC_METRIC:
            unit, effect = f"{row['config']} {row['emotion']}", effect_label(row)
        else:
            unit, effect = f"WEAT {row['test']} {row['language']}", "effect size d"
        line = {
            "unit": unit,
            "effect": effect,
            "A": f"{row['reference_estimate']:.4f}",
            "B": f"{row['other_estimate']:.4f}",
            "B − A": f"{row['value']:+.4f}" + (" ✓" if row["survives_holm"] else ""),
            "95% CI": _interval_cell(row),
            "p": f"{row['p_value']:.3g}",
            "Holm": f"{row['p_holm']:.3g}",
            "MDE": _mde_cell(row),
        }
        if "equivalence" in table:
            line["±δ (TOST p)"] = _equivalence_cell(row)
        lines.append(line)
    return pd.DataFrame(lines)


def _equivalence_cell(row: pd.Series) -> str:
    verdict = row.get("equivalence")
    return f"{verdict} ({row['tost_p_value']:.2g})" if isinstance(verdict, str) else ""


def _interval_cell(row: pd.Series) -> str:
    """An EEC difference's interval, said to be wider than the scale when it is; a WEAT one as it
    is."""
    if row["metric"] == EEC_METRIC:
        return format_interval(row["ci_low"], row["ci_high"])
    return f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]"


def _mde_cell(row: pd.Series) -> str:
    return format_mde(row["mde"], 4) if row["metric"] == EEC_METRIC else f"{row['mde']:.4f}"


def weat_figure(table: pd.DataFrame, a: Side, b: Side) -> bytes | None:
    """The WEAT differences with their bootstrap 95 % intervals, one line per test x language."""
    from matplotlib.figure import Figure

    rows = table[(table["metric"] == WEAT_METRIC) & table["value"].notna()]
    if rows.empty:
        return None
    figure = Figure(figsize=(6.0, 0.3 * len(rows) + 1.6), layout="constrained")
    axis = figure.subplots()
    axis.axvline(0.0, color="0.5", linewidth=0.8)
    for position, (_, row) in enumerate(rows.iterrows()):
        low, high = interval_95(row)
        axis.errorbar(
            row["value"],
            position,
            xerr=[[row["value"] - low], [high - row["value"]]],
            fmt="o",
            capsize=2,
            color="C0",
            **marker_fill(row),
        )
    axis.set_yticks(
        range(len(rows)),
        [f"{t} {lang}" for t, lang in zip(rows["test"], rows["language"], strict=True)],
    )
    axis.invert_yaxis()
    axis.set_xlabel(f"d under B ({b.label}) minus d under A ({a.label})")
    figure.suptitle("WEAT effect-size differences (filled: survives Holm)")
    return to_png(figure)


def csv_table(table: pd.DataFrame) -> pd.DataFrame:
    """Lists and mappings as JSON text, so the CSV reads back as it was."""
    flat = table.copy()
    for column in flat.columns:
        if flat[column].map(lambda value: isinstance(value, list | dict)).any():
            flat[column] = flat[column].map(
                lambda v: json.dumps(v) if isinstance(v, list | dict) else v
            )
    return flat


def comparison_folder(out: str | Path) -> Path:
    """``out`` as an absolute path, once a comparison may be written there: refused when it is the
    root, cannot be written, or is not new, empty or an earlier comparison holding only its own
    files (the write rule, :func:`~eval_harness.io.output_folder`).

    Raises:
        InputError: one line naming the folder, the cause and the fix.
    """
    return output_folder(out, COMPARE_FOLDER)


def write_comparison(
    records: list[dict],
    a: Side,
    b: Side,
    folder: str | Path,
    equivalence_margin: float | None = None,
) -> ComparisonFiles:
    """Write the comparison's files into ``folder`` (:func:`comparison_folder`), whole; the two runs
    are only read."""
    folder = comparison_folder(folder)
    table = comparison_table(records, equivalence_margin)
    eec = table[(table["metric"] == EEC_METRIC) & table["value"].notna()]
    eec_png = difference_plot(
        eec,
        "config",
        f"EEC effects: model B ({b.label}) minus model A ({a.label})",
        "difference (B − A)",
    )
    weat_png = weat_figure(table, a, b)
    figures = {
        name: data
        for name, data in ((EEC_FIGURE, eec_png), (WEAT_FIGURE, weat_png))
        if data is not None
    }
    filled = " (filled: survives Holm)"
    captions = {
        EEC_FIGURE: "Each EEC effect's difference B − A with its "
        f"95 % interval, one panel per emotion{filled}",
        WEAT_FIGURE: "Each WEAT effect size's difference B − A "
        f"with its bootstrap 95 % interval{filled}",
    }
    sides = (
        f"A: model `{a.model}` of `{a.run}`",
        f"B: model `{b.model}` of `{b.run}`",
        "EEC: one joint Beta regression per EEC x emotion with a model factor over "
        "the same sentences, clustered as the table's records say; WEAT: paired "
        "swaps and bootstrap over words. ✓: survives Holm over every test here.",
        *seeds_line(table),
    )
    differences = Table(
        difference_table(table), "Every tested difference, B minus A (✓: survives Holm)"
    )
    document = Document(
        f"Comparison: model B ({b.label}) minus model A ({a.label})",
        (
            Section("What was compared", (Bullets(sides),)),
            Section(
                "Differences",
                (
                    Bullets(tuple(sentences(table, a, b))),
                    *((differences,) if len(differences.frame) else ()),
                    *(Image(Path(name).stem, png, captions[name]) for name, png in figures.items()),
                ),
            ),
        ),
    )
    contents = {
        **figures,
        CSV_NAME: csv_bytes(csv_table(table)),
        MARKDOWN_NAME: render_markdown(document, figure_folder=".").encode("utf-8"),
    }
    write_output_folder(folder, contents, COMPARE_FOLDER)
    paths = {name: folder / name for name in contents}
    return ComparisonFiles(
        folder,
        paths[CSV_NAME],
        paths[MARKDOWN_NAME],
        paths.get(EEC_FIGURE),
        paths.get(WEAT_FIGURE),
        table,
    )
