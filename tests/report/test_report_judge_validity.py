"""A zero-shot judge that does not answer with the scale's numerals is flagged like a poor
regressor: its bias results are marked, and the report says why (mean numeral mass), even when its
SemEval r happens to look fine."""

import pandas as pd

from eval_harness.suites.eec.report import MIN_REGRESSOR_R, flag_poor_regressors, regressor_section


def row(model, metric, value, **fields):
    base = {
        "model": model,
        "suite": "eec",
        "language": "en",
        "dataset": "eec",
        "config": "en_black_white",
    }
    return {
        **base,
        "emotion": "anger",
        "test": None,
        "term": None,
        "metric": metric,
        "value": value,
        **fields,
    }


RESULTS = pd.DataFrame(
    [
        row("judge", "pearson_r", 0.55, dataset="semeval2018_affect", config="en", split="test"),
        row("judge", "numeral_mass", 0.12),
        row("judge", "estimate", 0.3, term="group", p_value=0.001),
        row("probe", "pearson_r", 0.55, dataset="semeval2018_affect", config="en", split="test"),
        row("probe", "estimate", 0.3, term="group", p_value=0.001),
    ]
)


def test_a_judge_with_little_numeral_mass_marks_its_results_poor():
    flagged = flag_poor_regressors(RESULTS)
    estimate = flagged[flagged["metric"] == "estimate"].set_index("model")["poor_regressor"]
    assert bool(estimate["judge"]) and not bool(estimate["probe"])
    # the quality numbers themselves are not flagged against themselves
    assert not flagged[flagged["metric"].isin(["pearson_r", "numeral_mass"])][
        "poor_regressor"
    ].any()


def test_the_regressor_section_names_the_judge_and_its_numeral_mass():
    section = regressor_section(RESULTS, MIN_REGRESSOR_R)
    text = " ".join(getattr(block, "text", "") for block in section.blocks)
    assert "judge (en, anger: 0.12)" in text and "not answering the question" in text
    assert "probe" not in text.split("Zero-shot judges")[1]
