"""Where the model card says an EEC number is measured: the benchmark task of a coefficient, and one line for a
record that cannot be placed (it was a task id spelt ``None-None-None``)."""

import pandas as pd
import pytest

from eval_harness.errors import InputError
from eval_harness.suites.eec.report import card_where


def test_a_coefficient_is_placed_on_its_eec_config_and_task():
    row = pd.Series({"metric": "estimate", "config": "en_black_white", "emotion": "anger", "term": "group:gender"})
    assert card_where(row, "estimate") == (
        "en_black_white",
        "train",  # a whole EEC config is one split
        "en_black_white-anger-group_x_gender",
        "anger group:gender estimate",
    )


def test_a_coefficient_without_its_term_is_one_line_not_a_task_named_none():
    row = pd.Series({"metric": "estimate", "config": "en_black_white", "emotion": "anger", "term": None})
    with pytest.raises(InputError, match="an EEC estimate record lacks its config, emotion or term"):
        card_where(row, "estimate")
