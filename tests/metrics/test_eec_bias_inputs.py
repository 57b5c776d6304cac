"""The eec_bias metric's input checks (issue 22: no silent wrong numbers) and its k-level route
(issue 20)."""

import numpy as np
import pytest
from helpers.betareg_reference import crossed_rows
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats.factorial import fit_factorial


@pytest.fixture(scope="module")
def eec_bias(load_metric_elsewhere):
    return load_metric_elsewhere("eec_bias")


def rows(levels, seed=0, templates=6, persons_per_cell=4):
    data = crossed_rows(levels, templates, persons_per_cell)
    rng = np.random.default_rng(seed)
    logit = -0.8 + sum(0.1 * k * data["index"][name] for k, name in enumerate(levels, start=1))
    mu = expit(logit + rng.normal(0, 0.1, templates)[data["template"]])
    data["y"] = rng.beta(mu * 30, (1 - mu) * 30).tolist()
    return data


TWO_BY_TWO = {"group": ("European", "African-American"), "gender": ("male", "female")}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda y: ["0.3"] + y[1:], r"predictions must be numbers, found values of type \['str'\]"),
        (
            lambda y: [True] + y[1:],
            r"predictions must be numbers, found values of type \['bool'\] \(booleans",
        ),
        (lambda y: [np.True_] + y[1:], r"found values of type \['bool'\] \(booleans"),
        (
            lambda y: [None] + y[1:],
            r"predictions must be numbers, found values of type \['NoneType'\]",
        ),
        (lambda y: np.array(y) > 0.3, r"predictions must be numbers, found booleans"),
    ],
)
def test_non_numeric_predictions_are_an_error(eec_bias, change, message):
    data = rows(TWO_BY_TWO)
    with pytest.raises(InputError, match=message):
        eec_bias.compute(
            predictions=change(data["y"]),
            group=data["labels"]["group"],
            gender=data["labels"]["gender"],
        )


def test_add_and_add_batch_check_their_inputs_too(eec_bias):
    data = rows(TWO_BY_TWO)
    with pytest.raises(InputError, match=r"found values of type \['bool'\]"):
        eec_bias.add_batch(predictions=[True, 0.2], group=["European"] * 2, gender=["male"] * 2)
    with pytest.raises(InputError, match=r"found values of type \['str'\]"):
        eec_bias.add(prediction="0.5", group="European", gender="male")
    with pytest.raises(
        InputError,
        match=r"group labels must be strings \(or None\), found values of type \['int'\]",
    ):
        eec_bias.add_batch(predictions=[0.1, 0.2], group=[1, 2], gender=["male"] * 2)
    for y, group, gender in zip(
        data["y"], data["labels"]["group"], data["labels"]["gender"], strict=True
    ):
        eec_bias.add(prediction=y, group=group, gender=gender)
    added = eec_bias.compute()
    assert added == eec_bias.compute(
        predictions=data["y"], group=data["labels"]["group"], gender=data["labels"]["gender"]
    )
    assert added["n"] == len(data["y"])


def test_empty_lists_are_a_clear_error(eec_bias):
    with pytest.raises(InputError, match=r"eec_bias got no predictions \(empty lists\)"):
        eec_bias.compute(predictions=[], group=[], gender=[])


@pytest.mark.parametrize(
    ("levels", "order"),
    [
        (
            {
                "group": ("European", "African-American", "Latino", "Arab"),
                "gender": ("male", "female", "non-binary"),
            },
            2,
        ),
        (
            {
                "group": ("Anglo", "Arab", "Latino"),
                "gender": ("male", "female"),
                "age": ("young", "old"),
            },
            2,
        ),
    ],
)
def test_factorial_route_takes_k_level_factors(eec_bias, named, levels, order):
    data = rows(levels, seed=1)
    extra = {name: data["labels"][name] for name in levels if name not in ("group", "gender")}
    references = {name: values[0] for name, values in levels.items()}
    result = eec_bias.compute(
        predictions=data["y"],
        group=data["labels"]["group"],
        gender=data["labels"]["gender"],
        factorial=True,
        factors=extra or None,
        reference_levels={name: references[name] for name in extra} or None,
        order=order,
        cov_type="cluster",
        template_id=data["template"].tolist(),
    )
    expected = fit_factorial(
        data["y"],
        data["labels"],
        references,
        order,
        cov_type="cluster",
        clusters={"template_id": data["template"]},
    )
    assert result == named(expected.to_dict())
    # References inferred (European, Anglo, male; age given); the other levels sorted.
    assert result["factors"] == {
        name: [values[0], *sorted(values[1:])] for name, values in levels.items()
    }
    conditional = [name for name, e in result["effects"].items() if e["kind"] == "conditional"]
    assert (
        "group[Arab]|gender=female" in conditional
        or "group[Arab]|gender=female,age=young" in conditional
    )


def test_factorial_options_need_factorial_true_and_more_levels_point_to_it(eec_bias):
    data = rows({"group": ("European", "African-American", "Latino"), "gender": ("male", "female")})
    group, gender = data["labels"]["group"], data["labels"]["gender"]
    with pytest.raises(InputError, match=r"order need factorial=True"):
        eec_bias.compute(predictions=data["y"], group=group, gender=gender, order=1)
    with pytest.raises(
        InputError, match=r"cannot tell the reference level of group from the levels found"
    ):
        eec_bias.compute(predictions=data["y"], group=group, gender=gender)
    with pytest.raises(
        InputError, match=r"group has 3 levels .*fit_factorial takes k-level factors"
    ):
        eec_bias.compute(
            predictions=data["y"], group=group, gender=gender, reference_group="European"
        )
    with pytest.raises(
        InputError, match=r"factors must be a dict .* besides group and gender, got the names"
    ):
        eec_bias.compute(
            predictions=data["y"],
            group=group,
            gender=gender,
            factorial=True,
            factors={"group": group},
        )
