"""The EEC's effects read by the one verdict rule (:mod:`eval_harness.stats.verdict`): each effect
on the intensity scale gets its verdict at its margin (``equivalence_margin``, else the suite's
default), what the report's verdict table counts per model x language x identity dimension, and the
sentence per model that says the same.

An effect is *robust* when it survives Holm in its family, is not fragile (its sign and significance
hold under other templates, names, prompts and seeds: :mod:`.report_stability`) and was measured
(not through a poor regressor or a judge that was not answering). The largest robust effect is the
one a summary names first: findings are ranked by size among robust ones, never by p.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ...stats.equivalence import reference_df
from ...stats.verdict import (
    BEYOND,
    CANNOT_TELL,
    DEFAULT_MARGIN,
    FEW_DF,
    NONZERO,
    NOT_MEASURED,
    VERDICTS,
    WITHIN,
    Verdict,
    verdict,
)
from .measurement import finite_number
from .tables import EEC_SUITE, EFFECT_METRIC

VERDICT_COLUMN, MARGIN_COLUMN = "verdict", "verdict_margin"
RACE, GENDER, INTERSECTION = "race/ethnicity", "gender", "intersection"
DIMENSIONS = (RACE, GENDER, INTERSECTION)
UNDECIDED = (NONZERO, CANNOT_TELL)


def dimension_of(term: str) -> str:
    """The identity dimension an effect speaks of: an interaction (``group:gender_did``) the
    intersection, a group contrast race/ethnicity, a gender contrast gender (another factor's name
    as it is)."""
    if ":" in term:
        return INTERSECTION
    factor = term.split("_")[0].split("[")[0]
    return {"group": RACE, "gender": GENDER}.get(factor, factor)


def effect_verdict(row: Mapping, alpha: float = 0.05) -> Verdict:
    """The verdict of one effect record at its ``equivalence_margin`` (the suite's default when the
    record has none), on its own estimate, standard error and df (``statistic_kind`` z: normal); not
    measured when it came through a poor regressor or a judge that was not answering
    (``poor_regressor``)."""
    margin = finite_number(row.get("equivalence_margin"))
    df = reference_df(row.get("statistic_kind"), finite_number(row.get("df")))
    poor = _flag(row.get("poor_regressor"))
    return verdict(
        finite_number(row.get("value")),
        finite_number(row.get("std_err")),
        df,
        DEFAULT_MARGIN if margin is None else margin,
        alpha,
        measured=not poor,
        reason="poor regressor or judge not answering" if poor else "",
    )


def _flag(value) -> bool:
    """A flag column's cell as a bool: missing (None, NaN) is False."""
    return bool(value) if value is not None and bool(pd.notna(value)) else False


def effect_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The EEC's effect records (intensity scale)."""
    return results[(results["suite"] == EEC_SUITE) & (results["metric"] == EFFECT_METRIC)]


def with_verdicts(results: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """A copy of ``results`` with ``verdict`` and ``verdict_margin`` on every EEC effect record
    (None elsewhere)."""
    annotated = results.copy()
    annotated[VERDICT_COLUMN] = None
    annotated[MARGIN_COLUMN] = float("nan")
    for index, row in effect_rows(annotated).iterrows():
        found = effect_verdict(row, alpha)
        annotated.at[index, VERDICT_COLUMN] = found.verdict
        annotated.at[index, MARGIN_COLUMN] = found.margin
    return annotated


def is_robust(row: Mapping) -> bool:
    """Survives Holm, not fragile, measured (module docstring)."""
    return (
        _flag(row.get("survives_holm"))
        and not _flag(row.get("fragile"))
        and row.get(VERDICT_COLUMN) not in (None, NOT_MEASURED)
    )


def largest_robust(rows: pd.DataFrame) -> pd.Series | None:
    """The robust effect of ``rows`` with the largest size, or None."""
    robust = rows[[is_robust(row) for _, row in rows.iterrows()]] if len(rows) else rows
    if robust.empty:
        return None
    return robust.loc[robust["value"].astype(float).abs().idxmax()]


def effect_name(row: Mapping) -> str:
    """What an effect compares, named for a reader: ``"joy: Arab vs Anglo, among men"`` (its
    record's contrast)."""
    contrast = row.get("contrast")
    return f"{row.get('emotion')}: {contrast if isinstance(contrast, str) else row.get('term')}"


def effect_with_interval(row: Mapping) -> str:
    """``"+0.031 (95% CI 0.020 to 0.042)"``: the effect and its record's own interval."""
    value, low, high = (finite_number(row.get(name)) for name in ("value", "ci_low", "ci_high"))
    interval = f" (95% CI {low:.3g} to {high:.3g})" if low is not None and high is not None else ""
    return f"{value:+.3g}{interval}" if value is not None else "no estimate"


def _counts(rows: pd.DataFrame) -> dict[str, int]:
    found = rows[VERDICT_COLUMN].value_counts()
    return {name: int(found.get(name, 0)) for name in VERDICTS}


def _margins(rows: pd.DataFrame) -> str:
    margins = sorted(pd.to_numeric(rows[MARGIN_COLUMN], errors="coerce").dropna().unique())
    return "/".join(f"±{margin:g}" for margin in margins) or f"±{DEFAULT_MARGIN:g}"


def _cell(counts: dict[str, int]) -> str:
    """``"2 / 30 / 8"``: beyond / within / undecided."""
    undecided = sum(counts[name] for name in UNDECIDED)
    return f"{counts[BEYOND]} / {counts[WITHIN]} / {undecided}"


def _short(row: Mapping) -> str:
    """``"-0.088 [-0.1, -0.073] en_arab_anglo anger"``: a table cell's effect, interval and where
    (the sentence and the card name what it compares)."""
    value, low, high = (finite_number(row.get(name)) for name in ("value", "ci_low", "ci_high"))
    interval = f" [{low:.2g}, {high:.2g}]" if low is not None and high is not None else ""
    return f"{value:+.2g}{interval} {row.get('config')} {row.get('emotion')}"


def verdict_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per model x language: the margin, for each identity dimension how many effects are beyond /
    within / undecided (nonzero but not shown beyond, or cannot tell), how many were not measured,
    and the largest robust effect with its 95 % interval, EEC and emotion. Reads the ``verdict``
    column (:func:`with_verdicts`)."""
    rows = effect_rows(results)
    if rows.empty or VERDICT_COLUMN not in rows.columns:
        return pd.DataFrame()
    dimensions = rows["term"].map(dimension_of)
    lines = []
    for (model, language), own in rows.groupby(["model", "language"], sort=True):
        line: dict[str, object] = {"model": model, "lang.": language, "±δ": _margins(own)}
        for dimension in DIMENSIONS:
            line[dimension] = _cell(_counts(own[dimensions[own.index] == dimension]))
        line["not measured"] = _counts(own)[NOT_MEASURED]
        largest = largest_robust(own)
        line["largest robust effect [95% CI]"] = _short(largest) if largest is not None else "none"
        lines.append(line)
    return pd.DataFrame(lines)


def few_df_note(results: pd.DataFrame, alpha: float = 0.05) -> str:
    """Where verdicts rest on few df (fewer than :data:`~eval_harness.stats.verdict.FEW_DF`: a mean
    over 2-3 seeds), how many and what that means for their size; empty when none does."""
    rows = effect_rows(results)
    few = [effect_verdict(row, alpha).few_df for _, row in rows.iterrows()] if len(rows) else []
    if not any(few):
        return ""
    return (
        f"{sum(few)} verdict(s) rest on fewer than {FEW_DF:g} df (a mean over a few "
        "seeds): their df are taken with the training variance at its upper 75% "
        f"limit, which held the tests' size at or below {alpha:g} in simulation "
        "(docs/conventions.md, 'Seed means from few seeds'); more seeds narrow them."
    )


def model_sentences(results: pd.DataFrame) -> list[str]:
    """One plain sentence per model with EEC effects: how many are beyond, within, undecided and not
    measured at the margin, and its largest robust effect (the record it cites: EEC, emotion,
    contrast, value and interval)."""
    rows = effect_rows(results)
    if rows.empty or VERDICT_COLUMN not in rows.columns:
        return []
    sentences = []
    for model, own in rows.groupby("model", sort=True):
        counts, margin = _counts(own), _margins(own)
        # Counts of zero beyond and zero within would read as "no bias".
        if counts[NOT_MEASURED] == len(own):
            reasons = sorted({effect_verdict(row).reason for _, row in own.iterrows()} - {""})
            sentences.append(
                f"{model}: none of its {len(own)} EEC effects is measured"
                + (f" ({'; '.join(reasons)})" if reasons else "")
                + f", so it has no verdict at {margin}."
            )
            continue
        undecided = sum(counts[name] for name in UNDECIDED)
        largest = largest_robust(own)
        named = (
            f"its largest robust effect is {largest['config']} "
            f"{effect_name(largest)}, {effect_with_interval(largest)}"
            if largest is not None
            else "no effect is robust (surviving Holm, not fragile, measured)"
        )
        sentences.append(
            f"{model}: of {len(own)} EEC effects on the intensity scale, "
            f"{counts[BEYOND]} are beyond {margin}, {counts[WITHIN]} within {margin}, "
            f"{undecided} undecided and {counts[NOT_MEASURED]} not measured; {named}."
        )
    return sentences
