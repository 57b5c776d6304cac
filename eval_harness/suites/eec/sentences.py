"""The EEC findings in plain words: one sentence per effect, each citing one effect record and its
own test.

A sentence names what its record compares (the record's contrast: "Arab men" against "Anglo men",
the average over men and women, or a difference-in-differences), gives the record's estimate in the
direction of its sign ("0.0488 angrier", "0.0394 less angry"), and the record's own 95 % interval,
p-value and multiple-testing verdict. Never a coefficient's p-value with an effect, never an average
marginal effect's number with a conditional effect's test.

When the group difference among men and among women (or the gender difference within the two groups)
have opposite signs, the sentences of those conditional effects, and of the average over both, say
so:
an average of opposite effects describes neither.

An EEC of another design (more groups or genders, further factors:
:func:`~.records.beta_regression_records`) gets the same sentences from its effects' levels
(:func:`effect_levels`, which reads the paper's effects the same way): "sentences about Arab
non-binary people
are predicted 0.0312 angrier than about Anglo non-binary people", the average over the other
factors' levels, and each interaction as a difference of differences; the opposite-sign notes
compare a contrast's strata.
A fragile finding says why (:mod:`.report_stability`: "¶ fragile: its sign flips in 31% of the
template resamples"); a result that is not significant gives the smallest difference it could have
detected (:func:`undetected_sentences`), so that it reads as "could not have detected less than
0.041", never as "no bias".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ...contract.records import TESTED_POOLINGS
from ...report.kit.families import ALPHA
from ...report.kit.tables import format_p
from ...stats.betareg import EFFECTS
from .measurement import measurement_problem, no_measurement_words
from .planner import equivalence_words
from .report_stability import mde_words, stability_words
from .tables import eec_effect_rows, factor_levels, gender_levels, group_levels, level_words
from .wording import MAX_P, comparative, describe, format_effect, gender_people, people, verdict

# The paper's 2 x 2 effects (stats.betareg.EFFECTS) as a factorial effect's levels: (the factors
# contrasted, each against its reference, {another factor: the index of the level it is held at};
# none: averaged over).
PAPER_EFFECTS = {
    "group_within_reference_gender": (("group",), {"gender": 0}),
    "group_within_other_gender": (("group",), {"gender": 1}),
    "gender_within_reference_group": (("gender",), {"group": 0}),
    "gender_within_other_group": (("gender",), {"group": 1}),
    "group_ame": (("group",), {}),
    "gender_ame": (("gender",), {}),
    "group:gender_did": (("group", "gender"), {}),
}


@dataclass(frozen=True)
class EffectSentence:
    """One plain-words sentence and the effect record it cites (its key and numbers)."""

    config: str
    model: str
    emotion: str
    effect: str
    estimate: float
    ci_low: float
    ci_high: float
    p_value: float
    text: str


@dataclass(frozen=True)
class EffectLevels:
    """What an effect record contrasts: every factor's ``factors`` levels (reference first), the
    contrasted factors' ``levels`` (against their references), the levels of the other factors it is
    ``given`` (none: averaged), and its ``kind`` (conditional, average, interaction; the paper's
    difference-in-differences)."""

    factors: dict[str, list[str]]
    levels: dict[str, str]
    given: dict[str, str]
    kind: str

    @property
    def references(self) -> dict[str, str]:
        return {factor: found[0] for factor, found in self.factors.items()}

    def averaged_over(self) -> str:
        """``"men, women and non-binary people"``: the levels of the factors an average effect
        averages over."""
        others = [(f, found) for f, found in self.factors.items() if f not in self.levels]
        return "; ".join(_level_words(factor, found) for factor, found in others)


def effect_levels(row: pd.Series) -> EffectLevels:
    """The :class:`EffectLevels` of an effect record: a factorial record's own ``factor_levels``,
    ``effect_levels`` and ``given``; a paper 2 x 2 record's from its name (``PAPER_EFFECTS``) and
    its group and gender levels."""
    if is_factorial(row):
        return EffectLevels(
            factor_levels(row),
            dict(row["effect_levels"]),
            dict(row.get("given") or {}),
            row["kind"],
        )
    factors = {"group": list(group_levels(row)), "gender": list(gender_levels(row))}
    contrasted, held = PAPER_EFFECTS[row["term"]]
    kind = (
        "difference-in-differences" if len(contrasted) > 1 else "conditional" if held else "average"
    )
    return EffectLevels(
        factors,
        {factor: factors[factor][1] for factor in contrasted},
        {factor: factors[factor][k] for factor, k in held.items()},
        kind,
    )


def claim(row: pd.Series) -> str:
    """What an effect record says, in the direction of its estimate (see the module docstring)."""
    value, emotion = float(row["value"]), str(row["emotion"])
    design = effect_levels(row)
    kind = design.kind
    if kind in ("interaction", "difference-in-differences"):
        return _interaction_claim(row, design)
    subject = describe({**design.given, **design.levels})
    other = describe(
        {**design.given, **{factor: design.references[factor] for factor in design.levels}}
    )
    prefix = f"averaged over {design.averaged_over()}, " if kind == "average" else ""
    if value == 0:
        return f"{prefix}sentences about {subject} are predicted as {emotion} as about {other}"
    amount = f"{format_effect(value)} {comparative(emotion, value)}"
    return f"{prefix}sentences about {subject} are predicted {amount} than about {other}"


def is_factorial(row: pd.Series) -> bool:
    """Whether an effect record is of a factorial fit (another design than the paper's 2 x 2)."""
    return isinstance(row.get("effect_levels"), dict)


def _level_words(factor: str, levels: list[str]) -> str:
    """A factor's levels as people, listed: ``men, women and non-binary people``, ``Anglo, Arab and
    Latino people``, ``age young and age old``."""
    if factor == "gender":
        named = [gender_people(level) for level in levels]
    elif factor == "group":
        named = [*levels[:-1], f"{levels[-1]} people"]
    else:
        named = [f"{factor} {level}" for level in levels]
    return ", ".join(named[:-1]) + f" and {named[-1]}"


def _interaction_claim(row: pd.Series, design: EffectLevels) -> str:
    """A two-factor interaction contrast as a difference of differences of four cells (within a
    stratum of the other factors, or averaged over them); a higher-order one in the record's own
    words."""
    value, emotion = float(row["value"]), str(row["emotion"])
    if len(design.levels) != 2:
        return f"the {row['contrast']} of the predicted {emotion} is {value:+.3g}"
    (first, a), (second, b) = design.levels.items()
    a0, b0 = design.references[first], design.references[second]

    def cell(x, y):
        return describe({**design.given, first: x, second: y})

    # The paper's 2 x 2 names its interaction contrast a difference-in-differences (its record's
    # kind).
    words = (
        "difference-in-differences"
        if design.kind == "difference-in-differences"
        else "difference of differences"
    )
    difference = f"{words}: the predicted {emotion} of {cell(a, b)} minus {cell(a, b0)}"
    baseline = f"that of {cell(a0, b)} minus {cell(a0, b0)}"
    averaged = (
        f", averaged over {design.averaged_over()}"
        if not design.given and len(design.factors) > 2
        else ""
    )
    if value == 0:
        return f"{difference} equals {baseline}{averaged}"
    return (
        f"{difference} is {format_effect(value)} "
        f"{'higher' if value > 0 else 'lower'} than {baseline}{averaged}"
    )


def _opposite_note(row: pd.Series, effects: dict[str, pd.Series]) -> str:
    """``"; among women the estimated difference has the opposite sign"`` when the same contrast in
    another stratum (of a conditional effect) has the other sign; for an average, when the strata it
    averages over disagree in sign."""
    design = effect_levels(row)
    if design.kind not in ("conditional", "average"):
        return ""
    strata = [
        (other, levels)
        for other, levels in ((other, effect_levels(other)) for other in effects.values())
        if levels.kind == "conditional" and levels.levels == design.levels
    ]
    if design.kind == "average":
        signs = {math.copysign(1.0, other["value"]) for other, _ in strata if other["value"] != 0}
        if len(signs) > 1:
            return (
                f"; this average hides differences of opposite sign among {design.averaged_over()}"
            )
        return ""
    opposite = [
        ", ".join(level_words(factor, level) for factor, level in levels.given.items())
        for other, levels in strata
        if _opposite(row["value"], other["value"])
    ]
    return (
        f"; {' and '.join(opposite)} the estimated difference has the opposite sign"
        if opposite
        else ""
    )


def _opposite(first: float, second: float) -> bool:
    return first * second < 0


def _seeds_note(row: pd.Series) -> str:
    n_seeds = row.get("n_seeds")
    if n_seeds is None or pd.isna(n_seeds) or row.get("pooling") not in TESTED_POOLINGS:
        return ""
    agree = row.get("share_same_sign")
    return (
        f", pooled over {int(n_seeds)} seeds, "
        f"{round(agree * n_seeds)} of {int(n_seeds)} with this sign"
    )


def effect_sentence(
    row: pd.Series, effects: dict[str, pd.Series] | None = None, alpha: float = ALPHA
) -> EffectSentence:
    """The sentence of one effect record (``effects``: the other effects of its fit, by name, for
    the opposite-sign notes)."""
    caution = (
        " Caution: the regressor's Pearson r is poor." if bool(row.get("poor_regressor")) else ""
    )
    # A test that cannot measure (an interval or MDE wider than the scale, df < 1) is said to be
    # one, in words.
    undetected = no_measurement_words(row) or mde_words(row, alpha)
    interval = (
        ""
        if measurement_problem(row)
        else f"95% CI [{row['ci_low']:+.3g}, {row['ci_high']:+.3g}], "
    )
    text = (
        f"{row['model']}, {row['emotion']}: {claim(row)} ({interval}p = "
        f"{format_p(row['p_value'])}, "
        f"{verdict(row)}{_seeds_note(row)}{'; ' + undetected if undetected else ''}"
        f"{stability_words(row)}){_opposite_note(row, effects or {})}.{caution}"
    )
    return EffectSentence(
        config=str(row["config"]),
        model=str(row["model"]),
        emotion=str(row["emotion"]),
        effect=str(row["term"]),
        estimate=float(row["value"]),
        ci_low=float(row["ci_low"]),
        ci_high=float(row["ci_high"]),
        p_value=float(row["p_value"]),
        text=text,
    )


def effect_sentences(
    results: pd.DataFrame, max_p: float = MAX_P, alpha: float = ALPHA
) -> dict[str, list[EffectSentence]]:
    """Per EEC, the sentences of the effects with p <= ``max_p``, strongest (smallest p) first
    (``alpha``: the level below which a sentence is a finding, above which it gives what could have
    been detected)."""
    rows = eec_effect_rows(results)
    factorial = (
        rows.apply(is_factorial, axis=1) if not rows.empty else pd.Series(False, index=rows.index)
    )
    rows = rows[
        (rows["term"].isin(EFFECTS) | factorial) & rows["value"].notna() & rows["p_value"].notna()
    ]
    fits: dict[tuple, dict[str, pd.Series]] = {}
    for _, row in rows.iterrows():
        fits.setdefault((row["model"], row["config"], row["emotion"]), {})[row["term"]] = row
    shown = rows[rows["p_value"] <= max_p].sort_values("p_value", kind="stable")
    sentences: dict[str, list[EffectSentence]] = {}
    for _, row in shown.iterrows():
        effects = fits[row["model"], row["config"], row["emotion"]]
        sentences.setdefault(str(row["config"]), []).append(effect_sentence(row, effects, alpha))
    return dict(sorted(sentences.items()))


# The effects whose absence a fit's "not significant" line reports: the averages and the
# interaction.
UNDETECTED_EFFECTS = ("group_ame", "gender_ame", "group:gender_did")


def _effect_name(row: pd.Series) -> str:
    reference, minority = group_levels(row)
    men, women = (people(level) for level in gender_levels(row))
    return {
        "group_ame": f"{minority} vs {reference} (averaged over {men} and {women})",
        "gender_ame": f"{women} vs {men} (averaged over both groups)",
        "group:gender_did": f"the interaction (difference-in-differences of {minority} {women})",
    }[row["term"]]


def _undetected(row: pd.Series) -> str:
    """What a "not significant" effect could have detected: its MDE, or why its test is no
    measurement."""
    if measurement_problem(row):
        return no_measurement_words(row)
    return f"could not have detected less than {row['mde']:.2g}"


def _margin_words(row: pd.Series, alpha: float) -> str:
    """``", and not shown within ±0.01 either (TOST p = 0.31); about 30 templates would detect
    0.01"``."""
    words = "; ".join(part for part in equivalence_words(row, alpha) if part)
    return f", and {words}" if words else ""


def undetected_sentences(results: pd.DataFrame, alpha: float = ALPHA) -> dict[str, list[str]]:
    """Per EEC, one line per (model, emotion) whose average effects or interaction are not
    significant at ``alpha``: each with its estimate, p-value and minimum detectable effect (80 %
    power), e.g. "svm-tfidf, joy: Arab vs Anglo (averaged over men and women) +0.0031, p = 0.61:
    could not have detected less than 0.021"."""
    rows = eec_effect_rows(results)
    if "mde" not in rows.columns:
        return {}
    rows = rows[
        rows["term"].isin(UNDETECTED_EFFECTS)
        & (rows["p_value"] > alpha)
        & rows["mde"].notna()
        & rows["value"].notna()
    ]
    lines: dict[str, list[str]] = {}
    for (config, emotion, model), fit in rows.groupby(["config", "emotion", "model"], sort=True):
        fit = fit.assign(order=fit["term"].map(UNDETECTED_EFFECTS.index)).sort_values("order")
        parts = [
            f"{_effect_name(row)} {row['value']:+.3g}, p = {format_p(row['p_value'])}: "
            f"{_undetected(row)}{_margin_words(row, alpha)}"
            for _, row in fit.iterrows()
        ]
        lines.setdefault(str(config), []).append(f"{model}, {emotion}: " + "; ".join(parts) + ".")
    return lines
