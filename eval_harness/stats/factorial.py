"""Beta regression of predicted intensities on any categorical identity design, with effects on the
intensity scale.

Design. Factors ``F_1 .. F_m`` (e.g. group in {European, African-American, Latino, Arab}, gender in
{male, female, non-binary}, an age factor), each with a named reference level; their full cross
gives the design cells ``c`` (every combination of levels). Treatment coding: the mean model has an
intercept, for every main-effect term ``F`` one indicator per non-reference level (``group[Arab]``),
and for every interaction term up to ``order`` one column per combination of non-reference levels
(``group[Arab]:gender[female]``, the product of their indicators). ``order`` = m (the default) is
the saturated model of the cell means;
``order`` = 1 is additive on the logit scale. The precision is constant, or (``precision_by``)
log-linear in the main effects of some factors. The likelihood and the fit are those of
:mod:`~eval_harness.stats.beta_likelihood`, from each cell's sufficient statistics; standard errors
are model-based (inverse expected information, as R betareg) or cluster-robust CR1, one- or two-way.

Coefficients are on the logit scale and condition on the reference level of every factor they
interact with in the model; each one's ``contrast`` says so in words, naming the levels.

Effects, on the intensity scale, with ``mu_c = logistic(x_c' beta)`` the model's mean in cell ``c``.
Each is ``w . mu`` for cell weights ``w``, so its delta-method standard error is ``sqrt(d' V d)``
with
``d = sum_c w_c mu_c (1 - mu_c) x_c`` and ``V`` the covariance of the mean coefficients in use
(model-based or clustered); each gets its own Wald test, 95 % interval and minimum detectable effect
at 80 % power (:mod:`~eval_harness.stats.power`). ``s`` below is a stratum: one level of every other
factor.

* ``conditional``, named ``F[l]|G=g,...``: ``mu(F = l, s) - mu(F = ref, s)`` for every non-reference
  level ``l`` of every factor and every stratum ``s`` of the other factors (named ``F[l]`` in a
  one-factor design).
* ``average`` (AME), ``F[l]|average``: ``sum_s p_s [mu(F = l, s) - mu(F = ref, s)]``, ``p_s`` the
  share of the fitted rows in stratum ``s``: the mean over the fitted rows of the change when each
  row's ``F`` is set from ``ref`` to ``l`` (the rows' other factors held as they are; ``p_s`` is not
  estimated). Only with two or more factors (with one, it is the conditional contrast).
* ``interaction``, for every interaction term of the model and every combination of its
  non-reference
  levels: the alternating sum over the ``2^k`` corners (each factor of the term at ``l_j`` or at its
  reference), e.g. for two factors the difference-in-differences
  ``[mu(a, b) - mu(a, ref)] - [mu(ref, b) - mu(ref, ref)]``; named ``F[a]:G[b]`` when the term holds
  every factor, else given each stratum of the other factors (``F[a]:G[b]|H=h``) and averaged over
  them (``F[a]:G[b]|average``).

Tests: the Wald ratio against the standard normal with model-based standard errors and Student's t
with ``G - 1`` degrees of freedom (``G`` the fewest clusters) with clustered ones (``use_t=None``);
``use_t=True`` always t (``n - p`` df model-based, ``p`` the mean parameters), ``False`` always z.
Likelihood-ratio tests (independent rows) drop each maximal interaction term (one contained in no
other term of the model), with as many degrees of freedom as it has columns.

Rows with a missing label (None or NaN) in any factor are left out and counted in ``n_excluded``.
Exact 0 or 1 are squeezed (Smithson & Verkuilen 2006) with a :class:`BetaRegressionWarning`, or
refused (``boundary="error"``). Every cell needs ``MIN_ROWS_PER_CELL`` rows, and predictions that
barely vary within the cells (implied precision above ``MAX_PRECISION``) are refused: their
likelihood has no usable maximum.
"""

import functools
import itertools
import math
import numbers
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit

from ..errors import InputError
from . import beta_likelihood as likelihood
from .beta_likelihood import BetaRegressionWarning
from .fit_options import COV_TYPES
from .label_coding import Factor, Rows, prepare_rows
from .results import Result, estimates_table, keyed, named
from .wald import CONFIDENCE, wald_test

MIN_ROWS_PER_CELL = 2
MAX_PRECISION = 1e10
EFFECT_KINDS = ("conditional", "average", "interaction")
# The summary's heading of each kind of effect (the 2 x 2 view's interaction contrast: a
# difference-in-differences).
EFFECT_TITLES = {
    "conditional": "Conditional contrasts against the reference",
    "average": "Average marginal effects over the fitted rows",
    "interaction": "Interaction contrasts",
    "difference-in-differences": "Difference-in-differences",
}
INTERCEPT = "intercept"
LOG_PHI = "log_phi"


# --- The design -----------------------------------------------------------------------------------


def _level_name(factor: str, level: str) -> str:
    return f"{factor}[{level}]"


@dataclass(frozen=True)
class FactorialDesign:
    """Factors, the model's terms (tuples of factor names, main effects first) and the precision's
    factors.

    ``cells`` (C, m) holds the level index of every factor in each design cell (the full cross, the
    first factor varying slowest); ``mean_design`` (C, p) and ``precision_design`` (C, q) are the
    treatment-coded design rows of the cells, with column names ``mean_names`` and
    ``precision_names``.
    """

    factors: tuple[Factor, ...]
    terms: tuple[tuple[str, ...], ...]
    precision_by: tuple[str, ...] = ()

    def __post_init__(self):
        names = [factor.name for factor in self.factors]
        if len(set(names)) != len(names):
            raise InputError(f"factor names must be distinct, got {names}")
        for term in (*self.terms, self.precision_by):
            unknown = [name for name in term if name not in names]
            if unknown:
                raise InputError(f"the design names unknown factors {unknown}; factors are {names}")
        if len(set(self.terms)) != len(self.terms):
            raise InputError(f"the design repeats a term: {[':'.join(t) for t in self.terms]}")

    @classmethod
    def up_to_order(
        cls, factors: Sequence[Factor], order: int | None = None, precision_by: Sequence[str] = ()
    ) -> "FactorialDesign":
        """Every main effect and every interaction of at most ``order`` factors (None: all of
        them)."""
        order = len(factors) if order is None else order
        if (
            isinstance(order, bool)
            or not isinstance(order, numbers.Integral)
            or not 1 <= order <= len(factors)
        ):
            raise InputError(
                "order must be a whole number from 1 to the "
                f"number of factors ({len(factors)}), got {order!r}"
            )
        names = [factor.name for factor in factors]
        terms = tuple(
            term for k in range(1, int(order) + 1) for term in itertools.combinations(names, k)
        )
        return cls(tuple(factors), terms, tuple(precision_by))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(factor.name for factor in self.factors)

    def factor(self, name: str) -> Factor:
        return self.factors[self.names.index(name)]

    @functools.cached_property
    def cells(self) -> np.ndarray:
        return np.array(
            list(itertools.product(*(range(len(f.levels)) for f in self.factors))), dtype=np.intp
        )

    def cell_of(self, codes: Sequence[np.ndarray]) -> np.ndarray:
        """The cell index of rows (or assignments) whose level indices per factor are ``codes``."""
        index = np.array(codes[0], dtype=np.intp)
        for factor, code in zip(self.factors[1:], codes[1:], strict=True):
            index *= len(factor.levels)
            index += code
        return index

    def cell_labels(self, cell: int) -> tuple[tuple[str, str], ...]:
        return tuple(
            (f.name, f.levels[k]) for f, k in zip(self.factors, self.cells[cell], strict=True)
        )

    def _columns(self, terms) -> list[tuple[tuple[int, int], ...]]:
        """One entry per design column: the (factor index, level index) pairs whose indicators it
        multiplies."""
        columns: list[tuple[tuple[int, int], ...]] = [()]
        for term in terms:
            positions = [self.names.index(name) for name in term]
            levels = [range(1, len(self.factors[j].levels)) for j in positions]
            columns += [
                tuple(zip(positions, combo, strict=True)) for combo in itertools.product(*levels)
            ]
        return columns

    def _matrix(self, columns) -> np.ndarray:
        return np.column_stack(
            [
                np.all([self.cells[:, j] == k for j, k in column], axis=0)
                if column
                else np.ones(len(self.cells))
                for column in columns
            ]
        ).astype(float)

    def _names(self, columns, intercept: str) -> tuple[str, ...]:
        return tuple(
            ":".join(
                [intercept] * (intercept == LOG_PHI)
                + [_level_name(self.factors[j].name, self.factors[j].levels[k]) for j, k in column]
            )
            if column
            else intercept
            for column in columns
        )

    @functools.cached_property
    def mean_design(self) -> np.ndarray:
        return self._matrix(self._columns(self.terms))

    @functools.cached_property
    def mean_names(self) -> tuple[str, ...]:
        return self._names(self._columns(self.terms), INTERCEPT)

    @functools.cached_property
    def precision_design(self) -> np.ndarray:
        return self._matrix(self._columns([(name,) for name in self.precision_by]))

    @functools.cached_property
    def precision_names(self) -> tuple[str, ...]:
        return self._names(self._columns([(name,) for name in self.precision_by]), LOG_PHI)

    def term_columns(self, term: tuple[str, ...]) -> list[int]:
        """The mean-design columns of ``term``."""
        columns = self._columns(self.terms)
        positions = {self.names.index(name) for name in term}
        return [
            i for i, column in enumerate(columns) if column and {j for j, _ in column} == positions
        ]

    def maximal_terms(self) -> tuple[tuple[str, ...], ...]:
        """The interaction terms contained in no other term of the model."""
        return tuple(
            term
            for term in self.terms
            if len(term) > 1 and not any(set(term) < set(other) for other in self.terms)
        )

    def conditioning(self, term: tuple[str, ...]) -> tuple[str, ...]:
        """The factors outside ``term`` that share a larger term with it: its coefficients hold them
        at reference."""
        return tuple(
            name
            for name in self.names
            if name not in term and any(set(term) | {name} <= set(other) for other in self.terms)
        )


# --- Effects: weights over the cells --------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EffectSpec:
    """An effect ``weights . mu`` (module docstring): its ``name``, ``kind``, ``term`` (the factors,
    joined by ``:``), the ``levels`` contrasted with the reference, the stratum it is ``given``
    (empty for averages and when no factor is left), its ``contrast`` in words, and ``weights`` (C,)
    over the design cells."""

    name: str
    kind: str
    term: str
    levels: tuple[tuple[str, str], ...]
    given: tuple[tuple[str, str], ...]
    contrast: str
    weights: np.ndarray


def _where(given: Sequence[tuple[str, str]]) -> str:
    return "where " + " and ".join(f"{name} is {level}" for name, level in given)


def effect_specs(design: FactorialDesign, cell_shares: np.ndarray) -> tuple[EffectSpec, ...]:
    """Every conditional contrast, AME and interaction contrast of ``design`` (module docstring, in
    that order).

    ``cell_shares`` (C,): the share of the fitted rows in each cell (the AMEs' weights ``p_s``).
    """
    factors, names = design.factors, design.names
    shares = np.asarray(cell_shares, dtype=float).reshape([len(f.levels) for f in factors])

    def weights_of(
        corners: Mapping[int, int], fixed: Mapping[int, int], stratum_weights=None
    ) -> np.ndarray:
        """Alternating sum over the corners (factor j at level corners[j] or 0) at the fixed levels
        of the others; with ``stratum_weights`` (over the other factors), their weighted sum over
        every stratum instead."""
        weights = np.zeros(shares.shape)
        corner_factors = list(corners)
        for picks in itertools.product((0, 1), repeat=len(corner_factors)):
            sign = (-1.0) ** (len(corner_factors) - sum(picks))
            index = [slice(None)] * len(factors)
            for j, pick in zip(corner_factors, picks, strict=True):
                index[j] = corners[j] if pick else 0
            for j, level in fixed.items():
                index[j] = level
            weights[tuple(index)] += sign * (1.0 if stratum_weights is None else stratum_weights)
        return weights.ravel()

    def others_of(positions):
        return [j for j in range(len(factors)) if j not in positions]

    def strata(others):
        return itertools.product(*(range(len(factors[j].levels)) for j in others))

    def stratum_shares(positions):
        """Shares of the strata of the other factors (an array over them, in factor order)."""
        return shares.sum(axis=tuple(positions))

    def labelled(positions, combo):
        return tuple(
            (names[j], factors[j].levels[k]) for j, k in zip(positions, combo, strict=True)
        )

    specs = []
    for j, factor in enumerate(factors):
        for level in range(1, len(factor.levels)):
            name, words = (
                _level_name(factor.name, factor.levels[level]),
                f"{factor.levels[level]} vs {factor.reference} ({factor.name})",
            )
            for stratum in strata(others_of([j])):
                given = labelled(others_of([j]), stratum)
                specs.append(
                    EffectSpec(
                        name=name + ("|" + ",".join(f"{n}={v}" for n, v in given) if given else ""),
                        kind="conditional",
                        term=factor.name,
                        levels=((factor.name, factor.levels[level]),),
                        given=given,
                        contrast=words + (f", {_where(given)}" if given else ""),
                        weights=weights_of(
                            {j: level}, dict(zip(others_of([j]), stratum, strict=True))
                        ),
                    )
                )
    if len(factors) > 1:
        for j, factor in enumerate(factors):
            others = ", ".join(names[k] for k in others_of([j]))
            for level in range(1, len(factor.levels)):
                specs.append(
                    EffectSpec(
                        name=f"{_level_name(factor.name, factor.levels[level])}|average",
                        kind="average",
                        term=factor.name,
                        levels=((factor.name, factor.levels[level]),),
                        given=(),
                        contrast=f"{factor.levels[level]} vs {factor.reference} "
                        f"({factor.name}), averaged over the fitted rows' {others}",
                        weights=weights_of({j: level}, {}, stratum_shares([j])),
                    )
                )
    for term in design.terms:
        if len(term) < 2:
            continue
        positions = [names.index(name) for name in term]
        others = others_of(positions)
        for combo in itertools.product(*(range(1, len(factors[j].levels)) for j in positions)):
            levels = labelled(positions, combo)
            base = ":".join(_level_name(n, v) for n, v in levels)
            words = _interaction_words(
                [
                    (names[j], factors[j].levels[k], factors[j].reference)
                    for j, k in zip(positions, combo, strict=True)
                ]
            )
            corners = dict(zip(positions, combo, strict=True))
            variants = (
                [(base, words, {}, None, ())]
                if not others
                else [
                    (
                        f"{base}|" + ",".join(f"{n}={v}" for n, v in labelled(others, stratum)),
                        f"{words}, {_where(labelled(others, stratum))}",
                        dict(zip(others, stratum, strict=True)),
                        None,
                        labelled(others, stratum),
                    )
                    for stratum in strata(others)
                ]
                + [
                    (
                        f"{base}|average",
                        f"{words}, averaged over the fitted rows' "
                        f"{', '.join(names[k] for k in others)}",
                        {},
                        stratum_shares(positions),
                        (),
                    )
                ]
            )
            for name, contrast, fixed, weighting, given in variants:
                specs.append(
                    EffectSpec(
                        name=name,
                        kind="interaction",
                        term=":".join(term),
                        levels=levels,
                        given=given,
                        contrast=contrast,
                        weights=weights_of(corners, fixed, weighting),
                    )
                )
    return tuple(specs)


def _interaction_words(parts: Sequence[tuple[str, str, str]]) -> str:
    """(factor, level, reference) per factor of an interaction: the difference of differences in
    words."""
    if len(parts) == 2:
        (_, a, a0), (_, b, b0) = parts
        return f"({a} {b} - {a} {b0}) - ({a0} {b} - {a0} {b0})"
    return f"{len(parts)}-way difference of differences of " + " x ".join(
        f"{name} ({level} vs {reference})" for name, level, reference in parts
    )


def effect_values(
    weights: np.ndarray,
    params: np.ndarray,
    covariances: likelihood.Covariances,
    mean_design: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimates ``w . mu`` (R, E) and delta-method standard errors (R, E) of effects ``weights``
    (E, C), or (R, E, C) for weights of their own per data set, for parameters (R, k) and
    ``covariances`` whose first
    ``p = mean_design.shape[1]`` entries are ``beta``; and where a one-way variance stood in for a
    two-way one (:meth:`~eval_harness.stats.beta_likelihood.Covariances.variances`)."""
    p = mean_design.shape[1]
    mu = expit(params[:, :p] @ mean_design.T)  # (R, C)
    weights = np.broadcast_to(weights, (len(params), *weights.shape[-2:]))
    gradient = np.einsum("rec,rc,cp->rep", weights, mu * (1 - mu), mean_design)
    variance, raised = covariances.variances(gradient)
    return np.einsum("rec,rc->re", weights, mu), np.sqrt(variance), raised


def effect_weights(design: FactorialDesign, cell_counts: np.ndarray) -> np.ndarray:
    """The weights (R, E, C) of every effect of ``design`` for data sets with ``cell_counts`` (R,
    C): the AMEs weight by each data set's own rows, so one :func:`effect_specs` per distinct row of
    cell shares."""
    shares = cell_counts / cell_counts.sum(axis=1, keepdims=True)
    distinct, which = np.unique(shares, axis=0, return_inverse=True)
    per_distinct = np.stack(
        [np.stack([s.weights for s in effect_specs(design, row)]) for row in distinct]
    )
    return per_distinct[which.ravel()]


def check_cells(
    design: FactorialDesign, totals: Mapping[str, np.ndarray], y: np.ndarray, cell: np.ndarray
) -> np.ndarray:
    """Rows per cell (C,), after refusing designs with fewer than ``MIN_ROWS_PER_CELL`` rows in a
    cell and predictions (nearly) constant within the cells (see the module docstring).

    ``totals``: the cells' ``count``, ``sum_y`` and ``sum_y2``. The pooled within-cell sum of
    squares is ``sum_c (sum_y2 - sum_y^2 / n)``, exact to ~1e-10 relative while it exceeds ``1e-6
    sum y^2``; below that (where rounding could hide a constant cell) it is recomputed from the
    rows' residuals.
    """
    counts = totals["count"]
    crossed = " x ".join(design.names)
    short = {
        "/".join(level for _, level in design.cell_labels(c)): int(counts[c])
        for c in np.flatnonzero(counts < MIN_ROWS_PER_CELL)
    }
    if short:
        raise InputError(
            f"too few rows: every {crossed} cell needs at least {MIN_ROWS_PER_CELL}, found {short}"
        )
    means = totals["sum_y"] / counts
    squares = float(np.sum(totals["sum_y2"] - totals["sum_y"] * means))
    if not squares > 1e-6 * float(np.sum(totals["sum_y2"])):
        residuals = y - means[cell]
        if not np.any(residuals):
            raise InputError(
                f"predictions are constant within every {crossed} cell: "
                "the precision is infinite and the Beta regression has "
                "no maximum; the scorer must vary across sentences"
            )
        squares = float(residuals @ residuals)
    within_variance = squares / (len(y) - len(counts))
    implied_precision = float(counts @ (means * (1 - means)) / len(y)) / within_variance - 1
    if implied_precision > MAX_PRECISION:
        spread = pd.Series(y).groupby(cell).agg(lambda v: v.max() - v.min())
        raise InputError(
            f"predictions barely vary within the {crossed} cells (largest "
            f"within-cell range {float(spread.max()):.3g}, pooled within-cell "
            f"SD {math.sqrt(within_variance):.3g}): the implied Beta "
            f"precision ~{implied_precision:.3g} exceeds {MAX_PRECISION:.0e}, "
            "past which the likelihood is dominated by rounding and has no "
            "usable maximum; the scorer must vary across sentences"
        )
    return counts.astype(np.int64)


# --- Fitting --------------------------------------------------------------------------------------


def checked_cov_options(cov_type: str, clusters, use_t) -> None:
    """Refuse a bad ``cov_type``, ``clusters`` that do not fit it, or ``use_t`` that is not a bool
    or None."""
    if cov_type not in COV_TYPES:
        raise InputError(f"cov_type must be one of {list(COV_TYPES)}, got {cov_type!r}")
    if use_t is not None and not isinstance(use_t, bool | np.bool_):
        raise InputError(
            f"use_t must be True, False or None, got {use_t!r} ({type(use_t).__name__})"
        )
    if cov_type == "model" and clusters is not None:
        raise InputError(
            "clusters were given with cov_type='model': pass cov_type='cluster' to use them"
        )
    if cov_type == "cluster" and (not isinstance(clusters, Mapping) or not 1 <= len(clusters) <= 2):
        raise InputError(
            "cov_type='cluster' needs clusters={name: per-row labels} with one or two entries "
            f"(e.g. {{'template_id': [...]}}), got {type(clusters).__name__}"
            + (f" with {len(clusters)} entries" if isinstance(clusters, Mapping) else "")
        )


def clusterings(
    blocks: likelihood.Blocks, names: Sequence[str], copies=None
) -> list[likelihood.Clustering]:
    """The :class:`~eval_harness.stats.beta_likelihood.Clustering` list of one- or two-way
    clustering by ``names`` (two-way adds their pairs); ``copies`` maps a name (or ``"pairs"``) to
    its copies (R, G)."""
    copies = copies or {}
    result = [
        likelihood.Clustering(blocks.groups[name], blocks.n_groups[name], copies.get(name))
        for name in names
    ]
    if len(names) == 2:
        pairs, n_pairs = likelihood.pair_codes(blocks.groups[names[0]], blocks.groups[names[1]])
        result.append(likelihood.Clustering(pairs, n_pairs, copies.get("pairs")))
    return result


def test_df(use_t, cov_type: str, n_clusters: Sequence[int], n: int, n_mean: int) -> int | None:
    """The t degrees of freedom of the fit's tests (module docstring), or None for z tests."""
    if use_t is None:
        use_t = cov_type == "cluster"
    if not use_t:
        return None
    return int(min(n_clusters)) - 1 if n_clusters else int(n - n_mean)


@dataclass(frozen=True)
class Fit:
    """One fitted design: the ``design``, the data's ``blocks``, the ``optimum`` (R = 1), the
    ``covariance`` in use (k, k), ``n_clusters`` per clustering, the tests' ``df`` (None: z),
    ``cell_counts`` and ``converged``."""

    design: FactorialDesign
    blocks: likelihood.Blocks
    optimum: likelihood.Optimum
    covariance: np.ndarray
    cov_type: str
    cluster_by: tuple[str, ...]
    n_clusters: tuple[int, ...]
    df: int | None
    cell_counts: np.ndarray
    one_way_covariances: np.ndarray

    @property
    def params(self) -> np.ndarray:
        return self.optimum.params[0]

    @property
    def n(self) -> int:
        return int(self.cell_counts.sum())

    @property
    def covariances(self) -> likelihood.Covariances:
        """What every variance is computed from (R = 1): the covariance in use, the model-based one
        (the scale of rounding) and, two-way, the one-way ones that floor it."""
        model = likelihood.model_covariance(self.optimum.information)
        return likelihood.Covariances(self.covariance[None], model, self.one_way_covariances[None])


def fit_design(
    rows: Rows, design: FactorialDesign, cov_type: str, cluster_by: Sequence[str], use_t
) -> Fit:
    """Fit ``design`` to ``rows`` from the blocks of (cell, every grouping of ``rows``), with the
    covariance of ``cov_type`` (clustered by ``cluster_by``)."""
    cell = design.cell_of([rows.codes[name] for name in design.names])
    blocks = likelihood.aggregate_rows(rows.y, cell, len(design.cells), rows.groups)
    counts = check_cells(design, blocks.totals, rows.y, cell)
    optimum = likelihood.fit_sums(blocks.cell_sums(), design.mean_design, design.precision_design)
    if not (np.all(np.isfinite(optimum.params)) and np.all(np.isfinite(optimum.information))):
        raise InputError(
            "the Beta regression failed numerically (non-finite estimates); "
            "check that the predictions vary within the "
            f"{' x '.join(design.names)} cells and are not all at one boundary"
        )
    n_clusters: tuple[int, ...] = ()
    if cov_type == "cluster":
        scores = likelihood.block_scores(
            optimum.params, blocks, design.mean_design, design.precision_design
        )
        covariance, one_way, counted = likelihood.cluster_covariance(
            scores, optimum.hessian, clusterings(blocks, cluster_by), blocks.count[None]
        )
        covariance, one_way, n_clusters = (
            covariance[0],
            one_way[0],
            tuple(int(g) for g in counted[0]),
        )
    else:
        covariance = likelihood.model_covariance(optimum.information)[0]
        one_way = np.empty((0, *covariance.shape))
    df = test_df(use_t, cov_type, n_clusters, len(rows.y), design.mean_design.shape[1])
    return Fit(
        design,
        blocks,
        optimum,
        covariance,
        cov_type,
        tuple(cluster_by),
        n_clusters,
        df,
        counts,
        one_way,
    )


# --- Results --------------------------------------------------------------------------------------


class LevelledResult(Result):
    """A result whose ``levels`` and ``given`` fields, tuples of (factor, level) pairs, read as
    dicts in to_dict."""

    def to_dict(self) -> dict:
        result = asdict(self)
        for key in ("levels", "given"):
            if key in result:
                result[key] = dict(getattr(self, key))
        return result


@dataclass(frozen=True)
class Coefficient(LevelledResult):
    """One parameter (of the mean on the logit scale, or of ``log(phi)``) with its Wald test.

    ``contrast`` says in words what it compares and what it conditions on, naming the levels;
    ``statistic`` is estimate / std_err, so it, the estimate and the interval agree in sign; ``mde``
    is the smallest true value its test detects with 80 % power at alpha = 0.05.
    """

    name: str
    contrast: str
    estimate: float
    std_err: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    mde: float


@dataclass(frozen=True)
class Effect(Coefficient):
    """A difference of predicted mean intensities (:class:`EffectSpec`) with its own delta-method
    Wald test: the :class:`Coefficient` fields on the intensity scale, and its ``kind``
    (``EFFECT_KINDS``), ``term`` (the factors it is about), ``levels`` (each contrasted factor's
    level, against the reference) and ``given`` (the stratum it is conditional on; empty for
    averages)."""

    kind: str
    term: str
    levels: tuple[tuple[str, str], ...]
    given: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class LikelihoodRatioTest(Result):
    """``statistic = 2 (log_likelihood_full - log_likelihood_reduced)`` ~ chi2(df) for dropping
    ``term``."""

    term: str
    statistic: float
    df: int
    p_value: float
    log_likelihood_reduced: float


@dataclass(frozen=True)
class Cell(LevelledResult):
    """One design cell: its ``levels`` (factor -> level), rows, observed mean of y, predicted mean
    and precision."""

    levels: tuple[tuple[str, str], ...]
    n: int
    observed_mean: float
    predicted_mean: float
    precision: float


def coefficients_of(
    fit: Fit, names: Sequence[str], contrasts: Sequence[str], zero_untested: bool = False
) -> tuple[Coefficient, ...]:
    variance, raised = fit.covariances.variances(np.eye(len(fit.params))[None])
    std_err = np.sqrt(variance[0])
    warn_one_way_stand_ins([name for name, flag in zip(names, raised[0], strict=True) if flag])
    return tuple(
        Coefficient(
            name=name,
            contrast=contrast,
            **wald_test(float(fit.params[k]), float(std_err[k]), fit.df, name, zero_untested),
        )
        for k, (name, contrast) in enumerate(zip(names, contrasts, strict=True))
    )


def warn_one_way_stand_ins(names: Sequence[str]) -> None:
    """A :class:`BetaRegressionWarning` (a record's note) naming the quantities whose two-way
    clustered variance was below a one-way one, which stood in for it."""
    if names:
        warnings.warn(
            "two-way clustered variance below a one-way one for "
            f"{', '.join(names)} (with few clusters, CGM's V_1 + V_2 "
            "- V_12 can be): the larger one-way variance stands in",
            BetaRegressionWarning,
            stacklevel=4,
        )


def effects_of(
    fit: Fit, specs: Sequence[EffectSpec], zero_untested: bool = False
) -> tuple[Effect, ...]:
    """Each effect of ``specs`` with its Wald test; ``zero_untested``: an effect whose standard
    error is 0 gets none (:func:`~.wald.untested`) instead of an InputError (one side of a
    comparison, whose difference is tested)."""
    if not specs:
        return ()
    weights = np.stack([spec.weights for spec in specs])
    estimates, std_errs, raised = effect_values(
        weights, fit.optimum.params, fit.covariances, fit.design.mean_design
    )
    warn_one_way_stand_ins([spec.name for spec, flag in zip(specs, raised[0], strict=True) if flag])
    return tuple(
        Effect(
            name=spec.name,
            kind=spec.kind,
            term=spec.term,
            levels=spec.levels,
            given=spec.given,
            contrast=spec.contrast,
            **wald_test(float(estimate), float(std_err), fit.df, spec.name, zero_untested),
        )
        for spec, estimate, std_err in zip(specs, estimates[0], std_errs[0], strict=True)
    )


def lr_tests(fit: Fit) -> tuple[tuple[LikelihoodRatioTest, ...], bool]:
    """Drop each maximal interaction term in turn and refit (independent rows; module docstring);
    and whether every reduced fit converged."""
    design, sums = fit.design, fit.blocks.cell_sums()
    tests, converged = [], True
    for term in design.maximal_terms():
        dropped = design.term_columns(term)
        keep = [k for k in range(design.mean_design.shape[1]) if k not in dropped]
        reduced = likelihood.fit_sums(sums, design.mean_design[:, keep], design.precision_design)
        converged = converged and bool(reduced.converged[0])
        statistic = max(0.0, 2 * float(fit.optimum.log_likelihood[0] - reduced.log_likelihood[0]))
        tests.append(
            LikelihoodRatioTest(
                term=":".join(term),
                statistic=statistic,
                df=len(dropped),
                p_value=float(stats.chi2.sf(statistic, len(dropped))),
                log_likelihood_reduced=float(reduced.log_likelihood[0]),
            )
        )
    return tuple(tests), converged


def cells_of(fit: Fit) -> tuple[Cell, ...]:
    design, params = fit.design, fit.params[None]
    p = design.mean_design.shape[1]
    mu = expit(params[:, :p] @ design.mean_design.T)[0]
    phi = np.exp(params[:, p:] @ design.precision_design.T)[0]
    observed = fit.blocks.cell_sums()
    means = observed["sum_y"][0] / observed["count"][0]
    return tuple(
        Cell(
            levels=design.cell_labels(c),
            n=int(fit.cell_counts[c]),
            observed_mean=float(means[c]),
            predicted_mean=float(mu[c]),
            precision=float(phi[c]),
        )
        for c in range(len(design.cells))
    )


def coefficient_contrasts(design: FactorialDesign) -> tuple[str, ...]:
    """Each mean coefficient in words, naming the levels and what it conditions on (module
    docstring)."""
    reference_cell = ", ".join(f"{f.name} {f.reference}" for f in design.factors)
    words = [f"logit of the mean in the reference cell ({reference_cell})"]
    for term in design.terms:
        held = design.conditioning(term)
        others = [name for name in design.names if name not in term]
        if held:
            condition = (
                ", "
                + _where([(name, design.factor(name).reference) for name in held])
                + " (the reference)"
            )
        elif others:
            condition = (
                f", the same at every level of {' and '.join(others)} (no interaction in the model)"
            )
        else:
            condition = ""
        factors = [design.factor(name) for name in term]
        for combo in itertools.product(*(f.levels[1:] for f in factors)):
            if len(term) == 1:
                words.append(
                    f"logit difference, {combo[0]} vs {factors[0].reference} ({term[0]}){condition}"
                )
            else:
                parts = " x ".join(
                    f"{f.name} ({level} vs {f.reference})"
                    for f, level in zip(factors, combo, strict=True)
                )
                words.append(f"difference of logit differences, {parts}{condition}")
    return tuple(words)


def precision_contrasts(design: FactorialDesign) -> tuple[str, ...]:
    words = [
        "log precision"
        + (
            " in the reference levels of " + ", ".join(design.precision_by)
            if design.precision_by
            else ""
        )
    ]
    for name in design.precision_by:
        factor = design.factor(name)
        words += [
            f"log precision difference, {level} vs {factor.reference} ({name})"
            for level in factor.levels[1:]
        ]
    return tuple(words)


@dataclass(frozen=True)
class FactorialBetaRegression(Result):
    """Result of :func:`fit_factorial` (every convention in the module docstring).

    ``factors`` with their levels (reference first); ``terms`` of the mean model
    (``"group:gender"``) up to ``order``; ``coefficients`` (the mean model, logit scale) and
    ``precision`` (``log_phi`` terms), each with its Wald test; ``effects`` on the intensity scale
    (``EFFECT_KINDS``), each with its own delta-method test; ``lr_tests`` of the maximal interaction
    terms; ``cells``; ``covariance`` of ``parameter_names`` in use (``cov_type`` ``"model"`` or
    ``"cluster"``, by ``cluster_by`` with ``n_clusters``); ``test`` ``"z"`` or ``"t"`` with ``df``.
    """

    factors: tuple[Factor, ...]
    terms: tuple[str, ...]
    order: int
    coefficients: tuple[Coefficient, ...]
    precision: tuple[Coefficient, ...]
    effects: tuple[Effect, ...]
    lr_tests: tuple[LikelihoodRatioTest, ...]
    cells: tuple[Cell, ...]
    log_likelihood: float
    n: int
    n_excluded: int
    converged: bool
    test: str
    df: int | None
    cov_type: str
    cluster_by: tuple[str, ...]
    n_clusters: tuple[int, ...]
    parameter_names: tuple[str, ...]
    covariance: tuple[tuple[float, ...], ...]
    squeezed: bool

    def coefficient(self, name: str) -> Coefficient:
        """The mean or precision coefficient called ``name`` (e.g. ``"group[Arab]"``,
        ``"log_phi"``)."""
        return named(self.coefficients + self.precision, name, "coefficient")

    def effect(self, name: str) -> Effect:
        """The effect called ``name`` (e.g. ``"group[Arab]|gender=female"``,
        ``"group[Arab]|average"``)."""
        return named(self.effects, name, "effect")

    def lr_test(self, term: str) -> LikelihoodRatioTest:
        """The likelihood-ratio test of dropping the maximal interaction ``term`` ("group:gender").

        Example:
            >>> from eval_harness.stats.factorial import fit_factorial
            >>> y = [0.30, 0.32, 0.29, 0.31, 0.35, 0.37, 0.40, 0.41, 0.33, 0.36, 0.45, 0.47]
            >>> group, gender = ["a", "a", "a", "b", "b", "b"] * 2, ["m"] * 6 + ["f"] * 6
            >>> factors = {"group": group, "gender": gender}
            >>> result = fit_factorial(y, factors, {"group": "a", "gender": "m"})
            >>> test = result.lr_test("group:gender")
            >>> test.df, round(test.p_value, 2)
            (1, 0.94)
        """
        return named(self.lr_tests, term, "likelihood-ratio test", key="term")

    def to_dict(self) -> dict:
        """Plain nested dict: ``coefficients``, ``precision``, ``effects`` keyed by name,
        ``lr_tests`` by term, ``factors`` as ``{name: [levels, reference first]}``, the rest as
        fields."""
        return {
            "factors": {f.name: list(f.levels) for f in self.factors},
            "terms": list(self.terms),
            "order": self.order,
            "coefficients": keyed(self.coefficients),
            "precision": keyed(self.precision),
            "effects": keyed(self.effects),
            "lr_tests": keyed(self.lr_tests, key="term"),
            "cells": [cell.to_dict() for cell in self.cells],
            "log_likelihood": self.log_likelihood,
            "n": self.n,
            "n_excluded": self.n_excluded,
            "converged": self.converged,
            "test": self.test,
            "df": self.df,
            "cov_type": self.cov_type,
            "cluster_by": list(self.cluster_by),
            "n_clusters": list(self.n_clusters),
            "parameter_names": list(self.parameter_names),
            "covariance": [list(row) for row in self.covariance],
            "squeezed": self.squeezed,
        }

    def summary(self) -> str:
        """A readable table: the design, the coefficients, the effects by kind, the precision and
        the tests."""
        lines = [
            f"Beta regression on {' x '.join(f.name for f in self.factors)}: logit(mean) = "
            + " + ".join([INTERCEPT, *self.terms])
            + ", log(precision)"
            + (
                " by " + ", ".join(n for n in self.parameter_names if n.startswith(LOG_PHI + ":"))
                if len(self.precision) > 1
                else ""
            ),
            "; ".join(
                f"{f.name}: {', '.join(f.levels[1:])} (reference {f.reference})"
                for f in self.factors
            ),
            f"n = {self.n} ({self.n_excluded} rows with a missing label excluded)"
            + ("; boundary values squeezed" if self.squeezed else ""),
            covariance_words(self.cov_type, self.cluster_by, self.n_clusters, self.test, self.df),
        ]
        lines += ["", "Coefficients (logit scale of the mean):", *self._table(self.coefficients)]
        for kind in dict.fromkeys(e.kind for e in self.effects):
            lines += ["", f"{EFFECT_TITLES.get(kind, kind)} (intensity scale):"]
            lines += self._table([e for e in self.effects if e.kind == kind])
        lines += ["", "Precision:", *self._table(self.precision), ""]
        lines += [
            f"likelihood-ratio test of {t.term} (assumes independent "
            f"rows): chi2({t.df}) = {t.statistic:.4f}, p = {t.p_value:.4g}"
            for t in self.lr_tests
        ]
        lines.append(f"log-likelihood = {self.log_likelihood:.4f}; converged = {self.converged}")
        return "\n".join(lines)

    def _table(self, items) -> list[str]:
        return estimates_table(items, self.test, CONFIDENCE)


def covariance_words(cov_type, cluster_by, n_clusters, test, df) -> str:
    if cov_type == "cluster":
        clusters = ", ".join(
            f"{name} ({g})" for name, g in zip(cluster_by, n_clusters, strict=True)
        )
        covariance = f"cluster-robust (CR1) standard errors, clustered by {clusters}"
    else:
        covariance = "model-based (expected-information) standard errors"
    return f"{covariance}; " + (f"t tests with df = {df}" if test == "t" else "z tests")


def fit_factorial(
    y: Sequence[float],
    factors: Mapping[str, Sequence[str | None]],
    reference_levels: Mapping[str, str],
    order: int | None = None,
    *,
    precision_by: Sequence[str] = (),
    use_t: bool | None = None,
    boundary: str = "squeeze",
    cov_type: str = "model",
    clusters: Mapping[str, Sequence[Hashable]] | None = None,
) -> FactorialBetaRegression:
    """Fit the Beta regression of ``y`` on the factors' main effects and interactions up to
    ``order``.

    Args:
        y: predicted intensities in [0, 1], one per row (numbers only).
        factors: ``{name: per-row labels}`` (strings; None or NaN for a row without one, which is
            left out). Their order is the order of the terms and cells.
        reference_levels: ``{name: reference level}`` for every factor.
        order: the highest order of interaction (1 .. number of factors; None: all, the saturated
        model).
        precision_by: factors whose main effects enter ``log(phi)`` (default: a constant precision).
        use_t, boundary, cov_type, clusters: as in
        :func:`eval_harness.stats.betareg.fit_intersectional`
            (``clusters``: one or two ``{name: per-row labels}``; ``use_t`` None: z model-based,
            t(G - 1) clustered).

    Returns:
        :class:`FactorialBetaRegression`.

    Raises:
        InputError: non-numeric, empty, non-finite or out-of-range ``y``; lengths that differ;
            labels that are not strings; a factor with fewer than two levels; a missing or unknown
            reference level; a bad ``order``; a cell with fewer than ``MIN_ROWS_PER_CELL`` rows; y
            (nearly) constant within the cells; bad
            ``cov_type``/``clusters``/``use_t``/``boundary``.

    Examples
    --------
    >>> from eval_harness.stats.factorial import fit_factorial
    >>> y = [0.30, 0.34, 0.41, 0.45, 0.36, 0.38]
    >>> group = ["Anglo", "Anglo", "Arab", "Arab", "Hispanic", "Hispanic"]
    >>> fit = fit_factorial(y, {"group": group}, {"group": "Anglo"})
    >>> [coefficient.name for coefficient in fit.coefficients]
    ['intercept', 'group[Arab]', 'group[Hispanic]']
    >>> effect = fit.effect("group[Arab]")
    >>> effect.contrast, round(effect.estimate, 3)
    ('Arab vs Anglo (group)', 0.11)
    """
    checked_cov_options(cov_type, clusters, use_t)
    rows = prepare_rows(y, factors, reference_levels, boundary, clusters)
    design = FactorialDesign.up_to_order(rows.factors, order, precision_by)
    fit = fit_design(rows, design, cov_type, tuple(rows.groups), use_t)
    return result_of(fit, rows, effect_specs(design, fit.cell_counts / fit.n))


def result_of(
    fit: Fit,
    rows: Rows,
    specs: Sequence[EffectSpec],
    stacklevel: int = 3,
    zero_untested: bool = False,
) -> FactorialBetaRegression:
    """The :class:`FactorialBetaRegression` of a fitted design; warns
    (:class:`BetaRegressionWarning`) when the fit or a reduced fit of the likelihood-ratio tests did
    not converge. ``zero_untested``: a coefficient or effect whose standard error is 0 gets no test
    instead of an InputError (:func:`~.wald.untested`)."""
    design = fit.design
    tests, reduced_converged = lr_tests(fit)
    converged = bool(fit.optimum.converged[0]) and reduced_converged
    if not converged:
        warnings.warn(
            f"the Beta regression did not converge (n = {fit.n}); estimates are not at the optimum",
            BetaRegressionWarning,
            stacklevel=stacklevel,
        )
    p = design.mean_design.shape[1]
    everything = coefficients_of(
        fit,
        design.mean_names + design.precision_names,
        coefficient_contrasts(design) + precision_contrasts(design),
        zero_untested,
    )
    return FactorialBetaRegression(
        factors=design.factors,
        terms=tuple(":".join(term) for term in design.terms),
        order=max(len(term) for term in design.terms),
        coefficients=everything[:p],
        precision=everything[p:],
        effects=effects_of(fit, specs, zero_untested),
        lr_tests=tests,
        cells=cells_of(fit),
        log_likelihood=float(fit.optimum.log_likelihood[0]),
        n=fit.n,
        n_excluded=rows.n_excluded,
        converged=converged,
        test="t" if fit.df is not None else "z",
        df=fit.df,
        cov_type=fit.cov_type,
        cluster_by=fit.cluster_by,
        n_clusters=fit.n_clusters,
        parameter_names=design.mean_names + design.precision_names,
        covariance=tuple(tuple(float(v) for v in row) for row in fit.covariance),
        squeezed=rows.squeezed,
    )
