"""The verdict rule against a direct computation with scipy.stats at and around its boundaries: the
interval touching ±delta, the TOST p at alpha, delta = 0, an undefined standard error, t and z
references."""

import math

import pytest
from scipy import stats

from eval_harness.errors import InputError
from eval_harness.stats.verdict import BEYOND, CANNOT_TELL, NONZERO, NOT_MEASURED, WITHIN, verdict

ALPHA = 0.05
NUDGE = 1e-9


def reference(df):
    return stats.norm if df is None else stats.t(df)


def direct(estimate, std_err, df, margin, alpha=ALPHA):
    """The rule written out from its definition, on scipy.stats' distributions."""
    law = reference(df)
    half = law.ppf(1 - alpha / 2) * std_err
    low, high = estimate - half, estimate + half
    p_tost = max(law.sf((estimate + margin) / std_err), law.cdf((estimate - margin) / std_err))
    if low > margin or high < -margin:
        return BEYOND
    if p_tost <= alpha:
        return WITHIN
    if low > 0 or high < 0:
        return NONZERO
    return CANNOT_TELL


@pytest.mark.parametrize("df", [None, 2.4, 6.0, 40.0])
@pytest.mark.parametrize("sign", [1, -1])
def test_interval_touching_the_margin_is_not_beyond_and_just_past_it_is(df, sign):
    margin, std_err = 0.01, 0.003
    touching = (
        margin + reference(df).ppf(1 - ALPHA / 2) * std_err
    )  # the 95% interval's near end is at ±delta
    at = verdict(sign * touching, std_err, df, margin)
    assert (
        at.ci_low == pytest.approx(margin, abs=1e-12)
        if sign > 0
        else at.ci_high == pytest.approx(-margin, abs=1e-12)
    )
    past, short = (
        verdict(sign * (touching + NUDGE), std_err, df, margin),
        verdict(sign * (touching - NUDGE), std_err, df, margin),
    )
    assert past.verdict == BEYOND == direct(sign * (touching + NUDGE), std_err, df, margin)
    assert short.verdict == NONZERO == direct(sign * (touching - NUDGE), std_err, df, margin)


@pytest.mark.parametrize("df", [None, 2.4, 12.0])
def test_tost_p_at_alpha_is_within_and_just_above_is_not(df):
    margin, std_err = 0.01, 0.002
    edge = (
        margin - reference(df).ppf(1 - ALPHA) * std_err
    )  # the 90% interval's far end is at +delta: TOST p = alpha
    at = verdict(edge, std_err, df, margin)
    assert at.p_tost == pytest.approx(ALPHA, rel=1e-9)
    assert at.p_tost == pytest.approx(reference(df).cdf((edge - margin) / std_err), rel=1e-12)
    assert (
        verdict(edge - NUDGE, std_err, df, margin).verdict
        == WITHIN
        == direct(edge - NUDGE, std_err, df, margin)
    )
    outside = verdict(edge + NUDGE, std_err, df, margin)
    assert outside.verdict != WITHIN and outside.verdict == direct(
        edge + NUDGE, std_err, df, margin
    )


def test_delta_zero_is_the_two_sided_test_and_never_within():
    std_err = 0.01
    critical = stats.norm.ppf(1 - ALPHA / 2) * std_err
    assert verdict(critical + NUDGE, std_err, None, 0.0).verdict == BEYOND
    assert verdict(critical - NUDGE, std_err, None, 0.0).verdict == CANNOT_TELL
    assert (
        verdict(0.0, 1e-9, None, 0.0).verdict == CANNOT_TELL
    )  # a tiny SE still proves no equivalence to 0
    found = verdict(0.03, std_err, None, 0.0)
    assert found.p_zero == pytest.approx(2 * stats.norm.sf(3.0), rel=1e-12)
    assert found.words() == "beyond ±0"


@pytest.mark.parametrize("std_err", [0.0, math.nan, math.inf, None, -0.1])
def test_an_undefined_standard_error_is_not_measured(std_err):
    found = verdict(0.02, std_err, 5.0, 0.01)
    assert found.verdict == NOT_MEASURED and found.reason == "no usable standard error"
    assert math.isnan(found.p_tost) and math.isnan(found.ci_low)


def test_an_effect_through_a_poor_regressor_is_not_measured_whatever_its_test_says():
    found = verdict(0.5, 0.001, None, 0.01, measured=False, reason="poor regressor")
    assert found.verdict == NOT_MEASURED and found.words() == "not measured (poor regressor)"


def test_verdicts_agree_with_the_direct_rule_over_a_grid():
    grid = [x / 1000 for x in range(-40, 41, 3)]
    for df in (None, 3.0, 30.0):
        for estimate in grid:
            for std_err in (0.001, 0.004, 0.02):
                assert verdict(estimate, std_err, df, 0.01).verdict == direct(
                    estimate, std_err, df, 0.01
                )


def test_words_always_carry_the_margin():
    assert verdict(0.0, 0.001, None, 0.01).words() == "within ±0.01"
    assert verdict(0.0, 0.02, None, 0.01).words() == "cannot tell (±0.01)"
    assert verdict(0.012, 0.004, None, 0.01).words() == "nonzero, not shown beyond ±0.01"


def test_few_df_is_flagged():
    assert verdict(0.0, 0.01, 2.4, 0.01).few_df and not verdict(0.0, 0.01, None, 0.01).few_df


@pytest.mark.parametrize(
    "arguments",
    [
        dict(margin=-0.01),
        dict(margin=math.nan),
        dict(alpha=0.5),
        dict(alpha=0.0),
        dict(df=0.0),
        dict(df=-1.0),
    ],
)
def test_bad_inputs_are_one_line_errors(arguments):
    given = dict(estimate=0.0, std_err=0.01, df=None, margin=0.01) | arguments
    with pytest.raises(InputError):
        verdict(**given)
