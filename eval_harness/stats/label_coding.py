"""The rows of a factorial fit: the predictions checked, each factor's labels and the groupings
coded.

Data preparation for :mod:`~eval_harness.stats.factorial` (and the 2 x 2 view, the stability and the
condition contrasts built on it): :func:`prepare_rows` turns predictions and per-row labels into
:class:`Rows`, integer codes of each factor's levels with the reference level first. Labels must be
strings (None or NaN: missing, the row left out); the codes are found without per-row Python work
where the labels allow it (:func:`code_labels`). Exact 0 or 1 predictions are squeezed into (0, 1)
or refused.
"""

import array as pyarray
import math
import numbers
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from .beta_likelihood import BetaRegressionWarning
from .results import Result

BOUNDARY_MODES = ("squeeze", "error")


@dataclass(frozen=True)
class Factor(Result):
    """A categorical factor: its ``name`` and ``levels``, the reference level first."""

    name: str
    levels: tuple[str, ...]

    @property
    def reference(self) -> str:
        return self.levels[0]


def _is_number_type(kind: type) -> bool:
    return issubclass(kind, numbers.Real) and not issubclass(kind, bool | np.bool_)


def checked_scores(y) -> np.ndarray:
    """The predictions ``y`` as a 1-D float array of numbers in [0, 1].

    Refused, each with an :class:`InputError` that says what was found: what is not a number
    (strings, booleans), empty input, NaN or infinite values, and values outside [0, 1].

    A list is converted by the standard library's ``array.array("d")`` (one C pass that refuses
    strings and None); its items' types are looked at one by one only where a value is exactly 0 or
    1, the only values a boolean converts to.

    Examples
    --------
    >>> checked_scores([0.2, 0.75, 1]).tolist()
    [0.2, 0.75, 1.0]
    >>> checked_scores([0.2, True])
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: predictions must be numbers, found values of type ...
    """
    if hasattr(y, "dtype") and getattr(y.dtype, "kind", "O") != "O":
        kind = y.dtype.kind
        if kind not in "fiu":
            found = "booleans" if kind == "b" else f"values of dtype {y.dtype}"
            raise InputError(f"predictions must be numbers, found {found}")
        values = np.asarray(y, dtype=float)
    else:
        items = y if isinstance(y, list) else y.tolist() if hasattr(y, "tolist") else list(y)
        try:
            values = np.frombuffer(pyarray.array("d", items), dtype=float)
        except OverflowError:
            raise InputError(
                "predictions must be numbers in [0, 1], found an integer too large for a float"
            ) from None
        except TypeError:  # a string, None or another non-number: named below
            values = None
        if values is None or (len(values) and (values.min() == 0 or values.max() == 1)):
            _check_number_types(items)
        if values is None:
            values = np.fromiter(items, dtype=float, count=len(items))
    if values.ndim != 1:
        raise InputError(f"predictions must be one-dimensional, got shape {values.shape}")
    if not len(values):
        raise InputError(
            "no predictions were given (empty input): the Beta regression needs scored sentences"
        )
    if values.min() >= 0 and values.max() <= 1:  # NaN compares false: one pass each for every check
        return values
    bad = ~np.isfinite(values)
    if bad.any():
        raise InputError(
            f"{int(bad.sum())} of {len(values)} predictions are NaN or infinite (first at row "
            f"{int(np.argmax(bad))}); the model must return a finite score for every sentence"
        )
    outside = (values < 0) | (values > 1)
    raise InputError(
        f"{int(outside.sum())} of {len(values)} predictions are outside [0, "
        f"1] (min {values.min():.4g}, max {values.max():.4g}); Beta "
        "regression needs intensities in [0, 1]: clip or rescale them first"
    )


def _check_number_types(items: list) -> None:
    """Refuse items that are not real numbers (booleans, strings, None), naming their types."""
    odd = sorted(kind.__name__ for kind in set(map(type, items)) if not _is_number_type(kind))
    if odd:
        raise InputError(
            f"predictions must be numbers, found values of type {odd}"
            + (" (booleans are not intensities)" if {"bool", "bool_"} & set(odd) else "")
        )


def _label_array(name: str, labels) -> np.ndarray:
    """A factor's labels as a 1-D array, without per-row Python work for numpy or pandas columns (a
    fixed-width string array stays one: no conversion to objects); a list becomes an object array of
    its own labels."""
    if isinstance(labels, pd.Series | pd.Index | pd.Categorical):
        labels = np.asarray(labels, dtype=object)
    if isinstance(labels, list):  # its items as they are: no search for nested sequences
        return np.fromiter(labels, dtype=object, count=len(labels))
    array = labels if isinstance(labels, np.ndarray) else np.asarray(labels, dtype=object)
    if array.ndim != 1:
        raise InputError(
            f"{name} labels must be strings (or None), one "
            f"per row; got an array of shape {array.shape}"
        )
    return array


# Levels found by comparison before the labels are hashed instead (k passes over n rows cost n k).
MAX_COMPARED_LEVELS = 16


def code_labels(name: str, labels: Sequence[str | None]) -> tuple[np.ndarray, list[str]]:
    """Integer codes of a factor's labels (-1 where missing: None or NaN) and its levels in order of
    appearance.

    Labels must be strings: the levels found are checked (not every row), so any other value, a
    number or a list, is an :class:`InputError` naming the types found. A pandas categorical column
    is taken as it is coded (no per-row work at all); a list or object array by :func:`object_codes`
    (its labels are a few shared objects) or else :func:`distinct_codes`, a fixed-width string array
    by :func:`compared_codes` (all linear in the rows, no conversion to or from objects); labels are
    hashed (pandas) only past ``MAX_COMPARED_LEVELS`` levels or where a label is not a string.
    """
    if isinstance(getattr(labels, "dtype", None), pd.CategoricalDtype):
        categorical = labels.array if isinstance(labels, pd.Series | pd.Index) else labels
        codes, levels = categorical.codes, categorical.categories
    else:
        array = _label_array(name, labels)
        if array.dtype.kind == "O":
            coded = object_codes(array)
            if coded is None:
                coded = distinct_codes(
                    array, labels if isinstance(labels, list) else array.tolist()
                )
        else:
            coded = fixed_width_codes(array)
        codes, levels = coded if coded is not None else _hashed_codes(name, array)
    odd = {type(level).__name__ for level in levels if not isinstance(level, str)}
    if odd:
        raise InputError(
            f"{name} labels must be strings (or None), found values of type {sorted(odd)}"
        )
    return np.asarray(codes, dtype=np.intp), [str(level) for level in levels]


def compared_codes(array: np.ndarray) -> tuple[np.ndarray, list[int]] | None:
    """Codes of an array by comparison with one level at a time, and the first row of each level.

    For an array whose ``==`` is one vectorised pass (fixed-width strings, object addresses): the
    first uncoded row's value is the next level, and every row equal to it gets its code, until
    every row is coded.

    k levels cost k passes over the n rows (linear in n). None (the caller hashes instead) past
    ``MAX_COMPARED_LEVELS`` levels.
    """
    codes = np.zeros(
        len(array), dtype=np.uint8
    )  # a byte a row (at most MAX_COMPARED_LEVELS levels)
    uncoded = np.ones(len(array), dtype=bool)
    firsts: list[int] = []
    start = 0
    while start < len(array):
        if len(firsts) == MAX_COMPARED_LEVELS:
            return None
        equal = array[start:] == array[start]
        # the rows equal to this level were uncoded, 0: add its code (a masked ufunc is 20x slower)
        if firsts:
            codes[start:] += equal.view(np.uint8) * len(firsts)
        firsts.append(start)
        rest = uncoded[start:]
        np.greater(rest, equal, out=rest)  # uncoded and not equal
        first = int(np.argmax(rest))
        start = start + first if rest[first] else len(array)
    return codes, firsts


def fixed_width_codes(array: np.ndarray) -> tuple[np.ndarray, list] | None:
    """Codes of a fixed-width string array, compared as it is; None for another dtype.

    :func:`compared_codes` on the array itself: no conversion to Python objects."""
    if array.dtype.kind != "U":
        return None
    coded = compared_codes(array)
    return None if coded is None else (coded[0], [str(array[row]) for row in coded[1]])


class _Pointers:
    """An object array's buffer of pointers described as unsigned integers (numpy refuses to view it
    as such); an array made from it keeps the object array, and so its elements, alive."""

    def __init__(self, objects: np.ndarray):
        self.objects = objects
        self.__array_interface__ = {
            "data": (objects.__array_interface__["data"][0], True),
            "shape": objects.shape,
            "typestr": np.dtype(np.uintp).str,
            "version": 3,
        }


def object_addresses(objects: np.ndarray) -> np.ndarray:
    """The memory addresses of an object array's elements, equal exactly where two are the same
    object.

    Read-only unsigned integers; a contiguous array is not copied."""
    return np.asarray(_Pointers(np.ascontiguousarray(objects)))


def object_codes(objects: np.ndarray) -> tuple[np.ndarray, list] | None:
    """Codes of an object array's labels that are a few shared objects, found from their addresses.

    Such labels are literals, a column's ``tolist()``, a pyarrow column's deduplicated strings:
    :func:`compared_codes` of the objects' addresses (one integer
    comparison a row per object, no string compared), then the objects' values: equal strings in
    different objects are one level, None and NaN are missing (-1).

    None (the caller compares values instead) when the labels are more than ``MAX_COMPARED_LEVELS``
    objects (the first rows tell at once when each is its own object) or one of them is not a
    string, None or NaN.
    """
    addresses = object_addresses(objects)
    if len(np.unique(addresses[:PROBED_ROWS])) > MAX_COMPARED_LEVELS:
        return None
    coded = compared_codes(addresses)
    if coded is None:
        return None
    codes, firsts = coded
    labels = [objects[row] for row in firsts]
    if not all(_is_missing(label) or isinstance(label, str) for label in labels):
        return None
    levels = list(
        dict.fromkeys(label for label in labels if isinstance(label, str))
    )  # in order of appearance
    level_of_object = np.array(
        [levels.index(label) if isinstance(label, str) else -1 for label in labels]
    )
    if not np.array_equal(level_of_object, np.arange(len(labels))):
        codes = level_of_object[codes]
    return codes, levels


# The rows :func:`object_codes` looks at first to tell labels that are each their own object.
PROBED_ROWS = 1024


def _is_missing(label) -> bool:
    return label is None or (isinstance(label, float) and math.isnan(label))


def distinct_codes(array: np.ndarray, items: list) -> tuple[np.ndarray, list] | None:
    """Codes of Python string labels from their set of distinct labels.

    ``items`` are the labels and ``array`` their object array. The set is one pass of hashing (a
    string caches its hash); its levels are ordered by first appearance (``list.index``), and the
    rows equal to each of the first k - 1 levels get its code by one comparison ``array == level``
    each (a label compared with itself is equal at once). The remaining rows hold the last level:
    the set says there is no other. None (the caller hashes instead) for a missing, non-string or
    unhashable label, or more than ``MAX_COMPARED_LEVELS`` levels.
    """
    try:
        distinct = set(items)
    except TypeError:  # unhashable labels: hashing names their types
        return None
    if len(distinct) > MAX_COMPARED_LEVELS or not all(isinstance(level, str) for level in distinct):
        return None
    levels = sorted(distinct, key=items.index)
    codes = np.full(len(array), len(levels) - 1, dtype=np.intp)
    for code, level in enumerate(levels[:-1]):
        np.copyto(codes, code, where=array == level)
    return codes, levels


def _hashed_codes(name: str, array: np.ndarray):
    """Codes and levels (in order of appearance) by hashing: a fixed-width string array is sorted
    (``np.unique``, no objects), anything else goes through ``pandas.factorize`` (None and NaN are
    missing)."""
    if array.dtype.kind == "U":
        levels, first, inverse = np.unique(array, return_index=True, return_inverse=True)
        order = np.argsort(first)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return rank[inverse], levels[order].tolist()
    try:
        return pd.factorize(array)
    except TypeError:  # unhashable labels (lists, dicts): name every type that cannot be a label
        odd = {
            kind.__name__
            for kind in map(type, array)
            if not issubclass(kind, str | type(None) | float)
        }
        raise InputError(
            f"{name} labels must be strings (or None), found values of type {sorted(odd)}"
        ) from None


def checked_labels(name: str, labels: Sequence[str | None]) -> list:
    """A factor's labels as a list of strings and None, anything else refused.

    NaN (pandas' missing string) becomes None; other values are refused as :func:`code_labels` does,
    in one pass over the types (a list without NaN comes back as it is).

    Examples
    --------
    >>> checked_labels("group", ["Arab", None, math.nan])
    ['Arab', None, None]
    """
    items = labels if isinstance(labels, list) else _label_array(name, labels).tolist()
    kinds = set(map(type, items))
    if float in kinds:
        items = [None if isinstance(item, float) and math.isnan(item) else item for item in items]
        kinds = set(map(type, items))
    odd = {kind.__name__ for kind in kinds if not issubclass(kind, str | type(None))}
    if odd:
        raise InputError(
            f"{name} labels must be strings (or None), found values of type {sorted(odd)}"
        )
    return items


def group_codes(what: str, labels, n_rows: int, fitted: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes ``0 .. G - 1`` (in order of appearance) of one grouping's labels on the fitted rows,
    and the labels.

    ``what`` names the argument in errors (e.g. ``"clusters['template_id']"``). Every fitted row
    needs a hashable label and at least two groups must be present.
    """
    if isinstance(labels, str | bytes) or not hasattr(labels, "__len__"):
        raise InputError(f"{what} must hold one label per row ({n_rows}), got not a sequence")
    if len(labels) != n_rows:
        raise InputError(f"{what} must hold one label per row ({n_rows}), got {len(labels)} labels")
    if isinstance(labels, pd.Series | pd.Index):
        labels = labels.to_numpy()
    if isinstance(labels, np.ndarray) and labels.dtype.kind != "O" and labels.ndim == 1:
        kept = labels[fitted]
    else:
        kept = pd.Series(list(labels), dtype=object).to_numpy()[fitted]
    if kept.dtype.kind in "iu" and len(kept) and 0 <= kept.min() and kept.max() < 4 * len(kept):
        # Small non-negative integers (template ids): code them by counting, no hashing.
        present = np.flatnonzero(np.bincount(kept))
        if len(present) == present[-1] + 1:  # the ids are 0 .. G - 1 already: they are the codes
            codes, uniques = kept, present.tolist()
        else:
            index = np.zeros(present[-1] + 1, dtype=np.intp)
            index[present] = np.arange(len(present))
            codes, uniques = index[kept], present.tolist()
    else:
        try:
            codes, uniques = pd.factorize(kept)
        except TypeError as error:
            raise InputError(
                f"{what} labels must be hashable (strings or numbers): {error}"
            ) from None
    missing = int(np.sum(codes < 0))
    if missing:
        raise InputError(
            f"{what} has {missing} missing labels on the fitted rows; label every fitted row"
        )
    if len(uniques) < 2:
        raise InputError(
            f"{what} has {len(uniques)} cluster among the fitted rows; clustering needs at least 2 "
            "(and many more for reliable standard errors)"
        )
    return np.asarray(codes, dtype=np.intp), list(uniques)


@dataclass(frozen=True)
class Rows:
    """The validated rows a fit reads.

    ``y`` (squeezed if needed), each factor's level codes (reference 0) in ``codes``, the
    ``factors`` with their levels, grouping codes and labels in ``groups``/``group_labels``."""

    y: np.ndarray
    codes: dict[str, np.ndarray]
    factors: tuple[Factor, ...]
    groups: dict[str, np.ndarray]
    group_labels: dict[str, list]
    n_excluded: int
    squeezed: bool


def code_factors(
    values: np.ndarray, factors: Mapping[str, Sequence[str | None]]
) -> dict[str, tuple[np.ndarray, list]]:
    """Each factor's label codes (:func:`code_labels`), after checking one label per prediction."""
    if not isinstance(factors, Mapping) or not factors:
        raise InputError(
            "factors must map each factor's name to its "
            f"per-row labels, got {type(factors).__name__}"
        )
    labels = {str(name): column for name, column in factors.items()}
    lengths = [len(values)] + [len(column) for column in labels.values()]
    if len(set(lengths)) != 1:
        names = ["predictions", *labels]
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        found = ", ".join(map(str, lengths[:-1])) + f" and {lengths[-1]}"
        raise InputError(f"{listed} must have the same length, got {found}")
    return {name: code_labels(name, column) for name, column in labels.items()}


def prepare_rows(
    y,
    factors: Mapping[str, Sequence[str | None]],
    reference_levels: Mapping[str, str],
    boundary: str = "squeeze",
    groupings: Mapping[str, Sequence[Hashable]] | None = None,
    grouping_argument: str = "clusters",
    stacklevel: int = 5,
) -> Rows:
    """The rows of a fit from its predictions and each factor's per-row labels.

    The predictions checked (:func:`checked_scores`), the factor labels coded
    (:func:`code_factors`), then :func:`rows_from_codes`."""
    values = checked_scores(y)
    return rows_from_codes(
        values,
        code_factors(values, factors),
        reference_levels,
        boundary,
        groupings,
        grouping_argument,
        stacklevel,
    )


def rows_from_codes(
    values: np.ndarray,
    coded: Mapping[str, tuple[np.ndarray, list]],
    reference_levels: Mapping[str, str],
    boundary: str = "squeeze",
    groupings: Mapping[str, Sequence[Hashable]] | None = None,
    grouping_argument: str = "clusters",
    stacklevel: int = 4,
) -> Rows:
    """The rows of a fit from checked predictions and each factor's label codes.

    Rows with a missing label are left out, each factor's levels ordered (the reference first, the
    others sorted), groupings (clusters, resampling units) coded on the fitted rows, the boundary
    squeeze applied. ``grouping_argument`` names the groupings in errors; ``stacklevel`` is the
    squeeze warning's."""
    if boundary not in BOUNDARY_MODES:
        raise InputError(f"boundary must be one of {list(BOUNDARY_MODES)}, got {boundary!r}")
    if not isinstance(reference_levels, Mapping):
        raise InputError(
            "reference_levels must map factor names to "
            f"levels, got {type(reference_levels).__name__}"
        )
    unknown = sorted(set(reference_levels) - set(coded))
    if unknown:
        raise InputError(
            f"reference_levels names {unknown}, which are not factors; factors are {list(coded)}"
        )
    fitted = labelled_rows([codes for codes, _ in coded.values()])
    n_fitted = len(values) if isinstance(fitted, slice) else int(fitted.sum())
    if not n_fitted:
        raise InputError(
            f"no row has a label for every factor ({', '.join(coded)}) "
            f"among the {len(values)} rows: nothing to fit"
        )
    codes, built = {}, []
    for name, (raw, found) in coded.items():
        present = sorted(
            found[k] for k in np.flatnonzero(np.bincount(raw[fitted], minlength=len(found)))
        )
        if len(present) < 2:
            raise InputError(
                f"{name} has a single level {present} among the {n_fitted} "
                "fitted rows; a factor needs at least two levels"
            )
        if name not in reference_levels:
            raise InputError(
                f"no reference level for {name}: pass "
                f"reference_levels={{{name!r}: <one of {present}>}}"
            )
        reference = reference_levels[name]
        if reference not in present:
            raise InputError(
                f"reference level {reference!r} of {name} is not one of the levels found {present}"
            )
        levels = (reference, *[level for level in present if level != reference])
        position = {level: i for i, level in enumerate(levels)}
        remap = np.array([position.get(level, -1) for level in found], dtype=np.intp)
        # The codes often are the level order already (a categorical, or the reference seen first).
        kept = raw[fitted]
        codes[name] = kept if np.array_equal(remap, np.arange(len(found))) else remap[kept]
        built.append(Factor(name, levels))
    groups, group_labels = {}, {}
    for name, column in (groupings or {}).items():
        groups[str(name)], group_labels[str(name)] = group_codes(
            f"{grouping_argument}[{name!r}]", column, len(values), fitted
        )
    kept, squeezed = _handle_boundary(values[fitted], boundary, stacklevel)
    return Rows(kept, codes, tuple(built), groups, group_labels, len(values) - n_fitted, squeezed)


def labelled_rows(codes: Sequence[np.ndarray]) -> np.ndarray | slice:
    """The rows with a label in every one of ``codes`` (-1: missing).

    A boolean mask, or ``slice(None)`` when that is every row (indexing with it copies nothing)."""
    if all(column.min(initial=0) >= 0 for column in codes):
        return slice(None)
    return np.all([column >= 0 for column in codes], axis=0)


def squeeze_boundary(y: np.ndarray) -> np.ndarray:
    """Predictions in [0, 1] squeezed into (0, 1) by ``(y (n - 1) + 0.5) / n`` (Smithson & Verkuilen
    2006)."""
    n = len(y)
    return (y * (n - 1) + 0.5) / n


def _handle_boundary(y: np.ndarray, boundary: str, stacklevel: int) -> tuple[np.ndarray, bool]:
    if not len(y) or (y.min() > 0 and y.max() < 1):  # two reductions, no mask
        return y, False
    at_boundary = int(np.sum((y == 0) | (y == 1)))
    if boundary == "error":
        raise InputError(
            f"{at_boundary} of {len(y)} predictions are exactly "
            "0 or 1, which a Beta distribution cannot take; "
            'pass boundary="squeeze" to apply (y (n - 1) + 0.5) / n (Smithson & Verkuilen 2006)'
        )
    warnings.warn(
        f"{at_boundary} of {len(y)} predictions are exactly 0 or 1: all {len(y)} "
        "were squeezed with (y (n - 1) + 0.5) / n (Smithson & Verkuilen 2006)",
        BetaRegressionWarning,
        stacklevel=stacklevel,
    )
    return squeeze_boundary(y), True
