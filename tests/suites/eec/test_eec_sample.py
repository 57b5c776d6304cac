"""The eec suite's `sample:` option: every template x group x gender cell kept, at most n rows each,
per seed."""

import pandas as pd
import pytest

from eval_harness.errors import ConfigError
from eval_harness.runner import parse_config
from eval_harness.suites.eec.suite import stratified_sample


def design(persons_per_cell: int = 5) -> pd.DataFrame:
    rows = [
        {
            "template_id": template,
            "group": group,
            "gender": gender,
            "person": f"{group}-{gender}-{i}",
        }
        for template in range(3)
        for group in ("European", "African-American", None)
        for gender in ("male", "female")
        for i in range(persons_per_cell)
    ]
    return pd.DataFrame(rows)


def cells(frame: pd.DataFrame) -> pd.Series:
    return frame.groupby(["template_id", frame["group"].fillna("-"), "gender"]).size()


def test_every_cell_is_kept_with_at_most_n_rows_and_the_draw_follows_the_seed():
    rows = design()
    sample = stratified_sample(rows, 2, seed=0)
    assert cells(sample).to_dict() == dict.fromkeys(cells(rows).index, 2)
    assert sample.index.is_monotonic_increasing
    assert stratified_sample(rows, 2, seed=0).equals(sample)
    assert not stratified_sample(rows, 2, seed=1).index.equals(sample.index)
    assert stratified_sample(rows, 10, seed=0).equals(rows)  # a cell smaller than n is kept whole


@pytest.mark.parametrize("value", [-1, True])
def test_a_bad_sample_is_a_config_error(value):
    with pytest.raises(ConfigError, match="sample must be a whole number"):
        parse_config(
            {
                "models": [{"type": "svm_tfidf"}],
                "suites": {"eec": {"languages": ["en"], "sample": value}},
            }
        )
