r"""Orthogonal Procrustes alignment of two embedding spaces from a bilingual dictionary.

Given the vectors of :math:`n` translation pairs, source rows :math:`X_S` and target rows
:math:`X_T` (both :math:`n \times d`; row :math:`i` of each is the same dictionary entry), the
orthogonal map

.. math:: W^\star = \arg\min_{W^\top W = I} \lVert X_S W^\top - X_T \rVert_F = U V^\top,
   \qquad U \Sigma V^\top = \operatorname{SVD}(X_T^\top X_S)

(Schönemann 1966) rotates the source space onto the target space: a source vector :math:`x` maps to
:math:`W x` (rows: :math:`X W^\top`). Being orthogonal, :math:`W` keeps every norm and every cosine
*within* the source space, so monolingual WEAT results do not change, and puts the two languages in
one space for cross-lingual tests (the projection-based cross-lingual spaces of Lauscher & Glavaš
2019, built as in Glavaš et al. 2019 / Smith et al. 2017).
"""

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .results import Result


@dataclass(frozen=True)
class ProcrustesAlignment(Result):
    """An orthogonal map of a source space onto a target space.

    Attributes:
        rotation: ``W``, ``(d, d)`` orthogonal; a source row ``x`` maps to ``x @ W.T``.
        n_pairs: dictionary pairs it was fitted on.
        mean_cosine_before: mean cosine of the pairs before mapping (only meaningful when the
            two spaces share coordinates, e.g. in tests).
        mean_cosine_after: mean cosine of the pairs after mapping (how well the dictionary aligns).
    """

    rotation: np.ndarray
    n_pairs: int
    mean_cosine_before: float
    mean_cosine_after: float

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """Map source-space rows ``(n, d)`` into the target space."""
        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[1] != self.rotation.shape[0]:
            raise InputError(
                f"expected rows of dimension {self.rotation.shape[0]}; got shape {vectors.shape}"
            )
        return vectors @ self.rotation.T.astype(vectors.dtype, copy=False)

    def to_dict(self) -> dict:
        return {
            "n_pairs": self.n_pairs,
            "dim": int(self.rotation.shape[0]),
            "mean_cosine_before": self.mean_cosine_before,
            "mean_cosine_after": self.mean_cosine_after,
        }

    def summary(self) -> str:
        return (
            f"Procrustes alignment on {self.n_pairs} pairs ({self.rotation.shape[0]}-d): "
            f"mean pair cosine {self.mean_cosine_before:.3f} -> {self.mean_cosine_after:.3f}"
        )


def orthogonal_procrustes(source: np.ndarray, target: np.ndarray) -> ProcrustesAlignment:
    """Fit the rotation that maps source vectors onto their translations (module docstring).

    ``W = U V^T`` from ``SVD(target^T source)`` on paired rows.

    Rows are used as given; L2-normalise them first for the usual unit-length alignment.

    Args:
        source: ``(n, d)`` source-language vectors of the dictionary pairs.
        target: ``(n, d)`` target-language vectors, row ``i`` translating ``source[i]``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.alignment import orthogonal_procrustes
    >>> source = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> target = source @ np.array([[0.6, 0.8], [-0.8, 0.6]])
    >>> fit = orthogonal_procrustes(source, target)
    >>> fit.n_pairs, round(fit.mean_cosine_before, 4), round(fit.mean_cosine_after, 4)
    (3, 0.6, 1.0)
    """
    source = np.asarray(source, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    if source.ndim != 2 or source.shape != target.shape:
        raise InputError(
            "source and target must be paired (n, d) arrays of "
            f"the same shape; got {source.shape} and {target.shape}"
        )
    if source.shape[0] == 0:
        raise InputError("no dictionary pairs to align on; give at least one (source, target) pair")
    if not (np.isfinite(source).all() and np.isfinite(target).all()):
        raise InputError("the dictionary vectors contain NaN or inf")
    u, _, vt = np.linalg.svd(target.T @ source)
    rotation = u @ vt
    return ProcrustesAlignment(
        rotation=rotation,
        n_pairs=int(source.shape[0]),
        mean_cosine_before=_mean_row_cosine(source, target),
        mean_cosine_after=_mean_row_cosine(source @ rotation.T, target),
    )


def _mean_row_cosine(left: np.ndarray, right: np.ndarray) -> float:
    norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    valid = norms > 0
    return (
        float(np.mean(np.sum(left[valid] * right[valid], axis=1) / norms[valid]))
        if valid.any()
        else 0.0
    )
