"""fit_factorial's inputs, names and words: one-line errors for bad input, contrasts that name the
levels, and the result's lookups, to_dict and summary."""

import numpy as np
import pytest
from helpers.betareg_reference import crossed_rows
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats import label_coding
from eval_harness.stats.factorial import EFFECT_KINDS, FactorialDesign, fit_factorial

LEVELS = {"group": ("European", "Arab", "Latino"), "gender": ("male", "female", "non-binary")}
REFERENCES = {"group": "European", "gender": "male"}


def data(levels=LEVELS, seed=0):
    rows = crossed_rows(levels, 4, 3)
    mu = expit(-0.8 + 0.1 * rows["index"]["group"])
    rows["y"] = np.random.default_rng(seed).beta(mu * 30, (1 - mu) * 30)
    return rows


def test_names_and_words_follow_the_levels():
    rows = data()
    result = fit_factorial(rows["y"], rows["labels"], REFERENCES)
    assert [c.name for c in result.coefficients][:5] == [
        "intercept",
        "group[Arab]",
        "group[Latino]",
        "gender[female]",
        "gender[non-binary]",
    ]
    assert result.coefficient("group[Arab]:gender[non-binary]").contrast == (
        "difference of logit differences, group (Arab vs European) x gender (non-binary vs male)"
    )
    effect = result.effect("gender[non-binary]|group=Latino")
    assert (effect.kind, effect.term, effect.levels, effect.given) == (
        "conditional",
        "gender",
        (("gender", "non-binary"),),
        (("group", "Latino"),),
    )
    assert effect.contrast == "non-binary vs male (gender), where group is Latino"
    assert result.effect("group[Latino]:gender[female]").contrast == (
        "(Latino female - Latino male) - (European female - European male)"
    )
    # 2 x 3 + 2 x 3 conditional, 2 + 2 AMEs, 4 interaction contrasts; every kind present, no
    # "minority" words.
    assert len(result.effects) == 20 and {e.kind for e in result.effects} == set(EFFECT_KINDS)
    assert not any("minority" in e.contrast or "women" in e.contrast for e in result.effects)
    assert result.lr_test("group:gender").df == 4
    d = result.to_dict()
    assert d["factors"] == {
        "group": ["European", "Arab", "Latino"],
        "gender": ["male", "female", "non-binary"],
    }
    assert d["effects"]["gender[non-binary]|group=Latino"]["given"] == {"group": "Latino"}
    assert d["cells"][0]["levels"] == {"group": "European", "gender": "male"}
    text = result.summary()
    for item in result.coefficients + result.effects:
        assert item.name in text and item.contrast in text
    with pytest.raises(InputError, match=r"unknown effect 'group\[Arab\]'"):
        result.effect("group[Arab]")


def test_order_one_is_additive_and_says_so():
    rows = data()
    result = fit_factorial(rows["y"], rows["labels"], REFERENCES, order=1)
    assert result.terms == ("group", "gender") and not result.lr_tests
    assert not [e for e in result.effects if e.kind == "interaction"]
    assert result.coefficient("group[Arab]").contrast.endswith(
        "the same at every level of gender (no interaction in the model)"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: {**r, "y": []}, r"no predictions were given \(empty input\)"),
        (
            lambda r: {**r, "y": ["0.4"] * len(r["y"])},
            r"predictions must be numbers, found values of type \['str'\]",
        ),
        (lambda r: {**r, "y": [10**400] + r["y"][1:]}, r"found an integer too large for a float"),
        (
            lambda r: {**r, "y": r["y"][:-1] + [True]},
            r"found values of type \['bool'\] \(booleans are not",
        ),
        (lambda r: {**r, "y": [None] + r["y"][1:]}, r"found values of type \['NoneType'\]"),
        (
            lambda r: {**r, "y": r["y"][:-1]},
            r"predictions, group and gender must have the same length, got 107",
        ),
        (
            lambda r: {**r, "order": 3},
            r"order must be a whole number from 1 to the number of factors \(2\), got 3",
        ),
        (lambda r: {**r, "order": True}, r"order must be a whole number"),
        (
            lambda r: {**r, "references": {"group": "European"}},
            r"no reference level for gender: pass reference_levels",
        ),
        (
            lambda r: {**r, "references": {**REFERENCES, "group": "Anglo"}},
            r"reference level 'Anglo' of group is not one",
        ),
        (
            lambda r: {**r, "references": {**REFERENCES, "age": "old"}},
            r"reference_levels names \['age'\], which are not",
        ),
        (
            lambda r: {**r, "labels": {**r["labels"], "gender": ["male"] * 108}},
            r"gender has a single level \['male'\]",
        ),
        (
            lambda r: {**r, "labels": {**r["labels"], "gender": [1] * 108}},
            r"gender labels must be strings \(or None\)",
        ),
        (
            lambda r: {**r, "labels": {}},
            r"factors must map each factor's name to its per-row labels",
        ),
    ],
)
def test_bad_input_is_one_clear_error(change, message):
    rows = change(
        {
            "y": data()["y"].tolist(),
            "labels": data()["labels"],
            "references": REFERENCES,
            "order": None,
        }
    )
    with pytest.raises(InputError, match=message):
        fit_factorial(rows["y"], rows["labels"], rows["references"], rows["order"])


def test_rows_with_a_missing_label_are_left_out_and_counted():
    rows = data()
    labels = {name: list(values) for name, values in rows["labels"].items()}
    labels["gender"][:5] = [None, float("nan"), None, None, None]
    result = fit_factorial(rows["y"], labels, REFERENCES)
    kept = fit_factorial(rows["y"][5:], {n: v[5:] for n, v in labels.items()}, REFERENCES)
    assert (result.n, result.n_excluded) == (103, 5)
    assert [c.estimate for c in result.coefficients] == [c.estimate for c in kept.coefficients]


def test_a_design_refuses_unknown_or_repeated_terms():
    rows = fit_factorial(data()["y"], data()["labels"], REFERENCES)
    with pytest.raises(InputError, match=r"the design names unknown factors \['age'\]"):
        FactorialDesign(rows.factors, (("group",), ("age",)))
    with pytest.raises(InputError, match=r"the design repeats a term"):
        FactorialDesign(rows.factors, (("group",), ("group",)))


def test_any_real_numbers_in_a_list_are_the_floats_they_convert_to():
    """A list goes through array.array("d"): ints, numpy scalars and fractions are numbers like
    floats."""
    from fractions import Fraction

    y = data()["y"].tolist()
    mixed = [
        Fraction(value).limit_denominator(10**12) if k % 3 == 0 else value
        for k, value in enumerate(y)
    ]
    mixed[1] = np.float32(mixed[1])
    expected = np.array([float(value) for value in mixed])
    assert np.array_equal(label_coding.checked_scores(mixed), expected)
