"""Effects on the predicted-intensity scale: delta-method standard errors against numeric
differentiation and a parametric bootstrap, a planted data set whose conditional effects have
opposite signs, and their words."""

import numpy as np
import pytest
from helpers.betareg_reference import (
    beta_expected_information,
    central_differences,
    cr1_sandwich,
    independent_fit,
    numeric_hessian,
    numeric_row_scores,
    simulate,
)
from scipy import stats
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats.betareg import EFFECTS, PARAMETERS, TERMS, fit_intersectional
from eval_harness.stats.significance import significance_stars


def fit(y, group, gender, **kwargs):
    return fit_intersectional(
        y, group, gender, reference_group="European", reference_gender="male", **kwargs
    )


def effects_by_brute_force(minority, female):
    """Each effect as a function of theta, written from its definition: flip the rows' indicators,
    average."""

    def mean_at(theta, m, f):
        return expit(theta[0] + theta[1] * m + theta[2] * f + theta[3] * m * f)

    one, zero = np.ones_like(minority), np.zeros_like(minority)
    return {
        "group_within_reference_gender": lambda t: mean_at(t, 1, 0) - mean_at(t, 0, 0),
        "group_within_other_gender": lambda t: mean_at(t, 1, 1) - mean_at(t, 0, 1),
        "gender_within_reference_group": lambda t: mean_at(t, 0, 1) - mean_at(t, 0, 0),
        "gender_within_other_group": lambda t: mean_at(t, 1, 1) - mean_at(t, 1, 0),
        "group_ame": lambda t: np.mean(mean_at(t, one, female) - mean_at(t, zero, female)),
        "gender_ame": lambda t: np.mean(mean_at(t, minority, one) - mean_at(t, minority, zero)),
        "group:gender_did": lambda t: (
            (mean_at(t, 1, 1) - mean_at(t, 1, 0)) - (mean_at(t, 0, 1) - mean_at(t, 0, 0))
        ),
    }


@pytest.mark.parametrize("cov_type", ["model", "cluster"])
def test_delta_method_standard_errors_equal_numeric_differentiation(cov_type):
    """SE = sqrt(g' V g): g by central differences of the brute-force effect, V computed
    independently here (inverse expected information, or the CR1 sandwich from numeric per-row
    scores and a numeric Hessian)."""
    rng = np.random.default_rng(7)
    y, group, gender, minority, female = simulate(
        rng, (-0.9, 0.25, -0.15, 0.3), 30.0, (90, 70, 110, 60)
    )
    templates = rng.integers(0, 11, len(y))
    clusters = {"template_id": templates} if cov_type == "cluster" else None
    result = fit(y, group, gender, cov_type=cov_type, clusters=clusters)

    X = np.column_stack([np.ones_like(minority), minority, female, minority * female]).astype(float)
    theta, _, _ = independent_fit(y, X)
    if cov_type == "model":
        covariance = np.linalg.inv(beta_expected_information(theta, X))
        reference = stats.norm()
    else:
        covariance = cr1_sandwich(
            numeric_row_scores(theta, y, X), numeric_hessian(theta, y, X), templates
        )
        reference = stats.t(10)  # 11 templates: t with G - 1 df by default
    assert result.df == (None if cov_type == "model" else 10)

    critical = reference.ppf(0.975)
    assert [e.name for e in result.effects] == list(EFFECTS)
    for name, function in effects_by_brute_force(minority, female).items():
        gradient = central_differences(function, theta, step=1e-6)
        assert gradient[-1] == 0  # the precision does not move a mean
        std_err = np.sqrt(gradient @ covariance @ gradient)
        effect = result.effect(name)
        assert effect.estimate == pytest.approx(function(theta), abs=1e-8), name
        assert effect.std_err == pytest.approx(std_err, rel=1e-5), name
        assert effect.statistic == pytest.approx(function(theta) / std_err, rel=1e-5), name
        assert effect.p_value == pytest.approx(
            2 * reference.sf(abs(function(theta) / std_err)), rel=1e-4, abs=1e-12
        )
        assert effect.ci_low == pytest.approx(function(theta) - critical * std_err, abs=1e-7), name
        assert effect.ci_high == pytest.approx(function(theta) + critical * std_err, abs=1e-7), name


@pytest.mark.slow
def test_delta_method_standard_errors_match_a_parametric_bootstrap():
    """Refit 300 data sets drawn from the fitted model (same rows): the SD of each effect's
    estimates is within 15 % of the delta-method SE (the SD of an SD from 300 draws is ~4 %, so 15 %
    is ~3.7 of its SEs)."""
    rng = np.random.default_rng(11)
    y, group, gender, minority, female = simulate(
        rng, (-0.6, 0.2, 0.1, -0.25), 20.0, (60, 50, 70, 40)
    )
    result = fit(y, group, gender)
    theta = np.array([result.coefficient(t).estimate for t in TERMS])
    mu = expit(theta[0] + theta[1] * minority + theta[2] * female + theta[3] * minority * female)
    phi = result.phi
    draws = np.array(
        [
            [refit.effect(name).estimate for name in EFFECTS]
            for refit in (
                fit(rng.beta(mu * phi, (1 - mu) * phi), group, gender) for _ in range(300)
            )
        ]
    )
    delta = np.array([result.effect(name).std_err for name in EFFECTS])
    np.testing.assert_allclose(draws.std(axis=0, ddof=1), delta, rtol=0.15)


def planted_opposite_signs(seed=3, rows=150):
    """Arab men predicted 0.10 higher than Anglo men, Arab women 0.10 lower than Anglo women."""
    cells = {
        ("Anglo", "male"): 0.30,
        ("Arab", "male"): 0.40,
        ("Anglo", "female"): 0.40,
        ("Arab", "female"): 0.30,
    }
    rng = np.random.default_rng(seed)
    y, group, gender = [], [], []
    for (g, s), mean in cells.items():
        y += rng.beta(mean * 40, (1 - mean) * 40, rows).tolist()
        group += [g] * rows
        gender += [s] * rows
    return y, group, gender


def test_planted_opposite_conditional_effects_are_reported_with_their_own_signs():
    y, group, gender = planted_opposite_signs()
    result = fit_intersectional(y, group, gender, reference_group="Anglo", reference_gender="male")

    among_men, among_women = (
        result.effect("group_within_reference_gender"),
        result.effect("group_within_other_gender"),
    )
    assert among_men.contrast == "Arab vs Anglo, among men"
    assert among_women.contrast == "Arab vs Anglo, among women"
    assert (
        among_men.estimate == pytest.approx(0.10, abs=0.03)
        and among_men.ci_low > 0
        and significance_stars(among_men.p_value) == "***"
    )
    assert among_women.estimate == pytest.approx(-0.10, abs=0.03) and among_women.ci_high < 0
    assert significance_stars(among_women.p_value) == "***"
    # The average over genders washes out: the AME is between the two, near 0, and says which rows
    # it averages.
    ame = result.effect("group_ame")
    assert among_women.estimate < ame.estimate < among_men.estimate and abs(ame.estimate) < 0.03
    assert ame.contrast == "Arab vs Anglo, averaged over the fitted rows (50% women)"
    did = result.effect("group:gender_did")
    assert did.estimate == pytest.approx(-0.20, abs=0.04) and did.ci_high < 0
    assert did.contrast == "(Arab women - Arab men) - (Anglo women - Anglo men)"
    # The coefficient of group is the among-men contrast on the logit scale: same sign, and it says
    # so.
    coefficient = result.coefficient("group")
    assert coefficient.estimate > 0 and coefficient.contrast.endswith(
        "Arab vs Anglo, among men (the reference gender)"
    )
    assert result.coefficient("gender").contrast.endswith(
        "women vs men, within Anglo (the reference group)"
    )

    for effect in result.effects:
        assert np.sign(effect.statistic) == np.sign(effect.estimate), effect.name
        assert effect.ci_low < effect.estimate < effect.ci_high, effect.name
        assert (effect.p_value <= 0.05) == (effect.ci_low > 0 or effect.ci_high < 0), effect.name


def test_effects_in_to_dict_and_summary():
    y, group, gender = planted_opposite_signs(rows=20)
    result = fit_intersectional(y, group, gender, reference_group="Anglo", reference_gender="male")
    d = result.to_dict()
    assert list(d["effects"]) == list(EFFECTS)
    among_women = result.effect("group_within_other_gender")
    assert d["effects"]["group_within_other_gender"] == {
        **{k: v for k, v in among_women.to_dict().items() if k not in ("name", "levels", "given")},
        "stars": significance_stars(among_women.p_value),
    }
    assert set(d["effects"]["group_ame"]) == {
        "term",
        "kind",
        "contrast",
        "estimate",
        "std_err",
        "statistic",
        "p_value",
        "ci_low",
        "ci_high",
        "mde",
        "stars",
    }
    assert np.array(d["covariance"]).shape == (len(PARAMETERS), len(PARAMETERS))
    assert (d["cov_type"], d["cluster_by"], d["n_clusters"]) == ("model", [], [])
    text = result.summary()
    for effect in result.effects:
        assert f"\n{effect.name} " in text and effect.contrast in text
    assert "logit difference, Arab vs Anglo, among men (the reference gender)" in text
    with pytest.raises(InputError, match="unknown effect 'ame'"):
        result.effect("ame")


def test_contrasts_use_the_caller_level_names_for_any_labels():
    y, group, gender = planted_opposite_signs(rows=10)
    gender = ["f" if g == "female" else "m" for g in gender]
    result = fit_intersectional(y, group, gender, reference_group="Arab", reference_gender="f")
    assert result.effect("group_within_reference_gender").contrast == "Anglo vs Arab, among f"
    assert result.effect("gender_within_other_group").contrast == "m vs f, within Anglo"
