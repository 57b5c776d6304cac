"""The paper's significance stars, and that printing them needs no statistics library."""

import pytest
from helpers.imports import imported_after

from eval_harness.stats.significance import significance_stars


@pytest.mark.parametrize(
    ("p_value", "stars"),
    [
        (0.0, "***"),
        (0.01, "***"),
        (0.0101, "**"),
        (0.05, "**"),
        (0.1, "*"),
        (0.1001, ""),
        (1.0, ""),
    ],
)
def test_stars_follow_the_papers_thresholds(p_value, stars):
    assert significance_stars(p_value) == stars


def test_stars_load_no_statistics_library():
    loaded = imported_after("from eval_harness.stats.significance import significance_stars")
    assert not loaded & {"statsmodels", "scipy", "numpy"}, sorted(
        loaded & {"statsmodels", "scipy", "numpy"}
    )
