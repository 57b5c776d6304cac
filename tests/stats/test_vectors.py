"""Row checks and scale-free unit rows shared by WEAT and the gender-space measures."""

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats.vectors import float_rows, unit_length_rows


def test_unit_rows_are_bit_identical_to_dividing_by_the_norm_in_the_normal_range():
    rows = np.random.default_rng(0).normal(size=(200, 50)) * np.logspace(-30, 30, 200)[:, None]
    unit, zero = unit_length_rows(rows)
    assert not zero.any()
    np.testing.assert_array_equal(unit, rows / np.linalg.norm(rows, axis=1, keepdims=True))


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300])
def test_unit_rows_of_tiny_and_huge_vectors_keep_their_direction(scale):
    rows = np.array([[3.0, 4.0, 0.0], [1.0, -1.0, 1.0]])
    with np.errstate(over="ignore", under="ignore"):
        naive = np.linalg.norm(rows * scale, axis=1)
    assert ((naive == 0) | np.isinf(naive)).all()  # what dividing by the plain norm would face
    unit, zero = unit_length_rows(rows * scale)
    assert not zero.any()
    np.testing.assert_allclose(unit, rows / np.linalg.norm(rows, axis=1, keepdims=True), rtol=1e-15)


def test_zero_rows_are_flagged_along_the_last_axis():
    stack = np.ones((2, 3, 4))
    stack[1, 2] = 0
    unit, zero = unit_length_rows(stack)
    assert zero.tolist() == [[False] * 3, [False, False, True]]
    assert (unit[1, 2] == 0).all()


def test_float_rows_names_the_ragged_row_or_the_value_that_is_not_a_number():
    with pytest.raises(
        InputError, match=r"embeddings: row 2 \(B 'x'\) has 2 values where the other rows have 3"
    ):
        float_rows(
            [[1, 2, 3], [4, 5, 6], [7, 8], [0, 0, 1]], "embeddings", ["A", "A", "B 'x'", "B"]
        )
    with pytest.raises(InputError, match="row 1 holds a value that is not a number"):
        float_rows([[1, 2], [1, "two"]], "vectors")
    assert float_rows([[1, 2], [3, 4]], "vectors").dtype == np.float64
