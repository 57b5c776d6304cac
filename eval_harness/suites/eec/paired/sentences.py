"""Differences of identity effects between two conditions (two languages, two models) in plain
words.

A difference record (:func:`.records.difference_records`) says which levels its effect contrasts
(``levels``), which stratum it holds fixed (``given``) and each factor's reference level
(``factors``); the sentence names the people on both sides, gives the difference in the direction of
its sign and says between which conditions:

    relative to Anglo women, sentences about Arab women are predicted 0.05 more afraid in Arabic
    than in English averaged over gender, relative to Anglo people, sentences about Arab people are
    predicted 0.03 less angry
        under model B than under model A
    the difference-in-differences of predicted fear, (Arab women - Arab men) - (Anglo women - Anglo
    men), is 0.04
        higher in Arabic than in English

Any number of levels and factors: a gender level names people ("women"), a group level qualifies
them ("Arab women"), any other factor is added in brackets ("Arab women (age 60+)"): the EEC's words
(:func:`eval_harness.suites.eec.wording.describe`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..wording import comparative, describe, format_effect

if TYPE_CHECKING:
    import pandas as pd


def _pairs(value) -> dict[str, str]:
    """``[[factor, level], ...]`` (a record's ``levels``/``given``) as a dict."""
    return {
        str(name): str(level) for name, level in (value if isinstance(value, list | tuple) else [])
    }


def difference_claim(row: pd.Series, other: str, reference: str) -> str:
    """What a difference record says (module docstring); ``other``/``reference`` are the conditions
    in words (``"in Arabic"``, ``"in English"``; ``"under model B"``, ``"under model A"``)."""
    value, emotion = float(row["value"]), str(row["emotion"])
    levels, given, factors = _pairs(row["levels"]), _pairs(row["given"]), dict(row["factors"])
    references = {name: str(factor_levels[0]) for name, factor_levels in factors.items()}
    where = f"{other} than {reference}"
    if row["kind"] == "interaction" and len(levels) == 2:
        (first, level_a), (second, level_b) = levels.items()

        def cell(a: str, b: str) -> str:
            return describe({**given, first: a, second: b})

        reference_a, reference_b = references[first], references[second]
        difference = (
            f"the difference-in-differences of predicted {emotion}, "
            f"({cell(level_a, level_b)} - {cell(level_a, reference_b)}) - "
            f"({cell(reference_a, level_b)} - {cell(reference_a, reference_b)})"
        )
        if value == 0:
            return f"{difference}, is the same {other} as {reference}"
        return (
            f"{difference}, is {format_effect(value)} {'higher' if value > 0 else 'lower'} {where}"
        )
    if row["kind"] == "interaction":
        amount = f"{format_effect(value)} {'higher' if value > 0 else 'lower'}"
        return f"the interaction contrast {row['contrast'].split(':')[0]} is {amount} {where}"
    ((factor, level),) = levels.items()
    subject, baseline = (
        describe({**given, factor: level}),
        describe({**given, factor: references[factor]}),
    )
    prefix = ""
    if row["kind"] == "average":
        averaged = [name for name in factors if name != factor]
        prefix = f"averaged over {' and '.join(averaged)}, "
    if value == 0:
        return (
            f"{prefix}relative to {baseline}, sentences about "
            f"{subject} are predicted alike {other} and {reference}"
        )
    amount = f"{format_effect(value)} {comparative(emotion, value)}"
    return (
        f"{prefix}relative to {baseline}, sentences about {subject} are predicted {amount} {where}"
    )


def level_word(factor: str, level: str) -> str:
    """A level as a label says it: a group by its name, a gender by its people, another factor with
    its name."""
    if factor == "group":
        return level
    return describe({factor: level})


def effect_label(row: pd.Series) -> str:
    """A short name of the effect a difference record is about: ``Arab vs Anglo, among women``,
    ``women vs men, averaged``, ``Arab × women (interaction)``."""
    levels, given, factors = _pairs(row["levels"]), _pairs(row["given"]), dict(row["factors"])
    if row["kind"] == "interaction":
        label = (
            " × ".join(level_word(name, level) for name, level in levels.items()) + " (interaction)"
        )
        return label + (f", among {describe(given)}" if given else "")
    ((factor, level),) = levels.items()
    versus = f"{level_word(factor, level)} vs {level_word(factor, str(factors[factor][0]))}"
    if row["kind"] == "average":
        return f"{versus}, averaged"
    return f"{versus}, among {describe(given)}" if given else versus
