"""Cluster-robust (sandwich) covariance of fit_intersectional: against an independent computation
from numeric per-row scores, the t(G - 1) reference, bad cluster input, and a null simulation with
template random effects."""

import numpy as np
import pytest
from helpers.betareg_reference import (
    GENDERS,
    GROUPS,
    cgm_two_way,
    cr1_sandwich,
    independent_fit,
    numeric_hessian,
    numeric_row_scores,
    simulate,
)
from scipy import stats
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats import beta_likelihood as likelihood
from eval_harness.stats.betareg import TERMS, fit_intersectional


def fit(y, group, gender, **kwargs):
    return fit_intersectional(
        y, group, gender, reference_group="European", reference_gender="male", **kwargs
    )


def eec_design(templates, persons_per_cell):
    """Every person (persons_per_cell per group x gender cell) in every template once, as an EEC is
    built."""
    minority = np.repeat([0, 0, 1, 1], persons_per_cell)
    female = np.tile(np.repeat([0, 1], persons_per_cell), 2)
    person = np.arange(4 * persons_per_cell)
    return {
        "minority": np.tile(minority, templates),
        "female": np.tile(female, templates),
        "template": np.repeat(np.arange(templates), 4 * persons_per_cell),
        "person": np.tile(person, templates),
    }


def labels(design):
    return np.array(GROUPS)[design["minority"]].tolist(), np.array(GENDERS)[
        design["female"]
    ].tolist()


def test_one_way_sandwich_equals_numeric_per_row_scores_summed_by_cluster():
    rng = np.random.default_rng(21)
    y, group, gender, minority, female = simulate(
        rng, (-0.7, 0.2, -0.1, 0.15), 25.0, (80, 95, 70, 85)
    )
    templates = [f"t{k}" for k in rng.integers(0, 11, len(y))]
    result = fit(y, group, gender, cov_type="cluster", clusters={"template_id": templates})

    X = np.column_stack([np.ones_like(minority), minority, female, minority * female]).astype(float)
    theta, model_std_err, _ = independent_fit(y, X)
    expected = cr1_sandwich(
        numeric_row_scores(theta, y, X), numeric_hessian(theta, y, X), templates
    )
    np.testing.assert_allclose(np.array(result.covariance), expected, rtol=2e-5, atol=1e-12)
    assert (result.cov_type, result.cluster_by, result.n_clusters) == (
        "cluster",
        ("template_id",),
        (11,),
    )
    # Clustering changes the standard errors, not the estimates; the default test is t with G - 1 =
    # 10 df.
    model = fit(y, group, gender)
    assert [result.coefficient(t).estimate for t in TERMS] == [
        model.coefficient(t).estimate for t in TERMS
    ]
    assert (result.test, result.df) == ("t", 10)
    for k, term in enumerate(TERMS):
        c = result.coefficient(term)
        assert c.std_err == pytest.approx(np.sqrt(expected[k, k]), rel=1e-5)
        assert c.p_value == pytest.approx(
            2 * stats.t.sf(abs(c.estimate / np.sqrt(expected[k, k])), 10), rel=1e-4
        )
        assert c.std_err != pytest.approx(model_std_err[k], rel=1e-3)
    assert result.coefficient("log_phi").std_err == pytest.approx(np.sqrt(expected[4, 4]), rel=1e-5)


def test_two_way_sandwich_is_cameron_gelbach_miller():
    """V = V_template + V_person - V_(template, person), each CR1 with its own number of
    clusters."""
    rng = np.random.default_rng(2)
    design = eec_design(templates=11, persons_per_cell=5)
    # Two emotion words per template x person: the intersection clusters hold 2 rows each.
    design = {key: np.repeat(values, 2) for key, values in design.items()}
    m, f = design["minority"], design["female"]
    # Template and person intercepts, so that both clusterings matter and V is comfortably positive
    # definite.
    shift = rng.normal(0, 0.3, 11)[design["template"]] + rng.normal(0, 0.3, 20)[design["person"]]
    mu = expit(-0.5 + 0.2 * m + 0.1 * f + shift)
    y = rng.beta(mu * 20, (1 - mu) * 20)
    group, gender = labels(design)
    result = fit(
        y,
        group,
        gender,
        cov_type="cluster",
        clusters={"template_id": design["template"], "person": design["person"]},
    )

    X = np.column_stack([np.ones_like(m), m, f, m * f]).astype(float)
    theta, _, _ = independent_fit(y, X)
    scores, hessian = numeric_row_scores(theta, y, X), numeric_hessian(theta, y, X)
    pairs = [f"{t}/{p}" for t, p in zip(design["template"], design["person"], strict=True)]
    expected = (
        cr1_sandwich(scores, hessian, design["template"])
        + cr1_sandwich(scores, hessian, design["person"])
        - cr1_sandwich(scores, hessian, pairs)
    )
    assert (
        np.linalg.eigvalsh(expected).min() > 0.05 * np.linalg.eigvalsh(expected).max()
    )  # nothing clipped
    np.testing.assert_allclose(np.array(result.covariance), expected, rtol=2e-5, atol=1e-12)
    assert (result.cluster_by, result.n_clusters, result.df) == (
        ("template_id", "person"),
        (11, 20),
        10,
    )


def two_way_covariance(row_scores, hessian, first, second):
    """eval_harness's two-way clustered covariance of per-row scores (beta_likelihood's, which takes
    block sums: one block per row), clustered by ``first``, ``second`` and their pairs."""
    clusterings = [likelihood.Clustering(codes, int(codes.max()) + 1) for codes in (first, second)]
    clusterings.append(likelihood.Clustering(*likelihood.pair_codes(first, second)))
    blocks = np.ones((1, len(row_scores)))
    covariance, _, _ = likelihood.cluster_covariance(
        row_scores[None], hessian[None], clusterings, blocks
    )
    return covariance[0]


def test_two_way_covariance_is_cgm_unclipped():
    # H = -I. The first score component cancels within every template and every person but not
    # within the (template, person) pairs, so V_1 + V_2 - V_12 computed by hand has a negative
    # eigenvalue, and stays so (clipping it would tie a standard error to the coding; each variance
    # is floored on its own).
    first, second = np.array([0, 0, 1, 1, 0, 0, 1, 1]), np.array([0, 0, 1, 1, 1, 1, 0, 0])
    scores = np.column_stack([[1, 1, 1, 1, -1, -1, -1, -1], [1, 0, 2, 1, 0, 1, 3, 1]]).astype(float)
    raw, _ = cgm_two_way(scores, -np.eye(2), first, second)
    assert np.linalg.eigvalsh(raw).min() < 0
    found = two_way_covariance(scores, -np.eye(2), first, second)
    np.testing.assert_allclose(found, raw, atol=1e-12)


def test_use_t_choices_with_clusters():
    rng = np.random.default_rng(23)
    y, group, gender, *_ = simulate(rng, (-0.5, 0.1, 0.1, 0.0), 20.0, (30, 30, 30, 30))
    clusters = {"template_id": np.arange(120) % 8}
    as_z = fit(y, group, gender, cov_type="cluster", clusters=clusters, use_t=False)
    as_t = fit(y, group, gender, cov_type="cluster", clusters=clusters, use_t=True)
    assert (as_z.test, as_z.df, as_t.test, as_t.df) == ("z", None, "t", 7)
    c = as_z.coefficient("group")
    assert c.p_value == pytest.approx(2 * stats.norm.sf(abs(c.statistic)), rel=1e-9)
    assert fit(y, group, gender, use_t=True).df == 116  # model-based t keeps n - 4


def test_rows_without_group_need_no_cluster_label():
    rng = np.random.default_rng(24)
    y, group, gender, *_ = simulate(rng, (-0.5, 0.1, 0.1, 0.0), 20.0, (20, 20, 20, 20))
    templates = (np.arange(80) % 5).tolist()
    with_noun_phrases = fit(
        list(y) + [0.4, 0.5],
        group + [None, None],
        gender + ["male", "female"],
        cov_type="cluster",
        clusters={"template_id": templates + [None, None]},
    )
    alone = fit(y, group, gender, cov_type="cluster", clusters={"template_id": templates})
    assert with_noun_phrases.covariance == alone.covariance and with_noun_phrases.n_excluded == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"clusters": {"template_id": [0] * 20}}, r"clusters were given with cov_type='model'"),
        (
            {"cov_type": "cluster"},
            r"cov_type='cluster' needs clusters=\{name: per-row labels\}.*got NoneType",
        ),
        ({"cov_type": "robust"}, r"cov_type must be one of \['model', 'cluster'\], got 'robust'"),
        (
            {"cov_type": "cluster", "clusters": {"a": [0] * 20, "b": [0] * 20, "c": [0] * 20}},
            r"one or two entries .* with 3 entries",
        ),
        (
            {"cov_type": "cluster", "clusters": {"template_id": [0, 1] * 5}},
            r"one label per row \(20\), got 10 labels",
        ),
        (
            {"cov_type": "cluster", "clusters": {"template_id": "abc"}},
            r"one label per row \(20\), got not a sequence",
        ),
        (
            {"cov_type": "cluster", "clusters": {"template_id": [None] + [0, 1] * 9 + [1]}},
            r"clusters\['template_id'\] has 1 missing labels on the fitted rows",
        ),
        (
            {"cov_type": "cluster", "clusters": {"template_id": [3] * 20}},
            r"has 1 cluster among the fitted rows",
        ),
        (
            {"cov_type": "cluster", "clusters": {"template_id": [[0]] * 20}},
            r"labels must be hashable",
        ),
    ],
)
def test_bad_cluster_input(kwargs, message):
    y, group, gender, *_ = simulate(
        np.random.default_rng(6), (0.0, 0.2, 0.1, 0.0), 10.0, (5, 5, 5, 5)
    )
    with pytest.raises(InputError, match=message):
        fit(y, group, gender, **kwargs)


@pytest.mark.slow
def test_template_random_effects_make_model_based_tests_over_reject_and_clustered_tests_hold_their_level():  # noqa: E501
    """No true bias, but each of 11 templates shifts the intercept, group, gender and interaction
    effects (template slopes): the must-show simulation of issue 21.

    An EEC-sized design: 11 templates x 40 persons (10 per group x gender cell), n = 440; template
    deviations N(0, 0.2^2) on the logit scale, precision 30. Rows of one template are then
    correlated, and the model-based Wald tests (independent rows) over-reject; CR1
    template-clustered tests with t(10) hold
    alpha = 0.05. Six tests per data set (the group, gender and interaction coefficients, the group
    and gender AMEs, the group effect among men), 500 data sets, both fits from the cells'
    sufficient statistics.

    Pilots (seeds 100, 101, 102, 2024): pooled rejection rates 0.138-0.153 model-based (the AMEs
    0.218-0.252) and 0.043-0.058 clustered, single clustered tests 0.028-0.074. The band for one
    rate over 500 data sets is 0.031-0.069 (binomial, 95 %): the pooled clustered rate must lie in
    it and each single one within 0.02-0.09 (about 3 binomial SEs: six rates cannot all be expected
    inside their 95 % band); the model-based pooled rate must exceed 0.08.
    """
    rng = np.random.default_rng(100)
    design = eec_design(templates=11, persons_per_cell=10)
    m, f, template = design["minority"], design["female"], design["template"]
    group, gender = labels(design)
    tests = (
        "group",
        "gender",
        "group:gender",
        "group_ame",
        "gender_ame",
        "group_within_reference_gender",
    )
    rejections = {"model": np.zeros(len(tests)), "cluster": np.zeros(len(tests))}
    datasets = 500
    for _ in range(datasets):
        u = rng.normal(0, 0.2, (11, 4))[template]
        mu = expit(-0.8 + u[:, 0] + u[:, 1] * m + u[:, 2] * f + u[:, 3] * m * f)
        y = rng.beta(mu * 30, (1 - mu) * 30)
        for cov_type, clusters in (("model", None), ("cluster", {"template_id": template})):
            result = fit(y, group, gender, cov_type=cov_type, clusters=clusters)
            p_values = [result.coefficient(t).p_value for t in tests[:3]] + [
                result.effect(e).p_value for e in tests[3:]
            ]
            rejections[cov_type] += np.array(p_values) < 0.05
    model, cluster = rejections["model"] / datasets, rejections["cluster"] / datasets
    assert model.mean() > 0.08, dict(zip(tests, model, strict=True))
    assert model[tests.index("group_ame")] > 0.15
    assert 0.031 <= cluster.mean() <= 0.069, dict(zip(tests, cluster, strict=True))
    assert np.all((0.02 <= cluster) & (cluster <= 0.09)), dict(zip(tests, cluster, strict=True))
