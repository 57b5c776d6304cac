"""code_labels: the same codes and levels (order of appearance, -1 missing) from numpy fixed-width
strings, object arrays, lists, pandas columns and categoricals, checked against a dict built row by
row; strings are coded without pandas hashing up to MAX_COMPARED_LEVELS levels (lists and object
arrays from their set, fixed-width arrays by comparison), and by np.unique (still no objects)
beyond; the Beta regression is the same from every kind."""

import math

import numpy as np
import pandas as pd
import pytest

from eval_harness.errors import InputError
from eval_harness.stats import label_coding
from eval_harness.stats.betareg import fit_intersectional


def brute_force(labels) -> tuple[list[int], list[str]]:
    """Codes in order of first appearance, -1 for None and NaN, one row at a time."""
    index: dict[str, int] = {}
    codes = []
    for label in labels:
        if label is None or (isinstance(label, float) and math.isnan(label)):
            codes.append(-1)
        else:
            codes.append(index.setdefault(str(label), len(index)))
    return codes, list(index)


def labels_with(n_levels: int, n: int = 500, seed: int = 0) -> np.ndarray:
    names = np.array([f"level-{k:02d}" + "x" * (k % 3) for k in range(n_levels)])
    return names[np.random.default_rng(seed).integers(0, n_levels, n)]


@pytest.fixture
def no_hashing(monkeypatch):
    """pandas.factorize refused: what is coded anyway was coded without it."""

    def refuse(*args, **kwargs):
        raise AssertionError("labels were hashed by pandas.factorize")

    monkeypatch.setattr(label_coding.pd, "factorize", refuse)


COMPARED = (1, 2, 3, label_coding.MAX_COMPARED_LEVELS)


@pytest.mark.parametrize(
    "kind, n_levels",
    [(kind, k) for kind in ("numpy strings", "object array", "list") for k in COMPARED]
    + [("numpy strings", label_coding.MAX_COMPARED_LEVELS + 5)],  # np.unique: still no objects
)
def test_string_labels_are_coded_as_row_by_row_without_hashing(no_hashing, kind, n_levels):
    strings = labels_with(n_levels)
    labels = {
        "numpy strings": strings,
        "object array": strings.astype(object),
        "list": strings.tolist(),
    }[kind]
    codes, levels = label_coding.code_labels("group", labels)
    expected_codes, expected_levels = brute_force(strings.tolist())
    assert codes.tolist() == expected_codes and levels == expected_levels
    assert all(type(level) is str for level in levels)


def test_a_level_seen_once_in_the_last_row_is_coded_from_equal_strings_that_are_not_the_same_object():  # noqa: E501
    """A list's last level is the rows equal to no other level; here every label is its own str
    object."""
    labels = ["".join(["gr", "oup-a"]) if k % 3 else "".join(["gr", "oup-b"]) for k in range(200)]
    labels.append("".join(["gr", "oup-c"]))
    codes, levels = label_coding.code_labels("group", labels)
    assert (codes.tolist(), levels) == brute_force(labels)


def test_the_beta_regression_is_the_same_from_every_kind_of_label_column():
    """Lists, object and fixed-width arrays, pandas columns and categoricals (whose categories are
    sorted, not in order of appearance): the same codes after ordering, so the same fit, bit for
    bit."""
    rng = np.random.default_rng(3)
    n = 400
    group = np.array(["European", "African-American"])[rng.integers(0, 2, n)]
    gender = np.array(["male", "female"])[rng.integers(0, 2, n)]
    scores = rng.beta(3 + (group == "European"), 7 - (gender == "male"))
    kinds = {
        "list": lambda column: column.tolist(),
        "object array": lambda column: column.astype(object),
        "numpy strings": lambda column: column,
        "pandas column": pd.Series,
        "categorical": pd.Categorical,
    }
    fits = {
        kind: fit_intersectional(scores.tolist(), make(group), make(gender), "European", "male")
        for kind, make in kinds.items()
    }
    expected = [(e.estimate, e.std_err) for e in fits["list"].effects]
    for kind, fit in fits.items():
        assert [(e.estimate, e.std_err) for e in fit.effects] == expected, kind
        assert fit.intersection_lr_test.statistic == fits["list"].intersection_lr_test.statistic, (
            kind
        )


@pytest.mark.parametrize(
    "labels",
    [
        ["b", "a", None, "b", float("nan"), "c"],
        [None, "b", "a", "b"],
        labels_with(label_coding.MAX_COMPARED_LEVELS + 3).astype(object).tolist() + [None],
    ],
)
def test_missing_labels_and_many_object_levels_fall_back_to_hashing_with_the_same_codes(labels):
    codes, levels = label_coding.code_labels("group", labels)
    assert (codes.tolist(), levels) == brute_force(labels)


def test_pandas_columns_and_categoricals_give_the_codes_of_their_strings():
    strings = labels_with(4)
    expected_codes, expected_levels = brute_force(strings.tolist())
    codes, levels = label_coding.code_labels("group", pd.Series(strings))
    assert (codes.tolist(), levels) == (expected_codes, expected_levels)
    categories = pd.Categorical(strings, categories=expected_levels)
    for column in (categories, pd.Series(categories)):
        codes, levels = label_coding.code_labels("group", column)
        assert (codes.tolist(), levels) == (expected_codes, expected_levels)


@pytest.mark.parametrize(
    "labels, found",
    [
        (["a", 1], "int"),
        (["a", ["x"]], "list"),
        (["a", np.array([1, 2])], "ndarray"),
        (np.array([b"a"]), "bytes_"),
    ],
)
def test_labels_that_are_not_strings_are_refused_by_type(labels, found):
    with pytest.raises(InputError, match=f"labels must be strings.*{found}"):
        label_coding.code_labels("group", labels)


@pytest.fixture
def no_value_comparison(monkeypatch):
    """distinct_codes (the set of values and comparisons of strings) refused: what is coded anyway
    was coded by the labels' identity."""

    def refuse(*args, **kwargs):
        raise AssertionError("labels were compared by value")

    monkeypatch.setattr(label_coding, "distinct_codes", refuse)


def test_shared_label_objects_are_coded_by_identity_with_missing_ones(
    no_hashing, no_value_comparison
):
    """A column's tolist(): a few shared str objects, None and NaN among them (missing, -1)."""
    objects = np.array(["b", "a", None, float("nan"), "c"], dtype=object)
    labels = objects[np.random.default_rng(1).integers(0, len(objects), 5000)].tolist()
    codes, levels = label_coding.code_labels("group", labels)
    assert (codes.tolist(), levels) == brute_force(labels)


def test_equal_strings_in_different_objects_are_one_level():
    """Shared objects mixed with equal copies (the identity classes merge by value), in order of
    appearance."""
    rng = np.random.default_rng(2)
    shared = ["group-a", "group-b"]
    labels = [
        shared[k] if rng.random() < 0.5 else "".join(["group-", "ab"[k]])
        for k in rng.integers(0, 2, 3000)
    ]
    assert len({id(label) for label in labels}) > 2  # copies that are not the shared objects
    codes, levels = label_coding.code_labels("group", labels)
    assert (codes.tolist(), levels) == brute_force(labels)


def test_labels_that_are_each_their_own_object_are_compared_by_value(no_hashing):
    """Strings made one by one (as a CSV reader makes them): more objects than MAX_COMPARED_LEVELS,
    two values."""
    labels = ["".join(["gr", "oup-a" if k % 3 else "oup-b"]) for k in range(5000)]
    assert len({id(label) for label in labels}) > label_coding.MAX_COMPARED_LEVELS
    assert label_coding.object_codes(np.array(labels, dtype=object)) is None
    codes, levels = label_coding.code_labels("group", labels)
    assert (codes.tolist(), levels) == brute_force(labels)


def test_object_addresses_tell_the_same_object_apart_from_an_equal_one():
    a, b = "".join(["x", "y"]), "".join(["x", "y"])
    addresses = label_coding.object_addresses(np.array([a, b, a, None], dtype=object))
    assert addresses.tolist() == [id(a), id(b), id(a), id(None)]


def test_cluster_ids_give_the_same_fit_whether_they_are_0_to_g_or_have_gaps_or_are_strings():
    """Template ids 0 .. G - 1 are their own codes (no remapping); ids with gaps, strings, and a
    template that lacks a cell (fewer blocks than keys) give the same clustered fit."""
    rng = np.random.default_rng(4)
    n = 600
    template = rng.integers(0, 6, n)
    group = np.array(["European", "African-American"])[rng.integers(0, 2, n)]
    gender = np.array(["male", "female"])[rng.integers(0, 2, n)]
    gender[(template == 5) & (group == "European")] = (
        "female"  # template 5 lacks the European men's cell
    )
    scores = rng.beta(3 + (group == "European") + 0.3 * template, 7)
    fits = [
        fit_intersectional(
            scores,
            group,
            gender,
            "European",
            "male",
            cov_type="cluster",
            clusters={"template_id": ids},
        )
        for ids in (template, template * 7 + 3, np.array([f"t{k}" for k in template], dtype=object))
    ]
    expected = [(e.estimate, e.std_err) for e in fits[0].effects]
    assert [
        (e.estimate, e.std_err) for e in fits[1].effects
    ] == expected  # the same clusters in the same order
    # Strings are coded in order of appearance: the clusters' scores are summed in another order
    # (rounding).
    assert np.allclose(
        [(e.estimate, e.std_err) for e in fits[2].effects], expected, rtol=1e-12, atol=0
    )
    assert fits[0].n_clusters == fits[1].n_clusters == fits[2].n_clusters == (6,)
