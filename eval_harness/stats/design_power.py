"""The power planner: from one run's scores, the minimum detectable effect of another EEC design.

An effect of the 2 x 2 design is a contrast of the four group x gender cells' mean intensities,
``theta = sum_c w_c mu_c`` (:data:`EFFECT_WEIGHTS`; the Beta regression's effects on the intensity scale are these
contrasts of its fitted means). The model behind the planner (docs/conventions.md, "The power planner"):

    y_{t c i} = mu_c + a_{t c} + g_{c s(i)} + e_{t c i}           score of sentence i of template t, cell c
    Var(sum_c w_c a_{t c}) = sigma2_T                           templates: the effect's template-to-template spread
    g_{c s} = p_{c n} + k_w                                     the sentence's name n and emotion word w
    Var(g + e) = sigma2_W,  Var(e) = sigma2_R                   within cells: all of it, and what names and words
                                                                do not explain (the template x sentence residual)
    e_{t c i} = u_{t n} + r_{t c i}                             of which a name's own reading in the template
    Var(u) = sigma2_TN,  Var(r) = sigma2_E = sigma2_R - sigma2_TN
    theta_s = theta + b_s,  Var(b_s) = sigma2_B                 seeds: each trained regressor's own shift

Templates are exchangeable draws and a seed's shift is the same on every sentence set. The template-clustered
estimate is the mean over templates of the per-template contrast ``theta_t = sum_c w_c ybar_{t c}``. How much of
the within-cell variance reaches ``theta_t`` depends on how the sentences are laid out: each template x cell holds
``N`` of a pool of ``M`` names x words (``Design.pool``), the same pool in every template:

- *crossed* (``N = M``: the shipped EECs, ``generate_eec``): the names' and words' effects ``g`` are the same in
  every template, a fixed part of the estimand, and only ``e`` varies between templates;
- *sampled* (``N < M``, ``sample: N``: each template x cell draws its own ``N`` of the ``M``, without replacement):
  the mean of ``g`` over the ``N`` drawn varies between templates by ``sigma2_G (1 - N/M) / N`` (the finite
  population correction), ``sigma2_G = sigma2_W - sigma2_R``; ``M`` None: an unlimited pool (new names each time).

The template x name part ``u`` is shared by a name's ``W = M / P`` sentences in a template (``P`` names per cell in
the pool, ``Design.names``), so it averages over the ``P`` names, not the ``M`` sentences: for a fixed template the
``M`` values ``u_{t n(i)}`` are a finite population whose mean varies between templates by ``sigma2_TN / P`` and
whose expected spread is ``sigma2_TN (M - W) / (M - 1)``, and a draw of ``N`` of them adds ``(1/N - 1/M)`` of that
spread. Taking ``sigma2_TN / N`` of it into ``sigma2_R / N`` as before, ``u`` adds to the template spread

    k(N, M, P) sigma2_TN,   k = 1/P + (M - W)/(M - 1) (1/N - 1/M) - 1/N        (crossed, N = M: 1/P - 1/M)

(``k = 0`` for an unlimited pool or ``P = M``, one sentence per name). In the shipped EECs (``P = 10`` names x
``W = 5`` words) a whole EEC's ``u`` reaches its template spread by ``sigma2_TN (1/10 - 1/50)``, four times what
``sigma2_R / 50`` gives it; a sample estimates ``sigma2_TN`` from its within-template residuals and carries it over.

So with ``T`` templates, ``m`` seeds scored on the same sentences (the estimand: the mean over seeds) and

    sigma2_N(N, M) = sigma2_G (1 - N/M) + sigma2_R            (sigma2_W when M is None)
    Var(theta_hat) = a + b,   a = (sigma2_T + sum_c w_c^2 (sigma2_N / N + k sigma2_TN)) / T,   b = sigma2_B / m,
    df = (a + b)^2 / (a^2 / (T - 1) + b^2 / (m - 1))          (Satterthwaite; T - 1 when m = 1 or b = 0)

and the MDE is :func:`~eval_harness.stats.power.minimum_detectable_effect` of ``sqrt(a + b)`` on ``df``.

Estimates from one unit (one seed), by the method of moments (ANOVA): ``sigma2_W`` the pooled within-cell variance
(ddof 1 per template x cell); ``sigma2_R`` the pooled residual variance of the additive least-squares fit
``y = m_{t c} + p_n + k_w`` within each identity cell (residual sum of squares over ``n - rank``; ``sigma2_W`` when
names and words are not given, which makes every layout count as sampled from an unlimited pool); ``sigma2_TN`` by
Henderson's method III: the residual sum of squares of the additive fit less that of the fit with template x name
terms added, over its expectation (``sigma2_E`` is the larger fit's residual variance; None when no name recurs
within a template, and then taken as 0: all of ``sigma2_R`` averages over sentences);
``sigma2_T = max(0, var_t(theta_t) - sum_c w_c^2 (sigma2_N / N + k sigma2_TN))`` (ddof 1): the per-template
contrasts' spread less the within-cell noise's expected share of it in the *measured* layout (crossed when every
template of a cell holds the same names x words; else sampled from the pool the caller names), truncated at 0;
where the spread is significantly below that noise share alone (:func:`noise_scale`), ``sigma2_R`` and ``sigma2_TN``
are scaled down to what the spread allows (a sentence effect fixed in every template is not template noise);
``sigma2_B`` the variance of the seeds' estimates (ddof 1), known only when the run trained two or more seeds. More
sentences shrink only the ``sigma2_N / N`` part (and, as names are added, the ``k sigma2_TN`` part): the floor
``sigma2_T / T + sigma2_B / m`` is what more names alone can never lower.

``sigma2_T`` rests on ``T - 1`` df (6 in the shipped EECs), so each prediction comes with an interval: the spread
``S`` is ``E[S] chi2(nu) / nu`` for normal per-template contrasts (``nu = T - 1`` in a crossed layout; Satterthwaite's
df for a sample's fitted means, :meth:`TemplateSpread.dof`), so at ``level`` (:data:`LEVEL`, 80 %) ``E[S]`` lies in
``[nu S / chi2_{(1 + level)/2}(nu), nu S / chi2_{(1 - level)/2}(nu)]``, and ``sigma2_T`` in that less the noise
share, floored at 0 (``template_var_low``/``_high``). It ignores the uncertainty of the noise share itself and of
the other components (``sigma2_R``, ``sigma2_TN``, ``sigma2_G``): small in a whole EEC, not in a small sample, where
the interval is too narrow (docs/conventions.md). The MDE of any design rises with ``sigma2_T``, so the interval's
ends give the interval of its MDE (:func:`mde_interval`) and of the design that reaches a target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError
from .blas import single_blas_thread
from .power import ALPHA, POWER, minimum_detectable_effect
from .results import Result

# The paper's effects (stats.betareg.EFFECTS) as weights over the cells (minority, female); ``p_f``/``p_m`` the
# shares of female / minority rows (the AMEs average over the rows' other factor).
EFFECT_WEIGHTS = {
    "group_within_reference_gender": lambda p_f, p_m: {(1, 0): 1.0, (0, 0): -1.0},
    "group_within_other_gender": lambda p_f, p_m: {(1, 1): 1.0, (0, 1): -1.0},
    "gender_within_reference_group": lambda p_f, p_m: {(0, 1): 1.0, (0, 0): -1.0},
    "gender_within_other_group": lambda p_f, p_m: {(1, 1): 1.0, (1, 0): -1.0},
    "group_ame": lambda p_f, p_m: {(1, 0): 1 - p_f, (0, 0): -(1 - p_f), (1, 1): p_f, (0, 1): -p_f},
    "gender_ame": lambda p_f, p_m: {(0, 1): 1 - p_m, (0, 0): -(1 - p_m), (1, 1): p_m, (1, 0): -p_m},
    "group:gender_did": lambda p_f, p_m: {(1, 1): 1.0, (1, 0): -1.0, (0, 1): -1.0, (0, 0): 1.0},
}
# The level of the interval for sigma2_T, and so for every prediction (module docstring).
LEVEL = 0.8
# How far the search for the smallest design looks.
MAX_TEMPLATES, MAX_PER_CELL, MAX_SEEDS = 1000, 100_000, 100


@dataclass(frozen=True)
class VarianceComponents(Result):
    """One effect's variance components and the design they were measured on (module docstring)."""

    template_var: float  # sigma2_T
    within_var: float  # sigma2_W
    weight_square_sum: float  # sum_c w_c^2
    templates: int  # T of the run
    per_cell: float  # N of the run (harmonic mean of the template x cell sizes)
    seed_var: float = 0.0  # sigma2_B (0: one seed, unknown)
    seeds: int = 1
    residual_var: float | None = None  # sigma2_R (None: not measured, taken as sigma2_W)
    pool: float | None = None  # M of the run: the names x words each template x cell drew from (None: unlimited)
    name_template_var: float | None = None  # sigma2_TN (None: not measured, taken as 0)
    names: float | None = None  # P of the run: the names per template x cell in its pool (None: unknown)
    template_var_low: float | None = None  # the ends of sigma2_T's interval at LEVEL (None: not measured)
    template_var_high: float | None = None

    def noise_var(self, per_cell: float, pool: float | None) -> float:
        """``sigma2_N(N, M)``: the within-cell variance that reaches a per-template cell mean of ``per_cell`` N
        sentences drawn from a pool of ``pool`` M (module docstring)."""
        if pool is None or self.residual_var is None:
            return self.within_var
        shared = max(0.0, self.within_var - self.residual_var)  # sigma2_G
        return shared * max(0.0, 1 - per_cell / pool) + self.residual_var

    def cell_var(self, design: Design) -> float:
        """``sum_c w_c^2 (sigma2_N / N + k sigma2_TN)``: the within-cell variance that reaches a per-template
        contrast of ``design`` (module docstring)."""
        noise = self.noise_var(design.per_cell, design.pool) / design.per_cell
        if self.name_template_var is not None and self.residual_var is not None:
            noise += name_share(design.per_cell, design.pool, design.names) * self.name_template_var
        return self.weight_square_sum * noise


@dataclass(frozen=True)
class Design:
    """Another design: ``templates`` T, ``per_cell`` sentences N per template x cell drawn from a ``pool`` of M names
    x words (the same in every template: ``pool == per_cell`` is the crossed layout; None: an unlimited pool) with
    ``names`` P names per cell (None: as many as sentences), and ``seeds`` m (module docstring)."""

    templates: int
    per_cell: float
    seeds: int = 1
    pool: float | None = None
    names: float | None = None


def name_share(per_cell: float, pool: float | None, names: float | None) -> float:
    """``k(N, M, P) = 1/P + (M - W)/(M - 1) (1/N - 1/M) - 1/N``, ``W = M / P``: how much more of ``sigma2_TN`` than
    ``sigma2_TN / N`` reaches a template x cell mean of ``N`` sentences drawn from ``M`` (``P`` names x ``W`` words;
    module docstring); 0 for an unlimited pool, unknown names or one sentence per name."""
    if pool is None or names is None or pool <= names or pool <= 1:
        return 0.0
    words = pool / names
    return 1 / names + (pool - words) / (pool - 1) * (1 / per_cell - 1 / pool) - 1 / per_cell


def harmonic_mean(sizes) -> float:
    """The harmonic mean of ``sizes`` (exactly the size when they are all equal)."""
    sizes = np.asarray(sizes, dtype=float)
    return float(sizes[0]) if np.all(sizes == sizes[0]) else float(len(sizes) / np.sum(1.0 / sizes))


def design_variance(components: VarianceComponents, design: Design) -> tuple[float, float]:
    """``(Var(theta_hat), df)`` of ``design`` (module docstring)."""
    if design.templates < 2 or design.per_cell <= 0 or design.seeds < 1:
        raise InputError(f"a design needs >= 2 templates, > 0 sentences per cell and >= 1 seed, got {design}")
    a = (components.template_var + components.cell_var(design)) / design.templates
    b = components.seed_var / design.seeds if design.seeds > 1 else 0.0
    if b == 0:
        return a, float(design.templates - 1)
    return a + b, (a + b) ** 2 / (a**2 / (design.templates - 1) + b**2 / (design.seeds - 1))


def design_mde(components: VarianceComponents, design: Design, alpha: float = ALPHA, power: float = POWER) -> float:
    """The MDE of ``design``: ``delta*(df) sqrt(Var(theta_hat))`` (:mod:`.power`); 0 for a zero variance."""
    variance, df = design_variance(components, design)
    return minimum_detectable_effect(math.sqrt(variance), df, alpha, power) if variance > 0 else 0.0


def interval_ends(components: VarianceComponents) -> tuple[VarianceComponents, VarianceComponents] | None:
    """``components`` with ``sigma2_T`` at the low and at the high end of its interval; None without one."""
    if components.template_var_low is None or components.template_var_high is None:
        return None
    low = replace(components, template_var=components.template_var_low)
    return low, replace(components, template_var=components.template_var_high)


def mde_interval(
    components: VarianceComponents, design: Design, alpha: float = ALPHA, power: float = POWER
) -> tuple[float, float] | None:
    """The interval of ``design``'s MDE at :data:`LEVEL`: the MDE at either end of ``sigma2_T``'s interval (it rises
    with ``sigma2_T``); None without one."""
    ends = interval_ends(components)
    if ends is None:
        return None
    low, high = (design_mde(end, design, alpha, power) for end in ends)
    return low, high


def current_design(components: VarianceComponents) -> Design:
    """The design the components were measured on."""
    return Design(components.templates, components.per_cell, components.seeds, components.pool, components.names)


def smallest_design(
    components: VarianceComponents, target: float, vary: str, alpha: float = ALPHA, power: float = POWER
) -> Design | None:
    """The smallest design that reaches an MDE of ``target``, changing only ``vary`` (``templates``,
    ``per_cell`` or ``seeds``) from the measured design; None when its search range (``MAX_*``) does not reach it.
    The MDE falls as each grows (the variance falls and the df grow), so a bisection finds it."""
    if not (isinstance(target, int | float) and math.isfinite(target) and target > 0):
        raise InputError(f"the target MDE must be a finite number > 0, got {target!r}")
    limits = {"templates": (2, MAX_TEMPLATES), "per_cell": (1, MAX_PER_CELL), "seeds": (1, MAX_SEEDS)}
    if vary not in limits:
        raise InputError(f"vary must be one of {', '.join(limits)}, got {vary!r}")
    low, high = limits[vary]
    start = current_design(components)
    # A crossed layout stays crossed: more sentences per cell are more names, with the same words, in every template.
    crossed = start.pool is not None and start.pool == start.per_cell
    words = start.pool / start.names if crossed and start.pool and start.names else None

    def changed(count: int) -> Design:
        grown = {"pool": count, "names": count / words if words else None} if crossed and vary == "per_cell" else {}
        return Design(**{**start.__dict__, vary: count, **grown})

    def reaches(count: int) -> bool:
        return design_mde(components, changed(count), alpha, power) <= target

    if not reaches(high):
        return None
    while low < high:  # the smallest count in [low, high] that reaches the target
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle + 1, high)
    return changed(low)


def smallest_design_interval(
    components: VarianceComponents, target: float, vary: str, alpha: float = ALPHA, power: float = POWER
) -> tuple[Design | None, Design | None] | None:
    """The interval of the smallest design that reaches ``target`` (:func:`smallest_design`) at :data:`LEVEL`: the
    smallest designs at the low and at the high end of ``sigma2_T``'s interval (None where that end reaches no
    design in the search range); None without an interval."""
    ends = interval_ends(components)
    if ends is None:
        return None
    low, high = (smallest_design(end, target, vary, alpha, power) for end in ends)
    return low, high


@dataclass(frozen=True)
class AdditiveFit:
    """The least-squares fit ``y = m_{t c} + p_n + k_w + (tk)_{t w} + e`` over a unit's rows (template x cell means,
    names, emotion words, and each template's own word effects, shared by its cells): ``means`` the ``m_{t c}``
    (templates x cells, identified up to a constant per cell), ``gram_inverse`` their block of ``pinv(X'X)``
    (``Var(m) = sigma2_R`` times it, for estimable contrasts), and ``residual_var`` ``sigma2_R``, the residual sum of
    squares over ``n - rank``."""

    means: np.ndarray
    gram_inverse: np.ndarray
    residual_var: float
    name_template_var: float | None = None  # sigma2_TN (module docstring; None: no name recurs in a template)


def indicators(labels) -> np.ndarray:
    """One 0/1 column per distinct label."""
    return (labels[:, None] == np.unique(labels)[None, :]).astype(float)


@dataclass(frozen=True)
class LeastSquares:
    """A least-squares fit by the normal equations: ``gram_inverse`` ``pinv(X'X)``, the ``coefficients``, the
    residual sum of squares and the rank of ``X``."""

    gram_inverse: np.ndarray
    coefficients: np.ndarray
    residual_squares: float
    rank: int


def least_squares(x, y) -> LeastSquares:
    """:class:`LeastSquares` of ``y`` on ``x`` (the indicator columns keep ``X'X`` small)."""
    with single_blas_thread():  # the same bits on any thread count, and no threads contending for a small matrix
        values, vectors = np.linalg.eigh(x.T @ x)
        kept = values > values.max() * len(values) * np.finfo(float).eps  # numpy's matrix_rank tolerance
        gram_inverse = (vectors[:, kept] / values[kept]) @ vectors[:, kept].T  # the pseudo-inverse
        coefficients = gram_inverse @ (x.T @ y)
        residual = y - x @ coefficients
    return LeastSquares(gram_inverse, coefficients, float(residual @ residual), int(kept.sum()))


def within_template(templates, labels) -> np.ndarray:
    """Each row's ``template|label``: a label's own level in each template."""
    return np.char.add(templates.astype(str), np.char.add("|", labels.astype(str)))


def name_template_var(y, x, fit: LeastSquares, templates, names) -> float | None:
    """``sigma2_TN`` by Henderson's method III: with ``Z`` the template x name indicators and ``sigma2_E`` the
    residual variance of the fit on ``[X Z]``, ``E[RSS_X] = (n - rank X) sigma2_E + sigma2_TN tr(Z' (I - H_X) Z)``
    solved for ``sigma2_TN``, truncated at 0; None without a residual degree of freedom or a template x name term
    beyond ``X`` (no name recurs within a template)."""
    z = indicators(within_template(templates, names))
    larger = least_squares(np.hstack([x, z]), y)
    if larger.rank == fit.rank or larger.rank >= len(y):
        return None
    error_var = larger.residual_squares / (len(y) - larger.rank)
    cross = x.T @ z
    spread = float(np.sum(z * z) - np.sum(cross * (fit.gram_inverse @ cross)))  # tr(Z'Z) - tr(Z'X G X'Z)
    return max(0.0, (fit.residual_squares - (len(y) - fit.rank) * error_var) / spread)


def additive_fit(y, templates, cells, names, words, order) -> AdditiveFit | None:
    """:class:`AdditiveFit` of rows with ``cells`` 0-3 (``minority * 2 + female``) and ``templates`` among ``order``,
    with ``sigma2_TN`` (:func:`name_template_var`); None without residual degrees of freedom."""
    means = (templates[:, None] == np.asarray(order)[None, :])[:, :, None] & (cells[:, None, None] == np.arange(4))
    size = means.shape[1] * 4
    x = np.hstack(
        [means.reshape(len(y), size).astype(float), indicators(names), indicators(within_template(templates, words))]
    )
    fit = least_squares(x, y)
    dof = len(y) - fit.rank
    if dof <= 0:
        return None
    return AdditiveFit(
        fit.coefficients[:size].reshape(-1, 4),
        fit.gram_inverse[:size, :size],
        fit.residual_squares / dof,
        name_template_var(y, x, fit, templates, names),
    )


@dataclass(frozen=True)
class TemplateSpread:
    """``sigma2_T``'s method of moments: the ``spread`` S (ddof 1) over T templates of the per-template contrasts
    ``theta_t``, and the ``noise_covariance`` (T x T) of the centred ``C theta`` that the within-cell variance gives,
    whose trace over ``T - 1`` is its ``noise`` share of S (module docstring)."""

    spread: float
    noise_covariance: np.ndarray

    @property
    def noise(self) -> float:
        """The within-cell noise's expected share of S: ``tr(noise_covariance) / (T - 1)``."""
        return float(np.trace(self.noise_covariance)) / (len(self.noise_covariance) - 1)

    def estimate(self) -> float:
        """``sigma2_T = max(0, S - noise)``."""
        return max(0.0, self.spread - self.noise)

    def dof(self) -> float:
        """S's chi-square df, Satterthwaite's ``tr(A)^2 / tr(A^2)``, ``A = sigma2_T C + noise_covariance`` the
        covariance of ``C theta`` at the estimate (``(T - 1) S = theta' C theta``): ``T - 1`` when the noise is
        the same in every template and uncorrelated between them (a crossed layout), fewer when a sample's fitted
        means carry unequal, correlated noise."""
        size = len(self.noise_covariance)
        covariance = self.estimate() * centring(size) + self.noise_covariance
        trace = float(np.trace(covariance))
        return trace**2 / float(np.sum(covariance * covariance.T)) if trace > 0 else float(size - 1)

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        """``sigma2_T``'s two-sided interval at ``level``: ``nu S / chi2_q(nu) - noise`` at ``q = (1 + level) / 2``
        and ``(1 - level) / 2``, floored at 0, with ``nu`` :meth:`dof` (``E[S] = sigma2_T + noise``, ``nu S / E[S]
        ~ chi2(nu)``). It takes the noise share as known: the uncertainty of ``sigma2_R`` and ``sigma2_TN`` is not in
        it (module docstring)."""
        from scipy import stats  # scipy on use: `xbias list` and config checks load none

        dof = self.dof()
        low, high = (
            dof * self.spread / stats.chi2.ppf(q, dof) - self.noise for q in ((1 + level) / 2, (1 - level) / 2)
        )
        return max(0.0, float(low)), max(0.0, float(high))


# The one-sided level at which a template spread below its noise share refutes that share (:func:`noise_scale`).
REFUTING_ALPHA = 0.05


def noise_scale(spread: TemplateSpread, alpha: float = REFUTING_ALPHA) -> float:
    """1, or ``S / noise`` where the spread S is below what the within-template noise alone gives at level ``alpha``
    (``nu S / noise`` below ``chi2_alpha(nu)``, ``nu`` Satterthwaite's at ``sigma2_T = 0``): the residual that the
    additive fit leaves is then not all template-to-template noise. In a crossed layout a name x word interaction is
    the same in every template, so it stays out of S but inflates ``sigma2_R``; scaling ``sigma2_R`` and
    ``sigma2_TN`` by this factor keeps only the part S allows, and the planner's MDE of the measured design equals
    the test's (module docstring)."""
    from scipy import stats  # scipy on use: `xbias list` and config checks load none

    if spread.noise <= 0 or spread.spread >= spread.noise:
        return 1.0
    dof = spread.dof()
    if stats.chi2.cdf(dof * spread.spread / spread.noise, dof) >= alpha:
        return 1.0
    return spread.spread / spread.noise


def centring(templates: int) -> np.ndarray:
    """``C = I - 1/T``: the centring over ``templates`` T."""
    return np.eye(templates) - 1.0 / templates


def adjusted_template_var(fit: AdditiveFit, weights) -> TemplateSpread:
    """``sigma2_T``'s spread and noise from the additive fit: the spread (ddof 1) over templates of ``theta_t = sum_c
    w_c m_{t c}``, the template x cell means freed of the names' and words' effects, and its noise covariance
    ``sigma2_R C L G L' C`` (``L`` the contrast's weights over the means, ``G`` their ``gram_inverse``, ``C`` the
    centring over templates; its share of S ``sigma2_R tr(C L G L' C) / (T - 1)``): the method of moments with
    names and words as crossed factors."""
    templates = fit.means.shape[0]
    cell_weights = np.zeros(4)
    for (minority, female), weight in weights.items():
        cell_weights[minority * 2 + female] = weight
    contrasts = fit.means @ cell_weights
    rows = np.kron(np.eye(templates), cell_weights)  # L: theta_t from the means, template-major
    centred = centring(templates) @ rows
    return TemplateSpread(float(np.var(contrasts, ddof=1)), fit.residual_var * (centred @ fit.gram_inverse @ centred.T))


def is_crossed(templates, cells, names, words) -> bool:
    """Whether the layout is crossed (module docstring): each identity cell holds the same names in every template
    (so the names' effects are the same in every template), and each template the same emotion words in every cell
    (so the words' effects, and a template's own word effects, cancel in a contrast of its cells). The shipped EECs
    are: their later templates use other words than the first, but every cell of a template the same ones."""
    for cell in np.unique(cells):
        # the names as a set: a template with fewer emotion words holds each name fewer times
        lists = [
            np.unique(names[(cells == cell) & (templates == t)]).tolist() for t in np.unique(templates[cells == cell])
        ]
        if any(other != lists[0] for other in lists[1:]):
            return False
    for template in np.unique(templates):
        lists = [sorted(words[(templates == template) & (cells == c)]) for c in np.unique(cells[templates == template])]
        if any(other != lists[0] for other in lists[1:]):
            return False
    return True


def variance_components(
    y,
    templates,
    minority,
    female,
    effect: str,
    seed_var: float = 0.0,
    seeds: int = 1,
    names=None,
    words=None,
    pool: float | None = None,
    pool_names: float | None = None,
    fits: dict[tuple, AdditiveFit | None] | None = None,
) -> VarianceComponents:
    """The components of ``effect`` (one of :data:`EFFECT_WEIGHTS`) from one unit's scores ``y``, their
    ``templates`` and 0/1 ``minority`` and ``female`` codes (module docstring). Templates that lack a cell are
    left out; ``seed_var``/``seeds``: the between-seed variance and seed count, when the run has several seeds;
    ``names``/``words``: each sentence's name and emotion word, for ``sigma2_R`` and the layout (crossed when every
    template of a cell holds the same ones); ``pool``: for a layout that is not crossed, how many names x words each
    template x cell drew from (None: an unlimited pool), and ``pool_names`` how many names per cell that pool holds
    (a crossed layout's own are counted); ``fits``: the additive fits already made on the same rows, by the
    templates they cover, to reuse and add to (the fit does not depend on the effect: a unit's effects share it)."""
    y, templates = np.asarray(y, dtype=float), np.asarray(templates)
    minority, female = np.asarray(minority, dtype=int), np.asarray(female, dtype=int)
    if not (len(y) == len(templates) == len(minority) == len(female)) or not np.all(np.isfinite(y)):
        raise InputError("scores, templates, minority and female must be finite and of one length")
    if (names is None) != (words is None) or (names is not None and not len(names) == len(words) == len(y)):
        raise InputError("names and words must be given together, one per score")
    if effect not in EFFECT_WEIGHTS:
        raise InputError(f"unknown effect {effect!r}; effects: {', '.join(EFFECT_WEIGHTS)}")
    weights = EFFECT_WEIGHTS[effect](float(female.mean()), float(minority.mean()))
    contrasts, sizes, squares, dof, used = [], [], 0.0, 0, []
    for template in np.unique(templates):
        rows = templates == template
        cells = {cell: y[rows & (minority == cell[0]) & (female == cell[1])] for cell in weights}
        if any(len(values) == 0 for values in cells.values()):
            continue
        used.append(template)
        contrasts.append(sum(weight * cells[cell].mean() for cell, weight in weights.items()))
        for values in cells.values():
            sizes.append(len(values))
            squares += float(((values - values.mean()) ** 2).sum())
            dof += len(values) - 1
    if len(contrasts) < 2 or dof == 0:
        raise InputError("the planner needs >= 2 templates with every cell, and a cell with >= 2 sentences")
    within = squares / dof
    per_cell = harmonic_mean(sizes)
    weight_squares = float(sum(weight**2 for weight in weights.values()))
    residual, template_spread, name_var = None, None, None
    if names is not None:
        kept = np.isin(templates, used)
        cells, names, words = (minority * 2 + female)[kept], np.asarray(names)[kept], np.asarray(words)[kept]
        fits = {} if fits is None else fits
        if tuple(used) not in fits:
            fits[tuple(used)] = additive_fit(y[kept], templates[kept], cells, names, words, used)
        fit = fits[tuple(used)]
        if fit is not None:
            residual, name_var = fit.residual_var, fit.name_template_var
            if is_crossed(templates[kept], cells, names, words):
                pool = per_cell
                pool_names = harmonic_mean([len(set(names[cells == cell])) for cell in np.unique(cells)])
            # the template x name part of the spread, beyond its sigma2_TN / N in sigma2_R / N (module docstring)
            names_share = weight_squares * name_share(per_cell, pool, pool_names) * (name_var or 0.0)
            fitted = adjusted_template_var(fit, weights)
            template_spread = replace(
                fitted, noise_covariance=fitted.noise_covariance + names_share * centring(len(used))
            )
            scale = noise_scale(template_spread)
            if scale < 1:  # the spread refutes the noise share: only this much of it varies between templates
                template_spread = replace(template_spread, noise_covariance=template_spread.noise_covariance * scale)
                residual, name_var = residual * scale, None if name_var is None else name_var * scale
    if template_spread is None:  # no names and words: the raw spread less the within-cell noise's share of it
        noise = weight_squares * within / per_cell
        template_spread = TemplateSpread(float(np.var(contrasts, ddof=1)), noise * centring(len(contrasts)))
    template_var_low, template_var_high = template_spread.interval()
    return VarianceComponents(
        template_var=template_spread.estimate(),
        within_var=within,
        weight_square_sum=weight_squares,
        templates=len(contrasts),
        per_cell=per_cell,
        seed_var=float(seed_var),
        seeds=int(seeds),
        residual_var=residual,
        pool=float(pool) if residual is not None and pool is not None else None,
        name_template_var=name_var,
        names=float(pool_names) if residual is not None and pool is not None and pool_names is not None else None,
        template_var_low=template_var_low,
        template_var_high=template_var_high,
    )
