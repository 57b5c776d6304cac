"""The Beta regression from sufficient statistics equals the row-wise fit, and k-level designs equal
a direct maximisation of the Beta likelihood.

Row-wise reference: statsmodels' ``BetaModel`` on a treatment-coded design matrix built here
(``treatment_columns``), with the CR1 sandwich of its per-row scores summed by cluster in a dict
(``cr1_sandwich``); effects by their definition (corners of the cells, averaged over the rows for an
AME) with the analytic gradient ``mu (1 - mu) x``. None of it goes through eval_harness' aggregated
code.
"""

import itertools
import warnings

import numpy as np
import pytest
from helpers.betareg_reference import (
    cgm_two_way,
    cr1_sandwich,
    crossed_rows,
    independent_fit,
    numeric_hessian,
    numeric_row_scores,
    treatment_columns,
    two_way_variance,
)
from scipy import stats
from scipy.special import expit
from statsmodels.othermod.betareg import BetaModel

from eval_harness.stats.beta_likelihood import fit_rows
from eval_harness.stats.betareg import fit_intersectional
from eval_harness.stats.factorial import fit_factorial

TWO_BY_TWO = {"group": ("European", "African-American"), "gender": ("male", "female")}
THREE_BY_THREE = {
    "group": ("European", "Arab", "Latino"),
    "gender": ("male", "female", "non-binary"),
}
THREE_FACTORS = {
    "group": ("Anglo", "Arab", "Latino"),
    "gender": ("male", "female"),
    "age": ("young", "old"),
}


def simulate(levels, seed, templates=10, persons_per_cell=6, phi=30.0, template_sd=0.25):
    """Crossed EEC-shaped rows with random cell logits and a template random intercept (so
    clustering matters)."""
    rng = np.random.default_rng(seed)
    rows = crossed_rows(levels, templates, persons_per_cell)
    shape = [len(v) for v in levels.values()]
    cell_logit = rng.normal(-0.8, 0.25, shape)
    logit = cell_logit[tuple(rows["index"][name] for name in levels)]
    logit = logit + rng.normal(0, template_sd, templates)[rows["template"]]
    mu = expit(logit)
    rows["y"] = rng.beta(mu * phi, (1 - mu) * phi)
    return rows


def row_wise(y, X, precision=None):
    model = BetaModel(y, X, exog_precision=precision)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = model.fit(method="newton", cov_type="eim", maxiter=100, tol=1e-12, disp=False)
    params = np.asarray(result.params)
    return {
        "params": params,
        "model_cov": np.asarray(result.cov_params()),
        "llf": float(result.llf),
        "scores": model.score_obs(params),
        "hessian": model.hessian(params, observed=True),
    }


def sandwich(fit, rows, cluster_by):
    """CR1 one-way, or Cameron-Gelbach-Miller two-way with the pairs (unclipped), from the row-wise
    scores; and the one-way matrices that floor a two-way variance (none one-way)."""
    labels = {"template_id": rows["template"], "person": rows["person"]}
    if len(cluster_by) == 1:
        return cr1_sandwich(fit["scores"], fit["hessian"], labels[cluster_by[0]]), []
    return cgm_two_way(fit["scores"], fit["hessian"], *(labels[name] for name in cluster_by))


def effect_by_definition(effect, levels, order, index, beta):
    """(estimate, gradient in beta) of an effect from its definition: the alternating sum over the
    corners of its contrasted levels (a factor at its level or at its reference), at its given
    stratum, averaged over the fitted rows' other factors for an AME, with d mu / d beta = mu (1 -
    mu) x."""
    contrasted = dict(effect.levels)
    if effect.name.endswith("|average"):
        base = {name: codes.copy() for name, codes in index.items()}
    else:
        base = {name: np.zeros(1, dtype=int) for name in levels}
        for name, level in effect.given:
            base[name][:] = levels[name].index(level)
    estimate, gradient = 0.0, 0.0
    for picks in itertools.product((0, 1), repeat=len(contrasted)):
        corner = {name: codes.copy() for name, codes in base.items()}
        for (name, level), pick in zip(contrasted.items(), picks, strict=True):
            corner[name][:] = levels[name].index(level) if pick else 0
        X, _ = treatment_columns(corner, levels, order)
        mu = expit(X @ beta)
        sign = (-1.0) ** (len(contrasted) - sum(picks))
        estimate += sign * np.mean(mu)
        gradient = gradient + sign * np.mean((mu * (1 - mu))[:, None] * X, axis=0)
    return estimate, gradient


CASES = [
    pytest.param(TWO_BY_TWO, 2, (), id="2x2"),
    pytest.param(THREE_BY_THREE, 2, (), id="3x3"),
    pytest.param(THREE_FACTORS, 3, (), id="3x2x2-saturated"),
    pytest.param(THREE_FACTORS, 2, (), id="3x2x2-order-2"),
    pytest.param(TWO_BY_TWO, 2, ("gender",), id="2x2-precision-by-gender"),
]


@pytest.mark.parametrize(("levels", "order", "precision_by"), CASES)
@pytest.mark.parametrize("cluster_by", [(), ("template_id",), ("template_id", "person")])
def test_aggregated_fit_equals_the_row_wise_fit_to_1e_10(levels, order, precision_by, cluster_by):
    rows = simulate(levels, seed=len(levels) * 10 + order)
    y = rows["y"]
    clusters = {"template_id": rows["template"], "person": rows["person"]}
    kwargs = (
        {"cov_type": "cluster", "clusters": {n: clusters[n] for n in cluster_by}}
        if cluster_by
        else {}
    )
    result = fit_factorial(
        y,
        rows["labels"],
        {name: values[0] for name, values in levels.items()},
        order,
        precision_by=precision_by,
        **kwargs,
    )

    X, names = treatment_columns(rows["index"], levels, order)
    Z = None
    if precision_by:
        Z, _ = treatment_columns(
            {n: rows["index"][n] for n in precision_by}, {n: levels[n] for n in precision_by}, 1
        )
    reference = row_wise(y, X, Z)
    assert result.parameter_names[: len(names)] == tuple(names)
    p = len(names)
    ours = np.array([c.estimate for c in result.coefficients + result.precision])
    np.testing.assert_allclose(ours, reference["params"], rtol=0, atol=1e-10)
    covariance, one_way = (
        sandwich(reference, rows, cluster_by) if cluster_by else (reference["model_cov"], [])
    )
    np.testing.assert_allclose(np.array(result.covariance), covariance, rtol=1e-10, atol=1e-14)
    variances = [two_way_variance(unit, covariance, one_way) for unit in np.eye(len(covariance))]
    np.testing.assert_allclose(
        [c.std_err for c in result.coefficients + result.precision],
        np.sqrt(variances),
        rtol=0,
        atol=1e-10,
    )
    assert result.log_likelihood == pytest.approx(
        reference["llf"], rel=1e-12, abs=1e-10 * (1 + abs(reference["llf"]))
    )

    # Every effect: its estimate and delta-method standard error from the definition.
    df = result.df
    assert df == (9 if cluster_by else None)  # 10 templates: t(G - 1) clustered, z model-based
    for effect in result.effects:
        estimate, gradient = effect_by_definition(
            effect, levels, order, rows["index"], reference["params"][:p]
        )
        std_err = np.sqrt(
            two_way_variance(gradient, covariance[:p, :p], [m[:p, :p] for m in one_way])
        )
        assert effect.estimate == pytest.approx(estimate, abs=1e-10), effect.name
        assert effect.std_err == pytest.approx(std_err, abs=1e-10), effect.name
        distribution = stats.norm() if df is None else stats.t(df)
        assert effect.p_value == pytest.approx(
            2 * distribution.sf(abs(estimate / std_err)), abs=1e-10
        ), effect.name

    # Likelihood-ratio tests: statsmodels without the term's columns. The log-likelihood is a sum of
    # n terms whose rounding is ~n * 1e-16 in both computations, so the statistic agrees to 1e-10
    # relative to |loglik|.
    for test in result.lr_tests:
        term = test.term.split(":")
        keep = [
            k
            for k, name in enumerate(names)
            if sorted(part.split("[")[0] for part in name.split(":")) != sorted(term)
        ]
        reduced = row_wise(y, X[:, keep], Z)
        statistic = 2 * (reference["llf"] - reduced["llf"])
        assert test.df == len(names) - len(keep)
        assert test.statistic == pytest.approx(statistic, abs=1e-10 * (1 + abs(reference["llf"])))
        assert test.p_value == pytest.approx(stats.chi2.sf(statistic, test.df), abs=1e-9)


@pytest.mark.parametrize("cov_type", ["model", "cluster"])
def test_two_by_two_keeps_todays_numbers_and_names(cov_type):
    """fit_intersectional (the 2 x 2 API) is fit_factorial's 2 x 2 fit under the paper's names,
    equal to the row-wise fit to 1e-10 (today's numbers: statsmodels BetaModel, the path
    fit_intersectional used to take)."""
    rows = simulate(TWO_BY_TWO, seed=5)
    clusters = {"template_id": rows["template"]} if cov_type == "cluster" else None
    two_by_two = fit_intersectional(
        rows["y"],
        rows["labels"]["group"],
        rows["labels"]["gender"],
        "European",
        "male",
        cov_type=cov_type,
        clusters=clusters,
    )
    X, _ = treatment_columns(rows["index"], TWO_BY_TWO, 2)
    reference = row_wise(rows["y"], X)
    covariance = (
        sandwich(reference, rows, ("template_id",))[0] if clusters else reference["model_cov"]
    )
    np.testing.assert_allclose(
        [c.estimate for c in two_by_two.coefficients], reference["params"][:4], atol=1e-10
    )
    np.testing.assert_allclose(np.array(two_by_two.covariance), covariance, rtol=1e-10, atol=1e-14)
    # The DiD by definition, and the AME of group as the rows' mean of the flipped indicator.
    beta = reference["params"][:4]
    m, f = rows["index"]["group"], rows["index"]["gender"]

    def mu(a, b):
        return expit(beta[0] + beta[1] * a + beta[2] * b + beta[3] * a * b)

    assert two_by_two.effect("group:gender_did").estimate == pytest.approx(
        mu(1, 1) - mu(1, 0) - mu(0, 1) + mu(0, 0), abs=1e-10
    )
    assert two_by_two.effect("group_ame").estimate == pytest.approx(
        np.mean(mu(1, f) - mu(0, f)), abs=1e-10
    )
    assert two_by_two.effect("gender_ame").estimate == pytest.approx(
        np.mean(mu(m, 1) - mu(m, 0)), abs=1e-10
    )


@pytest.mark.parametrize(
    ("levels", "order"), [(THREE_BY_THREE, 2), (THREE_FACTORS, 3), (THREE_FACTORS, 2)]
)
def test_k_level_designs_equal_a_direct_maximisation_of_the_beta_likelihood(levels, order):
    """Coefficients, log(phi) and model-based SEs against BFGS + Fisher scoring on the Beta
    log-likelihood written with gammaln (helpers.betareg_reference.independent_fit), to 1e-6; the
    clustered SEs against numeric per-row gradients of that log-likelihood summed by template and a
    numeric Hessian, to 2e-5 relative."""
    rows = simulate(levels, seed=40 + order, persons_per_cell=8)
    references = {name: values[0] for name, values in levels.items()}
    model = fit_factorial(rows["y"], rows["labels"], references, order)
    clustered = fit_factorial(
        rows["y"],
        rows["labels"],
        references,
        order,
        cov_type="cluster",
        clusters={"template_id": rows["template"]},
    )
    X, names = treatment_columns(rows["index"], levels, order)
    theta, std_err, loglik = independent_fit(rows["y"], X)
    ours = np.array([c.estimate for c in model.coefficients] + [model.precision[0].estimate])
    np.testing.assert_allclose(ours, theta, rtol=0, atol=1e-6)
    np.testing.assert_allclose(
        [c.std_err for c in model.coefficients] + [model.precision[0].std_err],
        std_err,
        rtol=0,
        atol=1e-6,
    )
    assert model.log_likelihood == pytest.approx(loglik, abs=1e-6)
    expected = cr1_sandwich(
        numeric_row_scores(theta, rows["y"], X),
        numeric_hessian(theta, rows["y"], X),
        rows["template"],
    )
    np.testing.assert_allclose(np.array(clustered.covariance), expected, rtol=2e-5, atol=1e-12)
    assert [c.estimate for c in clustered.coefficients] == [c.estimate for c in model.coefficients]
    assert len(model.coefficients) == len(names) and model.order == order


def test_a_continuous_covariate_takes_the_row_wise_path():
    """fit_rows (statsmodels, any design matrix) with a continuous covariate against the independent
    fit."""
    rng = np.random.default_rng(9)
    n = 600
    group = rng.integers(0, 2, n)
    length = rng.normal(0, 1, n)  # e.g. a sentence's standardised length
    mu = expit(-0.6 + 0.2 * group + 0.15 * length)
    y = rng.beta(mu * 25, (1 - mu) * 25)
    X = np.column_stack([np.ones(n), group, length])
    fit = fit_rows(y, X)
    theta, std_err, loglik = independent_fit(y, X)
    np.testing.assert_allclose(fit.params, theta, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.covariance)), std_err, atol=1e-6)
    assert fit.converged and fit.log_likelihood == pytest.approx(loglik, abs=1e-6)
    assert fit.scores.shape == (n, 4)
