"""Equivalence tests and the power planner for the EEC's effects: the fields a unit writes, and what
the report and ``xbias power`` read from them.

- ``equivalence_margin`` (the suite option, intensity scale) rides on every effect record; the TOST
  itself (:func:`eval_harness.stats.equivalence.tost`) is computed where the record is read, from
  the record's own ``value``, ``std_err`` and ``df`` (``statistic_kind`` z: normal), so that it is
  always the test of the standard error the report shows: template-clustered, model-based, or pooled
  over seeds.
- ``planner_*``: each effect's variance components measured on the unit's scores
  (:func:`eval_harness.stats.design_power.variance_components`; 2 x 2 designs), averaged over seeds
  when the run pools them; the between-seed variance is the pooled record's ``between_seed_sd``
  squared. The model and its
  assumptions: docs/conventions.md, "The power planner".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...contract.records import Field
from ...errors import InputError
from ...stats.equivalence import NOT_WITHIN, WITHIN, Equivalence, reference_df, tost
from ...stats.verdict import DEFAULT_MARGIN
from .measurement import finite_number

if TYPE_CHECKING:
    import pandas as pd

    from ...stats.design_power import AdditiveFit, Design, VarianceComponents

# pandas and the planner's numerics (scipy) are imported where they are used: the schema
# (PLANNER_FIELDS) is read when a config is checked, which loads neither.

# The suite's default equivalence margin on the 0-1 intensity scale: a hundredth of the scale (the
# verdict's default).
EQUIVALENCE_MARGIN = DEFAULT_MARGIN

PLANNER_FIELDS = {
    "equivalence_margin": Field(
        float, "effect: the margin delta of its equivalence test (TOST), intensity scale"
    ),
    "planner_template_var": Field(
        float,
        "effect: its template-to-template variance (the power "
        "planner's sigma2_T; not truncated, so it may be below 0)",
        seed_mean=True,
    ),
    "planner_template_var_low": Field(
        float,
        "effect: the low end of planner_template_var's 80% interval "
        "(its spread and noise share on their own df; not floored at 0)",
        seed_mean=True,
    ),
    "planner_template_var_high": Field(
        float, "effect: the high end of planner_template_var's 80% interval", seed_mean=True
    ),
    **{
        f"planner_{name}_{end}": Field(
            float, f"effect: the {end} end of planner_{name}'s 80% interval", seed_mean=True
        )
        for name in ("residual_var", "name_template_var")
        for end in ("low", "high")
    },
    "planner_within_var": Field(
        float,
        "effect: the within-cell variance of the scores (the power planner's sigma2_W)",
        seed_mean=True,
    ),
    "planner_residual_var": Field(
        float,
        "effect: the within-cell variance names and emotion "
        "words do not explain (the power planner's sigma2_R)",
        seed_mean=True,
    ),
    "planner_name_template_var": Field(
        float,
        "effect: the part of planner_residual_var that is a name's own reading in "
        "a template (the power planner's sigma2_TN; unbiased, so it may be below 0)",
        seed_mean=True,
    ),
    "planner_pool": Field(
        float,
        "effect: the names x words each template x cell drew "
        "from (= planner_per_cell: crossed; none: unknown)",
    ),
    "planner_pool_names": Field(
        float, "effect: the names per template x cell of that pool (the power planner's P)"
    ),
    "planner_weight_square_sum": Field(float, "effect: the sum of its squared cell weights"),
    "planner_templates": Field(int, "effect: the templates the planner's components come from"),
    "planner_per_cell": Field(float, "effect: sentences per template x cell (harmonic mean)"),
}


def with_margin(records: list[dict], margin: float) -> list[dict]:
    """``records`` with ``equivalence_margin`` on each effect (none when ``margin`` is 0: no
    equivalence tests)."""
    if margin:
        for record in records:
            if record["metric"] == "effect":
                record["equivalence_margin"] = float(margin)
    return records


def planner_fields(data: Mapping) -> dict[tuple[str, str], dict]:
    """``("effect", name)`` -> the planner components of each 2 x 2 effect, from a unit's prepared
    ``data`` (scores ``y``, ``template_id``, the ``factors`` and their ``references``); none for an
    effect whose templates or cells are too few."""
    import pandas as pd

    from ...stats.design_power import EFFECT_WEIGHTS, variance_components

    factors, references = data["factors"], data["references"]
    rows = data.get("rows")
    # A word's slot, where the suite counted it: the same in every cell where a language inflects
    # the word by gender
    word_column = "emotion_slot" if rows is not None and "emotion_slot" in rows else "emotion_word"
    words = list(rows[word_column]) if rows is not None and word_column in rows else None
    sentences = (
        {"name": data.get("person"), "word": words}
        if data.get("person") is not None and words
        else {}
    )
    frame = pd.DataFrame(
        {"y": data["y"], "t": data["template_id"], **factors, **sentences}
    ).dropna()
    minority = (frame["group"] != references["group"]).astype(int)
    female = (frame["gender"] != references["gender"]).astype(int)
    fields = {}
    # one additive fit per unit (per set of templates), shared by its effects
    fits: dict[tuple, AdditiveFit | None] = {}
    for effect in EFFECT_WEIGHTS:
        try:
            found = variance_components(
                frame["y"],
                frame["t"],
                minority,
                female,
                effect,
                names=frame.get("name"),
                words=frame.get("word"),
                pool=data.get("pool"),
                pool_names=data.get("pool_names"),
                fits=fits,
            )
        except InputError:
            continue  # too few templates or sentences: the report says nothing of other designs
        fields["effect", effect] = {
            "planner_template_var": found.template_var,
            "planner_template_var_low": found.template_var_low,
            "planner_template_var_high": found.template_var_high,
            "planner_residual_var_low": found.residual_var_low,
            "planner_residual_var_high": found.residual_var_high,
            "planner_name_template_var_low": found.name_template_var_low,
            "planner_name_template_var_high": found.name_template_var_high,
            "planner_within_var": found.within_var,
            "planner_residual_var": found.residual_var,
            "planner_name_template_var": found.name_template_var,
            "planner_pool": found.pool,
            "planner_pool_names": found.names,
            "planner_weight_square_sum": found.weight_square_sum,
            "planner_templates": found.templates,
            "planner_per_cell": found.per_cell,
        }
    return fields


def equivalence_of(row: Mapping, alpha: float = 0.05) -> Equivalence | None:
    """The TOST of an effect record against its ``equivalence_margin``, on its own estimate,
    standard error and df; None without a margin or a usable standard error."""
    margin, value, std_err = (
        finite_number(row.get(name)) for name in ("equivalence_margin", "value", "std_err")
    )
    if margin is None or value is None or std_err is None or not std_err > 0:
        return None
    df = reference_df(row.get("statistic_kind"), finite_number(row.get("df")))
    return tost(value, std_err, df, margin, alpha)


def components_of(row: Mapping) -> VarianceComponents | None:
    """An effect record's planner components (with the between-seed variance of a record pooled over
    seeds)."""
    from ...stats.design_power import VarianceComponents

    names = (
        "planner_template_var",
        "planner_within_var",
        "planner_weight_square_sum",
        "planner_per_cell",
    )
    template_var, within_var, weight_square_sum, per_cell = (
        finite_number(row.get(name)) for name in names
    )
    templates = finite_number(row.get("planner_templates"))
    if (
        template_var is None
        or within_var is None
        or weight_square_sum is None
        or per_cell is None
        or templates is None
    ):
        return None
    seeds = finite_number(row.get("n_seeds"))
    between = finite_number(row.get("between_seed_sd"))
    if seeds is None or seeds < 2 or between is None:  # one seed: no between-seed variance known
        seeds, between = 1, 0.0
    residual = finite_number(row.get("planner_residual_var"))
    return VarianceComponents(
        template_var,
        within_var,
        weight_square_sum,
        templates=int(templates),
        per_cell=per_cell,
        seed_var=between**2,
        seeds=int(seeds),
        residual_var=residual,
        pool=finite_number(row.get("planner_pool")) if residual is not None else None,
        name_template_var=finite_number(row.get("planner_name_template_var"))
        if residual is not None
        else None,
        names=finite_number(row.get("planner_pool_names")) if residual is not None else None,
        template_var_low=finite_number(row.get("planner_template_var_low")),
        template_var_high=finite_number(row.get("planner_template_var_high")),
        **component_ends(row) if residual is not None else {},
    )


def component_ends(row: Mapping) -> dict[str, float | None]:
    """The ends of ``sigma2_R``'s and ``sigma2_TN``'s intervals in an effect record, and the floor
    of its point
    estimate: ``sigma2_R``'s low end, no ``sigma2_TN``
    (:class:`~eval_harness.stats.design_power.VarianceComponents`)."""
    ends = {
        f"{name}_{end}": finite_number(row.get(f"planner_{name}_{end}"))
        for name in ("residual_var", "name_template_var")
        for end in ("low", "high")
    }
    return {
        **ends,
        "floor_residual_var": ends["residual_var_low"],
        "floor_name_template_var": 0.0,
    }


def design_needed(components: VarianceComponents, target: float, vary: str, unit: str) -> str:
    """How many ``unit`` (``vary`` of :func:`~eval_harness.stats.design_power.smallest_design`)
    reach ``target``, with the interval of that count: ``"about 30 templates (12-80)"``; ``"cannot
    tell from this run how many templates (at least 12)"`` when the interval's high end reaches no
    design in the search range; ``""`` when even its low end reaches none (the point estimate's
    words without an interval)."""
    from ...stats.design_power import smallest_design, smallest_design_interval

    def count(design: Design) -> int:
        return math.ceil(getattr(design, vary))

    point = smallest_design(components, target, vary)
    ends = smallest_design_interval(components, target, vary)
    if ends is None:
        return f"about {counted(count(point), unit)}" if point else ""
    low, high = ends
    if low is None:
        return ""
    if point is None or high is None:
        return f"cannot tell from this run how many {unit} (at least {count(low)})"
    return f"about {counted(count(point), unit)} ({count(low)}-{count(high)})"


def counted(n: int, unit: str) -> str:
    """``"1 template"``, ``"2 templates"``, ``"1 sentence per template × cell"``: a count with its
    unit in the number it takes (``unit`` is the plural; its first word loses its ``s`` for one)."""
    if n != 1:
        return f"{n} {unit}"
    first, _, rest = unit.partition(" ")
    return " ".join(filter(None, [f"{n}", first.removesuffix("s"), rest]))


def templates_needed(row: Mapping, target: float) -> str:
    """``"about 30 templates (12-80) would"`` (with this many sentences per cell and seeds; the
    interval at the planner's level), ``"cannot tell from this run how many templates (at least 12)
    would"``, ``"no number of templates up to 1000 would"``, or ``""`` without planner fields."""
    from ...stats.design_power import MAX_TEMPLATES

    components = components_of(row)
    if components is None:
        return ""
    needed = design_needed(components, target, "templates", "templates")
    return f"{needed} would" if needed else f"no number of templates up to {MAX_TEMPLATES} would"


def plan_words(row: Mapping, target: float) -> str:
    """``"MDE 0.021 (0.015-0.032) now; 0.01 needs about 30 templates (12-80), or about 12 sentences
    per template x cell (5-40)"`` (or "cannot be reached by more names alone", "cannot tell from
    this run how many ..."; with seeds, "or N seeds"): the planner's line for one effect record,
    each count with its interval at the planner's level (none for a record without one)."""
    from ...stats.design_power import current_design, design_mde, mde_interval

    components = components_of(row)
    if components is None or not usable_standard_error(row):
        return ""  # an effect with no usable standard error has no MDE to plan from
    now = design_mde(components, current_design(components))
    interval = mde_interval(components, current_design(components))
    now_words = f"{now:.2g} ({interval[0]:.2g}-{interval[1]:.2g})" if interval else f"{now:.2g}"
    if (
        now <= target
    ):  # reached: no design count to give (one below the run's own would contradict it)
        return f"MDE {now_words} now: {target:g} is reached with this run's design"
    options = []
    for vary, unit in (
        ("templates", "templates"),
        ("per_cell", "sentences per template × cell"),
        ("seeds", "seeds"),
    ):
        if vary == "seeds" and components.seeds < 2:
            continue  # one seed: its variance is unknown
        needed = design_needed(components, target, vary, unit)
        if needed:
            options.append(needed)
        elif vary == "per_cell":
            options.append("cannot be reached by more names alone")
    return f"MDE {now_words} now; {target:g} needs " + ", or ".join(
        options or ["a larger design in every respect"]
    )


def usable_standard_error(row: Mapping) -> bool:
    """Whether an effect record has a standard error a test can use (finite and > 0)."""
    std_err = finite_number(row.get("std_err"))
    return std_err is not None and std_err > 0


def power_summary(results: pd.DataFrame, target: float | None = None) -> str:
    """The one line ``xbias power`` opens with: how many effects reach the target MDE now
    (``target``, else each record's margin), the worst one, and what would get it there; empty
    without planner fields."""
    from ...stats.design_power import current_design, design_mde

    if "planner_template_var" not in results.columns:
        return ""
    rows = results[(results["suite"] == "eec") & (results["metric"] == "effect")]
    planned = []
    for _, row in rows.iterrows():
        components = components_of(row)
        goal = target if target is not None else finite_number(row.get("equivalence_margin"))
        if components is None or goal is None or not usable_standard_error(row):
            continue
        planned.append((design_mde(components, current_design(components)) / goal, goal, row))
    if not planned:
        return ""
    reached = sum(ratio <= 1 for ratio, _, _ in planned)
    ratio, goal, worst = max(planned, key=lambda item: item[0])
    line = f"{reached} of {len(planned)} effects reach an MDE of {goal:g} now"
    if ratio <= 1:
        return line + "."
    needed = templates_needed(worst, goal)
    where = f"{worst['config']} {worst['emotion']} {worst['model']} {worst['term']}"
    return (
        f"{line}; the worst, {where}, has an MDE of {ratio * goal:.2g}: "
        f"{needed or 'no design found'} reach {goal:g}."
    )


def no_plan_reason(results: pd.DataFrame, table: pd.DataFrame, target: float | None) -> str:
    """Why ``table``'s planner column (:func:`power_table`) is empty throughout, or "" when some
    effect has a line: no goal (no ``target`` and no record with an ``equivalence_margin``), or a
    goal but nothing to plan from (no effect with the planner's fields and a usable standard
    error)."""
    import pandas as pd

    if table.empty or table["planner"].ne("").any():
        return ""
    margins = pd.to_numeric(
        results.get("equivalence_margin", pd.Series(dtype=float)), errors="coerce"
    )
    if target is None and not (margins > 0).any():
        return "no --target and no equivalence_margin in the run: give --target 0.01"
    return (
        "no effect of this run has the planner's fields and a usable standard "
        "error, so no design is planned; the verdict column is what the run shows"
    )


def power_table(
    results: pd.DataFrame, target: float | None = None, alpha: float = 0.05
) -> pd.DataFrame:
    """Per EEC x emotion x model x effect with a margin or planner fields: its value, p, MDE (the
    record's), its verdict at its margin (the one rule, :mod:`.verdicts`) and the planner's line for
    ``target`` (default: the record's margin)."""
    import pandas as pd

    from ...report.kit.tables import (
        format_number,
        format_p,
    )  # here: it loads statsmodels (xbias list stays light)

    present = [
        name for name in ("planner_template_var", "equivalence_margin") if name in results.columns
    ]
    if not present:
        return pd.DataFrame()
    rows = results[(results["suite"] == "eec") & (results["metric"] == "effect")]
    rows = rows[rows[present].notna().any(axis=1)]
    lines = []
    from .verdicts import effect_verdict

    for _, row in rows.sort_values(["config", "emotion", "model"], kind="stable").iterrows():
        goal = target if target is not None else finite_number(row.get("equivalence_margin"))
        lines.append(
            {
                "config": row["config"],
                "emotion": row["emotion"],
                "model": row["model"],
                "effect": row.get("contrast")
                if isinstance(row.get("contrast"), str)
                else row["term"],
                "value": format_number(finite_number(row["value"]), 4),
                "p": format_p(finite_number(row["p_value"])),
                "MDE (80%)": format_number(finite_number(row.get("mde")), 3)
                if usable_standard_error(row)
                else "",
                "verdict": effect_verdict(row, alpha).words(),
                "planner": plan_words(row, goal) if goal else "",
            }
        )
    return pd.DataFrame(lines)


def equivalence_words(row: Mapping, alpha: float = 0.05) -> tuple[str, str]:
    """What a result says of its margin, and (when it does not show the effect within it) what
    design would detect the margin: ``("within ±0.01 (TOST p = 0.003)", "")``; ``("not shown within
    ±0.01 either (TOST p = 0.31)", "about 30 templates would detect 0.01")``; ``("not within ±0.01
    (its 90% interval lies beyond the margin)", "")``; ``("", "")`` without a margin."""
    equivalence = equivalence_of(row, alpha)
    if equivalence is None:
        return "", ""
    margin = f"±{equivalence.margin:g}"
    if equivalence.verdict == WITHIN:
        return equivalence.words(), ""
    if equivalence.verdict == NOT_WITHIN:
        return f"not within {margin} (its {1 - 2 * alpha:.0%} interval lies beyond the margin)", ""
    needed = templates_needed(row, equivalence.margin)
    plan = f"{needed} detect {equivalence.margin:g}" if needed else ""
    return f"not shown within {margin} either (TOST p = {equivalence.p_value:.2g})", plan


def equivalence_paragraph(results: pd.DataFrame, alpha: float = 0.05) -> str:
    """What the equivalence column and the planner's lines mean, with the margin(s); empty without a
    margin."""
    import pandas as pd

    from ...stats.design_power import LEVEL

    if "equivalence_margin" not in results.columns:
        return ""
    margins = sorted(
        pd.to_numeric(results["equivalence_margin"], errors="coerce").dropna().unique()
    )
    if not margins:
        return ""
    stated = " and ".join(f"±{margin:g}" for margin in margins)
    return (
        f"Equivalence: each effect is tested against the margin {stated} on the 0-1 "
        f"intensity scale (the suite's equivalence_margin, default ±{EQUIVALENCE_MARGIN:g}) "
        "by two one-sided tests on the same standard error and df as its significance "
        f"test: 'within ±δ' when its {1 - 2 * alpha:.0%} interval lies inside the margin "
        "(TOST p ≤ alpha), 'not within ±δ' when it lies beyond it, 'cannot tell' "
        "otherwise. No effect is called 'no bias' without its δ. The power planner "
        "(docs/conventions.md) measures each effect's template-to-template, within-cell "
        "and between-seed variance on this run's scores and gives the MDE of another "
        "design: how many templates, sentences per template × cell or seeds would detect "
        f"δ; in brackets, each one's {LEVEL:.0%} interval from the template spread's few df "
        '("cannot tell from this run" when its high end reaches no design).'
    )
