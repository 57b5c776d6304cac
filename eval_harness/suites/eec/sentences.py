"""The EEC findings in plain words: one sentence per effect, each citing one effect record and its own test.

A sentence names what its record compares (the record's contrast: "Arab men" against "Anglo men", the
average over men and women, or a difference-in-differences), gives the record's estimate in the
direction of its sign ("0.0488 angrier", "0.0394 less angry"), and the record's own 95 % interval,
p-value and multiple-testing verdict. Never a coefficient's p-value with an effect, never an average
marginal effect's number with a conditional effect's test.

When the group difference among men and among women (or the gender difference within the two groups)
have opposite signs, the sentences of those conditional effects, and of the average over both, say so:
an average of opposite effects describes neither.

A fragile finding says why (:mod:`.report_stability`: "¶ fragile: its sign flips in 31% of the template
resamples"); a result that is not significant gives the smallest difference it could have detected
(:func:`undetected_sentences`), so that it reads as "could not have detected less than 0.041", never as "no bias".
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...report.findings import ALPHA
from ...report.tables import format_p
from ...stats.betareg import EFFECTS
from .report_stability import mde_words, stability_words
from .tables import eec_effect_rows, gender_levels, group_levels, people

# conditional effect -> the effect of the same factor at the other level of the other factor
OPPOSITE_PAIRS = {
    "group_within_reference_gender": "group_within_other_gender",
    "group_within_other_gender": "group_within_reference_gender",
    "gender_within_reference_group": "gender_within_other_group",
    "gender_within_other_group": "gender_within_reference_group",
}
# average marginal effect -> the two conditional effects it averages
AVERAGE_OF = {
    "group_ame": ("group_within_reference_gender", "group_within_other_gender"),
    "gender_ame": ("gender_within_reference_group", "gender_within_other_group"),
}
# emotion -> (comparative when higher, when lower)
COMPARATIVES = {
    "anger": ("angrier", "less angry"),
    "fear": ("more afraid", "less afraid"),
    "joy": ("more joyful", "less joyful"),
    "sadness": ("sadder", "less sad"),
    "valence": ("more positive", "less positive"),
}
MAX_P = 0.10


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


def format_effect(value: float) -> str:
    """An effect's size, 3 significant digits (``0.0488``, ``0.195``)."""
    return f"{abs(value):.3g}"


def _comparative(emotion: str, value: float) -> str:
    higher, lower = COMPARATIVES.get(emotion, (f"higher in {emotion}", f"lower in {emotion}"))
    return higher if value > 0 else lower


def claim(row: pd.Series) -> str:
    """What the effect record says, in the direction of its estimate (see the module docstring)."""
    value, emotion = float(row["value"]), str(row["emotion"])
    reference, minority = group_levels(row)
    men, women = (people(level) for level in gender_levels(row))
    name = row["term"]
    if name == "group:gender_did":
        difference = f"difference-in-differences: the predicted {emotion} of {minority} {women} minus {minority} {men}"
        baseline = f"that of {reference} {women} minus {reference} {men}"
        if value == 0:
            return f"{difference} equals {baseline}"
        return f"{difference} is {format_effect(value)} {'higher' if value > 0 else 'lower'} than {baseline}"
    subject, other = {
        "group_within_reference_gender": (f"{minority} {men}", f"{reference} {men}"),
        "group_within_other_gender": (f"{minority} {women}", f"{reference} {women}"),
        "gender_within_reference_group": (f"{reference} {women}", f"{reference} {men}"),
        "gender_within_other_group": (f"{minority} {women}", f"{minority} {men}"),
        "group_ame": (f"{minority} people", f"{reference} people"),
        "gender_ame": (women, men),
    }[name]
    prefix = {
        "group_ame": f"averaged over {men} and {women}, ",
        "gender_ame": f"averaged over {reference} and {minority} people, ",
    }.get(name, "")
    if value == 0:
        return f"{prefix}sentences about {subject} are predicted as {emotion} as about {other}"
    amount = f"{format_effect(value)} {_comparative(emotion, value)}"
    return f"{prefix}sentences about {subject} are predicted {amount} than about {other}"


def _opposite_note(row: pd.Series, effects: dict[str, pd.Series]) -> str:
    """``"; among women the difference runs the other way"`` when the paired conditional effect has the other sign."""
    name = row["term"]
    men, women = (people(level) for level in gender_levels(row))
    reference, minority = group_levels(row)
    where = {
        "group_within_reference_gender": f"among {women}",
        "group_within_other_gender": f"among {men}",
        "gender_within_reference_group": f"within {minority}",
        "gender_within_other_group": f"within {reference}",
    }
    if name in OPPOSITE_PAIRS and OPPOSITE_PAIRS[name] in effects:
        if _opposite(row["value"], effects[OPPOSITE_PAIRS[name]]["value"]):
            return f"; {where[name]} the estimated difference has the opposite sign"
    if name in AVERAGE_OF and all(part in effects for part in AVERAGE_OF[name]):
        first, second = (effects[part] for part in AVERAGE_OF[name])
        if _opposite(first["value"], second["value"]):
            split = f"{men} and {women}" if name == "group_ame" else f"{reference} and {minority} people"
            return f"; this average hides differences of opposite sign among {split}"
    return ""


def _opposite(first: float, second: float) -> bool:
    return first * second < 0


def verdict(row: pd.Series) -> str:
    """The multiple-testing verdict of a finding, and what clustering by template does to it."""
    if bool(row.get("survives_holm")):
        text = "survives Holm"
    elif bool(row.get("survives_bh")):
        text = "survives Benjamini-Hochberg only"
    else:
        text = "does not survive multiple-testing control"
    if bool(row.get("loses_under_clustering")):
        text += f"; not significant once clustered by template, p = {format_p(row['clustered_p_value'])}"
    return text


def _seeds_note(row: pd.Series) -> str:
    n_seeds = row.get("n_seeds")
    if n_seeds is None or pd.isna(n_seeds) or row.get("pooling") != "rubin":
        return ""
    agree = row.get("share_same_sign")
    return f", pooled over {int(n_seeds)} seeds, {round(agree * n_seeds)} of {int(n_seeds)} with this sign"


def effect_sentence(
    row: pd.Series, effects: dict[str, pd.Series] | None = None, alpha: float = ALPHA
) -> EffectSentence:
    """The sentence of one effect record (``effects``: the other effects of its fit, by name, for the
    opposite-sign notes)."""
    caution = " Caution: the regressor's Pearson r is poor." if bool(row.get("poor_regressor")) else ""
    undetected = mde_words(row, alpha)
    text = (
        f"{row['model']}, {row['emotion']}: {claim(row)} (95% CI [{row['ci_low']:+.3g}, {row['ci_high']:+.3g}], "
        f"p = {format_p(row['p_value'])}, {verdict(row)}{_seeds_note(row)}{'; ' + undetected if undetected else ''}"
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
    """Per EEC, the sentences of the effects with p <= ``max_p``, strongest (smallest p) first (``alpha``: the
    level below which a sentence is a finding, above which it gives what could have been detected)."""
    rows = eec_effect_rows(results)
    rows = rows[rows["term"].isin(EFFECTS) & rows["value"].notna() & rows["p_value"].notna()]
    fits: dict[tuple, dict[str, pd.Series]] = {}
    for _, row in rows.iterrows():
        fits.setdefault((row["model"], row["config"], row["emotion"]), {})[row["term"]] = row
    shown = rows[rows["p_value"] <= max_p].sort_values("p_value", kind="stable")
    sentences: dict[str, list[EffectSentence]] = {}
    for _, row in shown.iterrows():
        effects = fits[row["model"], row["config"], row["emotion"]]
        sentences.setdefault(str(row["config"]), []).append(effect_sentence(row, effects, alpha))
    return dict(sorted(sentences.items()))


# The effects whose absence a fit's "not significant" line reports: the averages and the interaction.
UNDETECTED_EFFECTS = ("group_ame", "gender_ame", "group:gender_did")


def _effect_name(row: pd.Series) -> str:
    reference, minority = group_levels(row)
    men, women = (people(level) for level in gender_levels(row))
    return {
        "group_ame": f"{minority} vs {reference} (averaged over {men} and {women})",
        "gender_ame": f"{women} vs {men} (averaged over both groups)",
        "group:gender_did": f"the interaction (difference-in-differences of {minority} {women})",
    }[row["term"]]


def undetected_sentences(results: pd.DataFrame, alpha: float = ALPHA) -> dict[str, list[str]]:
    """Per EEC, one line per (model, emotion) whose average effects or interaction are not significant at
    ``alpha``: each with its estimate, p-value and minimum detectable effect (80 % power), e.g. "svm-tfidf, joy:
    Arab vs Anglo (averaged over men and women) +0.0031, p = 0.61: could not have detected less than 0.021"."""
    rows = eec_effect_rows(results)
    if "mde" not in rows.columns:
        return {}
    rows = rows[
        rows["term"].isin(UNDETECTED_EFFECTS) & (rows["p_value"] > alpha) & rows["mde"].notna() & rows["value"].notna()
    ]
    lines: dict[str, list[str]] = {}
    for (config, emotion, model), fit in rows.groupby(["config", "emotion", "model"], sort=True):
        fit = fit.assign(order=fit["term"].map(UNDETECTED_EFFECTS.index)).sort_values("order")
        parts = [
            f"{_effect_name(row)} {row['value']:+.3g}, p = {format_p(row['p_value'])}: could not have detected "
            f"less than {row['mde']:.2g}"
            for _, row in fit.iterrows()
        ]
        lines.setdefault(str(config), []).append(f"{model}, {emotion}: " + "; ".join(parts) + ".")
    return lines
