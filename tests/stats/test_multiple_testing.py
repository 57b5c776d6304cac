"""Holm and Benjamini-Hochberg adjustment: hand-worked examples, the formulas written out, bad
input."""

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats.multiple_testing import benjamini_hochberg, holm, holm_of_tested

# p = [0.01, 0.04, 0.03, 0.005], m = 4; sorted: 0.005 (#3), 0.01 (#0), 0.03 (#2), 0.04 (#1).
# Holm: (m - j + 1) p_(j) = 4*0.005, 3*0.01, 2*0.03, 1*0.04 = 0.02, 0.03, 0.06, 0.04;
#       running maximum    = 0.02, 0.03, 0.06, 0.06  -> input order [0.03, 0.06, 0.06, 0.02].
# BH:   m p_(j) / j        = 0.02, 0.02, 0.04, 0.04;
#       running minimum from the largest = 0.02, 0.02, 0.04, 0.04 -> input order [0.02, 0.04, 0.04,
#       0.02].
HAND_P = [0.01, 0.04, 0.03, 0.005]
HAND_HOLM = [0.03, 0.06, 0.06, 0.02]
HAND_BH = [0.02, 0.04, 0.04, 0.02]


def test_holm_hand_example():
    np.testing.assert_allclose(holm(HAND_P), HAND_HOLM, rtol=0, atol=1e-15)


def test_benjamini_hochberg_hand_example():
    np.testing.assert_allclose(benjamini_hochberg(HAND_P), HAND_BH, rtol=0, atol=1e-15)


def test_capped_at_one():
    # Holm: 2*0.7 = 1.4 -> 1, then max(1, 0.8) = 1. BH: 2*0.7/1 = 1.4, 2*0.8/2 = 0.8 -> min from the
    # top: 0.8, 0.8.
    np.testing.assert_array_equal(holm([0.7, 0.8]), [1.0, 1.0])
    np.testing.assert_allclose(benjamini_hochberg([0.7, 0.8]), [0.8, 0.8])
    np.testing.assert_array_equal(holm([1.0]), [1.0])


def test_ties():
    # Holm: 3*0.02, 2*0.02, 1*0.02 -> running max 0.06 for all. BH: 0.06, 0.03, 0.02 -> running min
    # 0.02 for all.
    np.testing.assert_allclose(holm([0.02, 0.02, 0.02]), [0.06, 0.06, 0.06])
    np.testing.assert_allclose(benjamini_hochberg([0.02, 0.02, 0.02]), [0.02, 0.02, 0.02])


def brute_force(p, method):
    """The module docstring's formulas, term by term: Holm max_{j<=i} min(1, (m-j+1) p_(j)),
    BH min_{j>=i} min(1, m p_(j) / j); ties in the stable sort order."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    for rank, index in enumerate(order, start=1):
        if method == "holm":
            value = max(min(1.0, (m - j + 1) * p[order[j - 1]]) for j in range(1, rank + 1))
        else:
            value = min(min(1.0, m * p[order[j - 1]] / j) for j in range(rank, m + 1))
        adjusted[index] = value
    return adjusted


@pytest.mark.parametrize("size", [1, 2, 7, 60])
def test_agrees_with_the_formulas_written_out(size):
    rng = np.random.default_rng(size)
    p = np.concatenate([rng.uniform(0, 1, size), rng.uniform(0, 0.01, size // 3)])
    p[: size // 4] = p[size // 4 : 2 * (size // 4)]  # some ties
    np.testing.assert_allclose(holm(p), brute_force(p.tolist(), "holm"), rtol=0, atol=1e-14)
    np.testing.assert_allclose(
        benjamini_hochberg(p), brute_force(p.tolist(), "bh"), rtol=0, atol=1e-14
    )


@pytest.mark.parametrize("size", [1, 7, 60])
def test_holm_of_tested_adjusts_over_the_tests_made_alone(size):
    """A family with tests that could not be made (NaN, a skipped fit): each made test's adjusted p
    is the written-out Holm over the made tests alone (m counts them, not the skipped ones), which
    stay NaN."""
    rng = np.random.default_rng(size)
    p = rng.uniform(0, 0.05, 2 * size)
    skipped = rng.permutation(2 * size) < size
    p[skipped] = np.nan
    adjusted = holm_of_tested(p)
    assert np.isnan(adjusted[skipped]).all()
    np.testing.assert_allclose(
        adjusted[~skipped], brute_force(p[~skipped].tolist(), "holm"), rtol=0, atol=1e-14
    )
    assert np.isnan(holm_of_tested([np.nan, np.nan])).all()
    with pytest.raises(InputError, match=r"1 of 2 p-values are NaN, infinite or outside \[0, 1\]"):
        holm_of_tested([0.1, 1.5, np.nan])


@pytest.mark.parametrize("adjust", [holm, benjamini_hochberg])
def test_monotone_and_at_least_the_raw_p_values(adjust):
    p = np.random.default_rng(0).uniform(0, 0.2, 40)
    adjusted = adjust(p)
    order = np.argsort(p)
    assert np.all(np.diff(adjusted[order]) >= 0)
    assert np.all(adjusted >= p) and np.all(adjusted <= 1)


@pytest.mark.parametrize("adjust", [holm, benjamini_hochberg])
@pytest.mark.parametrize(
    ("p_values", "message"),
    [
        ([0.1, np.nan, 0.2], r"1 of 3 p-values are NaN, infinite or outside \[0, 1\]"),
        (
            [0.1, 1.2, -0.1],
            r"2 of 3 p-values are NaN, infinite or outside \[0, 1\] \(e.g. \[1.2, -0.1\]\)",
        ),
        ([np.inf], r"1 of 1 p-values"),
        ([], r"non-empty one-dimensional sequence, got shape \(0,\)"),
        ([[0.1, 0.2]], r"got shape \(1, 2\)"),
        (["x"], r"p-values must be numbers"),
    ],
)
def test_bad_input(adjust, p_values, message):
    with pytest.raises(InputError, match=message):
        adjust(p_values)
