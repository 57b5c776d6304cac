"""Checks and normalisation of word-vector rows shared by the embedding statistics (WEAT, gender
space).

- :func:`float_rows` turns nested lists into one float array and, when that fails (a ragged row, a
  value that is not a number), raises an :class:`InputError` naming the caller's row instead of
  numpy's "inhomogeneous shape".
- :func:`vector_sets` / :func:`matrix` check named sets of vectors (shape, NaN/inf, zero rows) and
  name the first bad row; :func:`unit_rows` is :func:`unit_length_rows` with that check.
- :func:`unit_length_rows` computes :math:`v / \\lVert v \\rVert` along the last axis without
  overflow or
  underflow: each row is first multiplied by :math:`2^{-e}`, where :math:`2^{e-1} \\le \\max_i |v_i|
  < 2^e`, so its largest entry lies in [0.5, 1) before it is squared. Scaling by a power of two is
  exact in floating point, so for rows whose squares neither overflow nor underflow the result is
  bit for bit :math:`v / \\lVert v \\rVert`; rows of magnitude 1e-200 or 1e200 get the same
  direction as at magnitude 1 (cosine is scale-free) instead of "all zeros" or inf.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..errors import InputError


def float_rows(values, what: str, row_labels: Sequence[str] | None = None) -> np.ndarray:
    """Convert nested rows of numbers to a float64 array.

    An InputError names the first bad row when they are not rectangular.

    Args:
        values: nested sequences (or an array) of numbers.
        what: the caller's name for ``values`` (e.g. ``"embeddings"``), used in the message.
        row_labels: optional text per row (e.g. ``"role X, 'rose'"``) appended to the row number.

    Examples
    --------
    >>> from eval_harness.stats.vectors import float_rows
    >>> float_rows([[1, 2], [3, 4]], "embeddings").dtype
    dtype('float64')
    >>> float_rows([[1, 2], [3]], "embeddings", row_labels=["role X", "role A"])
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: embeddings: row 1 (role A) has 1 values where the other ...
    """
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f"{what}: {_first_bad_row(values, row_labels)}") from error


def _first_bad_row(values, row_labels: Sequence[str] | None) -> str:
    """Why ``values`` is not one rectangular array of numbers, naming the first offending row."""

    def name(row: int) -> str:
        return f"row {row}" + (
            f" ({row_labels[row]})" if row_labels is not None and row < len(row_labels) else ""
        )

    try:
        rows = list(values)
    except TypeError:
        return f"expected rows of numbers; got {type(values).__name__}"
    shapes = []
    for row, item in enumerate(rows):
        try:
            shapes.append(np.asarray(item, dtype=np.float64).shape)
        except (TypeError, ValueError):
            return (
                f"{name(row)} holds a value that is not a number, "
                f"or rows of different lengths ({item!r:.80})"
            )
    common, _ = Counter(shapes).most_common(1)[0]
    row = next(row for row, shape in enumerate(shapes) if shape != common)
    if len(shapes[row]) == len(common) == 1:
        found = f"has {shapes[row][0]} values where the other rows have {common[0]}"
    else:
        found = f"has shape {shapes[row]} where the other rows have {common}"
    return f"{name(row)} {found}; every vector must be a list of numbers of one common length"


def unit_length_rows(array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scale every row (last axis) to unit length and mark the all-zero rows: ``(unit, zero)``.

    Rows are scaled by the power of two that brings their largest absolute entry into [0.5, 1)
    before the Euclidean norm (module docstring): no overflow or underflow, and bit-identical to ``v
    / ||v||`` whenever that does not overflow or underflow. All-zero rows stay zero in ``unit``;
    callers raise on them. ``array`` must be finite.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.vectors import unit_length_rows
    >>> unit, zero = unit_length_rows(np.array([[3.0, 4.0], [0.0, 0.0], [1e-200, 0.0]]))
    >>> unit.tolist(), zero.tolist()
    ([[0.6, 0.8], [0.0, 0.0], [1.0, 0.0]], [False, True, False])
    """
    array = np.asarray(array, dtype=np.float64)
    largest = (
        np.abs(array).max(axis=-1, keepdims=True)
        if array.shape[-1]
        else np.zeros((*array.shape[:-1], 1))
    )
    zero = largest[..., 0] == 0
    _, exponent = np.frexp(largest)
    scaled = np.ldexp(array, -exponent)
    norms = np.linalg.norm(scaled, axis=-1, keepdims=True)
    return scaled / np.where(zero[..., None], 1.0, norms), zero


ZERO_ROWS = (
    "are all zeros (similarity undefined); drop "
    "out-of-vocabulary words instead of embedding them as zeros"
)


def matrix(vectors, what: str, row_labels: Sequence[str] | None = None) -> np.ndarray:
    """Convert vectors to a float64 ``(n, d)`` array, or raise an InputError saying what is wrong.

    Examples
    --------
    >>> from eval_harness.stats.vectors import matrix
    >>> matrix([[1, 2], [3, 4]], "set X").shape
    (2, 2)
    >>> matrix([1, 2], "set X")
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: set X: expected one vector per row, a 2-D array ...
    """
    array = float_rows(vectors, what, row_labels)
    if array.ndim != 2:
        raise InputError(
            f"{what}: expected one vector per row, a 2-D "
            f"array (n_words, dim); got shape {array.shape}"
        )
    return array


def bad_rows(array: np.ndarray, allow_zero: bool = False) -> dict[str, np.ndarray]:
    """The rows of a 2-D array with NaN/inf (and, unless ``allow_zero``, all zeros), by problem.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.vectors import bad_rows
    >>> problems = bad_rows(np.array([[1.0, 0.0], [np.nan, 1.0], [0.0, 0.0]]))
    >>> [rows.tolist() for rows in problems.values()], list(problems)[0]
    ([[1], [2]], 'contain NaN or inf')
    """
    finite = np.isfinite(array).all(axis=1)
    problems = {"contain NaN or inf": np.flatnonzero(~finite)}
    if not allow_zero:
        problems[ZERO_ROWS] = np.flatnonzero(finite & ~array.any(axis=1))
    return problems


def vector_sets(
    sets: dict[str, object], words: dict[str, list[str]] | None = None, allow_zero: bool = False
) -> dict[str, np.ndarray]:
    """Named sets of vectors as float64 ``(n, d)`` arrays of one common dimension, or an InputError
    naming the first problem (set, row, word): an empty set, a ragged row, NaN or inf, or (unless
    ``allow_zero``, which a measure on raw vectors may set) an all-zero row, whose cosine is
    undefined.

    Examples
    --------
    >>> from eval_harness.stats.vectors import vector_sets
    >>> sets = vector_sets({"X": [[1.0, 0.0]], "A": [[0.0, 1.0], [1.0, 1.0]]})
    >>> {name: rows.shape for name, rows in sets.items()}
    {'X': (1, 2), 'A': (2, 2)}
    >>> vector_sets({"X": [[1.0, 0.0]], "A": [[0.0, 0.0]]}, words={"X": ["he"], "A": ["nurse"]})
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: set A: row(s) [0] ('nurse') are all zeros (similarity ...
    """
    checked = {}
    for name, vectors in sets.items():
        set_words = (words or {}).get(name)
        array = matrix(
            vectors, f"set {name}", None if set_words is None else [repr(w) for w in set_words]
        )
        if array.shape[0] == 0:
            raise InputError(f"set {name} is empty; every set needs at least one vector")
        for problem, bad in bad_rows(array, allow_zero).items():
            if bad.size:
                named = (
                    ""
                    if set_words is None
                    else f" ({', '.join(repr(set_words[row]) for row in bad[:5])})"
                )
                raise InputError(f"set {name}: row(s) {bad[:5].tolist()}{named} {problem}")
        checked[name] = array
    dims = {name: array.shape[1] for name, array in checked.items()}
    if len(set(dims.values())) > 1:
        raise InputError(f"all vectors must have the same dimension; got {dims}")
    return checked


def unit_rows(vectors: np.ndarray, name: str) -> np.ndarray:
    """Scale rows to unit length (:func:`unit_length_rows`), refusing all-zero rows by position.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.vectors import unit_rows
    >>> unit_rows(np.array([[0.0, 5.0]]), "set A").tolist()
    [[0.0, 1.0]]
    """
    unit, zero = unit_length_rows(vectors)
    if zero.any():
        raise InputError(f"{name} vectors: row(s) {np.flatnonzero(zero)[:5].tolist()} {ZERO_ROWS}")
    return unit


def is_whole_number(value: object) -> bool:
    """Whether ``value`` is a whole number.

    True for ints and integral floats (``1e5``), numpy's included; False for bools, NaN and
    fractions.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.vectors import is_whole_number
    >>> is_whole_number(3), is_whole_number(1e5), is_whole_number(np.int64(2))
    (True, True, True)
    >>> is_whole_number(True), is_whole_number(2.5), is_whole_number(float("nan"))
    (False, False, False)
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        return False
    return math.isfinite(value) and float(value).is_integer()


# The most entries of one similarity matrix (800 MB of float64): a WEAT of 10,000 targets by 10,000
# attributes. A larger one is refused before it is allocated (a 10^6-word test would ask for
# terabytes).
MAX_MATRIX_ENTRIES = 10**8


def check_matrix_size(rows: int, columns: int, what: str) -> None:
    """Refuse a ``rows x columns`` matrix of more than :data:`MAX_MATRIX_ENTRIES` entries, before
    allocating it.

    Raises:
        InputError: naming the matrix, its shape and the memory it would take (8 bytes an entry).

    Examples
    --------
    >>> from eval_harness.stats.vectors import check_matrix_size
    >>> check_matrix_size(1000, 1000, "similarity matrix")
    >>> check_matrix_size(10**6, 10**6, "similarity matrix")
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: similarity matrix would be 1,000,000 x 1,000,000 ...
    """
    entries = int(rows) * int(columns)
    if entries > MAX_MATRIX_ENTRIES:
        raise InputError(
            f"{what} would be {rows:,} x {columns:,} ({entries * 8 / 2**30:,.1f} "
            f"GiB of float64), more than {MAX_MATRIX_ENTRIES:,} entries: give "
            "fewer words (a test of at most about 10,000 a side)"
        )


def check_same_lengths(columns: dict[str, Sequence | None]) -> None:
    """Refuse columns of one table (an evaluate metric's inputs: one entry per row) whose lengths
    differ; a column that is None (not given) is left out.

    Raises:
        InputError: naming each column's length.

    Examples
    --------
    >>> from eval_harness.stats.vectors import check_same_lengths
    >>> check_same_lengths({"predictions": [0.1, 0.2], "group": ["a", "b"], "gender": None})
    >>> check_same_lengths({"predictions": [0.1, 0.2], "group": ["a"]})
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: 2 predictions, 1 group: give one of each per row
    """
    lengths = {name: len(column) for name, column in columns.items() if column is not None}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{length} {name}" for name, length in lengths.items())
        raise InputError(f"{listed}: give one of each per row")


def check_role_rows(
    embeddings: Sequence | None, roles: Sequence | None, words: Sequence | None = None
) -> None:
    """Refuse row-wise input (the embedding metrics': one vector, one role and optionally one word
    per row) whose lengths differ or whose roles are not strings (``1`` for ``"X"``), before
    evaluate encodes them.

    Raises:
        InputError: naming the mismatch or the first role that is not a string.

    Examples
    --------
    >>> from eval_harness.stats.vectors import check_role_rows
    >>> check_role_rows([[1.0, 0.0], [0.0, 1.0]], ["X", "A"])
    >>> check_role_rows([[1.0, 0.0], [0.0, 1.0]], ["X", 1])
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: roles must be strings such as 'X', 'Y', 'A', 'B'; row 1 ...
    """
    for name, column in (("role", roles), ("word", words)):
        if embeddings is not None and column is not None and len(column) != len(embeddings):
            raise InputError(
                f"{len(embeddings)} embeddings but {len(column)} {name}s; give one {name} per row"
            )
    for row, role in enumerate(roles or ()):
        if not isinstance(role, str):
            raise InputError(
                "roles must be strings such as 'X', 'Y', 'A', 'B'; "
                f"row {row} has {type(role).__name__} {role!r:.40}"
            )
