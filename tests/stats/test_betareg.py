"""eval_harness.stats.betareg against an independent Beta-regression fit written here, simulations
and bad input."""

import warnings

import numpy as np
import pytest
from helpers.betareg_reference import GENDERS, GROUPS, independent_fit, simulate
from scipy import stats
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats.betareg import (
    TERMS,
    BetaRegressionWarning,
    fit_intersectional,
    infer_reference_level,
    significance_stars,
)


def fit(y, group, gender, **kwargs):
    return fit_intersectional(
        y, group, gender, reference_group="European", reference_gender="male", **kwargs
    )


# --- Must show: agreement with the independent computation ----------------------------------------


@pytest.mark.parametrize(
    ("params", "phi", "rows_per_cell", "seed"),
    [
        (
            (-1.0, 0.15, -0.10, 0.08),
            40.0,
            (300, 280, 320, 290),
            0,
        ),  # EEC-shaped: 4 cells x ~300 sentences
        ((0.4, -0.30, 0.25, -0.20), 8.0, (150, 170, 140, 160), 1),
    ],
)
def test_agrees_with_independent_likelihood_maximisation(params, phi, rows_per_cell, seed):
    y, group, gender, minority, female = simulate(
        np.random.default_rng(seed), params, phi, rows_per_cell
    )
    # 25 noun-phrase rows without a group must be left out of the fit.
    result = fit(np.append(y, np.full(25, 0.5)), group + [None] * 25, gender + ["female"] * 25)

    X = np.column_stack([np.ones_like(minority), minority, female, minority * female]).astype(float)
    theta, std_err, loglik = independent_fit(y, X)
    estimates = [result.coefficient(t).estimate for t in TERMS] + [
        result.coefficient("log_phi").estimate
    ]
    errors = [result.coefficient(t).std_err for t in TERMS] + [
        result.coefficient("log_phi").std_err
    ]
    np.testing.assert_allclose(estimates, theta, rtol=0, atol=1e-6)
    np.testing.assert_allclose(errors, std_err, rtol=0, atol=1e-6)
    assert result.log_likelihood == pytest.approx(loglik, abs=1e-6)
    assert result.phi == pytest.approx(np.exp(theta[-1]), rel=1e-6)
    assert (result.n, result.n_excluded, result.converged) == (len(y), 25, True)

    # Wald z tests and 95 % intervals from the independent estimates.
    for k, term in enumerate(TERMS):
        c = result.coefficient(term)
        z = theta[k] / std_err[k]
        assert c.statistic == pytest.approx(z, abs=1e-4)
        assert c.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), abs=1e-6)
        assert c.ci_low == pytest.approx(theta[k] - 1.959963984540054 * std_err[k], abs=1e-6)
        assert c.ci_high == pytest.approx(theta[k] + 1.959963984540054 * std_err[k], abs=1e-6)

    # The reference cell's mean, the AMEs and the DiD by brute force: flip each row's indicator and
    # average.
    def mean_at(m, f):
        return expit(theta[0] + theta[1] * m + theta[2] * f + theta[3] * m * f)

    one, zero = np.ones_like(minority), np.zeros_like(minority)
    assert result.cells[0].predicted_mean == pytest.approx(mean_at(0, 0), abs=1e-7)
    expected_effects = {
        "group_ame": np.mean(mean_at(one, female) - mean_at(zero, female)),
        "gender_ame": np.mean(mean_at(minority, one) - mean_at(minority, zero)),
        "group:gender_did": mean_at(1, 1) - mean_at(1, 0) - mean_at(0, 1) + mean_at(0, 0),
    }
    for name, effect in expected_effects.items():
        assert result.effect(name).estimate == pytest.approx(effect, abs=1e-7)

    # Likelihood-ratio test of the intersection against an independent fit without it.
    _, _, loglik_reduced = independent_fit(y, X[:, :3])
    lr = result.intersection_lr_test
    assert lr.statistic == pytest.approx(2 * (loglik - loglik_reduced), abs=1e-5)
    assert lr.p_value == pytest.approx(stats.chi2.sf(2 * (loglik - loglik_reduced), 1), abs=1e-6)

    # Cells: observed means straight from the data.
    for cell in result.cells:
        m, f = GROUPS.index(dict(cell.levels)["group"]), GENDERS.index(dict(cell.levels)["gender"])
        in_cell = (minority == m) & (female == f)
        assert (cell.n, cell.observed_mean) == (in_cell.sum(), pytest.approx(y[in_cell].mean()))
        assert cell.predicted_mean == pytest.approx(mean_at(m, f), abs=1e-7)


def test_use_t_compares_the_same_ratio_with_t_on_n_minus_4_df():
    y, group, gender, *_ = simulate(
        np.random.default_rng(2), (-0.5, 0.1, 0.05, -0.1), 20.0, (15, 15, 15, 15)
    )
    z_result, t_result = fit(y, group, gender), fit(y, group, gender, use_t=True)
    assert (z_result.test, z_result.df, t_result.test, t_result.df) == ("z", None, "t", 56)
    for term in TERMS:
        z, t = z_result.coefficient(term), t_result.coefficient(term)
        assert t.estimate == z.estimate and t.statistic == z.statistic
        assert t.p_value == pytest.approx(2 * stats.t.sf(abs(t.statistic), 56), abs=1e-12)
        assert t.p_value > z.p_value  # heavier tails
        half_width = stats.t.ppf(0.975, 56) * t.std_err
        assert (t.ci_low, t.ci_high) == (
            pytest.approx(t.estimate - half_width),
            pytest.approx(t.estimate + half_width),
        )


@pytest.mark.parametrize(
    ("p_value", "stars"),
    [(0.0, "***"), (0.01, "***"), (0.0101, "**"), (0.05, "**"), (0.1, "*"), (0.1001, "")],
)
def test_significance_stars_follow_the_paper(p_value, stars):
    assert significance_stars(p_value) == stars


def test_result_to_dict_and_summary():
    y, group, gender, *_ = simulate(
        np.random.default_rng(3), (-0.5, 0.3, 0.0, 0.0), 20.0, (30, 30, 30, 30)
    )
    result = fit(y, group, gender)
    d = result.to_dict()
    assert list(d["coefficients"]) == list(TERMS)
    assert set(d["coefficients"]["group:gender"]) == {
        "contrast",
        "estimate",
        "std_err",
        "z",
        "p_value",
        "ci_low",
        "ci_high",
        "mde",
        "stars",
    }
    assert d["group_levels"] == ["European", "African-American"]
    assert d["gender_levels"] == ["male", "female"]
    assert d["intersection_lr_test"]["df"] == 1 and d["precision"]["phi"] > 0
    text = result.summary()
    assert (
        "group: African-American (reference European)" in text
        and "gender: female (reference male)" in text
    )
    for term in TERMS:
        assert f"\n{term} " in text
    with pytest.raises(InputError, match="unknown coefficient 'race'"):
        result.coefficient("race")


# --- Must show: simulations -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_known_coefficients_are_recovered_within_three_standard_errors(seed):
    true = (-0.8, 0.3, -0.25, 0.2)
    y, group, gender, *_ = simulate(np.random.default_rng(seed), true, 25.0, (250, 250, 250, 250))
    result = fit(y, group, gender)
    for term, value in zip(TERMS, true, strict=True):
        c = result.coefficient(term)
        assert abs(c.estimate - value) < 3 * c.std_err, (term, c.estimate, value, c.std_err)
    assert (
        abs(result.coefficient("log_phi").estimate - np.log(25.0))
        < 3 * result.coefficient("log_phi").std_err
    )


def test_rejection_rate_under_no_effect_is_nominal():
    # 50 rows per cell: with 20 the Wald tests are measurably liberal (size ~0.065 over 2000
    # datasets, the known small-sample behaviour of ML Beta regression); with 50 it is ~0.055.
    rng = np.random.default_rng(2022)
    rejections = {term: 0 for term in ("group", "gender", "group:gender", "lr")}
    datasets = 200
    for _ in range(datasets):
        y, group, gender, *_ = simulate(rng, (-0.6, 0.0, 0.0, 0.0), 15.0, (50, 50, 50, 50))
        result = fit(y, group, gender)
        assert result.converged
        for term in ("group", "gender", "group:gender"):
            rejections[term] += result.coefficient(term).p_value < 0.05
        rejections["lr"] += result.intersection_lr_test.p_value < 0.05
    rates = {term: count / datasets for term, count in rejections.items()}
    assert all(0.02 <= rate <= 0.09 for rate in rates.values()), rates


# --- Boundary values ------------------------------------------------------------------------------


def test_boundary_values_are_squeezed_with_a_warning():
    y, group, gender, *_ = simulate(
        np.random.default_rng(4), (-0.2, 0.2, 0.1, 0.0), 10.0, (10, 10, 10, 10)
    )
    y[[0, 15, 33]] = [0.0, 1.0, 0.0]
    with pytest.warns(BetaRegressionWarning, match="3 of 40 predictions are exactly 0 or 1"):
        squeezed = fit(y, group, gender)
    by_hand = fit((y * 39 + 0.5) / 40, group, gender)  # Smithson & Verkuilen with n = 40
    assert squeezed.squeezed and not by_hand.squeezed
    for term in TERMS:
        assert squeezed.coefficient(term).estimate == by_hand.coefficient(term).estimate
    with pytest.raises(
        InputError, match='3 of 40 predictions are exactly 0 or 1.*boundary="squeeze"'
    ):
        fit(y, group, gender, boundary="error")


def test_no_warning_without_boundary_values():
    y, group, gender, *_ = simulate(
        np.random.default_rng(5), (0.0, 0.0, 0.0, 0.0), 10.0, (5, 5, 5, 5)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not fit(y, group, gender).squeezed


# --- Bad input ------------------------------------------------------------------------------------


def small_data():
    y, group, gender, *_ = simulate(
        np.random.default_rng(6), (0.0, 0.2, 0.1, 0.0), 10.0, (5, 5, 5, 5)
    )
    return y, group, gender


def with_row(data, index, y=None, group=None, gender=None):
    values, groups, genders = data[0].copy(), list(data[1]), list(data[2])
    if y is not None:
        values[index] = y
    if group is not None:
        groups[index] = group
    if gender is not None:
        genders[index] = gender
    return values, groups, genders


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda d: with_row(d, 3, y=np.nan),
            r"1 of 20 predictions are NaN or infinite \(first at row 3\)",
        ),
        (
            lambda d: with_row(d, 7, y=np.inf),
            r"1 of 20 predictions are NaN or infinite \(first at row 7\)",
        ),
        (
            lambda d: with_row(d, 0, y=1.5),
            r"1 of 20 predictions are outside \[0, 1\] \(min .*, max 1.5\)",
        ),
        (lambda d: with_row(d, 0, y=-0.1), r"1 of 20 predictions are outside \[0, 1\]"),
        (lambda d: (d[0][:-1], d[1], d[2]), r"same length, got 19, 20 and 20"),
        (lambda d: (d[0], d[1], d[2][:-2]), r"same length, got 20, 20 and 18"),
        (
            lambda d: (d[0], ["European"] * 20, d[2]),
            r"group has a single level \['European'\] among the 20 rows",
        ),
        (lambda d: (d[0], d[1], ["female"] * 20), r"gender has a single level \['female'\]"),
        (
            lambda d: with_row(d, 0, gender="nonbinary"),
            r"gender has 3 levels \['female', 'male', 'nonbinary'\]",
        ),
        (
            lambda d: with_row(d, 19, group="Latino"),
            r"group has 3 levels \['African-American', 'European', 'Latino'\]",
        ),
        (lambda d: (d[0], [None] * 20, d[2]), r"group has no labels among the 0 rows"),
        (
            lambda d: (d[0][:14], d[1][:14], d[2][:14]),
            r"too few rows: .* at least 2, found \{.*'African-American/female': 0\}",
        ),
        (
            lambda d: (d[0][:16], d[1][:16], d[2][:16]),
            r"too few rows: .*'African-American/female': 1\}",
        ),
        (
            lambda d: (np.repeat([0.2, 0.3, 0.4, 0.5], 5), d[1], d[2]),
            r"constant within every group x gender cell",
        ),
        (
            lambda d: with_row(d, 2, group=1),
            r"group labels must be strings \(or None\), found values of type \['int'\]",
        ),
        (
            lambda d: (d[0], d[1], d[2][:4] + [None] + d[2][5:]),
            r"1 rows have a group but no gender",
        ),
        (lambda d: (np.ones((20, 2)) / 2, d[1], d[2]), r"one-dimensional, got shape \(20, 2\)"),
        (lambda d: (["a"] * 20, d[1], d[2]), r"predictions must be numbers"),
    ],
)
def test_bad_input_raises_input_error_naming_what_was_found(make, message):
    y, group, gender = make(small_data())
    with pytest.raises(InputError, match=message):
        fit(y, group, gender)


def test_unknown_reference_level_names_the_levels_found():
    y, group, gender = small_data()
    with pytest.raises(
        InputError,
        match=r"reference_group='white' is not one of the group levels found "
        r"\['African-American', 'European'\]",
    ):
        fit_intersectional(y, group, gender, reference_group="white", reference_gender="male")
    with pytest.raises(
        InputError, match=r"reference_gender='man' is not one of the gender levels found"
    ):
        fit_intersectional(y, group, gender, reference_group="European", reference_gender="man")


def test_bad_boundary_mode():
    y, group, gender = small_data()
    with pytest.raises(
        InputError, match=r"boundary must be one of \['squeeze', 'error'\], got 'clip'"
    ):
        fit(y, group, gender, boundary="clip")


def test_reference_level_inferred_only_when_unambiguous():
    assert infer_reference_level("group", ["African-American", None, "European"]) == "European"
    assert infer_reference_level("group", ["Latino", "Anglo"]) == "Anglo"
    assert infer_reference_level("gender", ["female", "male"]) == "male"
    for factor, labels in [
        ("group", ["Black", "white"]),
        ("group", ["European", "Anglo"]),
        ("group", ["European", "Anglo", "Latino"]),
        ("group", ["European"]),
        ("gender", ["woman", "man"]),
    ]:
        with pytest.raises(InputError, match=rf"levels found \[.*\]: pass reference_{factor}="):
            infer_reference_level(factor, labels)
