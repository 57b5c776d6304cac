"""The eec_bias metric's effects, clustered covariance inputs and input checks (issues 12 and
14)."""

import numpy as np
import pytest
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats.betareg import EFFECTS, fit_intersectional


@pytest.fixture(scope="module")
def eec_bias(load_metric_elsewhere):
    return load_metric_elsewhere("eec_bias")


def eec_shaped_rows(seed=0, templates=11, persons_per_cell=6):
    """Every person in every template; Beta scores with a template shift; 2 noun-phrase rows per
    template."""
    rng = np.random.default_rng(seed)
    rows = {"predictions": [], "group": [], "gender": [], "template_id": [], "person": []}
    shift = rng.normal(0, 0.2, templates)
    for t in range(templates):
        for m, group in enumerate(("European", "African-American")):
            for f, gender in enumerate(("male", "female")):
                for k in range(persons_per_cell):
                    mu = expit(-0.7 + 0.2 * m - 0.1 * f + shift[t])
                    rows["predictions"].append(float(rng.beta(mu * 30, (1 - mu) * 30)))
                    rows["group"].append(group)
                    rows["gender"].append(gender)
                    rows["template_id"].append(t)
                    rows["person"].append(f"{group}-{gender}-{k}")
        for gender in ("male", "female"):
            rows["predictions"].append(float(rng.uniform(0.2, 0.5)))
            rows["group"].append(None)
            rows["gender"].append(gender)
            rows["template_id"].append(t)
            rows["person"].append(f"my {gender} relative")
    return rows


def library(rows, **kwargs):
    return fit_intersectional(
        rows["predictions"], rows["group"], rows["gender"], "European", "male", **kwargs
    ).to_dict()


def test_effects_are_in_the_output(eec_bias):
    rows = eec_shaped_rows()
    result = eec_bias.compute(
        predictions=rows["predictions"], group=rows["group"], gender=rows["gender"]
    )
    assert list(result["effects"]) == list(EFFECTS)
    assert (
        result["effects"]["group_within_other_gender"]["contrast"]
        == "African-American vs European, among women"
    )
    assert result["coefficients"]["group"]["contrast"].endswith("among men (the reference gender)")
    assert (result["cov_type"], result["cluster_by"], result["test"]) == ("model", [], "z")


@pytest.mark.parametrize(
    ("cluster_by", "expected_clusters"),
    [
        (None, {"template_id": "template_id"}),
        ("person", {"person": "person"}),
        (["template_id", "person"], None),
    ],
)
def test_clustered_standard_errors_pass_through(eec_bias, named, cluster_by, expected_clusters):
    rows = eec_shaped_rows()
    result = eec_bias.compute(
        predictions=rows["predictions"],
        group=rows["group"],
        gender=rows["gender"],
        template_id=rows["template_id"],
        person=rows["person"],
        cov_type="cluster",
        cluster_by=cluster_by,
    )
    names = list(expected_clusters or ("template_id", "person"))
    assert result == named(
        library(rows, cov_type="cluster", clusters={name: rows[name] for name in names})
    )
    assert result["cluster_by"] == names
    n_clusters = {"template_id": 11, "person": 24}  # persons with a group: 4 cells x 6
    assert result["n_clusters"] == [n_clusters[name] for name in names]
    assert (result["test"], result["df"]) == ("t", min(result["n_clusters"]) - 1)
    model = eec_bias.compute(
        predictions=rows["predictions"], group=rows["group"], gender=rows["gender"]
    )
    assert result["coefficients"]["group"]["estimate"] == model["coefficients"]["group"]["estimate"]
    assert result["effects"]["group_ame"]["std_err"] != model["effects"]["group_ame"]["std_err"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"cluster_by": "template_id"},
            r"cluster_by='template_id' needs cov_type='cluster' \(cov_type is 'model'\)",
        ),
        (
            {"cov_type": "cluster"},
            r"cluster_by=\['template_id'\] needs the per-row template_id= labels",
        ),
        (
            {"cov_type": "cluster", "cluster_by": ["template_id", "person"], "template_id": "rows"},
            r"needs the per-row person= labels",
        ),
        (
            {"cov_type": "cluster", "cluster_by": ["emotion"], "template_id": "rows"},
            r"'emotion', which is not one of",
        ),
        (
            {"cov_type": "cluster", "cluster_by": ["template_id"] * 2, "template_id": "rows"},
            r"two distinct columns",
        ),
        (
            {"cov_type": "sandwich"},
            r"cov_type must be one of \['model', 'cluster'\], got 'sandwich'",
        ),
        (
            {"cov_type": "cluster", "template_id": "short"},
            r"one label per row \(286\), got 10 labels",
        ),
        ({"use_t": "no"}, r"use_t must be True, False or None, got 'no' \(str\)"),
        ({"use_t": "False"}, r"use_t must be True, False or None, got 'False' \(str\)"),
        ({"use_t": 1}, r"use_t must be True, False or None, got 1 \(int\)"),
    ],
)
def test_bad_options_are_clear_errors(eec_bias, kwargs, message):
    rows = eec_shaped_rows()
    kwargs = {
        key: rows["template_id"]
        if value == "rows"
        else list(range(10))
        if value == "short"
        else value
        for key, value in kwargs.items()
    }
    with pytest.raises(InputError, match=message):
        eec_bias.compute(
            predictions=rows["predictions"], group=rows["group"], gender=rows["gender"], **kwargs
        )


def test_nearly_constant_predictions_are_an_error_not_nan(eec_bias):
    rows = eec_shaped_rows()
    cell_mean = {("European", "male"): 0.3, ("European", "female"): 0.35}
    labels = zip(rows["group"], rows["gender"], strict=True)
    nearly_constant = [cell_mean.get(cell, 0.4) + 1e-12 * (k % 3) for k, cell in enumerate(labels)]
    with pytest.raises(
        InputError, match=r"predictions barely vary within the group x gender cells"
    ):
        eec_bias.compute(predictions=nearly_constant, group=rows["group"], gender=rows["gender"])


def test_real_eec_clustered_by_template_and_person(eec_bias):
    from eval_harness.data import load_eec

    anger = load_eec("en_black_white").filter(lambda row: row["emotion"] == "anger")
    rng = np.random.default_rng(5)
    scores = rng.uniform(0.2, 0.6, len(anger)).tolist()
    result = eec_bias.compute(
        predictions=scores,
        group=anger["group"],
        gender=anger["gender"],
        template_id=anger["template_id"],
        person=anger["person"],
        cov_type="cluster",
        cluster_by=["template_id", "person"],
    )
    with_group = [
        (t, p)
        for t, p, g in zip(anger["template_id"], anger["person"], anger["group"], strict=True)
        if g
    ]
    templates, persons = len({t for t, _ in with_group}), len({p for _, p in with_group})
    assert (templates, persons) == (
        7,
        40,
    )  # the EEC's 7 templates with an emotion word; 10 names per cell
    assert result["n_clusters"] == [templates, persons] and result["df"] == templates - 1
    assert result["converged"] and all(
        np.isfinite(e["std_err"]) for e in result["effects"].values()
    )


def test_equivalence_margin_adds_each_effects_tost_on_its_own_clustered_test(eec_bias):
    """equivalence_margin=: every effect carries the TOST of its own estimate, clustered SE and
    t(G - 1) df, whose one-sided p-values are scipy's t tails at estimate +- delta; a bad margin is
    a one-line error."""
    from scipy import stats

    rows = eec_shaped_rows()
    result = eec_bias.compute(
        predictions=rows["predictions"],
        group=rows["group"],
        gender=rows["gender"],
        template_id=rows["template_id"],
        cov_type="cluster",
        equivalence_margin=0.05,
    )
    assert result["test"] == "t" and result["df"] == 10
    for effect in result["effects"].values():
        tost = effect["equivalence"]
        estimate, std_err = effect["estimate"], effect["std_err"]
        assert tost["p_lower"] == pytest.approx(
            stats.t.sf((estimate + 0.05) / std_err, 10), rel=1e-9
        )
        assert tost["p_upper"] == pytest.approx(
            stats.t.cdf((estimate - 0.05) / std_err, 10), rel=1e-9
        )
        assert tost["verdict"] in ("within", "not within", "cannot tell") and tost["margin"] == 0.05
        # the one verdict rule (stats.verdict), computed directly: the 95% t interval against +-0.05
        low, high = (
            estimate - stats.t.ppf(0.975, 10) * std_err,
            estimate + stats.t.ppf(0.975, 10) * std_err,
        )
        expected = (
            "beyond" if low > 0.05 or high < -0.05 else "within" if tost["p_value"] <= 0.05
            else "nonzero" if low > 0 or high < 0 else "cannot tell"
        )  # fmt: skip
        assert effect["verdict"]["verdict"] == expected and "±0.05" in effect["verdict"]["words"]
    with pytest.raises(InputError, match="equivalence margin must be a finite number > 0"):
        eec_bias.compute(
            predictions=rows["predictions"],
            group=rows["group"],
            gender=rows["gender"],
            equivalence_margin=-1,
        )
