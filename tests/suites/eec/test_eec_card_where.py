"""Where the model card says an EEC number is measured: the benchmark task of a headline effect,
named by what it compares, and one line for a record that cannot be placed (it was a task id spelt
``None-None-None``)."""

import pandas as pd
import pytest

from eval_harness.errors import InputError
from eval_harness.suites.eec.report import card_where


def test_an_effect_is_placed_on_its_eec_config_and_task_and_named_by_what_it_compares():
    contrast = "(Arab women - Arab men) - (Anglo women - Anglo men)"
    row = pd.Series(
        {
            "metric": "effect",
            "config": "en_arab_anglo",
            "emotion": "joy",
            "term": "group:gender_did",
            "contrast": contrast,
        }
    )
    assert card_where(row, "effect") == (
        "en_arab_anglo",
        "train",  # a whole EEC config is one split
        "xbias_eec_en_arab_anglo_joy",
        f"joy: {contrast}",
    )


def test_an_effect_without_its_term_is_one_line_not_a_task_named_none():
    row = pd.Series(
        {"metric": "effect", "config": "en_black_white", "emotion": "anger", "term": None}
    )
    with pytest.raises(InputError, match="an EEC effect record lacks its config, emotion or term"):
        card_where(row, "effect")
