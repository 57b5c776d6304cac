"""The joint fit of a paired difference (:mod:`eval_harness.suites.eec.paired`): the same EEC rows
scored under two conditions, one Beta regression over both
(:func:`eval_harness.stats.condition_contrasts.fit_condition_contrasts`, the first condition the
reference):

    logit(mu) = [group x gender, saturated] + condition + [group x gender] x condition,
    log(phi)  = g0 + g1 condition

Every identity effect on the predicted-intensity scale is evaluated under each condition, and its
difference, second minus first, gets its own delta-method Wald test from the joint covariance.
Clustered standard errors give a row's two scores one cluster label (its template, its person, the
row itself), so that what a cluster does to both conditions cancels out of the difference; t(G - 1)
tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ....errors import InputError

if TYPE_CHECKING:  # pandas is imported where frames are built: checking a config loads none
    import pandas as pd

IDENTITY_FACTORS = ("group", "gender")


def check_cluster_by(cov_type: str, cluster_by: Sequence[str], allowed: Sequence[str]) -> None:
    """``cov_type`` is ``"cluster"`` or ``"model"``; ``cluster_by`` one or two distinct names of
    ``allowed`` (read with ``cov_type: cluster``).

    Raises:
        InputError: naming what is wrong and what is allowed.
    """
    if cov_type not in ("cluster", "model"):
        raise InputError(f"cov_type must be 'cluster' or 'model', got {cov_type!r}")
    names = list(cluster_by) if isinstance(cluster_by, list | tuple) else None
    if (
        not names
        or len(names) > 2
        or len(set(names)) != len(names)
        or not set(names) <= set(allowed)
    ):
        raise InputError(
            "cluster_by must be one or two distinct names "
            f"of {', '.join(allowed)}, got {cluster_by!r}"
        )


def paired_contrasts(
    rows: pd.DataFrame,
    first_scores: Sequence[float],
    second_scores: Sequence[float],
    condition: str,
    levels: tuple[str, str],
    reference_levels: Mapping[str, str],
    *,
    cluster_sources: Mapping[str, str],
    cov_type: str = "cluster",
    cluster_by: Sequence[str] = ("template_id",),
    use_t: bool | None = None,
    zero_untested: bool = False,
):
    """One joint fit over the same ``rows`` (their ``group`` and ``gender``) scored under two
    conditions: ``first_scores[i]`` is row ``i``'s score under ``levels[0]`` (the reference),
    ``second_scores[i]`` under ``levels[1]``; the condition factor is called ``condition``
    (``language``, ``model``). ``cluster_sources`` maps each allowed ``cluster_by`` name to the
    column of ``rows`` that labels it, the same label for a row under both conditions (what makes
    the comparison paired); ``zero_untested``: a quantity whose standard error is 0 gets no test
    instead of an InputError
    (:func:`~eval_harness.stats.condition_contrasts.fit_condition_contrasts`). Returns the
    :class:`~eval_harness.stats.condition_contrasts.ConditionContrasts` (differences: second minus
    first).

    Raises:
        InputError: scores that are not one per row, bad ``cov_type``/``cluster_by``, and whatever
            the fit refuses (a cell with too few rows, scores constant within the cells, ...).
    """
    from ....stats.condition_contrasts import (
        fit_condition_contrasts,
    )  # scipy: not when a config is read

    check_cluster_by(cov_type, cluster_by, tuple(cluster_sources))
    first, second = np.asarray(first_scores), np.asarray(second_scores)
    if not len(first) == len(second) == len(rows):
        raise InputError(
            f"{len(rows)} paired rows need as many scores under {levels[0]} "
            f"and under {levels[1]}, got {len(first)} and {len(second)}"
        )

    def both(column: str) -> np.ndarray:
        values = rows[column].to_numpy()
        return np.concatenate([values, values])

    clusters = (
        {name: both(cluster_sources[name]) for name in cluster_by}
        if cov_type == "cluster"
        else None
    )
    return fit_condition_contrasts(
        np.concatenate([first, second]),
        {name: both(name) for name in IDENTITY_FACTORS},
        reference_levels,
        [levels[0]] * len(rows) + [levels[1]] * len(rows),
        levels[0],
        condition_name=condition,
        use_t=use_t,
        cov_type=cov_type,
        clusters=clusters,
        zero_untested=zero_untested,
    )
