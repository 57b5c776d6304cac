"""fit_intersectional's guards (issue 14): booleans are booleans, nearly constant cells are an error
rather than NaN, and the convergence criterion accepts a low-noise optimum that an independent
maximisation confirms."""

import warnings

import numpy as np
import pytest
from helpers.betareg_reference import GENDERS, GROUPS, beta_loglik, beta_score, simulate
from scipy import optimize
from scipy.special import expit, gammaln

from eval_harness.errors import InputError
from eval_harness.stats.beta_likelihood import DECREMENT_TOLERANCE
from eval_harness.stats.betareg import TERMS, fit_intersectional


def fit(y, group, gender, **kwargs):
    return fit_intersectional(
        y, group, gender, reference_group="European", reference_gender="male", **kwargs
    )


def cells_with_noise(noise_sd, means=(0.2, 0.3, 0.6, 0.8), rows=30, seed=0):
    """Rows per cell (minority, female) = (0,0), (0,1), (1,0), (1,1) at ``means`` plus Gaussian
    noise."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([mean + noise_sd * rng.standard_normal(rows) for mean in means])
    minority, female = np.repeat([0, 0, 1, 1], rows), np.tile(np.repeat([0, 1], rows), 2)
    return (
        y,
        np.array(GROUPS)[minority].tolist(),
        np.array(GENDERS)[female].tolist(),
        minority,
        female,
    )


@pytest.mark.parametrize("use_t", ["no", "False", "true", 1, 0, 1.0])
def test_use_t_must_be_a_boolean(use_t):
    y, group, gender, *_ = simulate(
        np.random.default_rng(6), (0.0, 0.2, 0.1, 0.0), 10.0, (5, 5, 5, 5)
    )
    with pytest.raises(InputError, match=r"use_t must be True, False or None, got"):
        fit(y, group, gender, use_t=use_t)


def test_numpy_booleans_are_booleans():
    y, group, gender, *_ = simulate(
        np.random.default_rng(6), (0.0, 0.2, 0.1, 0.0), 10.0, (5, 5, 5, 5)
    )
    assert fit(y, group, gender, use_t=np.True_).test == "t"
    assert fit(y, group, gender, use_t=np.False_).test == "z"


@pytest.mark.parametrize("noise_sd", [1e-12, 1e-9, 1e-6])
def test_nearly_constant_cells_are_an_error_naming_the_spread(noise_sd):
    y, group, gender, *_ = cells_with_noise(noise_sd)
    with pytest.raises(
        InputError,
        match=r"predictions barely vary within the group x gender cells \(largest "
        r"within-cell range [0-9.e+-]+, pooled within-cell SD [0-9.e+-]+\): "
        r"the implied Beta precision ~[0-9.e+]+ exceeds 1e\+10",
    ):
        fit(y, group, gender)


def test_low_noise_optimum_is_converged_and_agrees_with_an_independent_maximisation():
    """Well-separated cells with noise SD 1e-3: phi ~ 2e5, so the raw score at the optimum is large
    in absolute terms (the old per-row score criterion said not converged). BFGS on the
    log-likelihood written out in betareg_reference lands on the same parameters, within what either
    optimiser can resolve.

    Near the optimum ``l(theta*) - l(theta) = d' I d / 2`` (``d = theta - theta*``), and the largest
    ``|d_j|`` with ``d' I d / 2 <= e`` is ``SE_j sqrt(2 e)``. Ours stops at a Newton decrement ``d'
    I d <= DECREMENT_TOLERANCE (1 + |l|)``; BFGS compares function values, which are exact only to
    ``delta = eps sum |terms|`` (terms of ~1e6 here), so it stops anywhere the likelihood is flatter
    than that. The two bounds add."""
    y, group, gender, minority, female = cells_with_noise(1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "did not converge" warning
        result = fit(y, group, gender)
    assert result.converged

    X = np.column_stack([np.ones_like(minority), minority, female, minority * female]).astype(float)
    found = optimize.minimize(
        lambda t: -beta_loglik(t, y, X),
        np.zeros(5),
        jac=lambda t: -beta_score(t, y, X),
        method="BFGS",
        options={"gtol": 1e-9, "maxiter": 10_000},
    )
    ours = np.array(
        [result.coefficient(t).estimate for t in TERMS] + [result.coefficient("log_phi").estimate]
    )
    delta = loglik_rounding(ours, y, X)
    decrement = DECREMENT_TOLERANCE * (1 + abs(result.log_likelihood))
    std_errs = np.sqrt(np.diag(np.array(result.covariance)))
    assert np.all(np.abs(ours - found.x) <= std_errs * (np.sqrt(2 * delta) + np.sqrt(decrement)))
    # Each evaluation is off by at most delta, and ours is below the maximum by at most decrement
    # / 2.
    assert abs(beta_loglik(ours, y, X) - -found.fun) <= 2 * delta + decrement / 2
    for value in result.to_dict()["coefficients"]["group"].values():
        assert not (isinstance(value, float) and np.isnan(value))


def loglik_rounding(theta, y, X):
    """A bound on the rounding error of ``beta_loglik``: float64's ``eps`` times the sum of its
    terms' sizes."""
    mu, phi = expit(X @ theta[:-1]), np.exp(theta[-1])
    terms = [gammaln(phi), gammaln(mu * phi), gammaln((1 - mu) * phi), (mu * phi - 1) * np.log(y)]
    terms.append(((1 - mu) * phi - 1) * np.log1p(-y))
    return np.finfo(float).eps * sum(
        np.sum(np.abs(np.broadcast_to(term, y.shape))) for term in terms
    )


def test_a_fit_stopped_early_is_not_converged(monkeypatch):
    """The relative criterion still says no when the optimiser stops away from the optimum (here
    after 1 step)."""
    from eval_harness.stats import beta_likelihood, betareg

    monkeypatch.setattr(beta_likelihood, "MAX_ITERATIONS", 1)
    y, group, gender, *_ = simulate(
        np.random.default_rng(8), (-0.5, 0.4, -0.3, 0.2), 15.0, (40, 40, 40, 40)
    )
    with pytest.warns(betareg.BetaRegressionWarning, match="did not converge"):
        assert not fit(y, group, gender).converged
