"""Gender-space measures of word vectors (Basta, Costa-jussà & Casas 2019), pure numerics.

Five measures, each usable on static vectors and on contextual vectors of words in
sentences (several context draws of the same word list):

1. :func:`gender_subspace` -- PCA over the differences of definitional pairs (Bolukbasi
   et al. 2016), with a random-pair baseline; the first component is the gender
   direction ``g``.
2. :func:`direct_bias` -- ``DB_c = (1/|N|) sum_{w in N} |cos(w, g)|^c`` over neutral words.
3. :func:`clustering_accuracy` -- k-means (k = 2) over the most male- and female-biased
   words; accuracy of the better cluster-to-gender matching (Gonen & Goldberg 2019).
4. :func:`svm_classification_accuracy` -- an RBF-kernel SVM trained on a random part of
   the extended biased list, tested on the rest.
5. :func:`knn_profession_bias` -- the share of male-biased words among each profession's
   k nearest neighbours, Pearson-correlated with the profession's original bias.

Conventions: every vector is scaled to unit length before use (all five measures are
cosine geometry; a zero row, the usual mark of a missing word, is an error). A measure
repeated over context draws takes ``vectors`` of shape ``(r, n, d)`` -- one draw per run
-- or ``(n, d)``, the same vectors in every run (static vectors). Randomness comes from
a seeded :class:`numpy.random.Generator`. No I/O, no printing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats
from sklearn.cluster import KMeans
from sklearn.svm import SVC

from ..errors import InputError
from .results import Result
from .vectors import check_matrix_size, float_rows, unit_length_rows

__all__ = [
    "DEFAULT_COMPONENTS",
    "ROLES",
    "DirectBias",
    "GenderSpaceMeasures",
    "GenderSubspace",
    "KnnProfessionBias",
    "RepeatedAccuracy",
    "clustering_accuracy",
    "direct_bias",
    "gender_projection",
    "gender_space_measures",
    "gender_subspace",
    "knn_profession_bias",
    "most_biased",
    "random_pair_indices",
    "svm_classification_accuracy",
    "unit_rows",
]

# Principal components the subspace reports when n_components is not given (fewer when the pairs
# have fewer).
DEFAULT_COMPONENTS = 10


# ---------------------------------------------------------------------------- input checks


def _finite_array(
    name: str, values, ndim: Sequence[int], row_labels: Sequence[str] | None = None
) -> np.ndarray:
    array = float_rows(values, name, row_labels)
    if array.ndim not in ndim:
        raise InputError(
            f"{name} must have {' or '.join(map(str, ndim))} dimensions; got shape {array.shape}"
        )
    if not np.isfinite(array).all():
        raise InputError(
            f"{name} holds {int((~np.isfinite(array)).sum())} "
            "NaN/inf value(s); drop those rows first"
        )
    return array


def unit_rows(vectors, name: str = "vectors") -> np.ndarray:
    """Rows scaled to unit Euclidean length: ``x_i / ||x_i||`` along the last axis.

    Raises :class:`InputError` for a zero row (a word without a vector is usually a zero
    row: filter it out with the embedder's ``found`` mask first). Scale-free: rows of any
    magnitude (1e-200, 1e200) are normalised without underflow or overflow
    (:func:`eval_harness.stats.vectors.unit_length_rows`).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.gender_space import unit_rows
    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 2.0]])).tolist()
    [[0.6, 0.8], [0.0, 1.0]]
    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: vectors has 1 zero vector(s) (at row [1]); a zero ...
    """
    array = _finite_array(name, vectors, (1, 2, 3))
    unit, zero = unit_length_rows(array)
    if array.ndim == 1 and zero:
        raise InputError(
            f"{name} is the zero vector, which has no direction; give a nonzero vector"
        )
    if zero.any():
        where = np.flatnonzero(zero) if array.ndim == 2 else np.argwhere(zero)
        raise InputError(
            f"{name} has {int(zero.sum())} zero vector(s) (at "
            f"{'row' if array.ndim == 2 else '[draw, row]'} "
            f"{where[:5].tolist()}{' ...' if len(where) > 5 else ''}); a zero vector usually "
            "marks a word missing from the vocabulary: drop it with the `found` mask"
        )
    return unit


def _draws(name: str, vectors, n_rows: int | None = None) -> np.ndarray:
    """Unit-length vectors as an ``(r, n, d)`` stack (a 2-D input becomes one draw)."""
    array = unit_rows(_finite_array(name, vectors, (2, 3)), name)
    stack = array[None] if array.ndim == 2 else array
    if n_rows is not None and stack.shape[1] != n_rows:
        raise InputError(
            f"{name} has {stack.shape[1]} rows per draw but {n_rows} labels/values were given"
        )
    if stack.shape[1] == 0:
        raise InputError(f"{name} is empty")
    return stack


def _binary_labels(name: str, labels, minimum_per_class: int = 2) -> np.ndarray:
    array = np.asarray(labels)
    if array.ndim != 1:
        raise InputError(
            f"{name} must be 1-D (one True = male / False "
            f"= female per row); got shape {array.shape}"
        )
    if array.dtype != bool:
        if not np.isin(array, (0, 1)).all():
            raise InputError(
                f"{name} must be boolean (True = male); got values {np.unique(array)[:5].tolist()}"
            )
        array = array.astype(bool)
    n_male, n_female = int(array.sum()), int((~array).sum())
    if min(n_male, n_female) < minimum_per_class:
        raise InputError(
            f"{name} has {n_male} male and {n_female} female "
            f"word(s); need at least {minimum_per_class} of each"
        )
    return array


def _generator(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _runs_for(stack: np.ndarray, n_runs: int | None, static_default: int) -> int:
    """Runs: one per context draw; a single (static) draw is reused ``n_runs`` (default
    ``static_default``) times."""
    if stack.shape[0] > 1:
        if n_runs is not None and n_runs != stack.shape[0]:
            raise InputError(
                f"n_runs={n_runs} but {stack.shape[0]} context draws were given (one run per draw)"
            )
        return stack.shape[0]
    runs = static_default if n_runs is None else int(n_runs)
    if runs < 1:
        raise InputError(f"n_runs must be at least 1; got {n_runs}")
    return runs


# ---------------------------------------------------------------------------- results


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _frozen(array) -> np.ndarray:
    result = np.array(array, dtype=np.float64)
    result.setflags(write=False)
    return result


@dataclass(frozen=True)
class GenderSubspace(Result):
    """PCA of definitional-pair differences, with the random-pair baseline.

    Attributes:
        explained_variance_ratio: share of the total variance of the differences along each
            principal component (first ``n_components``), largest first.
        direction: the gender direction ``g`` (unit vector, first component), signed so that
            the mean difference ``first - second`` projects positively on it.
        n_differences: how many difference vectors went in (pairs x contexts).
        baseline_explained_variance_ratio: the same ratios for random word pairs, averaged
            over the baseline draws (``None`` without a baseline).
        baseline_std: their standard deviation over the draws (ddof=0).
        n_baseline_draws: how many random-pair draws the baseline averages.
    """

    explained_variance_ratio: np.ndarray
    direction: np.ndarray
    n_differences: int
    baseline_explained_variance_ratio: np.ndarray | None = None
    baseline_std: np.ndarray | None = None
    n_baseline_draws: int = 0

    @property
    def first_component_ratio(self) -> float:
        return float(self.explained_variance_ratio[0])

    @property
    def baseline_first_component_ratio(self) -> float | None:
        if self.baseline_explained_variance_ratio is None:
            return None
        return float(self.baseline_explained_variance_ratio[0])

    def to_dict(self) -> dict:
        return {
            "explained_variance_ratio": _plain(self.explained_variance_ratio),
            "first_component_ratio": self.first_component_ratio,
            "baseline_explained_variance_ratio": _plain(self.baseline_explained_variance_ratio),
            "baseline_std": _plain(self.baseline_std),
            "baseline_first_component_ratio": self.baseline_first_component_ratio,
            "n_differences": self.n_differences,
            "n_baseline_draws": self.n_baseline_draws,
            "direction": _plain(self.direction),
        }

    def summary(self) -> str:
        ratios = " ".join(f"{v:.3f}" for v in self.explained_variance_ratio)
        lines = [
            f"gender subspace: {self.n_differences} pair "
            f"differences; explained variance ratio {ratios}"
        ]
        if self.baseline_explained_variance_ratio is not None:
            base = " ".join(f"{v:.3f}" for v in self.baseline_explained_variance_ratio)
            lines.append(f"  random-pair baseline ({self.n_baseline_draws} draws): {base}")
        return "\n".join(lines)


@dataclass(frozen=True)
class DirectBias(Result):
    """Direct bias ``DB_c = (1/|N|) sum_w |cos(w, g)|^c`` (Bolukbasi et al. 2016).

    Attributes:
        value: ``DB_c``.
        c: the strictness exponent.
        per_word: ``|cos(w, g)|^c`` of each word (mean over its contexts), in input order.
        n_words: ``|N|``.
        n_vectors: vectors that went in (words x contexts).
    """

    value: float
    c: float
    per_word: np.ndarray
    n_words: int
    n_vectors: int

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "c": self.c,
            "n_words": self.n_words,
            "n_vectors": self.n_vectors,
            "per_word": _plain(self.per_word),
        }

    def summary(self) -> str:
        return (
            f"direct bias DB_{self.c:g} = {self.value:.4f} over "
            f"{self.n_words} words ({self.n_vectors} vectors)"
        )


@dataclass(frozen=True)
class RepeatedAccuracy(Result):
    """An accuracy measured in several runs (context draws or random splits).

    Attributes:
        measure: ``"clustering"`` or ``"classification"``.
        values: the accuracy of each run, in [0, 1].
        n_words: words classified or clustered per run (for classification: the test words).
        n_male, n_female: of those, how many are male- and female-biased.
    """

    measure: str
    values: np.ndarray
    n_words: int
    n_male: int
    n_female: int

    @property
    def min(self) -> float:
        return float(np.min(self.values))

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    @property
    def max(self) -> float:
        return float(np.max(self.values))

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "min": self.min,
            "mean": self.mean,
            "max": self.max,
            "n_runs": len(self.values),
            "n_words": self.n_words,
            "n_male": self.n_male,
            "n_female": self.n_female,
            "values": _plain(self.values),
        }

    def summary(self) -> str:
        return (
            f"{self.measure} accuracy over {len(self.values)} run(s) of {self.n_words} words: "
            f"min {self.min:.3f} / mean {self.mean:.3f} / max {self.max:.3f}"
        )


@dataclass(frozen=True)
class KnnProfessionBias(Result):
    """Neighbourhood bias of professions (Gonen & Goldberg 2019), per run.

    Attributes:
        correlations: Pearson r between each profession's male-neighbour share and its
            original bias, one per run.
        p_values: two-sided p-values of those correlations (t test with n - 2 df).
        male_share: each profession's share of male-biased words among its k nearest
            neighbours, averaged over the runs.
        k: neighbours per profession.
        n_professions: professions correlated.
        n_candidates: words the neighbours are drawn from.
    """

    correlations: np.ndarray
    p_values: np.ndarray
    male_share: np.ndarray
    k: int
    n_professions: int
    n_candidates: int

    @property
    def min(self) -> float:
        return float(np.min(self.correlations))

    @property
    def mean(self) -> float:
        return float(np.mean(self.correlations))

    @property
    def max(self) -> float:
        return float(np.max(self.correlations))

    @property
    def max_p_value(self) -> float:
        """The largest (least significant) p-value over the runs."""
        return float(np.max(self.p_values))

    def to_dict(self) -> dict:
        return {
            "min": self.min,
            "mean": self.mean,
            "max": self.max,
            "max_p_value": self.max_p_value,
            "n_runs": len(self.correlations),
            "k": self.k,
            "n_professions": self.n_professions,
            "n_candidates": self.n_candidates,
            "correlations": _plain(self.correlations),
            "p_values": _plain(self.p_values),
            "male_share": _plain(self.male_share),
        }

    def summary(self) -> str:
        return (
            f"kNN profession bias (k={self.k}, {self.n_professions} professions, "
            f"{self.n_candidates} candidates): Pearson r min {self.min:.3f} / "
            f"mean {self.mean:.3f} / max {self.max:.3f}, largest p = "
            f"{self.max_p_value:.2g} over {len(self.correlations)} run(s)"
        )


# ---------------------------------------------------------------------------- 1. gender subspace


def _difference_spectrum(first: np.ndarray, second: np.ndarray, n_components: int):
    """Explained-variance ratios and components of the uncentred PCA of ``first - second``."""
    differences = unit_rows(first, "first") - unit_rows(second, "second")
    _, singular_values, components = np.linalg.svd(differences, full_matrices=False)
    variance = singular_values**2
    total = variance.sum()
    if total == 0:
        raise InputError(
            "every pair difference is zero (each pair has "
            "two identical vectors); no subspace to find"
        )
    return variance[:n_components] / total, components[:n_components], differences


def _components(asked: int | None, n_differences: int, dimension: int) -> int:
    """The components to report: ``asked``, or up to DEFAULT_COMPONENTS when None; an InputError
    beyond what ``n_differences`` differences in ``dimension`` dimensions have (``min`` of the
    two)."""
    possible = min(n_differences, dimension)
    if asked is None:
        return min(DEFAULT_COMPONENTS, possible)
    if isinstance(asked, bool) or not isinstance(asked, int | np.integer) or asked < 1:
        raise InputError(f"n_components must be a whole number >= 1 (or None); got {asked!r}")
    if asked > possible:
        raise InputError(
            f"n_components={asked} is more than the {possible} principal "
            f"components that {n_differences} pair differences of dimension "
            f"{dimension} have; ask for at most {possible}, or leave n_components "
            f"unset (up to {DEFAULT_COMPONENTS}, as many as there are)"
        )
    return int(asked)


def random_pair_indices(n_words: int, n_pairs: int, seed=0) -> np.ndarray:
    """Draw random word pairs: ``(n_pairs, 2)`` indices, no word used twice within a draw.

    Examples
    --------
    >>> from eval_harness.stats.gender_space import random_pair_indices
    >>> pairs = random_pair_indices(n_words=10, n_pairs=3, seed=0)
    >>> pairs.shape, len(set(pairs.ravel().tolist()))
    ((3, 2), 6)
    """
    if n_words < 2 * n_pairs:
        raise InputError(
            f"cannot draw {n_pairs} random pairs of distinct words from {n_words} words"
        )
    return _generator(seed).choice(n_words, size=2 * n_pairs, replace=False).reshape(n_pairs, 2)


def gender_subspace(
    first,
    second,
    baseline_first=None,
    baseline_second=None,
    n_components: int | None = None,
) -> GenderSubspace:
    """Principal components of the differences of definitional pairs.

    With unit vectors ``a_i`` (``first``) and ``b_i`` (``second``) and
    ``d_i = a_i - b_i``, the components are the right singular vectors of the matrix
    ``D = [d_1; ...; d_n]`` and the explained-variance ratio of component ``j`` is
    ``s_j^2 / sum_k s_k^2``. This is the PCA Bolukbasi et al. (2016) run over the
    pair-centred vectors ``a_i - mu_i, b_i - mu_i = +-d_i/2`` (whose mean is zero, so
    their PCA is uncentred): the mean difference -- the gender signal -- is kept, not
    subtracted. ``g`` is the first component, signed so that ``mean_i d_i . g > 0``
    (with ``first`` = male words, ``g`` points toward "he").

    Rows may repeat a pair (contextual vectors: one row per sampled sentence).

    Args:
        first, second: ``(n, d)`` vectors of the two words of each pair (n >= 2).
        baseline_first, baseline_second: random word pairs, ``(m, d)`` or ``(r, m, d)`` for
            ``r`` baseline draws; their ratios are averaged over the draws.
        n_components: components reported: at most ``min(n, d)``, the components ``n`` differences
            in ``d`` dimensions have (more is an InputError, never silently fewer); None (default):
            up to :data:`DEFAULT_COMPONENTS`, as many as there are.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.gender_space import gender_subspace
    >>> he_king = np.array([[1.0, 0.1], [0.9, 0.5]])
    >>> she_queen = np.array([[-1.0, 0.1], [-0.8, 0.5]])
    >>> s = gender_subspace(he_king, she_queen)
    >>> np.round(s.direction, 3).tolist(), round(float(s.explained_variance_ratio[0]), 3)
    ([1.0, -0.011], 1.0)
    """
    first = _finite_array("first", first, (2,))
    second = _finite_array("second", second, (2,))
    if first.shape != second.shape:
        raise InputError(
            f"first and second must have the same shape; got {first.shape} and {second.shape}"
        )
    if first.shape[0] < 2:
        raise InputError(f"need at least 2 pair differences for a PCA; got {first.shape[0]}")
    n_components = _components(n_components, *first.shape)
    ratio, components, differences = _difference_spectrum(first, second, n_components)
    direction = components[0] * (1.0 if (differences @ components[0]).mean() >= 0 else -1.0)

    if (baseline_first is None) != (baseline_second is None):
        raise InputError("give both baseline_first and baseline_second, or neither")
    if baseline_first is None:
        return GenderSubspace(_frozen(ratio), _frozen(direction), first.shape[0])
    base_first = _finite_array("baseline_first", baseline_first, (2, 3))
    base_second = _finite_array("baseline_second", baseline_second, (2, 3))
    if base_first.shape != base_second.shape or base_first.shape[-1] != first.shape[1]:
        raise InputError(
            f"baseline arrays must share one shape ending in d={first.shape[1]}; "
            f"got {base_first.shape} and {base_second.shape}"
        )
    base_first = base_first[None] if base_first.ndim == 2 else base_first
    base_second = base_second[None] if base_second.ndim == 2 else base_second
    if base_first.shape[1] < n_components:
        raise InputError(f"each baseline draw needs at least n_components={n_components} pairs")
    draws = np.array(
        [
            _difference_spectrum(a, b, n_components)[0]
            for a, b in zip(base_first, base_second, strict=True)
        ]
    )
    return GenderSubspace(
        explained_variance_ratio=_frozen(ratio),
        direction=_frozen(direction),
        n_differences=first.shape[0],
        baseline_explained_variance_ratio=_frozen(draws.mean(axis=0)),
        baseline_std=_frozen(draws.std(axis=0)),
        n_baseline_draws=len(draws),
    )


# ---------------------------------------------------------------------------- 2. direct bias


def direct_bias(vectors, direction, c: float = 1.0, word_index=None) -> DirectBias:
    """Direct bias ``DB_c = (1/|N|) sum_{w in N} |cos(w, g)|^c`` (Bolukbasi et al. 2016).

    With contexts (``word_index`` given), a word's term is the mean of ``|cos(v, g)|^c``
    over its context vectors ``v``, so every word weighs the same whatever its number of
    contexts. ``c = 1`` (the default, as Basta et al. 2019) is the mean absolute cosine;
    a large ``c`` counts only words close to ``g``.

    Args:
        vectors: ``(n, d)`` vectors of the neutral words (or of their contexts).
        direction: ``(d,)`` gender direction ``g``.
        c: strictness exponent, > 0.
        word_index: optional ``(n,)`` label of the word each row belongs to.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.gender_space import direct_bias
    >>> nurse, doctor = [0.6, 0.8], [-0.28, 0.96]
    >>> b = direct_bias(np.array([nurse, doctor]), direction=np.array([-1.0, 0.0]))
    >>> round(b.value, 4), np.round(b.per_word, 4).tolist()
    (0.44, [0.6, 0.28])
    """
    if not c > 0:
        raise InputError(f"c must be positive; got {c}")
    rows = unit_rows(_finite_array("vectors", vectors, (2,)), "vectors")
    g = _finite_array("direction", direction, (1,))
    if not g.any():
        raise InputError(
            "direction is the zero vector, so there is no gender "
            "direction to project on; give a nonzero direction, or "
            "leave it out to use the gender subspace's first component"
        )
    g = unit_rows(g, "direction")
    if g.shape[0] != rows.shape[1]:
        raise InputError(
            f"direction has dimension {g.shape[0]} but the vectors have {rows.shape[1]}"
        )
    if rows.shape[0] == 0:
        raise InputError("no vectors given: the neutral word list is empty")
    terms = np.abs(rows @ g) ** c
    if word_index is None:
        per_word = terms
    else:
        labels = np.asarray(word_index)
        if labels.shape != (rows.shape[0],):
            raise InputError(
                "word_index must have one label per row "
                f"({rows.shape[0]}); got shape {labels.shape}"
            )
        _, inverse = np.unique(labels, return_inverse=True)
        per_word = np.bincount(inverse, weights=terms) / np.bincount(inverse)
    return DirectBias(
        value=float(per_word.mean()),
        c=float(c),
        per_word=_frozen(per_word),
        n_words=len(per_word),
        n_vectors=rows.shape[0],
    )


# ---------------------------------------------------------------------------- biased words


def gender_projection(vectors, male, female) -> np.ndarray:
    """Each word's bias: ``cos(w, m - f)`` with unit ``w``, ``m``, ``f`` (e.g. m = he, f = she).

    Positive = male-biased. Gonen & Goldberg (2019) rank words by this projection on
    ``he - she`` to pick the most biased words.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.gender_space import gender_projection
    >>> words = np.array([[1.0, 0.2], [-1.0, 0.2], [0.0, 1.0]])
    >>> he, she = np.array([1.0, 0.1]), np.array([-1.0, 0.1])
    >>> gender_projection(words, he, she).round(4).tolist()
    [0.9806, -0.9806, 0.0]
    """
    rows = unit_rows(_finite_array("vectors", vectors, (2,)), "vectors")
    axis = unit_rows(_finite_array("male", male, (1,))) - unit_rows(
        _finite_array("female", female, (1,))
    )
    norm = np.linalg.norm(axis)
    if norm == 0:
        raise InputError("the male and female vectors point the same way: no gender axis")
    if axis.shape[0] != rows.shape[1]:
        raise InputError(
            f"male/female have dimension {axis.shape[0]} but the vectors have {rows.shape[1]}"
        )
    return rows @ (axis / norm)


def most_biased(bias, n_per_gender: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the ``n_per_gender`` most male-biased (largest positive bias) and most
    female-biased (most negative) words, most biased first.

    Examples
    --------
    >>> from eval_harness.stats.gender_space import most_biased
    >>> male, female = most_biased([0.3, -0.5, 0.9, -0.1, 0.0], n_per_gender=2)
    >>> male.tolist(), female.tolist()
    ([2, 0], [1, 3])
    """
    values = _finite_array("bias", bias, (1,))
    if n_per_gender < 1:
        raise InputError(f"n_per_gender must be at least 1; got {n_per_gender}")
    order = np.argsort(-values, kind="stable")
    n_male, n_female = int((values > 0).sum()), int((values < 0).sum())
    if min(n_male, n_female) < n_per_gender:
        raise InputError(
            f"asked for the {n_per_gender} most biased words of each gender "
            f"but only {n_male} male- and {n_female} female-biased words "
            "are available; lower n_per_gender or widen the vocabulary"
        )
    return order[:n_per_gender], order[::-1][:n_per_gender]


# ---------------------------------------------------------------------------- 3. clustering


def clustering_accuracy(
    vectors, is_male, n_runs: int | None = None, seed=0, n_init: int = 10
) -> RepeatedAccuracy:
    """k-means (k = 2) over the biased words; accuracy of the better cluster-to-gender matching.

    Per run: ``labels = KMeans(2).fit_predict(unit vectors)``; ``a = mean(labels == is_male)``;
    accuracy ``= max(a, 1 - a)`` (cluster ids are arbitrary, so the better of the two
    matchings counts; 0.5 is chance for balanced lists, 1 a perfect split).

    Args:
        vectors: ``(n, d)`` (static: the same vectors each run, k-means seeds differ) or
            ``(r, n, d)`` (one context draw per run).
        is_male: ``(n,)`` True for male-biased words.
        n_runs: runs for 2-D vectors (default 1); must equal ``r`` (or be None) for 3-D.
        seed: seed of the k-means initialisations.
        n_init: k-means restarts per run (the best inertia is kept).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.gender_space import clustering_accuracy
    >>> words = np.array([[1.0, 0.1], [0.9, -0.1], [1.0, 0.2], [0.1, 1.0], [-0.1, 0.9], [0.2, 1.0]])
    >>> result = clustering_accuracy(words, is_male=[True, True, True, False, False, False])
    >>> result.values.tolist(), result.n_male, result.n_female
    ([1.0], 3, 3)
    """
    labels = _binary_labels("is_male", is_male, minimum_per_class=1)
    stack = _draws("vectors", vectors, len(labels))
    runs = _runs_for(stack, n_runs, static_default=1)
    rng = _generator(seed)
    values = []
    for run in range(runs):
        draw = stack[run if stack.shape[0] > 1 else 0]
        clusters = KMeans(
            n_clusters=2, n_init=n_init, random_state=int(rng.integers(2**31))
        ).fit_predict(draw)
        agreement = float(np.mean((clusters == 1) == labels))
        values.append(max(agreement, 1.0 - agreement))
    return RepeatedAccuracy(
        "clustering", _frozen(values), len(labels), int(labels.sum()), int((~labels).sum())
    )


# ---------------------------------------------------------------------------- 4. classification


def _stratified_train_mask(
    labels: np.ndarray, n_train: int, rng: np.random.Generator
) -> np.ndarray:
    """A random training mask of ``n_train`` rows keeping the class shares (>= 1 of each class)."""
    mask = np.zeros(len(labels), dtype=bool)
    male = np.flatnonzero(labels)
    female = np.flatnonzero(~labels)
    n_male = int(np.clip(round(n_train * len(male) / len(labels)), 1, len(male) - 1))
    n_female = int(np.clip(n_train - n_male, 1, len(female) - 1))
    mask[rng.choice(male, n_male, replace=False)] = True
    mask[rng.choice(female, n_female, replace=False)] = True
    return mask


def svm_classification_accuracy(
    vectors,
    is_male,
    n_train: int = 1000,
    n_runs: int | None = None,
    seed=0,
    C: float = 1.0,
    gamma: str | float = "scale",
) -> RepeatedAccuracy:
    """RBF-kernel SVM accuracy of telling male- from female-biased words (Gonen & Goldberg 2019).

    Per run: ``n_train`` random words (stratified by gender, so both classes are in the
    training set) train ``SVC(kernel="rbf", C, gamma)`` on unit vectors; the accuracy is
    the share of the other words classified correctly. Defaults follow the papers: 1,000
    training words out of the 2,500 + 2,500 extended list, 10 runs.

    Args:
        vectors: ``(n, d)`` (static: a new split each run) or ``(r, n, d)`` (one context
            draw and split per run).
        is_male: ``(n,)`` True for male-biased words.
        n_train: training words per run; ``2 <= n_train <= n - 2``.
        n_runs: runs for 2-D vectors (default 10); must equal ``r`` (or be None) for 3-D.
        seed: seed of the splits.
        C, gamma: SVC parameters (scikit-learn defaults).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.gender_space import svm_classification_accuracy
    >>> angles = np.linspace(0.1, 1.4, 12)
    >>> words = np.column_stack([np.cos(angles), np.sin(angles)])
    >>> result = svm_classification_accuracy(words, is_male=angles < 0.75, n_train=8, n_runs=3)
    >>> np.round(result.values, 2).tolist(), result.n_words
    ([1.0, 1.0, 0.75], 4)
    """
    labels = _binary_labels("is_male", is_male)
    stack = _draws("vectors", vectors, len(labels))
    runs = _runs_for(stack, n_runs, static_default=10)
    if not 2 <= n_train <= len(labels) - 2:
        raise InputError(
            f"n_train={n_train} must leave at least 2 test words "
            f"and train on at least 2 of {len(labels)} words"
        )
    rng = _generator(seed)
    values = []
    for run in range(runs):
        draw = stack[run if stack.shape[0] > 1 else 0]
        train = _stratified_train_mask(labels, n_train, rng)
        model = SVC(kernel="rbf", C=C, gamma=gamma).fit(draw[train], labels[train])
        values.append(float(np.mean(model.predict(draw[~train]) == labels[~train])))
    test_labels = labels[~train]
    return RepeatedAccuracy(
        "classification",
        _frozen(values),
        len(test_labels),
        int(test_labels.sum()),
        int((~test_labels).sum()),
    )


# ---------------------------------------------------------------------------- 5. kNN of professions


def knn_profession_bias(
    profession_vectors,
    candidate_vectors,
    candidate_is_male,
    profession_bias,
    k: int = 100,
    exclude=None,
) -> KnnProfessionBias:
    """Share of male-biased words among each profession's k nearest neighbours, correlated
    with the profession's original bias (Gonen & Goldberg 2019).

    Per run: ``share_p = (1/k) sum_{w in kNN(p)} [w is male-biased]`` with neighbours by
    cosine similarity among the candidates; ``r = Pearson(share, profession_bias)`` with its
    two-sided p-value (``t = r sqrt((n-2)/(1-r^2))``, n - 2 df, scipy's ``pearsonr``).

    Args:
        profession_vectors: ``(p, d)`` or ``(r, p, d)`` (one context draw per run).
        candidate_vectors: ``(m, d)`` or ``(r, m, d)``: the biased words to find neighbours in.
        candidate_is_male: ``(m,)`` True for male-biased candidates.
        profession_bias: ``(p,)`` original bias of each profession (e.g. its projection on
            ``he - she`` in a reference static space).
        k: neighbours per profession, at most the candidates left after exclusion.
        exclude: optional ``(p,)`` candidate index to leave out of profession ``i``'s
            neighbours (the profession itself when it is also a candidate), ``-1`` for none.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.gender_space import knn_profession_bias
    >>> candidates = np.array([[1.0, 0.1], [0.9, 0.3], [0.2, 1.0], [0.1, 0.9]])
    >>> professions = np.array([[1.0, 0.0], [0.7, 0.7], [0.0, 1.0]])
    >>> is_male, bias = [True, True, False, False], [0.8, 0.1, -0.7]
    >>> knn = knn_profession_bias(professions, candidates, is_male, bias, k=2)
    >>> np.round(knn.male_share, 2).tolist(), round(float(knn.correlations[0]), 3)
    ([1.0, 0.5, 0.0], 0.999)
    """
    labels = _binary_labels("candidate_is_male", candidate_is_male, minimum_per_class=1)
    bias = _finite_array("profession_bias", profession_bias, (1,))
    if len(bias) < 3:
        raise InputError(
            f"need at least 3 professions for a correlation with a p-value; got {len(bias)}"
        )
    professions = _draws("profession_vectors", profession_vectors, len(bias))
    candidates = _draws("candidate_vectors", candidate_vectors, len(labels))
    if professions.shape[-1] != candidates.shape[-1]:
        raise InputError(
            "profession vectors have dimension "
            f"{professions.shape[-1]}, candidates {candidates.shape[-1]}"
        )
    runs = max(professions.shape[0], candidates.shape[0])
    for name, stack in (("profession_vectors", professions), ("candidate_vectors", candidates)):
        if stack.shape[0] not in (1, runs):
            raise InputError(f"{name} has {stack.shape[0]} draws but the other input has {runs}")
    excluded = np.full(len(bias), -1) if exclude is None else np.asarray(exclude, dtype=int)
    if excluded.shape != bias.shape or (excluded >= len(labels)).any():
        raise InputError(
            "exclude must hold one candidate index (or -1) "
            f"per profession; got shape {excluded.shape}"
        )
    available = len(labels) - int((excluded >= 0).any())
    if not 1 <= k <= available:
        raise InputError(
            f"k={k} nearest neighbours asked but the candidate set has only {available} "
            f"word(s) to choose from; use k <= {available} or a larger biased-word list"
        )
    if np.ptp(bias) == 0:
        raise InputError(
            "every profession has the same original bias: the correlation is undefined"
        )

    check_matrix_size(
        professions.shape[1], candidates.shape[1], "the profession-by-candidate similarity matrix"
    )

    correlations, p_values, shares = [], [], []
    rows = np.arange(len(bias))
    for run in range(runs):
        similarity = (
            professions[min(run, professions.shape[0] - 1)]
            @ candidates[min(run, candidates.shape[0] - 1)].T
        )
        has_self = excluded >= 0
        similarity[rows[has_self], excluded[has_self]] = -np.inf
        neighbours = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
        share = labels[neighbours].mean(axis=1)
        if np.ptp(share) == 0:
            raise InputError(
                "every profession has the same male-neighbour share "
                f"({share[0]:.3f}) in run {run}: the correlation is undefined; "
                "use a smaller k or more, better-balanced candidates"
            )
        result = scipy_stats.pearsonr(share, bias)
        correlations.append(float(result.statistic))
        p_values.append(float(result.pvalue))
        shares.append(share)
    return KnnProfessionBias(
        correlations=_frozen(correlations),
        p_values=_frozen(p_values),
        male_share=_frozen(np.mean(shares, axis=0)),
        k=int(k),
        n_professions=len(bias),
        n_candidates=len(labels),
    )


# ---------------------------------------------------------------------- all five from labelled rows

ROLES = ("pair_male", "pair_female", "random_first", "random_second", "neutral", "male", "female")


@dataclass(frozen=True)
class GenderSpaceMeasures(Result):
    """The five measures computed from one set of labelled vectors (``None``: no input for it)."""

    subspace: GenderSubspace | None
    direct_bias: DirectBias | None
    clustering: RepeatedAccuracy | None
    classification: RepeatedAccuracy | None
    knn: KnnProfessionBias | None

    def to_dict(self) -> dict:
        return {
            name: (None if getattr(self, name) is None else getattr(self, name).to_dict())
            for name in ("subspace", "direct_bias", "clustering", "classification", "knn")
        }

    def summary(self) -> str:
        parts = (self.subspace, self.direct_bias, self.clustering, self.classification, self.knn)
        return "\n".join(part.summary() for part in parts if part is not None)


def _aligned_runs(
    vectors: np.ndarray, words: np.ndarray | None, runs: np.ndarray, mask: np.ndarray, what: str
):
    """Rows under ``mask`` as an ``(r, n, d)`` stack, one slice per run; every run must have as
    many rows and (when ``words`` is given) list the same words in the same order.
    Returns the stack and the first run's words (``None`` without ``words``)."""
    run_ids = np.unique(runs[mask])
    if len(run_ids) == 0:
        raise InputError(f"no {what} rows given")
    per_run = [np.flatnonzero(mask & (runs == run)) for run in run_ids]
    first_words = None if words is None else words[per_run[0]]
    for run, rows in zip(run_ids, per_run, strict=True):
        if len(rows) != len(per_run[0]) or (
            words is not None and (words[rows] != first_words).any()
        ):
            raise InputError(
                f"the {what} rows of run {run} do not list the same words in "
                f"the same order as run {run_ids[0]} ({len(rows)} vs "
                f"{len(first_words)} rows); give every run the same word list"
            )
    return np.stack([vectors[rows] for rows in per_run]), first_words


def _row_labels(role, word) -> list[str]:
    """``"role R, word 'w'"`` per row, as far as ``role`` and ``word`` go, to name rows in error
    messages."""
    roles = [str(value) for value in (role if isinstance(role, Sequence | np.ndarray) else [])]
    words = [] if word is None or not isinstance(word, Sequence | np.ndarray) else list(word)
    return [
        f"role {value}" + (f", word {words[row]!r}" if row < len(words) else "")
        for row, value in enumerate(roles)
    ]


def gender_space_measures(
    vectors,
    role,
    word=None,
    run=None,
    bias=None,
    direction=None,
    n_components: int | None = None,
    c: float = 1.0,
    n_cluster_words: int = 500,
    n_train: int = 1000,
    n_runs: int | None = None,
    k: int = 100,
    seed=0,
) -> GenderSpaceMeasures:
    """The five measures from vectors labelled by role (the format the ``gender_space`` metric
    takes).

    Roles (one per row):

    - ``pair_male`` / ``pair_female``: the i-th ``pair_male`` row and the i-th ``pair_female``
      row are the two words of one definitional pair (in context mode: the word in a
      sentence and its pair in the swapped sentence) -> :func:`gender_subspace`;
    - ``random_first`` / ``random_second``: random word pairs, likewise; ``run`` numbers
      the baseline draws;
    - ``neutral``: gender-neutral words (professions), ``bias`` their original bias ->
      :func:`direct_bias` (contexts of one ``word`` averaged first) and :func:`knn_profession_bias`;
    - ``male`` / ``female``: the biased-word list, most biased first -> the first
      ``n_cluster_words`` of each gender to :func:`clustering_accuracy`, all of them to
      :func:`svm_classification_accuracy` and as the kNN candidates.

    ``run`` numbers context draws (default: all 0, static vectors); every run must list
    the same ``neutral`` and ``male``/``female`` words in the same order. A measure whose
    roles are absent is ``None``. ``direction`` (a gender direction) replaces the subspace's
    for the direct bias when given.

    Examples
    --------
    >>> from eval_harness.stats.gender_space import gender_space_measures
    >>> m = gender_space_measures(
    ...     [[1.0, 0.1], [1.0, -0.1], [0.9, 0.3], [0.9, 0.1], [0.2, 1.0], [0.3, 0.8]],
    ...     ["pair_male", "pair_female", "pair_male", "pair_female", "neutral", "neutral"],
    ...     n_components=2)
    >>> round(float(m.subspace.explained_variance_ratio[0]), 3), round(m.direct_bias.value, 3)
    (0.988, 0.921)
    >>> m.clustering is None and m.knn is None  # their roles were not given
    True
    """
    row_labels = _row_labels(role, word)
    matrix = _finite_array("vectors", vectors, (2,), row_labels)
    roles = np.asarray(role, dtype=object)
    n = matrix.shape[0]
    if roles.shape != (n,):
        raise InputError(f"role must give one role per vector row ({n}); got shape {roles.shape}")
    unknown = sorted(set(roles.tolist()) - set(ROLES))
    if unknown:
        raise InputError(f"unknown role(s) {unknown}; use {list(ROLES)}")
    words = np.asarray([f"#{i}" for i in range(n)] if word is None else word, dtype=object)
    runs = np.zeros(n, dtype=int) if run is None else np.asarray(run, dtype=int)
    for name, values in (("word", words), ("run", runs)):
        if values.shape != (n,):
            raise InputError(
                f"{name} must have one entry per vector row ({n}); got shape {values.shape}"
            )
    zero = np.flatnonzero(~matrix.any(axis=1))
    if zero.size:
        named = ", ".join(f"{row} ({row_labels[row]})" for row in zero[:5])
        raise InputError(
            f"vectors row(s) {named}{' ...' if zero.size > 5 else ''} "
            "are zero vectors; a zero vector usually marks a word "
            "missing from the vocabulary: drop it with the `found` mask"
        )
    rng = _generator(seed)
    has = {name: bool((roles == name).any()) for name in ROLES}

    subspace = None
    if has["pair_male"] or has["pair_female"]:
        baseline_first = baseline_second = None
        if has["random_first"] or has["random_second"]:
            baseline_first, _ = _aligned_runs(
                matrix, None, runs, roles == "random_first", "random_first"
            )
            baseline_second, _ = _aligned_runs(
                matrix, None, runs, roles == "random_second", "random_second"
            )
        subspace = gender_subspace(
            matrix[roles == "pair_male"],
            matrix[roles == "pair_female"],
            baseline_first,
            baseline_second,
            n_components=n_components,
        )

    direct = None
    neutral = roles == "neutral"
    if has["neutral"]:
        g = (
            direction
            if direction is not None
            else (None if subspace is None else subspace.direction)
        )
        if g is not None:
            direct = direct_bias(matrix[neutral], g, c=c, word_index=words[neutral])

    clustering = classification = knn = None
    if has["male"] or has["female"]:
        biased_mask = (roles == "male") | (roles == "female")
        stack, biased_words = _aligned_runs(matrix, words, runs, biased_mask, "male/female")
        first_run = np.flatnonzero(biased_mask & (runs == runs[biased_mask].min()))
        is_male = roles[first_run] == "male"
        top = np.zeros(len(is_male), dtype=bool)
        top[np.flatnonzero(is_male)[:n_cluster_words]] = True
        top[np.flatnonzero(~is_male)[:n_cluster_words]] = True
        clustering = clustering_accuracy(stack[:, top], is_male[top], seed=rng)
        classification = svm_classification_accuracy(
            stack, is_male, n_train=n_train, n_runs=n_runs, seed=rng
        )
        if has["neutral"] and bias is not None:
            profession_stack, professions = _aligned_runs(matrix, words, runs, neutral, "neutral")
            values = np.asarray(bias, dtype=np.float64)
            if values.shape != (n,):
                raise InputError(
                    f"bias must have one entry per vector row ({n}); got shape {values.shape}"
                )
            first_neutral = np.flatnonzero(neutral & (runs == runs[neutral].min()))
            position = {w: i for i, w in enumerate(biased_words)}
            knn = knn_profession_bias(
                profession_stack,
                stack,
                is_male,
                values[first_neutral],
                k=k,
                exclude=np.array([position.get(p, -1) for p in professions]),
            )
    return GenderSpaceMeasures(subspace, direct, clustering, classification, knn)
