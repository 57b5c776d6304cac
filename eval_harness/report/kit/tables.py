"""The report's building blocks for tables, from a run's annotated results (see
:func:`.findings.annotate`), and the tables no method owns: the findings and the records no section
shows. What every section declares (its flags' marks, its further columns of the findings tables) is
an argument: the report's :class:`~.method_section.KnownSections` (``settings.sections`` in a
section).

Each builder takes the long-format results and returns flat :class:`pandas.DataFrame` objects of
display strings (the raw numbers go to the CSV). Significance is marked the paper's way, from the
record's ``stars`` when present, else from its p-value
(:func:`eval_harness.stats.significance.significance_stars`: ``***`` p <= 0.01, ``**`` p <= 0.05,
``*`` p <= 0.10); ``†`` marks a finding that survives Holm within its multiple-testing family and
``‡`` one that survives only Benjamini-Hochberg; then come the marks of the methods' flags
(:class:`~.method_section.Flag`: the EEC's ``§`` for a finding significant with model-based standard
errors but not once clustered by template, XWEAT's ``‖`` for a WEAT effect size whose bootstrap
interval spans 0 although its permutation p is small). With several seeds a pooled number is
followed by ``±`` its between-seed SD. The methods' own tables live in their folders
(``suites/<method>/report.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...contract.records import TESTED_POOLINGS
from ...errors import InputError
from ...stats.significance import significance_stars
from .families import ALPHA, DEFAULT_FAMILY, FAMILY_WORDS
from .method_section import KnownSections

HOLM_MARK = "†"
BH_ONLY_MARK = "‡"
FINDING_COLUMNS = ["model", "suite", "language", "config", "emotion", "test", "term", "metric"]


def significance_legend(
    known: KnownSections, alpha: float = ALPHA, family: str = DEFAULT_FAMILY
) -> str:
    """What the stars and marks of every table and figure mean (the ``known`` sections' flags'
    too)."""
    legend = (
        "Stars: *** p ≤ 0.01, ** p ≤ 0.05, * p ≤ 0.10 (unadjusted). "
        f"{HOLM_MARK} survives Holm (family-wise error {alpha:g}) and "
        f"{BH_ONLY_MARK} survives Benjamini-Hochberg (false discovery rate "
        f"{alpha:g}) but not Holm, the p-values adjusted {FAMILY_WORDS[family]}."
    )
    flags = [
        flag.legend.format(mark=flag.mark, alpha=alpha) for flag in known.flags() if flag.legend
    ]
    return " ".join([legend, *flags])


def label_seeds(results: pd.DataFrame) -> pd.DataFrame:
    """When the run has several seeds, name the seed in the model label (``minilm (seed 1)``) of the
    rows still one per seed (those :func:`findings.pool_over_seeds` could not pool) of a model x
    suite x language that ran several seeds; a task that ran one seed (by default, one that trains
    nothing) keeps its plain label."""
    if "seed" not in results.columns or results["seed"].nunique() < 2:
        return results
    tasks = results[["model", "suite", "language"]].astype(str)
    several = (
        results.groupby([tasks[name] for name in tasks.columns])["seed"].transform("nunique") > 1
    )
    labels = [
        model if pd.isna(seed) or not many else f"{model} (seed {int(seed)})"
        for model, seed, many in zip(results["model"], results["seed"], several, strict=True)
    ]
    return results.assign(model=labels)


def format_number(value, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; an empty string for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.{digits}f}"


def format_p(p_value) -> str:
    """A p-value: 3 significant digits, scientific below 0.001, empty when missing."""
    if p_value is None or (isinstance(p_value, float) and math.isnan(p_value)):
        return ""
    return f"{p_value:.2e}" if p_value < 0.001 else f"{p_value:.3f}"


def stars_of(row: pd.Series) -> str:
    """The row's significance stars (recorded, else from its p-value)."""
    stars = row.get("stars")
    if isinstance(stars, str):
        return stars
    p_value = row.get("p_value")
    return "" if p_value is None or pd.isna(p_value) else significance_stars(float(p_value))


def survival_mark(row: pd.Series, known: KnownSections) -> str:
    """``†`` when the row survives Holm, ``‡`` when it survives only BH, then the mark of every
    ``known`` section's flag the row carries (see the module docstring)."""
    mark = HOLM_MARK if bool(row.get("survives_holm", False)) else ""
    if not mark and bool(row.get("survives_bh", False)):
        mark = BH_ONLY_MARK
    for flag in known.flags():
        if flag.mark and bool(row.get(flag.column, False)):
            mark += flag.mark
    return mark


def seed_spread(row: pd.Series, digits: int = 3) -> str:
    """``" ±0.012"``: the between-seed SD of a number pooled over seeds; empty otherwise."""
    if row.get("pooling") not in (*TESTED_POOLINGS, "mean"):
        return ""
    return f" ±{row['between_seed_sd']:.{digits}f}"


def marked_value(row: pd.Series, known: KnownSections, digits: int = 3) -> str:
    """``-0.120***†``: the value with its stars and marks (those of the ``known`` sections' flags
    included; ``skipped`` for a skipped test), and the between-seed SD of a number pooled over
    seeds."""
    if pd.isna(row["value"]) and row.get("status") == "skipped":
        return "skipped"
    marks = stars_of(row) + survival_mark(row, known)
    return f"{format_number(row['value'], digits)}{marks}{seed_spread(row, digits)}"


def has_interval(row: pd.Series) -> bool:
    """Whether the row records both ends of an interval."""
    low, high = row.get("ci_low"), row.get("ci_high")
    return low is not None and high is not None and not (pd.isna(low) or pd.isna(high))


def column(results: pd.DataFrame, name: str) -> pd.Series:
    """The column ``name``, or missing values where the results have none (a field no record
    carries)."""
    return (
        results[name]
        if name in results.columns
        else pd.Series(np.nan, index=results.index, dtype=object)
    )


def distinct(frame: pd.DataFrame, name: str) -> list[str]:
    """The column's values, each once, in the order they first appear (missing ones left out)."""
    return [str(value) for value in dict.fromkeys(frame[name].dropna())]


def natural_order(label: str) -> tuple:
    """Sort key that puts ``T2`` before ``T10`` and ``pc2`` before ``pc10``."""
    digits = "".join(ch for ch in str(label) if ch.isdigit())
    return (int(digits) if digits else math.inf, str(label))


def _flags(row: pd.Series, known: KnownSections) -> str:
    return "; ".join(flag.note for flag in known.flags() if bool(row.get(flag.column)))


def _share(value, n_seeds) -> str:
    if value is None or pd.isna(value) or n_seeds is None or pd.isna(n_seeds):
        return ""
    return f"{round(value * n_seeds)}/{int(n_seeds)}"


def findings_table(results: pd.DataFrame, known: KnownSections, which: str = "all") -> pd.DataFrame:
    """The findings (see :mod:`.findings`) sorted by p-value, with raw, Holm and BH p-values, the
    further p-values the ``known`` sections name
    (:attr:`~.method_section.ReportSection.findings_p_values`: the EEC's template-clustered one) and
    their own columns (:meth:`~.method_section.ReportSection.findings_columns`: how stable a finding
    is), the flags, and (seeds pooled) how many seeds agree in sign and significance.

    ``which``: ``"all"`` findings, those that survive ``"holm"``, those that survive
    Benjamini-Hochberg but not Holm (``"bh_only"``), or those a method's flag marks (the flag's
    column, e.g. ``"loses_under_clustering"``).
    """
    selections = {
        "all": results["p_holm"].notna(),
        "holm": results["survives_holm"],
        "bh_only": results["survives_bh"] & ~results["survives_holm"],
    }
    flags = [flag.column for flag in known.flags()]
    if which not in selections and which not in flags:
        raise InputError(
            f"unknown findings selection {which!r}; choose from {[*selections, *flags]}"
        )
    chosen = selections.get(which)
    if chosen is None:
        chosen = results.get(which, pd.Series(False, index=results.index)).astype(bool)
    rows = results[chosen].sort_values("p_value", kind="stable")
    table = rows[FINDING_COLUMNS].astype(object).where(rows[FINDING_COLUMNS].notna(), "")
    further = {
        name: (rows[field] if field in rows.columns else pd.Series(None, rows.index)).map(format_p)
        for section in known.sections
        for name, field in section.findings_p_values.items()
    }
    for section in known.sections:  # the sections' own columns (a finding's stability)
        for name, cells in section.findings_columns(section.rows(rows)).items():
            further.setdefault(name, pd.Series("", index=rows.index, dtype=object)).update(cells)
    table = table.assign(
        value=[marked_value(row, known) for _, row in rows.iterrows()],
        p=rows["p_value"].map(format_p),
        p_holm=rows["p_holm"].map(format_p),
        p_bh=rows["p_bh"].map(format_p),
        **further,
        seeds_same_sign=[
            _share(row.get("share_same_sign"), row.get("n_seeds")) for _, row in rows.iterrows()
        ],
        seeds_significant=[
            _share(row.get("share_significant"), row.get("n_seeds")) for _, row in rows.iterrows()
        ],
        flag=[_flags(row, known) for _, row in rows.iterrows()],
    )
    # Drop columns empty for every shown row (e.g. `test` when only EEC findings survive).
    return table.loc[:, [c for c in table.columns if (table[c] != "").any()]].reset_index(drop=True)


def covered_mask(results: pd.DataFrame, known: KnownSections) -> pd.Series:
    """True for the records some ``known`` section shows (or knowingly leaves to the CSV)."""
    covered = pd.Series(False, index=results.index)
    for section in known.sections:
        covered |= section.shows(results)
    return covered


def other_results_table(results: pd.DataFrame, known: KnownSections) -> pd.DataFrame:
    """Records no ``known`` section shows (a suite without a section, a metric its section does not
    show), as a plain long table."""
    rows = results[~covered_mask(results, known)]
    if rows.empty:
        return pd.DataFrame()
    columns = [
        c for c in (*FINDING_COLUMNS, "value", "std_err", "p_value") if rows[c].notna().any()
    ]
    return rows[columns].astype(object).where(rows[columns].notna(), "").reset_index(drop=True)
