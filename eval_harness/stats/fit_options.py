"""The Beta regression's options as a config or a caller names them, checked before any data is
read.

``cov_type`` (model-based or clustered standard errors), ``cluster_by`` (which per-row columns
cluster) and the most resamples a stability check may draw. This module imports nothing but the
project's errors, so that checking a config (``xbias run``'s first step, ``plan_units``) loads no
pandas or scipy; the fit's modules (:mod:`~eval_harness.stats.factorial`,
:mod:`~eval_harness.stats.betareg`, :mod:`~eval_harness.stats.stability`) use and re-export these
names.
"""

from collections.abc import Mapping, Sequence

from ..errors import InputError

COV_TYPES = ("model", "cluster")
# Per-row columns the eec_bias metric can cluster by (clusters_from_columns).
CLUSTER_COLUMNS = ("template_id", "person")
MAX_BOOTSTRAP = 100_000


def clusters_from_columns(
    cov_type: str, cluster_by: str | Sequence[str] | None, columns: Mapping[str, Sequence | None]
) -> dict[str, Sequence] | None:
    """The ``clusters`` argument of :func:`fit_intersectional` from named per-row columns.

    ``columns`` maps each of ``CLUSTER_COLUMNS`` to its per-row labels or None (not given).
    With ``cov_type="model"`` the result is None and ``cluster_by`` must be None. With
    ``cov_type="cluster"``, ``cluster_by`` names one or two columns (a string is one name;
    None means ``"template_id"``), each of which must be given.

    Examples
    --------
    >>> from eval_harness.stats.fit_options import clusters_from_columns
    >>> clusters_from_columns("cluster", None, {"template_id": [1, 1, 2, 2], "person": None})
    {'template_id': [1, 1, 2, 2]}
    >>> clusters_from_columns("model", None, {"template_id": [1, 1, 2, 2], "person": None}) is None
    True
    """
    if cov_type not in COV_TYPES:
        raise InputError(f"cov_type must be one of {list(COV_TYPES)}, got {cov_type!r}")
    if cov_type == "model":
        if cluster_by is not None:
            raise InputError(
                f"cluster_by={cluster_by!r} needs cov_type='cluster' (cov_type is 'model')"
            )
        return None
    names = (
        ["template_id"]
        if cluster_by is None
        else [cluster_by]
        if isinstance(cluster_by, str)
        else cluster_by
    )
    if not isinstance(names, Sequence) or not 1 <= len(names) <= 2 or len(set(names)) != len(names):
        raise InputError(
            "cluster_by must name one or two distinct columns "
            f"of {list(CLUSTER_COLUMNS)}, got {cluster_by!r}"
        )
    for name in names:
        if name not in CLUSTER_COLUMNS:
            raise InputError(
                f"cluster_by names {name!r}, which is not one of {list(CLUSTER_COLUMNS)}"
            )
        if columns.get(name) is None:
            raise InputError(
                f"cov_type='cluster' with cluster_by={list(names)} "
                f"needs the per-row {name}= labels, which were not given"
            )
    return {name: columns[name] for name in names}
