"""Beta regression with categorical covariates, fitted from sufficient statistics (and row by row).

Model. Row ``i`` lies in a design cell ``c = c(i)`` (one combination of the factor levels), and

    y_i ~ Beta(a_c, b_c),   a_c = mu_c phi_c,   b_c = (1 - mu_c) phi_c,
    logit(mu_c) = x_c' beta,   log(phi_c) = z_c' gamma

(Ferrari & Cribari-Neto 2004; R ``betareg`` with ``link.phi = "log"``), ``x_c``/``z_c`` the cell's
rows of the mean and precision design matrices, ``theta = (beta, gamma)``. Every row of a cell has
the same ``(a_c, b_c)``, so the log-likelihood

    l(theta) = sum_c  n_c [lgamma(phi_c) - lgamma(a_c) - lgamma(b_c)] + (a_c - 1) S1_c + (b_c - 1) S2_c

depends on the data only through each cell's count ``n_c``, ``S1_c = sum log y_i`` and
``S2_c = sum log(1 - y_i)``. Its derivatives follow by the chain rule through ``(a, b)``, with
``L_a = n (psi(phi) - psi(a)) + S1``, ``L_b = n (psi(phi) - psi(b)) + S2`` (``psi`` the digamma,
``psi_1`` the trigamma function):

    dl/deta_c  = phi mu (1 - mu) (L_a - L_b),      dl/dzeta_c = a L_a + b L_b,
    d2l/da2 = n (psi_1(phi) - psi_1(a)),  d2l/db2 = n (psi_1(phi) - psi_1(b)),  d2l/da db = n psi_1(phi),

and the expected information is minus the part of the Hessian without ``L_a``, ``L_b`` (their
expectation is 0). A row's score is linear in ``(1, log y_i, log(1 - y_i))`` given its cell, so the
score summed over any block of rows (a cluster, a cluster x cell, a template in a bootstrap) needs
only that block's three sums.

Fit: Newton's method on ``l`` with the observed Hessian where ``-H`` is positive definite (Fisher
scoring with the expected information elsewhere), step halving when a step lowers ``l``, until no
parameter moves by more than ``STEP_TOLERANCE``, as statsmodels' Newton with ``tol=1e-12``.
``converged`` is the relative Newton-decrement criterion ``g' (-H)^{-1} g <= DECREMENT_TOLERANCE
(1 + |l|)`` (``g`` the score): a likelihood-scale criterion, since the raw score grows with ``phi``.

Every array function here is batched: the sums have shape ``(R, C)`` for ``R`` data sets over the
same ``C`` cells (``R = 1`` for one fit; a bootstrap refits ``R`` reweightings at once), parameters
``(R, k)``.

Covariances: the model-based one is the inverse expected information (as R betareg). The
cluster-robust one is the CR1 sandwich ``V = c H^{-1} (sum_g s_g s_g') H^{-1}`` (``H`` the observed
Hessian, ``s_g`` the summed score of cluster ``g``, ``c = G / (G - 1) * (n - 1) / (n - k)``);
two-way ``V_1 + V_2 - V_12`` (Cameron, Gelbach & Miller 2011), ``V_12`` clustered by the pairs of
labels, kept as it is: it need not be positive semi-definite, and clipping its negative eigenvalues
would make a standard error depend on the coding (the reference levels), since eigenvalues are not
invariant to a change of basis. Instead each quantity's own variance ``d' V d`` (a coefficient's, an
effect's; invariant to the coding) is floored at 0 by :meth:`Covariances.variances` at the larger of
its one-way variances ``d' V_1 d``, ``d' V_2 d`` (conservative, and invariant too), and set to 0 at
rounding level: a direction whose scores cancel within every cluster (one- or two-way) has a
computed variance of rounding noise, of either sign.

``fit_rows`` keeps the row-wise path (statsmodels ``BetaModel``) for any design matrix, e.g. one
with a continuous covariate; for a categorical design it gives the same numbers to ~1e-10.
"""  # noqa: E501

import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import digamma, expit, gammaln, zeta

from ..errors import InputError

DECREMENT_TOLERANCE = 1e-10
STEP_TOLERANCE = 1e-12
MAX_ITERATIONS = 100
MAX_HALVINGS = 40
# A clustered variance at most this share of the model-based variance of the same quantity is
# rounding noise (Covariances.variances): a direction whose scores cancel within every cluster gets
# a variance of the squared rounding error of the score sums, ~(K eps)^2 of the model-based one for
# a cancellation factor K, ~1e-13 on a blind model's EEC fit (tests/stats/test_cluster_floor.py);
# sqrt(eps) allows K up to eps^(-3/4) ~ 6e11, while a genuine clustered standard error 1e-4 of the
# model-based one would be a t statistic inflated 1e4 times.
ROUNDING_VARIANCE_RATIO = math.sqrt(np.finfo(float).eps)
# Start values of phi from the method of moments are clipped to this range: beyond it the moments
# are rounding noise or no information, and Newton gets there on its own if the optimum is there.
START_PRECISION_RANGE = (0.5, 1e8)


class BetaRegressionWarning(UserWarning):
    """The data were changed (boundary squeeze) or the fit did not converge."""


@dataclass(frozen=True)
class Blocks:
    """Sums of the rows per block: the rows of one design cell that share every grouping label.

    ``cell`` (B,) the block's design cell; ``count``, ``sum_y``, ``sum_y2``, ``sum_log_y``,
    ``sum_log1m_y`` (B,) its number of rows and the sums of ``y``, ``y^2``, ``log y``, ``log(1 -
    y)``; ``groups`` maps each grouping (a clustering or a resampling unit, e.g. ``"template_id"``)
    to the block's integer label ``0 .. G - 1`` (B,), and ``n_groups`` to its ``G``. ``n_cells`` is
    ``C``. ``totals`` holds the same five sums per cell (C,), summed from the rows, so that a fit's
    estimates do not depend (even in the last bit) on which groupings the blocks were cut by.
    """

    cell: np.ndarray
    count: np.ndarray
    sum_y: np.ndarray
    sum_y2: np.ndarray
    sum_log_y: np.ndarray
    sum_log1m_y: np.ndarray
    groups: dict[str, np.ndarray]
    n_groups: dict[str, int]
    n_cells: int
    totals: dict[str, np.ndarray]

    def cell_sums(self, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Per-cell sums ``(R, C)`` with the blocks weighted by ``weights`` (R, B) (None:
        ``totals``, R = 1)."""
        if weights is None:
            return {name: values[None] for name, values in self.totals.items()}
        weights = np.atleast_2d(weights)
        to_cells = _one_hot(self.cell, self.n_cells)
        return {
            name: np.asarray((to_cells.T @ (weights * values).T).T)
            for name, values in (
                ("count", self.count),
                ("sum_y", self.sum_y),
                ("sum_y2", self.sum_y2),
                ("sum_log_y", self.sum_log_y),
                ("sum_log1m_y", self.sum_log1m_y),
            )
        }


def _block_keys(
    cell: np.ndarray, n_cells: int, groups: dict[str, np.ndarray], n_groups: dict[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct block keys ``cell + n_cells (g_1 + G_1 (g_2 + ...))`` (sorted) and each row's
    block."""
    if not groups:  # the blocks are the cells
        return np.arange(n_cells, dtype=np.int64), cell
    key = np.array(cell, dtype=np.int64)
    radix = n_cells
    for name, codes in groups.items():
        key += np.multiply(codes, radix, dtype=np.int64)
        radix *= n_groups[name]
    if radix <= max(4 * len(key), 1 << 20):  # a small key space: count it, no sort or hash needed
        present = np.flatnonzero(np.bincount(key, minlength=radix))
        if len(present) == radix:  # every key is a block: the keys are the block indices
            return present.astype(np.int64), key
        index = np.full(radix, -1, dtype=np.intp)
        index[present] = np.arange(len(present))
        return present.astype(np.int64), index[key]
    block, unique_keys = pd.factorize(key, sort=True)
    return unique_keys, np.asarray(block, dtype=np.intp)


def aggregate_rows(
    y: np.ndarray, cell: np.ndarray, n_cells: int, groups: dict[str, np.ndarray] | None = None
) -> Blocks:
    """The :class:`Blocks` of rows ``y`` (already in (0, 1)) in cells ``cell`` (ints ``0 ..
    n_cells - 1``), one block per distinct (cell, label of every grouping); ``groups`` maps names to
    per-row int labels."""
    # log(1 - y) as statsmodels computes it (numpy's log1p is 5x slower and differs by < 1e-16
    # absolute here).
    groups = dict(groups or {})
    n_groups = {name: int(codes.max()) + 1 if len(codes) else 0 for name, codes in groups.items()}
    unique_keys, block = _block_keys(cell, n_cells, groups, n_groups)
    n_blocks = len(unique_keys)
    sums, totals = {}, {}

    def add(name: str, terms: np.ndarray | None) -> None:
        sums[name] = np.bincount(block, weights=terms, minlength=n_blocks).astype(float)
        # the cells' totals from the rows, as without groupings: the same estimates to the last bit
        if groups:
            totals[name] = np.bincount(cell, weights=terms, minlength=n_cells).astype(float)

    add("count", None)
    add("sum_y", y)
    scratch = np.empty_like(
        y
    )  # one buffer for the other terms: each new array of n floats costs page faults
    add("sum_y2", np.multiply(y, y, out=scratch))
    add("sum_log_y", np.log(y, out=scratch))
    add("sum_log1m_y", np.log(np.subtract(1, y, out=scratch), out=scratch))
    block_cell = (unique_keys % n_cells).astype(np.intp)
    if not groups:  # the blocks are the cells: the same sums, in the same order of rows
        totals = {name: np.zeros(n_cells) for name in sums}
        for name, values in sums.items():
            totals[name][block_cell] = values
    block_groups, rest = {}, unique_keys // n_cells
    for name in groups:
        block_groups[name] = rest % n_groups[name]
        rest = rest // n_groups[name]
    return Blocks(
        cell=block_cell,
        count=sums["count"],
        sum_y=sums["sum_y"],
        sum_y2=sums["sum_y2"],
        sum_log_y=sums["sum_log_y"],
        sum_log1m_y=sums["sum_log1m_y"],
        groups=block_groups,
        n_groups=n_groups,
        n_cells=n_cells,
        totals=totals,
    )


@dataclass(frozen=True)
class Optimum:
    """Maximum-likelihood fits of ``R`` data sets: ``params`` (R, k), ``log_likelihood`` (R,),
    ``converged`` (R,), the observed ``hessian`` and expected ``information`` at the optimum (R, k,
    k), ``iterations``."""

    params: np.ndarray
    log_likelihood: np.ndarray
    converged: np.ndarray
    hessian: np.ndarray
    information: np.ndarray
    iterations: int


@dataclass(frozen=True)
class _CellTerms:
    """What the derivatives need per cell: mu, phi, a, b and the digamma/trigamma values."""

    mu: np.ndarray
    phi: np.ndarray
    a: np.ndarray
    b: np.ndarray
    psi_a: np.ndarray
    psi_b: np.ndarray
    psi_phi: np.ndarray


def _cell_terms(
    params: np.ndarray, mean_design: np.ndarray, precision_design: np.ndarray
) -> _CellTerms:
    p = mean_design.shape[1]
    mu = expit(params[:, :p] @ mean_design.T)
    phi = np.exp(params[:, p:] @ precision_design.T)
    a, b = mu * phi, (1 - mu) * phi
    return _CellTerms(mu, phi, a, b, digamma(a), digamma(b), digamma(phi))


def log_likelihood(
    params, count, sum_log_y, sum_log1m_y, mean_design, precision_design
) -> np.ndarray:
    """The Beta log-likelihoods ``l(theta)`` of ``R`` data sets, shape (R,) (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from eval_harness.stats.beta_likelihood import log_likelihood
    >>> y = np.array([0.2, 0.4, 0.5])
    >>> one_cell = np.ones((1, 1))  # one cell; the mean and the precision each an intercept
    >>> params = np.array([[0.0, np.log(4.0)]])  # logit(mu) = 0, log(phi) = log 4: Beta(2, 2)
    >>> sums = np.log(y).sum(keepdims=True), np.log1p(-y).sum(keepdims=True)
    >>> ll = log_likelihood(params, np.array([3.0]), *sums, one_cell, one_cell)
    >>> round(float(ll[0]), 6), round(float(stats.beta.logpdf(y, 2, 2).sum()), 6)
    (0.729286, 0.729286)
    """
    p = mean_design.shape[1]
    mu = expit(params[:, :p] @ mean_design.T)
    phi = np.exp(params[:, p:] @ precision_design.T)
    a, b = mu * phi, (1 - mu) * phi
    per_cell = (
        count * (gammaln(phi) - gammaln(a) - gammaln(b))
        + (a - 1) * sum_log_y
        + (b - 1) * sum_log1m_y
    )
    return per_cell.sum(axis=1)


def _derivatives(params, count, sum_log_y, sum_log1m_y, mean_design, precision_design):
    """Score (R, k), observed Hessian and expected information (R, k, k) of ``l``."""
    t = _cell_terms(params, mean_design, precision_design)
    trigamma_a, trigamma_b, trigamma_phi = (
        zeta(2, t.a),
        zeta(2, t.b),
        zeta(2, t.phi),
    )  # psi_1(x) = zeta(2, x)
    l_a = count * (t.psi_phi - t.psi_a) + sum_log_y
    l_b = count * (t.psi_phi - t.psi_b) + sum_log1m_y
    l_aa, l_bb, l_ab = (
        count * (trigamma_phi - trigamma_a),
        count * (trigamma_phi - trigamma_b),
        count * trigamma_phi,
    )
    slope = t.phi * t.mu * (1 - t.mu)  # d a / d eta = -d b / d eta
    score_eta, score_zeta = slope * (l_a - l_b), t.a * l_a + t.b * l_b
    # Second derivatives in (eta, zeta): the quadratic part (expected information = minus it) and
    # the part with L_a, L_b (zero in expectation).
    quad_ee = slope**2 * (l_aa - 2 * l_ab + l_bb)
    quad_ez = slope * (t.a * l_aa + t.b * l_ab - t.a * l_ab - t.b * l_bb)
    quad_zz = t.a**2 * l_aa + 2 * t.a * t.b * l_ab + t.b**2 * l_bb
    h_ee = quad_ee + (l_a - l_b) * slope * (1 - 2 * t.mu)
    h_ez = quad_ez + (l_a - l_b) * slope
    h_zz = quad_zz + t.a * l_a + t.b * l_b
    score = np.concatenate([score_eta @ mean_design, score_zeta @ precision_design], axis=1)
    return (
        score,
        _assemble(h_ee, h_ez, h_zz, mean_design, precision_design),
        -_assemble(quad_ee, quad_ez, quad_zz, mean_design, precision_design),
    )


def _assemble(ee, ez, zz, mean_design, precision_design) -> np.ndarray:
    """``[X' diag(ee) X, X' diag(ez) Z; Z' diag(ez) X, Z' diag(zz) Z]`` for each of the R rows of
    ee/ez/zz: three products with the cells' outer products of their design rows."""
    outer_ee, outer_ez, outer_zz = _outer_products(mean_design, precision_design)
    k = mean_design.shape[1] + precision_design.shape[1]
    return (ee @ outer_ee + ez @ outer_ez + zz @ outer_zz).reshape(-1, k, k)


def _outer_products(mean_design, precision_design) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell, ``x x'``, ``x z' + z x'`` and ``z z'`` placed in a (k, k) matrix and flattened: (C,
    k * k) each."""
    return _outer_products_of(
        mean_design.tobytes(), mean_design.shape, precision_design.tobytes(), precision_design.shape
    )


@functools.lru_cache(
    maxsize=32
)  # a fit, its reduced fits and its resamples share a handful of designs
def _outer_products_of(mean_bytes, mean_shape, precision_bytes, precision_shape):
    mean_design = np.frombuffer(mean_bytes).reshape(mean_shape)
    precision_design = np.frombuffer(precision_bytes).reshape(precision_shape)
    p, c = mean_shape[1], mean_shape[0]
    row = np.concatenate([mean_design, precision_design], axis=1)
    full = row[:, :, None] * row[:, None, :]
    ee, ez, zz = (np.zeros_like(full) for _ in range(3))
    ee[:, :p, :p], zz[:, p:, p:] = full[:, :p, :p], full[:, p:, p:]
    ez[:, :p, p:], ez[:, p:, :p] = full[:, :p, p:], full[:, p:, :p]
    return tuple(m.reshape(c, -1) for m in (ee, ez, zz))


def start_values(sums: dict[str, np.ndarray], mean_design, precision_design) -> np.ndarray:
    """Weighted least squares of the cells' logit means and log moment precisions on the designs:
    (R, k)."""
    count = sums["count"]
    present = count > 0
    safe = np.where(present, count, 1.0)
    mean = np.clip(sums["sum_y"] / safe, 1e-6, 1 - 1e-6)
    variance = np.maximum(sums["sum_y2"] / safe - mean**2, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.clip(mean * (1 - mean) / variance - 1, *START_PRECISION_RANGE)
    precision = np.where(np.isfinite(precision), precision, START_PRECISION_RANGE[1])
    weights = np.where(present, count, 0.0)
    beta = _weighted_least_squares(mean_design, np.log(mean / (1 - mean)), weights)
    gamma = _weighted_least_squares(precision_design, np.log(precision), weights)
    return np.concatenate([beta, gamma], axis=1)


def _weighted_least_squares(design, target, weights) -> np.ndarray:
    gram = np.einsum("rc,cp,cq->rpq", weights, design, design)
    moment = np.einsum("rc,cp,rc->rp", weights, design, target)
    return np.linalg.solve(gram, moment[..., None])[..., 0]


def fit_sums(
    sums: dict[str, np.ndarray],
    mean_design: np.ndarray,
    precision_design: np.ndarray,
    start: np.ndarray | None = None,
) -> Optimum:
    """Maximise ``l`` for each of the ``R`` rows of ``sums`` (:meth:`Blocks.cell_sums`); see the
    module docstring.

    Every cell with rows needs ``count > 0`` there; cells with ``count = 0`` drop out of ``l``.
    """
    data = (sums["count"], sums["sum_log_y"], sums["sum_log1m_y"])
    designs = (mean_design, precision_design)
    params = (
        start_values(sums, *designs) if start is None else np.array(start, dtype=float, copy=True)
    )
    active = np.ones(len(params), dtype=bool)
    current = log_likelihood(params, *data, *designs)
    iterations = 0
    with np.errstate(all="ignore"):
        while active.any() and iterations < MAX_ITERATIONS:
            iterations += 1
            rows = np.flatnonzero(active)
            sub = tuple(values[rows] for values in data)
            score, hessian, information = _derivatives(params[rows], *sub, *designs)
            curvature = np.where(_positive_definite(-hessian)[:, None, None], -hessian, information)
            step = _solve(curvature, score)
            scale = np.ones(len(rows))
            trial = params[rows] + step
            trial_value = log_likelihood(trial, *sub, *designs)
            # Halve a step that lowers l beyond rounding (or leaves the finite region).
            floor = current[rows] - 1e-12 * (1 + np.abs(current[rows]))
            for _ in range(MAX_HALVINGS):
                worse = ~(trial_value >= floor)
                if not worse.any():
                    break
                scale = np.where(worse, scale / 2, scale)
                trial = params[rows] + scale[:, None] * step
                trial_value = np.where(worse, log_likelihood(trial, *sub, *designs), trial_value)
            # A step that no halving made an ascent is not taken: that fit stalls where it is.
            taken = trial_value >= floor
            moved = np.where(taken, np.max(np.abs(trial - params[rows]), axis=1), 0.0)
            params[rows] = np.where(taken[:, None], trial, params[rows])
            current[rows] = np.where(taken, trial_value, current[rows])
            active[rows] = moved > STEP_TOLERANCE
        score, hessian, information = _derivatives(params, *data, *designs)
    return Optimum(
        params=params,
        log_likelihood=current,
        converged=_decrement_converged(score, hessian, current),
        hessian=hessian,
        information=information,
        iterations=iterations,
    )


def _positive_definite(matrices: np.ndarray) -> np.ndarray:
    finite_all = bool(np.all(np.isfinite(matrices)))
    if finite_all:
        try:  # the common case, every matrix positive definite, in one Cholesky
            np.linalg.cholesky(matrices)
            return np.ones(len(matrices), dtype=bool)
        except np.linalg.LinAlgError:
            pass
    finite = np.all(np.isfinite(matrices), axis=(1, 2))
    result = np.zeros(len(matrices), dtype=bool)
    if finite.any():
        result[finite] = np.linalg.eigvalsh(matrices[finite]).min(axis=1) > 0
    return result


def _solve(matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``matrices^{-1} vectors`` per row; a singular or non-finite system gives a zero step (that
    fit stops)."""
    try:
        steps = np.linalg.solve(matrices, vectors[..., None])[..., 0]
    except np.linalg.LinAlgError:
        steps = np.zeros_like(vectors)
        for row, (matrix, vector) in enumerate(zip(matrices, vectors, strict=True)):
            try:
                steps[row] = np.linalg.solve(matrix, vector)
            except np.linalg.LinAlgError:
                continue
    return np.where(np.isfinite(steps), steps, 0.0)


def _decrement_converged(score, hessian, value) -> np.ndarray:
    """``g' (-H)^{-1} g <= DECREMENT_TOLERANCE (1 + |l|)`` with ``-H`` positive definite, per
    row."""
    converged = (
        _positive_definite(-hessian) & np.isfinite(value) & np.all(np.isfinite(score), axis=1)
    )
    if converged.any():
        rows = np.flatnonzero(converged)
        decrement = np.einsum("rk,rk->r", score[rows], _solve(-hessian[rows], score[rows]))
        converged[rows] = decrement <= DECREMENT_TOLERANCE * (1 + np.abs(value[rows]))
    return converged


def block_scores(
    params: np.ndarray, blocks: Blocks, mean_design, precision_design, weights=None
) -> np.ndarray:
    """Each block's summed score at ``params`` (R, k), weighted by ``weights`` (R, B): shape (R, B,
    k)."""
    t = _cell_terms(params, mean_design, precision_design)
    cell = blocks.cell
    weights = np.ones((len(params), len(cell))) if weights is None else np.atleast_2d(weights)
    count, log_y, log1m_y = (
        weights * blocks.count,
        weights * blocks.sum_log_y,
        weights * blocks.sum_log1m_y,
    )
    l_a = count * (t.psi_phi - t.psi_a)[:, cell] + log_y
    l_b = count * (t.psi_phi - t.psi_b)[:, cell] + log1m_y
    slope = (t.phi * t.mu * (1 - t.mu))[:, cell]
    score_eta = slope * (l_a - l_b)
    score_zeta = t.a[:, cell] * l_a + t.b[:, cell] * l_b
    return np.concatenate(
        [score_eta[..., None] * mean_design[cell], score_zeta[..., None] * precision_design[cell]],
        axis=2,
    )


def model_covariance(information: np.ndarray) -> np.ndarray:
    """Inverse expected information (R, k, k).

    Raises:
        InputError: the information is singular (scores at the scale's ends to within rounding,
            1e-300 and 1 - 1e-16, leave the likelihood flat in some direction): no standard error
            exists.
    """
    try:
        return np.linalg.inv(information)
    except np.linalg.LinAlgError:
        raise InputError(
            "the Beta regression's information matrix is singular: the predictions sit "
            "at the scale's ends (0 or 1 to within rounding), where the fit has no "
            "curvature and no standard error; the scorer must give values inside (0, 1)"
        ) from None


@dataclass(frozen=True)
class Clustering:
    """One clustering of the blocks: ``codes`` (B,) in ``0 .. n - 1``; ``copies`` (R, n) or None.

    ``copies[r, g]`` is how many copies of cluster ``g`` resample ``r`` holds, each a cluster of its
    own (a bootstrap that draws a template twice, for the clustering by template); the blocks'
    ``weights`` then already count the copies, so cluster ``g``'s summed score is divided by
    ``copies`` before its outer product is weighted by them. None: each cluster with rows counts
    once.
    """

    codes: np.ndarray
    n: int
    copies: np.ndarray | None = None


def cluster_covariance(
    scores: np.ndarray,
    hessian: np.ndarray,
    clusterings: Sequence[Clustering],
    block_counts: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CR1 sandwich, one- or two-way (the module docstring), from weighted block scores (R, B, k).

    ``clusterings``: one, or two and the clustering by their pairs (``V_1 + V_2 - V_12``);
    ``block_counts`` (R, B) the rows each block stands for (its count times its weight). Returns the
    covariance (R, k, k), the one-way ``V_1``, ``V_2`` that floor a two-way variance (R, 2, k, k;
    (R, 0, k, k) one-way) and the number of clusters of the first one or two clusterings (R, 1 or
    2).
    """
    r, n_blocks, k = scores.shape
    n_obs = block_counts.sum(axis=1)
    bread = np.linalg.inv(-hessian)
    flat_scores = scores.transpose(1, 0, 2).reshape(n_blocks, r * k)
    terms, counts = [], []
    for clustering in clusterings:
        to_clusters = _one_hot(clustering.codes, clustering.n)
        summed = (
            np.asarray(to_clusters.T @ flat_scores).reshape(clustering.n, r, k).transpose(1, 0, 2)
        )
        if clustering.copies is None:
            copies = (np.asarray(to_clusters.T @ block_counts.T).T > 0).astype(float)
        else:
            copies = np.asarray(clustering.copies, dtype=float)
        multiplier = np.divide(1.0, copies, out=np.zeros_like(copies), where=copies > 0)
        meat = np.einsum("rg,rgk,rgl->rkl", multiplier, summed, summed)
        n_clusters = copies.sum(axis=1)
        correction = n_clusters / (n_clusters - 1) * (n_obs - 1) / (n_obs - k)
        terms.append(correction[:, None, None] * (bread @ meat @ bread))
        counts.append(n_clusters)
    if len(terms) == 1:
        return terms[0], np.empty((r, 0, k, k)), np.stack(counts, axis=1)
    first, second, pairs = terms
    covariance = first + second - pairs
    symmetric = (covariance + covariance.transpose(0, 2, 1)) / 2
    return symmetric, np.stack([first, second], axis=1), np.stack(counts[:2], axis=1)


@dataclass(frozen=True)
class Covariances:
    """What a variance ``d' V d`` is computed from: the covariance ``in_use`` (R, k, k), the
    ``model``-based one (R, k, k) and, for two-way clustering, the ``one_way`` ones that floor it
    (R, m, k, k; m = 0 otherwise)."""

    in_use: np.ndarray
    model: np.ndarray
    one_way: np.ndarray

    def variances(self, gradients: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The variances (R, E) of quantities with ``gradients`` (R, E, p) in the first ``p``
        parameters, and where a one-way variance stood in for a smaller two-way one (R, E).

        ``max(d' V d, d' V_1 d, d' V_2 d)``: with few clusters CGM's ``V_1 + V_2 - V_12`` can give a
        variance below a one-way one, even a negative one, and the larger one-way variance (each
        cluster-robust on its own) is the conservative stand-in. Then 0 where that is at most
        ``ROUNDING_VARIANCE_RATIO * d' I^{-1} d`` (the model-based variance): rounding noise of a
        direction whose scores cancel within every cluster. Every term is a quadratic form in ``d``,
        invariant to a reparametrisation of the mean model, so the result is too.
        """
        p = gradients.shape[-1]

        def form(matrix: np.ndarray) -> np.ndarray:
            return np.einsum("...ep,...pq,...eq->...e", gradients, matrix[..., :p, :p], gradients)

        variance = form(self.in_use)
        one_way = (
            form(self.one_way.transpose(1, 0, 2, 3)) if self.one_way.shape[1] else variance[None]
        )
        floor = one_way.max(axis=0)
        raised = floor > variance
        variance = np.maximum(variance, floor)
        return np.where(
            variance > ROUNDING_VARIANCE_RATIO * form(self.model), variance, 0.0
        ), raised


def pair_codes(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes ``0 .. n - 1`` of the distinct (first, second) pairs, and ``n``."""
    _, codes = np.unique(
        first.astype(np.int64) * (int(second.max()) + 1) + second, return_inverse=True
    )
    codes = codes.ravel()
    return codes, int(codes.max()) + 1


def _one_hot(codes: np.ndarray, n: int) -> sparse.csr_matrix:
    """The (len(codes), n) indicator matrix of ``codes``."""
    return sparse.csr_matrix(
        (np.ones(len(codes)), (np.arange(len(codes)), codes)), shape=(len(codes), n)
    )


@dataclass(frozen=True)
class RowFit:
    """The row-wise fit (:func:`fit_rows`): ``params``, model-based ``covariance`` (inverse expected
    information), ``log_likelihood``, ``converged`` (the decrement criterion), per-row ``scores``
    (n, k) and the observed ``hessian``, for any design."""

    params: np.ndarray
    covariance: np.ndarray
    log_likelihood: float
    converged: bool
    scores: np.ndarray
    hessian: np.ndarray


def fit_rows(
    y: np.ndarray, mean_design: np.ndarray, precision_design: np.ndarray | None = None
) -> RowFit:
    """Row-wise MLE with statsmodels ``BetaModel`` (Newton, ``tol=1e-12``): any design, e.g. a
    continuous covariate. ``precision_design`` None: a constant precision."""
    from statsmodels.othermod.betareg import BetaModel  # here: statsmodels is slow to import

    model = BetaModel(y, mean_design, exog_precision=precision_design)
    # The optimiser's own warnings and flag (overflow on a wild step, a ConvergenceWarning when the
    # parameter steps stall at rounding level) are replaced by the decrement criterion.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = model.fit(
            method="newton", cov_type="eim", maxiter=MAX_ITERATIONS, tol=STEP_TOLERANCE, disp=False
        )
        params = np.asarray(result.params, dtype=float)
        covariance = np.asarray(result.cov_params(), dtype=float)
        value = float(result.llf)
        score = np.asarray(model.score(params), dtype=float)
        hessian = np.asarray(model.hessian(params, observed=True), dtype=float)
        scores = np.asarray(model.score_obs(params), dtype=float)
    converged = bool(_decrement_converged(score[None], hessian[None], np.array([value]))[0])
    return RowFit(params, covariance, value, converged and math.isfinite(value), scores, hessian)
