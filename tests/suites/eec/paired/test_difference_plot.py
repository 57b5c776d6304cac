"""The forest plot of differences keeps its axis on the intensity scale: an interval wider than +-1
(a test on very few degrees of freedom) is cut at the axis with its cut end marked, instead of
squashing every other interval."""

import pandas as pd

from eval_harness.suites.eec.paired.plots import AXIS_BOUND, difference_figure


def rows(half_widths):
    return pd.DataFrame(
        [
            {
                "emotion": "anger",
                "model": "m",
                "term": f"group[Arab]|gender={gender}",
                "kind": "conditional",
                "effect_term": "group",
                "levels": [["group", "Arab"]],
                "given": [["gender", gender]],
                "factors": {"group": ["Anglo", "Arab"], "gender": ["male", "female"]},
                "value": 0.02,
                "ci_low": 0.02 - half,
                "ci_high": 0.02 + half,
            }
            for gender, half in zip(("male", "female"), half_widths, strict=True)
        ]
    )


def test_an_interval_wider_than_the_scale_is_cut_and_marked():
    figure = difference_figure(rows([0.05, 11.6]), "model", "t", "difference")
    axis = figure.axes[0]
    assert axis.get_xlim() == (-AXIS_BOUND * 1.05, AXIS_BOUND * 1.05)
    assert "cut" in axis.get_xlabel()
    markers = [line.get_marker() for line in axis.lines]
    assert markers.count("<") == 1 and markers.count(">") == 1


def test_intervals_within_the_scale_keep_their_own_axis():
    figure = difference_figure(rows([0.05, 0.1]), "model", "t", "difference")
    axis = figure.axes[0]
    assert axis.get_xlim()[1] < 0.5 and "cut" not in axis.get_xlabel()
    assert not [line for line in axis.lines if line.get_marker() in ("<", ">")]
