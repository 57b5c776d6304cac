"""The planner's word where a language inflects the emotion word by gender (Spanish, Arabic): the
suite counts each sentence's slot among its name's sentences in a template, so a whole EEC reads as
crossed, as the English ones do."""

import numpy as np
import pandas as pd
import pytest

from eval_harness.suites.eec.planner import planner_fields
from eval_harness.suites.eec.suite import with_emotion_slots

FORMS = {"male": ["cansado", "contento", "alegre"], "female": ["cansada", "contenta", "alegre"]}


def spanish_like_eec(seed: int = 0) -> pd.DataFrame:
    """5 templates x (Anglo, Latino) x (male, female) x 3 names x 3 words, the words inflected by
    gender; the last template has only the first 2 words (as some of the Spanish EEC's do)."""
    rng = np.random.default_rng(seed)
    rows = []
    for template in range(1, 6):
        for group in ("Anglo", "Latino"):
            for gender in ("male", "female"):
                for name in range(3):
                    for word in FORMS[gender][: 2 if template == 5 else 3]:
                        rows.append(
                            {
                                "template_id": template,
                                "group": group,
                                "gender": gender,
                                "person": f"{group}-{gender}-{name}",
                                "emotion_word": word,
                                "y": rng.uniform(0.3, 0.6),
                            }
                        )
    return pd.DataFrame(rows)


def fields(rows: pd.DataFrame) -> dict:
    data = {
        "rows": rows,
        "y": rows["y"].to_numpy(),
        "template_id": rows["template_id"].tolist(),
        "person": rows["person"].tolist(),
        "factors": {"group": rows["group"].tolist(), "gender": rows["gender"].tolist()},
        "references": {"group": "Anglo", "gender": "male"},
        "pool": None,
    }
    return planner_fields(data)


def test_slots_are_the_words_place_among_its_names_sentences_in_a_template():
    rows = with_emotion_slots(spanish_like_eec())
    slots = rows.groupby(["template_id", "person"])["emotion_slot"].apply(tuple)
    assert set(slots[slots.index.get_level_values(0) < 5]) == {(0, 1, 2)} and set(slots[5]) == {
        (0, 1)
    }


def test_a_gender_inflected_whole_eec_is_crossed_by_its_slots():
    rows = spanish_like_eec()
    by_slot = fields(with_emotion_slots(rows))
    by_form = fields(rows)
    pools = [
        f["planner_pool"] for f in by_slot.values()
    ]  # crossed: the harmonic mean of 16 cells of 9 and 4 of 6
    assert pools == pytest.approx([20 / (16 / 9 + 4 / 6)] * len(by_slot))
    assert {f["planner_pool_names"] for f in by_slot.values()} == {3.0}
    assert {f["planner_pool"] for f in by_form.values()} == {
        None
    }  # the inflected forms differ between cells
