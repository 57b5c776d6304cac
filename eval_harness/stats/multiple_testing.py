"""Adjusted p-values for a family of tests (e.g. EECs x emotions x models).

With the ``m`` p-values sorted ascending, ``p_(1) <= ... <= p_(m)``:

* Holm (1979), controls the family-wise error rate:
  ``adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
* Benjamini & Hochberg (1995), controls the false discovery rate (independent or
  positively dependent tests): ``adj_(i) = min_{j >= i} min(1, m p_(j) / j)``.

Both return the adjusted values in the input order; they are monotone in the raw
p-values, at least as large as them, and capped at 1. A test is rejected at level
``alpha`` when its adjusted p-value is ``<= alpha``. Both are computed by
``statsmodels.stats.multitest.multipletests`` (methods ``"holm"`` and ``"fdr_bh"``)
after the validation here.

A family some of whose tests could not be made (a skipped fit: no p-value, NaN) is adjusted over the
tests that were made (:func:`holm_of_tested`: ``m`` counts those), the others left NaN.
"""

from collections.abc import Sequence

import numpy as np
from statsmodels.stats.multitest import multipletests

from ..errors import InputError


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm step-down adjusted p-values, in the input order (see the module docstring).

    Examples
    --------
    >>> from eval_harness.stats.multiple_testing import holm
    >>> holm([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    return multipletests(_validate(p_values), method="holm")[1]


def benjamini_hochberg(p_values: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values (q-values), in input order (module docstring).

    Examples
    --------
    >>> from eval_harness.stats.multiple_testing import benjamini_hochberg, holm
    >>> p_values = [0.01, 0.04, 0.03]
    >>> benjamini_hochberg(p_values).round(4).tolist()  # less strict than Holm's
    [0.03, 0.04, 0.04]
    >>> holm(p_values).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    return multipletests(_validate(p_values), method="fdr_bh")[1]


def holm_of_tested(p_values: Sequence[float]) -> np.ndarray:
    """Holm-adjusted p-values of the tests that have one, over those alone; NaN for the others.

    Examples
    --------
    >>> import math
    >>> from eval_harness.stats.multiple_testing import holm_of_tested
    >>> holm_of_tested([0.01, math.nan, 0.03]).round(4).tolist()
    [0.02, nan, 0.03]
    """
    p = _floats(p_values)
    adjusted = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    if tested.any():
        adjusted[tested] = holm(p[tested])
    return adjusted


def _floats(p_values: Sequence[float]) -> np.ndarray:
    try:
        return np.asarray(p_values, dtype=float)
    except (TypeError, ValueError) as error:
        raise InputError(f"p-values must be numbers: {error}") from None


def _validate(p_values: Sequence[float]) -> np.ndarray:
    p = _floats(p_values)
    if p.ndim != 1 or p.size == 0:
        raise InputError(
            f"p-values must be a non-empty one-dimensional sequence, got shape {p.shape}"
        )
    bad = ~np.isfinite(p) | (p < 0) | (p > 1)
    if bad.any():
        raise InputError(
            f"{int(bad.sum())} of {p.size} p-values are NaN, infinite or outside [0, 1] "
            f"(e.g. {p[bad][:3].tolist()}); drop failed tests before adjusting"
        )
    return p
