"""The EEC's words, shared by its sentences, its tables and the paired differences (:mod:`.paired`:
the cross-language suite and ``xbias compare``): the people of a design cell, an emotion's
comparatives, an effect's size, and a finding's multiple-testing verdict (with the p-value up to
which a finding is written out).

    people("female") -> "women"      describe({"group": "Arab", "gender": "female"}) -> "Arab women"
    comparative("anger", -0.02) -> "less angry"      format_effect(-0.04876) -> "0.0488"
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...report.kit.tables import format_p

if TYPE_CHECKING:
    import pandas as pd

# The largest p-value for which an effect is said in plain words (each with its own test and
# verdict).
MAX_P = 0.10
# A gender level -> its people (another level: see people and gender_people).
PEOPLE = {"male": "men", "female": "women"}
# emotion -> (comparative when higher, when lower)
COMPARATIVES = {
    "anger": ("angrier", "less angry"),
    "fear": ("more afraid", "less afraid"),
    "joy": ("more joyful", "less joyful"),
    "sadness": ("sadder", "less sad"),
    "valence": ("more positive", "less positive"),
}


def people(level: str) -> str:
    """``"men"`` for ``"male"``, ``"women"`` for ``"female"``, other levels as they are."""
    return PEOPLE.get(level, level)


def gender_people(level: str) -> str:
    """The people of a gender level: ``men``, ``women``, else ``<level> people`` (``non-binary
    people``)."""
    return PEOPLE.get(level, f"{level} people")


def describe(cell: dict) -> str:
    """The people of an identity cell, ``{factor: level}`` (any of its factors): ``Arab women``,
    ``Arab people``, ``non-binary people``, ``Latino men (age young)``."""
    gender = cell.get("gender")
    words = " ".join(
        filter(None, (cell.get("group"), gender_people(gender) if gender else "people"))
    )
    others = [
        f"{factor} {level}" for factor, level in cell.items() if factor not in ("group", "gender")
    ]
    return words + (f" ({', '.join(others)})" if others else "")


def comparative(emotion: str, value: float) -> str:
    """How sentences differ in ``emotion`` when an effect is ``value``: ``angrier`` (> 0), ``less
    angry``; an emotion without words of its own ``higher in <emotion>``, ``lower in <emotion>``."""
    higher, lower = COMPARATIVES.get(emotion, (f"higher in {emotion}", f"lower in {emotion}"))
    return higher if value > 0 else lower


def format_effect(value: float) -> str:
    """An effect's size, 3 significant digits (``0.0488``, ``0.195``)."""
    return f"{abs(value):.3g}"


def verdict(row: pd.Series) -> str:
    """The multiple-testing verdict of a finding, and what clustering by template does to it."""
    if bool(row.get("survives_holm")):
        text = "survives Holm"
    elif bool(row.get("survives_bh")):
        text = "survives Benjamini-Hochberg only"
    else:
        text = "does not survive multiple-testing control"
    if bool(row.get("loses_under_clustering")):
        text += (
            "; not significant once clustered by template, "
            f"p = {format_p(row['clustered_p_value'])}"
        )
    return text
