"""No absurd numbers: an EEC test whose MDE is larger than the 0-1 intensity scale, whose interval
is wider than it, or whose df are below 1 is printed as no measurement, in words, with what would
fix it; the record keeps its numbers; a test that measures is printed as before."""

import pandas as pd

from eval_harness.suites.eec.measurement import (
    WHAT_WOULD_FIX_IT,
    format_interval,
    format_mde,
    measurement_problem,
)
from eval_harness.suites.eec.sentences import effect_sentence, undetected_sentences

ROW = dict(
    suite="eec",
    dataset="eec",
    metric="effect",
    config="en_arab_anglo",
    emotion="joy",
    model="e5",
    term="group_ame",
    group_levels=["Anglo", "Arab"],
    gender_levels=["male", "female"],
    value=-0.02,
    p_value=0.4,
    df=6.0,
    clustered_df=6.0,
)


def row(**fields) -> pd.Series:
    return pd.Series({**ROW, **fields})


def test_a_measurement_is_printed_with_its_interval_and_mde():
    measured = row(ci_low=-0.05, ci_high=0.01, mde=0.041)
    assert measurement_problem(measured) == ""
    text = effect_sentence(measured).text
    assert (
        "95% CI [-0.05, +0.01]" in text
        and "smaller than 0.041" in text
        and "no measurement" not in text
    )
    assert format_mde(0.041) == "0.041" and format_interval(-0.05, 0.01) == "[-0.0500, 0.0100]"


def test_an_mde_or_interval_beyond_the_scale_or_df_below_one_is_no_measurement():
    cases = {
        "larger than the whole 0-1 intensity scale": row(ci_low=-0.3, ci_high=0.3, mde=244.0),
        "95% interval is wider than the whole 0-1 intensity scale": row(
            ci_low=-11.6, ci_high=11.6, mde=0.5
        ),
        "0.06 degrees of freedom, fewer than 1": row(ci_low=-0.3, ci_high=0.3, mde=0.5, df=0.06),
    }
    for words, case in cases.items():
        assert words in measurement_problem(case)
        text = effect_sentence(case).text
        assert "no measurement" in text and words in text and WHAT_WOULD_FIX_IT in text
        assert (
            "244" not in text.replace("(244)", "") and "11.6" not in text
        )  # no size the scale cannot have
        assert "95% CI [" not in text
    assert format_mde(244.0) == "> scale" and format_interval(-11.6, 11.6) == "wider than the scale"


def test_the_not_significant_line_of_a_fit_says_no_measurement_instead_of_an_mde_beyond_the_scale():
    results = pd.DataFrame(
        [
            {**ROW, "ci_low": -0.3, "ci_high": 0.3, "mde": 3428.0, "seed": None},
            {
                **ROW,
                "term": "gender_ame",
                "ci_low": -0.01,
                "ci_high": 0.03,
                "mde": 0.021,
                "seed": None,
            },
        ]
    )
    (line,) = undetected_sentences(results)["en_arab_anglo"]
    assert "could not have detected less than 0.021" in line
    assert "no measurement: its minimum detectable effect (3.43e+03)" in line and "3428" not in line
