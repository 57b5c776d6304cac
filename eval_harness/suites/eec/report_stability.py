"""How sure each EEC finding is, in the report: the fragility flag and mark, the stability column,
the variance split, the plain words for a fragile finding and for a result that is not significant.

The numbers come from the records' stability fields (:mod:`.stability`) and, with several seeds,
from seed pooling (``share_same_sign``, ``share_same_significance``, ``between_seed_sd``). Per
source of variation:

==========  =================================================  =======================================
source      share keeping the sign / the verdict               variance
==========  =================================================  =======================================
templates   template bootstrap (templates drawn again)         over the template bootstrap
names       name bootstrap (names drawn again within cells)    over the name bootstrap
prompts     the other paraphrases of a judge's prompt          over the prompts (ddof 1)
seeds       the seeds (another seed's regressor)               between-seed variance
==========  =================================================  =======================================

A finding is fragile (``fragile``, marked :data:`FRAGILE_MARK`) when it is significant at the
report's alpha and, for some source, its sign flips or its verdict changes in at least
:data:`FRAGILE_SHARE` of the resamples (:func:`eval_harness.stats.stability.is_fragile`, the one
rule). The variance split is each source's variance over their sum: which choice the number depends
on most.

A result that is not significant reads with its minimum detectable effect (``mde``, 80 % power, from
the template-clustered standard error): "could not have detected less than 0.041", never "no bias".
"""  # noqa: E501

from __future__ import annotations

import math

import pandas as pd

from ...contract.records import TESTED_POOLINGS
from ...report.kit.document import Paragraph, Table
from ...report.kit.families import is_finding
from ...report.kit.method_section import STABILITY_COLUMN, KnownSections, ReportSettings
from ...report.kit.tables import column, findings_table, format_number, format_p, marked_value
from ...stats.stability import FRAGILE_SHARE, is_fragile
from .measurement import finite_number, format_mde
from .planner import equivalence_words
from .tables import EEC_SUITE, term_label

FRAGILE_MARK = "¶"
FRAGILE_COLUMN = "fragile"
# source -> (share keeping the sign, share keeping the verdict, variance) fields; None: computed
# (seeds)
SOURCES = {
    "templates": (
        "stability_template_sign",
        "stability_template_verdict",
        "stability_template_variance",
    ),
    "names": ("stability_person_sign", "stability_person_verdict", "stability_person_variance"),
    "prompts": ("stability_prompt_sign", "stability_prompt_verdict", "stability_prompt_variance"),
    "seeds": ("share_same_sign", "share_same_significance", None),
}
SOURCE_WORDS = {
    "templates": "template resamples",
    "names": "name resamples",
    "prompts": "other prompt paraphrases",
    "seeds": "seeds",
}
FRAGILE_LEGEND = (
    "{mark} fragile: p ≤ {alpha:g}, but its sign flips or its significance changes in at least "
    + f"{FRAGILE_SHARE:.0%} of the template or name bootstrap resamples, "
    "of the judge's other prompt paraphrases or of the seeds."
)


def _is_stability_row(row: pd.Series) -> bool:
    return row.get("suite") == EEC_SUITE and row.get("metric") in ("estimate", "effect")


def source_shares(row: pd.Series) -> dict[str, tuple[float, float]]:
    """Per source that the row has numbers for: (share keeping the sign, share keeping the
    verdict)."""
    shares = {}
    for source, (sign, verdict, _) in SOURCES.items():
        if source == "seeds" and row.get("pooling") not in TESTED_POOLINGS:
            continue
        kept = finite_number(row.get(sign)), finite_number(row.get(verdict))
        if kept[0] is not None:
            shares[source] = (kept[0], kept[1] if kept[1] is not None else float("nan"))
    return shares


def source_variances(row: pd.Series) -> dict[str, float]:
    """Per source: the estimate's variance under it (the seeds': the between-seed variance)."""
    variances = {}
    for source, (_, _, field) in SOURCES.items():
        if field is None:
            sd = (
                finite_number(row.get("between_seed_sd"))
                if row.get("pooling") in TESTED_POOLINGS
                else None
            )
            value = None if sd is None else sd**2
        else:
            value = finite_number(row.get(field))
        if value is not None:
            variances[source] = value
    return variances


def fragility(row: pd.Series, alpha: float, threshold: float = FRAGILE_SHARE) -> str:
    """Why the row's finding is fragile, in words (``"its sign flips in 31% of the template
    resamples"``), or ``""`` when it is not (a finding that is not significant claims nothing and is
    never fragile)."""
    p_value = finite_number(row.get("p_value"))
    if p_value is None or p_value > alpha:
        return ""
    reasons = []
    for source, (sign, verdict) in source_shares(row).items():
        if not is_fragile(True, sign, verdict, threshold):
            continue
        flips, changes = 1 - sign, 1 - verdict
        what = (
            f"its sign flips in {flips:.0%}"
            if flips >= threshold - 1e-12
            else f"it is no longer significant (with its sign) in {changes:.0%}"
        )
        reasons.append(f"{what} of the {SOURCE_WORDS[source]}")
    return "; ".join(reasons)


def flag_fragile(
    results: pd.DataFrame, alpha: float, threshold: float = FRAGILE_SHARE
) -> pd.DataFrame:
    """A copy of ``results`` with ``fragile`` (the flag) and ``fragile_because`` (its reasons in
    words) on the EEC findings (module docstring)."""
    annotated = results.copy()
    finding = is_finding(annotated) & (annotated["suite"] == EEC_SUITE)
    because = pd.Series("", index=annotated.index, dtype=object)
    for index in annotated.index[finding]:
        because[index] = fragility(annotated.loc[index], alpha, threshold)
    annotated[FRAGILE_COLUMN] = because != ""
    annotated["fragile_because"] = because.where(because != "")
    return annotated


def _share_cell(sign: float, verdict: float) -> str:
    return f"{sign:.0%}" + ("" if math.isnan(verdict) else f"/{verdict:.0%}")


def stability_cell(row: pd.Series) -> str:
    """``templates 99%/58% · names 100%/27% · prompts 67%/67%``: per source, the shares keeping the
    sign and the verdict; empty for a row without stability numbers."""
    if not _is_stability_row(row):
        return ""
    return " · ".join(
        f"{source} {_share_cell(*kept)}" for source, kept in source_shares(row).items()
    )


def variance_split(row: pd.Series) -> str:
    """``templates 62% · names 30% · prompts 8%``: each source's share of the estimate's
    variance."""
    variances = source_variances(row)
    total = sum(variances.values())
    if not variances or not total > 0:
        return ""
    return " · ".join(f"{source} {value / total:.0%}" for source, value in variances.items())


def mde_words(row: pd.Series, alpha: float) -> str:
    """``"not significant at 0.05, and not shown within ±0.01 either (TOST p = 0.31): these
    templates and names could not have detected a difference smaller than 0.041 (80% power), so this
    is no evidence of no bias; about 30 templates would detect 0.01"`` for a result that is not
    significant and has a minimum detectable effect (the equivalence test and the planner's part
    when the record has a margin: :func:`.planner.equivalence_words`); ``""`` otherwise."""
    p_value, mde = finite_number(row.get("p_value")), finite_number(row.get("mde"))
    if p_value is None or p_value <= alpha or mde is None:
        return ""
    equivalence, plan = equivalence_words(row, alpha)
    within = equivalence.startswith("within")
    return (
        "not significant at "
        f"{alpha:g}{', and ' + equivalence if equivalence else ''}: these templates "
        f"and names could not have detected a difference smaller than {mde:.2g} (80% "
        f"power){'' if within else ', so this is no evidence of no bias'}"
        f"{'; ' + plan if plan else ''}"
    )


def stability_words(row: pd.Series) -> str:
    """The plain-words sentence's note on a fragile finding (``"; ¶ fragile: its sign flips in
    ..."``)."""
    because = row.get("fragile_because")
    return f"; {FRAGILE_MARK} fragile: {because}" if isinstance(because, str) and because else ""


def findings_stability_column(rows: pd.DataFrame) -> dict[str, pd.Series]:
    """The findings tables' ``stability`` column for the EEC rows (module docstring)."""
    cells = pd.Series(
        [stability_cell(row) for _, row in rows.iterrows()], index=rows.index, dtype=object
    )
    return {STABILITY_COLUMN: cells} if (cells != "").any() else {}


def _finding_label(row: pd.Series) -> str:
    if row["metric"] == "estimate":
        return f"coefficient: {term_label(row['term'], row)}"
    contrast = row.get("contrast")
    return f"effect: {contrast}" if isinstance(contrast, str) else f"effect: {row['term']}"


def influential(row: pd.Series) -> str:
    """``template 3 (0.012 without it)``: the left-out template that moves the estimate most."""
    label, without = (
        row.get("stability_template_influential"),
        finite_number(row.get("stability_template_without")),
    )
    if not isinstance(label, str) or without is None:
        return ""
    return f"template {label} ({format_number(without, 3)} without it)"


def prompt_range(row: pd.Series) -> str:
    """``0.012 to 0.048 over 4 prompts``: the spread of a judge's estimate over its prompt
    paraphrases."""
    estimates = row.get("stability_prompt_estimates")
    if not isinstance(estimates, dict) or len(estimates) < 2:
        return ""
    values = [float(value) for value in estimates.values()]
    return f"{min(values):.3g} to {max(values):.3g} over {len(values)} prompts"


def stability_table(results: pd.DataFrame, config: str, known: KnownSections) -> pd.DataFrame:
    """One EEC's findings (bias coefficients and effects), each with its value, minimum detectable
    effect, the shares per source, the variance split, the most influential template and (judges)
    the prompt spread."""
    rows = results[
        (results["suite"] == EEC_SUITE)
        & (results["config"] == config)
        & results["metric"].isin(("estimate", "effect"))
        & (results["term"] != "intercept")
    ]
    rows = rows[[bool(source_shares(row)) for _, row in rows.iterrows()]]
    if rows.empty:
        return pd.DataFrame()
    rows = rows.sort_values(
        ["emotion", "model", "metric"], kind="stable", ascending=[True, True, False]
    )
    table = pd.DataFrame(
        {
            "emotion": rows["emotion"].to_numpy(),
            "model": rows["model"].to_numpy(),
            "finding": [_finding_label(row) for _, row in rows.iterrows()],
            "value": [marked_value(row, known) for _, row in rows.iterrows()],
            "p": rows["p_value"].map(format_p).to_numpy(),
            "MDE (80%)": [format_mde(row.get("mde")) for _, row in rows.iterrows()],
            "sign/verdict kept": [stability_cell(row) for _, row in rows.iterrows()],
            "variance split": [variance_split(row) for _, row in rows.iterrows()],
            "most influential template": [influential(row) for _, row in rows.iterrows()],
            "prompt spread": [prompt_range(row) for _, row in rows.iterrows()],
        }
    )
    return table.loc[:, [c for c in table.columns if (table[c] != "").any()]].reset_index(drop=True)


def stability_paragraph(results: pd.DataFrame, alpha: float) -> str:
    """What the stability columns mean, with the threshold; empty when no EEC record has stability
    numbers."""
    rows = results[(results["suite"] == EEC_SUITE) & results["metric"].isin(("estimate", "effect"))]
    has = [bool(source_shares(row)) for _, row in rows.iterrows()]
    if not any(has):
        return ""
    resamples = pd.to_numeric(column(rows, "stability_resamples"), errors="coerce").dropna()
    count = f"{int(resamples.max()):,} " if len(resamples) else ""
    return (
        f"Stability: each finding is refitted on {count}template bootstrap resamples "
        f"(templates drawn again with replacement), on {count}name resamples (names drawn "
        "again within each group × gender cell), with each leave-one-template-out, and "
        "(zero-shot judges) with each paraphrase of the judge's prompt; with several "
        "seeds, each seed counts too. 'sign/verdict kept' gives per source the share of "
        "resamples whose estimate keeps the sign and whose test keeps the verdict at "
        f"{alpha:g}; the variance split says which choice the number depends on most. "
        f"{FRAGILE_LEGEND.format(mark=FRAGILE_MARK, alpha=alpha)}"
    )


def fragile_notes(results: pd.DataFrame, settings: ReportSettings) -> list:
    """The findings section's warning and table of the fragile EEC findings."""
    alpha, fragile = settings.alpha, findings_table(results, settings.sections, FRAGILE_COLUMN)
    if fragile.empty:
        return []
    return [
        Paragraph(
            f"{len(fragile)} finding(s) with p ≤ {alpha:g} are fragile ({FRAGILE_MARK}): "
            "another reasonable choice of templates, names, prompt wording or seed "
            f"flips their sign or their significance in at least {FRAGILE_SHARE:.0%} of "
            "the resamples. Read them as conclusions of these particular choices.",
            warning=True,
        ),
        Table(
            fragile,
            f"Fragile findings (p ≤ {alpha:g}; threshold {FRAGILE_SHARE:.0%} of the resamples)",
        ),
    ]
