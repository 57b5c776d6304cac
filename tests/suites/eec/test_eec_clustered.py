"""A model that scores both groups alike in every template (SVM-tfidf on unknown names) makes the
template-clustered covariance singular: the unit keeps its model-based fit, and its records say why
they carry no clustered test."""

import numpy as np

from eval_harness.contract import Unit
from eval_harness.suites.eec.suite import SUITE


def prepared_for(scores_by_template_and_gender):
    rows = [
        (score, group, gender, template, f"{group}-{gender}-{i}")
        for (template, gender), score in scores_by_template_and_gender.items()
        for group in ("European", "African-American")
        for i in range(5)
    ]
    y, group, gender, template, person = map(list, zip(*rows, strict=True))
    data = {"y": np.array(y), "template_id": template, "person": person}
    data["factors"], data["references"] = (
        {"group": group, "gender": gender},
        {"group": "European", "gender": "male"},
    )
    data["validity"] = None  # not a zero-shot judge
    return {"options": dict(SUITE.options), "eec": {("en_black_white", "anger"): data}}


def test_a_singular_clustered_fit_leaves_the_reported_fit_and_a_note():
    rng = np.random.default_rng(0)
    scores = {
        (t, g): rng.uniform(0.3, 0.6) + (0.05 if g == "female" else 0.0)
        for t in range(7)
        for g in ("male", "female")
    }
    unit = Unit(
        model="m",
        suite="eec",
        language="en",
        dataset="eec",
        config="en_black_white",
        emotion="anger",
    )
    records = SUITE.evaluate(unit, prepared_for(scores), ctx=None)
    tested = [r for r in records if r["metric"] in ("estimate", "effect")]
    assert len(tested) == 4 + 7
    assert all(r["p_value"] is not None and "clustered_p_value" not in r for r in tested)
    assert all("no template-clustered standard errors" in r["note"] for r in tested)
    group = next(r for r in tested if r["term"] == "group" and r["metric"] == "estimate")
    assert abs(group["value"]) < 1e-6  # the groups were scored alike


def test_a_unit_reported_with_model_based_standard_errors_carries_no_note_of_the_two_way_fit_it_abandoned():  # noqa: E501
    # Scores set by template and gender alone: every person's residuals cancel over the templates
    # and every template's over the persons, so the two-way variance V_template + V_person - V_row
    # is negative, a one-way one
    # (0) stands in, and the clustered fit fails; the model-based fit is reported, without the
    #     two-way fit's notes.
    rng = np.random.default_rng(0)
    scores = {
        (t, g): rng.uniform(0.3, 0.6) + (0.05 if g == "female" else 0.0)
        for t in range(7)
        for g in ("male", "female")
    }
    prepared = prepared_for(scores)
    prepared["options"].update(cov_type="cluster", cluster_by=["template_id", "person"])
    unit = Unit(
        model="m",
        suite="eec",
        language="en",
        dataset="eec",
        config="en_black_white",
        emotion="anger",
    )
    records = SUITE.evaluate(unit, prepared, ctx=None)
    tested = [r for r in records if r["metric"] in ("estimate", "effect")]
    assert tested and all(
        r["cov_type"] == "model" and r["cluster_by"] in (None, []) for r in tested
    )
    assert all("model-based ones reported" in r["note"] for r in tested)
    assert not any("one-way" in r["note"] or "two-way" in r["note"] for r in tested)
