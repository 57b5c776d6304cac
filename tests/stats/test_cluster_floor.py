"""Clustered standard errors that belong to the effect, not to the coding or the CPU (issues 30.5
and 31.5).

Two-way clustering keeps the Cameron-Gelbach-Miller matrix ``V_1 + V_2 - V_12`` unclipped and floors
each effect's own ``d' V d`` at its larger one-way variance: every term is a quadratic form in
``d``, invariant to a reparametrisation of the mean model, so swapping a reference level (or
which of two models is the reference, as ``xbias compare B A`` against ``A B``) leaves every
standard error as it was. A clustered variance at rounding level (a direction whose scores cancel
within every cluster) is 0 whatever sign the rounding gave it.
"""

import numpy as np
import pytest
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats.beta_likelihood import ROUNDING_VARIANCE_RATIO, Covariances
from eval_harness.stats.condition_contrasts import fit_condition_contrasts
from eval_harness.stats.factorial import fit_factorial

TEMPLATES, PERSONS_PER_CELL = 7, 5
GROUPS, GENDERS = ("Anglo", "Arab"), ("male", "female")
# The invariance is exact algebra; what is left is the two fits' convergence (Newton to a step of
# 1e-12) and rounding, far below 1e-10 on standard errors of ~1e-2.
SAME = 1e-10


def eec_like(seed: int = 3) -> dict:
    """An EEC-shaped sample: every template x person (``PERSONS_PER_CELL`` per group x gender), with
    template and person effects on the logit scale, so that both clusterings matter, and two models'
    scores of the rows."""
    rng = np.random.default_rng(seed)
    group = np.repeat(GROUPS, 2 * PERSONS_PER_CELL)
    gender = np.tile(np.repeat(GENDERS, PERSONS_PER_CELL), 2)
    person = np.array(
        [
            f"{g}-{s}-{i}"
            for g, s, i in zip(group, gender, np.tile(range(PERSONS_PER_CELL), 4), strict=True)
        ]
    )
    rows = {
        "template_id": np.repeat(np.arange(TEMPLATES), len(person)).astype(str),
        "person": np.tile(person, TEMPLATES),
        "group": np.tile(group, TEMPLATES),
        "gender": np.tile(gender, TEMPLATES),
    }
    template_effect = rng.normal(0, 0.4, TEMPLATES)[np.repeat(np.arange(TEMPLATES), len(person))]
    person_effect = np.tile(rng.normal(0, 0.2, len(person)), TEMPLATES)
    arab, female = rows["group"] == "Arab", rows["gender"] == "female"
    logit = (
        -0.4 + template_effect + person_effect - 0.1 * arab + 0.15 * female + 0.05 * arab * female
    )

    def scores(shift: float) -> np.ndarray:
        return expit(logit + shift * arab + rng.normal(0, 0.3, len(logit)))

    return {**rows, "a": scores(0.0), "b": scores(0.1)}


def two_way(data: dict) -> dict:
    return {"template_id": data["template_id"], "person": data["person"]}


def by_meaning(effects) -> dict:
    """Effects keyed by what they are about apart from the levels' direction: (kind, term,
    stratum)."""
    return {(effect.kind, effect.term, effect.given): effect for effect in effects}


def test_two_way_standard_errors_do_not_depend_on_the_reference_levels():
    data = eec_like()
    factors = {"group": data["group"], "gender": data["gender"]}
    fits = [
        fit_factorial(data["a"], factors, references, cov_type="cluster", clusters=two_way(data))
        for references in (
            {"group": "Anglo", "gender": "male"},
            {"group": "Arab", "gender": "female"},
        )
    ]
    first, second = (by_meaning(fit.effects) for fit in fits)
    assert first.keys() == second.keys() and len(first) == 7
    for key, effect in first.items():
        # Each factor of the term that changed its reference flips the sign (both did).
        sign = (-1) ** len(effect.levels)
        assert second[key].estimate == pytest.approx(sign * effect.estimate, abs=SAME)
        assert second[key].std_err == pytest.approx(effect.std_err, abs=SAME)
        assert effect.std_err > 0


def test_two_way_standard_errors_of_a_comparison_do_not_depend_on_which_model_is_the_reference():
    """``xbias compare A B`` against ``B A``: the condition's reference level swaps, every
    difference flips sign."""
    data = eec_like()
    factors = {"group": data["group"], "gender": data["gender"]}
    n = len(data["a"])

    def compare(first: str, second: str):
        return fit_condition_contrasts(
            np.concatenate([data[first], data[second]]),
            {name: np.concatenate([labels, labels]) for name, labels in factors.items()},
            {"group": "Anglo", "gender": "male"},
            [first] * n + [second] * n,
            first,
            condition_name="model",
            clusters={
                name: np.concatenate([labels, labels]) for name, labels in two_way(data).items()
            },
        )

    forward, backward = (
        by_meaning(result.differences) for result in (compare("a", "b"), compare("b", "a"))
    )
    assert forward.keys() == backward.keys() and len(forward) == 7
    for key, difference in forward.items():
        assert backward[key].estimate == pytest.approx(-difference.estimate, abs=SAME)
        assert backward[key].std_err == pytest.approx(difference.std_err, abs=SAME)
        assert difference.std_err > 0


@pytest.mark.parametrize("rounding_sign", [1.0, -1.0])
def test_a_variance_at_rounding_level_is_zero_whatever_its_sign(rounding_sign):
    """What two CPUs give for an exactly degenerate direction (a rounding-level variance, positive
    on one and negative on the other) is the same 0; a genuine one is kept as it is."""
    model = np.diag([1e-4, 1e-4])[None]
    clustered = np.diag([rounding_sign * 1e-4 * 1e-13, 0.5e-4])[None]
    covariances = Covariances(clustered, model, np.empty((1, 0, 2, 2)))
    variances, raised = covariances.variances(np.eye(2)[None])
    assert variances.tolist() == [[0.0, 0.5e-4]] and not raised.any()
    # The floor sits between rounding noise and any clustered variance a test could be built on.
    assert 1e-13 < ROUNDING_VARIANCE_RATIO < 1e-6


def test_a_two_way_variance_below_a_one_way_one_is_raised_to_it():
    """max(d' V d, d' V_1 d, d' V_2 d) for each direction, the two-way matrix (here not positive
    semi-definite) as it is: a direction whose two-way variance is negative gets its larger one-way
    variance, and says so."""
    rng = np.random.default_rng(0)
    square_roots = rng.normal(size=(2, 3, 3))
    first, second = (root @ root.T for root in square_roots)
    two_way = first + second - 2.5 * first  # V_12 larger than V_1: negative along some directions
    directions = rng.normal(size=(1, 6, 3))
    covariances = Covariances(
        two_way[None], (first + second)[None], np.stack([first, second])[None]
    )
    variances, raised = covariances.variances(directions)
    forms = [
        np.einsum("ep,pq,eq->e", directions[0], matrix, directions[0])
        for matrix in (two_way, first, second)
    ]
    assert np.allclose(variances[0], np.maximum.reduce(forms), rtol=1e-12, atol=0)
    assert (
        raised[0].tolist() == (np.maximum(forms[1], forms[2]) > forms[0]).tolist() and raised.any()
    )


def test_scores_alike_within_every_template_give_no_clustered_test_on_any_cpu():
    """Scores that depend on the template and the gender but never on the group (a model blind to
    the names): the group contrast's template-clustered variance is rounding noise, floored at 0, so
    the fit refuses the test with the same one line on any CPU (it was 'nan' on AVX2 and '0.0' on
    AVX-512, and a tiny positive noise variance passed as a standard error of ~1e-9)."""
    data = eec_like()
    rank = np.array([int(p.rsplit("-", 1)[1]) for p in data["person"]])
    blind = (
        0.3
        + 0.02 * data["template_id"].astype(int)
        + 0.03 * (data["gender"] == "female")
        + 0.002 * rank
    )
    factors = {"group": data["group"], "gender": data["gender"]}
    with pytest.raises(
        InputError,
        match=r"^the standard error of group\[Arab\] is 0: "
        r"its clustered variance is at rounding level",
    ):
        fit_factorial(
            blind,
            factors,
            {"group": "Anglo", "gender": "male"},
            cov_type="cluster",
            clusters={"template_id": data["template_id"]},
        )
