"""The power planner: from one run's scores, the minimum detectable effect of another EEC design.

An effect of the 2 x 2 design is a contrast of the four group x gender cells' mean intensities,
``theta = sum_c w_c mu_c`` (:data:`EFFECT_WEIGHTS`; the Beta regression's effects on the intensity
scale are these contrasts of its fitted means). The model behind the planner (docs/conventions.md,
"The power planner"):

    y_{t c i} = mu_c + a_{t c} + g_{c s(i)} + e_{t c i}           score of sentence i of template t, cell c
    Var(sum_c w_c a_{t c}) = sigma2_T                           templates: the effect's template-to-template spread
    g_{c s} = p_{c n} + k_w                                     the sentence's name n and emotion word w
    Var(g + e) = sigma2_W,  Var(e) = sigma2_R                   within cells: all of it, and what names and words
                                                                do not explain (the template x
                                                                sentence residual)
    e_{t c i} = u_{t n} + r_{t c i}                             of which a name's own reading in the template
    Var(u) = sigma2_TN,  Var(r) = sigma2_E = sigma2_R - sigma2_TN
    theta_s = theta + b_s,  Var(b_s) = sigma2_B                 seeds: each trained regressor's own shift

Templates are exchangeable draws and a seed's shift is the same on every sentence set. The
template-clustered estimate is the mean over templates of the per-template contrast ``theta_t =
sum_c w_c ybar_{t c}``. How much of the within-cell variance reaches ``theta_t`` depends on how the
sentences are laid out: each template x cell holds ``N`` of a pool of ``M`` names x words
(``Design.pool``), the same pool in every template:

- *crossed* (``N = M``: the shipped EECs, ``generate_eec``): the names' and words' effects ``g`` are
  the same in every template, a fixed part of the estimand, and only ``e`` varies between templates;
- *sampled* (``N < M``, ``sample: N``: each template x cell draws its own ``N`` of the ``M``,
  without replacement): the mean of ``g`` over the ``N`` drawn varies between templates by
  ``sigma2_G (1 - N/M) / N`` (the finite population correction), ``sigma2_G = sigma2_W - sigma2_R``;
  ``M`` None: an unlimited pool (new names each time).

The template x name part ``u`` is shared by a name's ``W = M / P`` sentences in a template (``P``
names per cell in the pool, ``Design.names``), so it averages over the ``P`` names, not the ``M``
sentences: for a fixed template the ``M`` values ``u_{t n(i)}`` are a finite population whose mean
varies between templates by ``sigma2_TN / P`` and whose expected spread is ``sigma2_TN (M - W) /
(M - 1)``, and a draw of ``N`` of them adds ``(1/N - 1/M)`` of that spread. Taking ``sigma2_TN / N``
of it into ``sigma2_R / N`` as before, ``u`` adds to the template spread

    k(N, M, P) sigma2_TN,   k = 1/P + (M - W)/(M - 1) (1/N - 1/M) - 1/N        (crossed, N = M: 1/P - 1/M)

(``k = 0`` for an unlimited pool or ``P = M``, one sentence per name). In the shipped EECs (``P =
10`` names x
``W = 5`` words) a whole EEC's ``u`` reaches its template spread by ``sigma2_TN (1/10 - 1/50)``,
four times what ``sigma2_R / 50`` gives it; a sample estimates ``sigma2_TN`` from its
within-template residuals and carries it over.

So with ``T`` templates, ``m`` seeds scored on the same sentences (the estimand: the mean over
seeds) and

    sigma2_N(N, M) = sigma2_G (1 - N/M) + sigma2_R            (sigma2_W when M is None)
    Var(theta_hat) = a + b,   a = (sigma2_T + sum_c w_c^2 (sigma2_N / N + k sigma2_TN)) / T,   b = sigma2_B / m,
    df = (a + b)^2 / (a^2 / (T - 1) + b^2 / (m - 1))          (Satterthwaite; T - 1 when b = 0; 0 when m = 1)

and the MDE is :func:`~eval_harness.stats.power.minimum_detectable_effect` of ``sqrt(a + b)`` on
``df``.

Estimates from one unit (one seed), by the method of moments (ANOVA), none truncated at 0 (a
truncated estimate's mean is biased up, several times the truth where the estimate is noisy, as in a
sample; docs/conventions.md): ``sigma2_W`` the pooled within-cell variance (ddof 1 per template x
cell); ``sigma2_R`` the pooled residual variance of the additive least-squares fit ``y = m_{t c} +
p_n + k_w`` within each identity cell (residual sum of squares over ``n - rank``; ``sigma2_W`` when
names and words are not given, which makes every layout count as sampled from an unlimited pool);
``sigma2_TN`` by Henderson's method III: the residual sum of squares of the additive fit less that
of the fit with template x name terms added, over its expectation (``sigma2_E`` is the larger fit's
residual variance; None when no name recurs within a template or no residual df is left, and then
taken as 0), unbiased and so at times below 0, where its share of a mean is taken as 0; ``sigma2_T =
var_t(theta_t) - sum_c w_c^2 (sigma2_N / N + k sigma2_TN)`` (ddof 1): the per-template contrasts'
spread less the within-cell noise's expected share of it in the *measured* layout (crossed when
every template of a cell holds the same names x words; else sampled from the pool the caller names).
A sample of a known pool may use the raw cell means instead (:func:`pool_spread`: their noise share
is design-based, ``(1 - N/M) sigma2_W / N``, often the smaller), and its point estimate is
median-unbiased (``nu S / chi2_0.5(nu)`` for ``S``: a sample's spread is mostly noise share, and
``S - noise`` falls below the truth in most runs). ``sigma2_T >= 0`` is imposed on a design's
variance rather than on the estimate: ``sigma2_T + cell_var`` is at least ``cell_var`` at
``sigma2_R``'s low end without ``sigma2_TN`` (:meth:`VarianceComponents.template_part`), a floor
that seldom lifts the median prediction. Where the spread is significantly below the noise share
alone (:func:`noise_scale`), ``sigma2_R`` and ``sigma2_TN`` are scaled down to what the spread
allows (a sentence effect fixed in every template is not template noise); ``sigma2_B`` the variance
of the seeds' estimates (ddof 1), known only when the run trained two or more seeds. More sentences
shrink only the ``sigma2_N / N`` part (and, as names are added, the ``k sigma2_TN`` part): the floor
``sigma2_T / T + sigma2_B / m`` is what more names alone can never lower. One seed with ``sigma2_B >
0``: the seed term on ``m - 1 = 0`` df, so no MDE (no test of one seed holds its size for the mean
over seeds); the MDE falls as seeds are added.

Each prediction comes with an interval at :data:`LEVEL` (80 %) that carries the uncertainty of every
component it
uses: ``sigma2_T``'s is that of ``E[S] - E[noise]``, S on Satterthwaite's df
(:meth:`TemplateSpread.dof`; ``T - 1`` in a crossed layout) and the noise share on its own df
(``sigma2_R``'s residual df, or ``sigma2_W``'s for a sample's raw means), by the modified
large-sample interval for a difference of mean squares (:func:`difference_interval`); ``sigma2_R``'s
is chi-square; ``sigma2_TN``'s that of its two mean squares. A design's variance at each end is
``sigma2_T``'s end (unfloored) plus the design's ``cell_var``, at least ``cell_var`` at
``sigma2_R``'s same end (and ``sigma2_TN``'s high end at the high end; 0 at the low end, as for the
point): the noise share a sample's spread was measured against cancels exactly in the whole EEC's
prediction, and the floor carries the other components' uncertainty. The MDE rises with each, so the
ends give the interval of a design's MDE (:func:`mde_interval`) and of the design that reaches a
target.
"""  # noqa: E501

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError
from .blas import single_blas_thread
from .power import ALPHA, POWER, minimum_detectable_effect
from .results import Result

# The paper's effects (stats.betareg.EFFECTS) as weights over the cells (minority, female);
# ``p_f``/``p_m`` the shares of female / minority rows (the AMEs average over the rows' other
# factor).
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
    pool: float | None = (
        None  # M of the run: the names x words each template x cell drew from (None: unlimited)
    )
    name_template_var: float | None = None  # sigma2_TN (None: not measured, taken as 0)
    names: float | None = (
        None  # P of the run: the names per template x cell in its pool (None: unknown)
    )
    template_var_low: float | None = (
        None  # the ends of sigma2_T's interval at LEVEL (None: not measured; may be < 0)
    )
    template_var_high: float | None = None
    residual_var_low: float | None = (
        None  # the ends of sigma2_R's interval at LEVEL (None: not measured)
    )
    residual_var_high: float | None = None
    name_template_var_low: float | None = (
        None  # the ends of sigma2_TN's interval at LEVEL (None: not measured)
    )
    name_template_var_high: float | None = None
    # the sigma2_R and sigma2_TN of the floor sigma2_T >= 0 (:meth:`template_part`): set on an end
    # of the interval
    floor_residual_var: float | None = None
    floor_name_template_var: float | None = None

    def noise_var(self, per_cell: float, pool: float | None) -> float:
        """``sigma2_N(N, M)``: the within-cell variance that reaches a per-template cell mean of
        ``per_cell`` N sentences drawn from a pool of ``pool`` M (module docstring)."""
        if pool is None or self.residual_var is None:
            return self.within_var
        shared = max(0.0, self.within_var - self.residual_var)  # sigma2_G
        return shared * max(0.0, 1 - per_cell / pool) + self.residual_var

    def cell_var(self, design: Design) -> float:
        """``sum_c w_c^2 (sigma2_N / N + k sigma2_TN)``: the within-cell variance that reaches a
        per-template contrast of ``design`` (module docstring)."""
        noise = self.noise_var(design.per_cell, design.pool) / design.per_cell
        if self.name_template_var is not None and self.residual_var is not None:
            # the unbiased estimate may fall below 0; a variance's share of a mean cannot
            noise += name_share(design.per_cell, design.pool, design.names) * max(
                0.0, self.name_template_var
            )
        return self.weight_square_sum * noise

    def template_part(self, design: Design) -> float:
        """``sigma2_T + cell_var``: a per-template contrast's variance in ``design``, at least
        ``cell_var`` with the floor's ``sigma2_R`` and ``sigma2_TN`` (``sigma2_T >= 0``; at the ends
        of the interval ``sigma2_T`` is left unfloored so that the noise share it was measured
        against cancels, module docstring)."""
        floor = replace(
            self,
            residual_var=self.residual_var
            if self.floor_residual_var is None
            else self.floor_residual_var,
            name_template_var=(
                self.name_template_var
                if self.floor_name_template_var is None
                else self.floor_name_template_var
            ),
        )
        return max(self.template_var + self.cell_var(design), floor.cell_var(design))


@dataclass(frozen=True)
class Design:
    """Another design: ``templates`` T, ``per_cell`` sentences N per template x cell drawn from a
    ``pool`` of M names x words (the same in every template: ``pool == per_cell`` is the crossed
    layout; None: an unlimited pool) with ``names`` P names per cell (None: as many as sentences),
    and ``seeds`` m (module docstring)."""

    templates: int
    per_cell: float
    seeds: int = 1
    pool: float | None = None
    names: float | None = None


def name_share(per_cell: float, pool: float | None, names: float | None) -> float:
    """How much more of the template x name variance reaches a cell mean than its ``1/N`` share.

    ``k(N, M, P) = 1/P + (M - W)/(M - 1) (1/N - 1/M) - 1/N``, ``W = M / P``: how much more of
    ``sigma2_TN`` than ``sigma2_TN / N`` reaches a template x cell mean of ``N`` sentences drawn
    from ``M`` (``P`` names x ``W`` words; module docstring); 0 for an unlimited pool, unknown names
    or one sentence per name.

    Examples
    --------
    >>> from eval_harness.stats.design_power import name_share
    >>> name_share(per_cell=4, pool=None, names=None)
    0.0
    >>> round(name_share(per_cell=4, pool=20, names=5), 4)
    0.1184
    """
    if pool is None or names is None or pool <= names or pool <= 1:
        return 0.0
    words = pool / names
    return 1 / names + (pool - words) / (pool - 1) * (1 / per_cell - 1 / pool) - 1 / per_cell


def harmonic_mean(sizes) -> float:
    """The harmonic mean of ``sizes`` (exactly the size when they are all equal).

    Examples
    --------
    >>> from eval_harness.stats.design_power import harmonic_mean
    >>> harmonic_mean([4, 4, 4]), round(harmonic_mean([2, 4, 4]), 4)
    (4.0, 3.0)
    """
    sizes = np.asarray(sizes, dtype=float)
    return float(sizes[0]) if np.all(sizes == sizes[0]) else float(len(sizes) / np.sum(1.0 / sizes))


def design_variance(components: VarianceComponents, design: Design) -> tuple[float, float]:
    """The variance and df of ``design``'s estimate, ``(Var(theta_hat), df)`` (module docstring).

    Examples
    --------
    >>> from eval_harness.stats.design_power import Design, VarianceComponents, design_variance
    >>> components = VarianceComponents(
    ...     template_var=1e-4, within_var=4e-3, weight_square_sum=2.0, templates=10, per_cell=4)
    >>> variance, df = design_variance(components, Design(templates=10, per_cell=4))
    >>> round(variance, 6), df
    (0.00021, 9.0)
    """
    if design.templates < 2 or design.per_cell <= 0 or design.seeds < 1:
        raise InputError(
            f"a design needs >= 2 templates, > 0 sentences per cell and >= 1 seed, got {design}"
        )
    a = components.template_part(design) / design.templates
    b = components.seed_var / design.seeds
    if b == 0:
        return a, float(design.templates - 1)
    if (
        design.seeds == 1
    ):  # the seed term on m - 1 = 0 df: one seed's test cannot see the seed variance
        return a + b, 0.0
    return a + b, (a + b) ** 2 / (a**2 / (design.templates - 1) + b**2 / (design.seeds - 1))


def design_mde(
    components: VarianceComponents, design: Design, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The MDE of ``design``, ``delta*(df) sqrt(Var(theta_hat))`` (:mod:`.power`).

    0 for a zero variance; infinite on 0 df (one seed of a model whose seeds vary: no test of one
    seed holds its size for the mean over seeds).

    Examples
    --------
    >>> from eval_harness.stats.design_power import VarianceComponents, Design, design_mde
    >>> components = VarianceComponents(
    ...     template_var=1e-4, within_var=4e-3, weight_square_sum=2.0, templates=10, per_cell=4)
    >>> round(design_mde(components, Design(templates=10, per_cell=4)), 4)
    0.0456
    >>> round(design_mde(components, Design(templates=40, per_cell=4)), 4)
    0.0208
    """
    variance, df = design_variance(components, design)
    if df <= 0:
        return math.inf
    return minimum_detectable_effect(math.sqrt(variance), df, alpha, power) if variance > 0 else 0.0


def interval_ends(
    components: VarianceComponents,
) -> tuple[VarianceComponents, VarianceComponents] | None:
    """``components`` at the low and at the high end of the interval: ``sigma2_T`` at its end, and
    the floor ``sigma2_T >= 0`` at ``sigma2_R``'s end (and, at the high end, ``sigma2_TN``'s); None
    without one."""
    if components.template_var_low is None or components.template_var_high is None:
        return None
    # the low end's floor is the point estimate's (sigma2_TN = 0): it never rises above the point
    low = replace(
        components,
        template_var=components.template_var_low,
        floor_residual_var=components.residual_var_low,
        floor_name_template_var=0.0,
    )
    high = replace(
        components,
        template_var=components.template_var_high,
        floor_residual_var=components.residual_var_high,
        floor_name_template_var=components.name_template_var_high,
    )
    return low, high


def mde_interval(
    components: VarianceComponents, design: Design, alpha: float = ALPHA, power: float = POWER
) -> tuple[float, float] | None:
    """The interval of ``design``'s MDE at :data:`LEVEL`: the MDE at either end of ``sigma2_T``'s
    interval (it rises with ``sigma2_T``); None without one.

    Examples
    --------
    >>> from dataclasses import replace
    >>> from eval_harness.stats.design_power import VarianceComponents, current_design, mde_interval
    >>> components = VarianceComponents(
    ...     template_var=1e-4, within_var=4e-3, weight_square_sum=2.0, templates=10, per_cell=4)
    >>> mde_interval(components, current_design(components)) is None  # no interval measured
    True
    >>> measured = replace(components, template_var_low=0.0, template_var_high=3e-4)
    >>> [round(end, 4) for end in mde_interval(measured, current_design(measured))]
    [0.0445, 0.0478]
    """
    ends = interval_ends(components)
    if ends is None:
        return None
    low, high = (design_mde(end, design, alpha, power) for end in ends)
    return low, high


def current_design(components: VarianceComponents) -> Design:
    """The design the components were measured on.

    Examples
    --------
    >>> from eval_harness.stats.design_power import VarianceComponents, current_design
    >>> components = VarianceComponents(
    ...     template_var=1e-4, within_var=4e-3, weight_square_sum=2.0, templates=10, per_cell=4)
    >>> current_design(components)
    Design(templates=10, per_cell=4, seeds=1, pool=None, names=None)
    """
    return Design(
        components.templates,
        components.per_cell,
        components.seeds,
        components.pool,
        components.names,
    )


def smallest_design(
    components: VarianceComponents,
    target: float,
    vary: str,
    alpha: float = ALPHA,
    power: float = POWER,
) -> Design | None:
    """The smallest design that reaches an MDE of ``target``, changing only ``vary`` (``templates``,
    ``per_cell`` or ``seeds``) from the measured design; None when its search range (``MAX_*``) does
    not reach it. The MDE falls as each grows (the variance falls and the df grow), so a bisection
    finds it.

    Examples
    --------
    >>> from eval_harness.stats.design_power import VarianceComponents, smallest_design
    >>> components = VarianceComponents(
    ...     template_var=1e-4, within_var=4e-3, weight_square_sum=2.0, templates=10, per_cell=4)
    >>> smallest_design(components, target=0.03, vary="templates")
    Design(templates=21, per_cell=4, seeds=1, pool=None, names=None)
    >>> smallest_design(components, target=0.001, vary="per_cell") is None  # sigma2_T alone is more
    True
    """
    if not (isinstance(target, int | float) and math.isfinite(target) and target > 0):
        raise InputError(f"the target MDE must be a finite number > 0, got {target!r}")
    limits = {
        "templates": (2, MAX_TEMPLATES),
        "per_cell": (1, MAX_PER_CELL),
        "seeds": (1, MAX_SEEDS),
    }
    if vary not in limits:
        raise InputError(f"vary must be one of {', '.join(limits)}, got {vary!r}")
    low, high = limits[vary]
    start = current_design(components)
    # A crossed layout stays crossed: more sentences per cell are more names, with the same words,
    # in every template.
    crossed = start.pool is not None and start.pool == start.per_cell
    words = start.pool / start.names if crossed and start.pool and start.names else None

    def changed(count: int) -> Design:
        grown = (
            {"pool": count, "names": count / words if words else None}
            if crossed and vary == "per_cell"
            else {}
        )
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
    components: VarianceComponents,
    target: float,
    vary: str,
    alpha: float = ALPHA,
    power: float = POWER,
) -> tuple[Design | None, Design | None] | None:
    """The interval of the smallest design that reaches ``target`` (:func:`smallest_design`) at
    :data:`LEVEL`: the smallest designs at the low and at the high end of ``sigma2_T``'s interval
    (None where that end reaches no design in the search range); None without an interval.

    Examples
    --------
    >>> from dataclasses import replace
    >>> from eval_harness.stats.design_power import VarianceComponents, smallest_design_interval
    >>> components = VarianceComponents(
    ...     template_var=1e-4, within_var=4e-3, weight_square_sum=2.0, templates=10, per_cell=4)
    >>> measured = replace(components, template_var_low=0.0, template_var_high=3e-4)
    >>> low, high = smallest_design_interval(measured, target=0.03, vary="templates")
    >>> low.templates, high.templates
    (20, 23)
    """
    ends = interval_ends(components)
    if ends is None:
        return None
    low, high = (smallest_design(end, target, vary, alpha, power) for end in ends)
    return low, high


@dataclass(frozen=True)
class AdditiveFit:
    """The least-squares fit ``y = m_{t c} + p_n + k_w + (tk)_{t w} + e`` over a unit's rows
    (template x cell means, names, emotion words, and each template's own word effects, shared by
    its cells): ``means`` the ``m_{t c}`` (templates x cells, identified up to a constant per cell),
    ``gram_inverse`` their block of ``pinv(X'X)``
    (``Var(m) = sigma2_R`` times it, for estimable contrasts), and ``residual_var`` ``sigma2_R``,
    the residual sum of squares over ``n - rank``."""

    means: np.ndarray
    gram_inverse: np.ndarray
    residual_var: float
    residual_dof: int = 0  # n - rank: sigma2_R's chi-square df
    name_template: NameTemplateVar | None = None  # sigma2_TN (None: no name recurs in a template)

    @property
    def name_template_var(self) -> float | None:
        """``sigma2_TN``'s unbiased estimate (None: not measured)."""
        return None if self.name_template is None else self.name_template.estimate

    def residual_interval(self, level: float = LEVEL) -> tuple[float, float]:
        """``sigma2_R``'s interval at ``level``: ``dof sigma2_R / chi2_q(dof)``, ``q = (1 +- level)
        / 2``."""
        return difference_interval(self.residual_var, self.residual_dof, 0.0, math.inf, level)


def indicators(labels) -> np.ndarray:
    """One 0/1 column per distinct label.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.design_power import indicators
    >>> indicators(np.array(["a", "b", "a", "c"])).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    return (labels[:, None] == np.unique(labels)[None, :]).astype(float)


@dataclass(frozen=True)
class LeastSquares:
    """Least squares on ``x`` by the normal equations: ``gram_inverse`` ``pinv(X'X)`` and the rank
    of ``X``, which depend on the layout alone, so that many score vectors share them
    (:meth:`residual_squares`)."""

    x: np.ndarray
    gram_inverse: np.ndarray
    rank: int

    def coefficients(self, ys) -> np.ndarray:
        """The coefficients of each row of ``ys`` (scores x rows), one row each."""
        with single_blas_thread():  # the same bits on any thread count, and no threads contending
            return (self.gram_inverse @ (self.x.T @ ys.T)).T

    def residual_squares(self, ys) -> np.ndarray:
        """The residual sum of squares of each row of ``ys``."""
        with single_blas_thread():
            residual = ys - self.coefficients(ys) @ self.x.T
        return np.einsum("ij,ij->i", residual, residual)


def least_squares(x) -> LeastSquares:
    """:class:`LeastSquares` on ``x`` (the indicator columns keep ``X'X`` small)."""
    with (
        single_blas_thread()
    ):  # the same bits on any thread count, and no threads contending for a small matrix
        values, vectors = np.linalg.eigh(x.T @ x)
        kept = (
            values > values.max() * len(values) * np.finfo(float).eps
        )  # numpy's matrix_rank tolerance
        gram_inverse = (vectors[:, kept] / values[kept]) @ vectors[:, kept].T  # the pseudo-inverse
    return LeastSquares(x, gram_inverse, int(kept.sum()))


def within_template(templates, labels) -> np.ndarray:
    """Each row's ``template|label``: a label's own level in each template.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.design_power import within_template
    >>> within_template(np.array([1, 1, 2]), np.array(["Ann", "Bob", "Ann"])).tolist()
    ['1|Ann', '1|Bob', '2|Ann']
    """
    return np.char.add(templates.astype(str), np.char.add("|", labels.astype(str)))


@dataclass(frozen=True)
class NameTemplateVar:
    """``sigma2_TN`` by Henderson's method III (:func:`name_template_var`): ``estimate = c (MS_Z -
    sigma2_E)``, the template x name terms' mean square ``MS_Z`` on ``z_dof`` df less the residual
    variance ``sigma2_E`` of the fit with them, on ``error_dof``, times ``c = z_dof / tr(Z' (I -
    H_X) Z)``."""

    mean_square: float  # c MS_Z
    z_dof: int
    error_square: float  # c sigma2_E
    error_dof: int

    @property
    def estimate(self) -> float:
        """The unbiased estimate, not truncated: below 0 about as often as the noise takes it there
        (a truncated mean is biased up, several times the truth where few names recur in a template;
        docs/conventions.md)."""
        return self.mean_square - self.error_square

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        """The interval at ``level`` (:func:`difference_interval`)."""
        return difference_interval(
            self.mean_square, self.z_dof, self.error_square, self.error_dof, level
        )


def name_template_vars(ys, fit: LeastSquares, templates, names) -> list[NameTemplateVar] | None:
    """``sigma2_TN`` of each row of ``ys`` by Henderson's method III: with ``Z`` the template x name
    indicators and ``sigma2_E`` the residual variance of the fit on ``[X Z]``, ``E[RSS_X - RSS_XZ] =
    (rank XZ - rank X) sigma2_E + sigma2_TN tr(Z' (I - H_X) Z)`` solved for ``sigma2_TN``; None
    without a residual degree of freedom or a template x name term beyond ``X`` (no name recurs
    within a template)."""
    z = indicators(within_template(templates, names))
    larger = least_squares(np.hstack([fit.x, z]))
    rows = len(fit.x)
    if larger.rank == fit.rank or larger.rank >= rows:
        return None
    error_dof, z_dof = rows - larger.rank, larger.rank - fit.rank
    cross = fit.x.T @ z
    spread = float(
        np.sum(z * z) - np.sum(cross * (fit.gram_inverse @ cross))
    )  # tr(Z'Z) - tr(Z'X G X'Z)
    scale = z_dof / spread
    smaller_squares, larger_squares = fit.residual_squares(ys), larger.residual_squares(ys)
    return [
        NameTemplateVar(
            scale * float(small - large) / z_dof, z_dof, scale * float(large) / error_dof, error_dof
        )
        for small, large in zip(smaller_squares, larger_squares, strict=True)
    ]


def additive_fits(ys, templates, cells, names, words, order) -> list[AdditiveFit] | None:
    """:class:`AdditiveFit` of each row of ``ys`` (score vectors on one layout: the layout's algebra
    is done once), rows with ``cells`` 0-3 (``minority * 2 + female``) and ``templates`` among
    ``order``, with ``sigma2_TN`` (:func:`name_template_vars`); None without residual degrees of
    freedom."""
    ys = np.atleast_2d(np.asarray(ys, dtype=float))
    means = (templates[:, None] == np.asarray(order)[None, :])[:, :, None] & (
        cells[:, None, None] == np.arange(4)
    )
    size = means.shape[1] * 4
    rows = ys.shape[1]
    x = np.hstack(
        [
            means.reshape(rows, size).astype(float),
            indicators(names),
            indicators(within_template(templates, words)),
        ]
    )
    fit = least_squares(x)
    dof = rows - fit.rank
    if dof <= 0:
        return None
    coefficients, squares = fit.coefficients(ys), fit.residual_squares(ys)
    name_vars: list[NameTemplateVar | None] = [None] * len(ys)
    name_vars = list(name_template_vars(ys, fit, templates, names) or name_vars)
    return [
        AdditiveFit(
            coefficients[i, :size].reshape(-1, 4),
            fit.gram_inverse[:size, :size],
            float(squares[i]) / dof,
            dof,
            name,
        )
        for i, name in enumerate(name_vars)
    ]


def additive_fit(y, templates, cells, names, words, order) -> AdditiveFit | None:
    """:func:`additive_fits` of one score vector ``y``."""
    fits = additive_fits(y, templates, cells, names, words, order)
    return None if fits is None else fits[0]


def difference_interval(
    first: float, first_dof: float, second: float, second_dof: float, level: float = LEVEL
) -> tuple[float, float]:
    """The two-sided interval at ``level`` of ``E[first] - E[second]`` for independent mean squares,
    each its expectation times ``chi2(dof) / dof``: the modified large-sample interval of Ting,
    Burdick, Graybill, Jeyaratnam and Lu (1990; Burdick and Graybill 1992, section 3.3), exact at
    either end when the other mean square is known (an infinite df, or 0) and close to its level
    otherwise, where a difference of chi-squares has no exact interval.

    Examples
    --------
    >>> from eval_harness.stats.design_power import difference_interval
    >>> low, high = difference_interval(2.0, 20, 1.0, 100)
    >>> round(low, 3), round(high, 3)
    (0.367, 2.219)
    """
    from scipy import stats  # scipy on use: `xbias list` and config checks load none

    tail = (1 - level) / 2
    estimate = first - second

    def shrink(
        dof: float,
    ) -> tuple[float, float]:  # G = 1 - dof / chi2_{1-a}(dof), H = dof / chi2_a(dof) - 1
        if math.isinf(dof):
            return 0.0, 0.0
        return 1 - dof / stats.chi2.ppf(1 - tail, dof), dof / stats.chi2.ppf(tail, dof) - 1

    (g1, h1), (g2, h2) = shrink(first_dof), shrink(second_dof)
    cross_low = cross_high = 0.0
    if first > 0 and second > 0 and not (math.isinf(first_dof) or math.isinf(second_dof)):
        upper, lower = (
            stats.f.ppf(1 - tail, first_dof, second_dof),
            stats.f.ppf(tail, first_dof, second_dof),
        )
        cross_low = ((upper - 1) ** 2 - g1**2 * upper**2 - h2**2) / upper
        cross_high = ((1 - lower) ** 2 - h1**2 * lower**2 - g2**2) / lower
    low = estimate - math.sqrt(
        max(0.0, (g1 * first) ** 2 + (h2 * second) ** 2 + cross_low * first * second)
    )
    high = estimate + math.sqrt(
        max(0.0, (h1 * first) ** 2 + (g2 * second) ** 2 + cross_high * first * second)
    )
    return float(low), float(high)


@dataclass(frozen=True)
class TemplateSpread:
    """``sigma2_T``'s method of moments: the ``spread`` S (ddof 1) over T templates of the
    per-template contrasts ``theta_t``, and the ``noise_covariance`` (T x T) of the centred ``C
    theta`` that the within-cell variance gives, whose trace over ``T - 1`` is its ``noise`` share
    of S, itself an estimate on ``noise_dof`` df (infinite: known); ``median``: the point estimate
    is median-unbiased (a sample's, module docstring)."""

    spread: float
    noise_covariance: np.ndarray
    noise_dof: float = math.inf
    median: bool = False

    @property
    def noise(self) -> float:
        """The within-cell noise's expected share of S: ``tr(noise_covariance) / (T - 1)``."""
        return float(np.trace(self.noise_covariance)) / (len(self.noise_covariance) - 1)

    def excess(self) -> float:
        """``max(0, S - noise)``: the mean-unbiased ``sigma2_T`` before its truncation at 0."""
        return max(0.0, self.spread - self.noise)

    def estimate(self) -> float:
        """``sigma2_T``: ``S - noise``, or with :attr:`median` ``nu S / chi2_0.5(nu) - noise``, the
        middle of :meth:`interval` when the noise share is known; not truncated at 0 (``sigma2_T >=
        0`` is imposed on a design's variance instead, :meth:`VarianceComponents.template_part`)."""
        if not self.median:
            return self.spread - self.noise
        from scipy import stats  # scipy on use: `xbias list` and config checks load none

        dof = self.dof()
        return float(dof * self.spread / stats.chi2.ppf(0.5, dof)) - self.noise

    def dof(self) -> float:
        """S's chi-square df, Satterthwaite's ``tr(A)^2 / tr(A^2)``, ``A = sigma2_T C +
        noise_covariance`` the covariance of ``C theta`` at the estimate (``(T - 1) S = theta' C
        theta``): ``T - 1`` when the noise is the same in every template and uncorrelated between
        them (a crossed layout), fewer when a sample's fitted means carry unequal, correlated
        noise."""
        size = len(self.noise_covariance)
        covariance = self.excess() * centring(size) + self.noise_covariance
        trace = float(np.trace(covariance))
        return trace**2 / float(np.sum(covariance * covariance.T)) if trace > 0 else float(size - 1)

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        """``sigma2_T``'s two-sided interval at ``level``: ``E[S] - E[noise]`` by
        :func:`difference_interval`, S on :meth:`dof` and the noise share on :attr:`noise_dof`
        (``E[S] = sigma2_T + noise``, ``nu S / E[S] ~ chi2(nu)``); not floored at 0, so that a
        design's variance at an end keeps the noise share it was measured against
        (:meth:`VarianceComponents.template_part`)."""
        return difference_interval(self.spread, self.dof(), self.noise, self.noise_dof, level)


# The one-sided level at which a template spread below its noise share refutes that share
# (:func:`noise_scale`).
REFUTING_ALPHA = 0.05


def noise_scale(spread: TemplateSpread, alpha: float = REFUTING_ALPHA) -> float:
    """1, or ``S / noise`` where the spread S is below what the within-template noise alone gives at
    level ``alpha`` (``nu S / noise`` below ``chi2_alpha(nu)``, ``nu`` Satterthwaite's at ``sigma2_T
    = 0``): the residual that the additive fit leaves is then not all template-to-template noise. In
    a crossed layout a name x word interaction is the same in every template, so it stays out of S
    but inflates ``sigma2_R``; scaling ``sigma2_R`` and ``sigma2_TN`` by this factor keeps only the
    part S allows, and the planner's MDE of the measured design equals the test's (module
    docstring)."""
    from scipy import stats  # scipy on use: `xbias list` and config checks load none

    if spread.noise <= 0 or spread.spread >= spread.noise:
        return 1.0
    dof = spread.dof()
    if stats.chi2.cdf(dof * spread.spread / spread.noise, dof) >= alpha:
        return 1.0
    return spread.spread / spread.noise


def centring(templates: int) -> np.ndarray:
    """The centring matrix over ``templates`` T, ``C = I - 1/T``.

    Examples
    --------
    >>> from eval_harness.stats.design_power import centring
    >>> centring(3).round(4).tolist()
    [[0.6667, -0.3333, -0.3333], [-0.3333, 0.6667, -0.3333], [-0.3333, -0.3333, 0.6667]]
    """
    return np.eye(templates) - 1.0 / templates


def adjusted_template_var(fit: AdditiveFit, weights) -> TemplateSpread:
    """``sigma2_T``'s spread and noise from the additive fit: the spread (ddof 1) over templates of
    ``theta_t = sum_c w_c m_{t c}``, the template x cell means freed of the names' and words'
    effects, and its noise covariance ``sigma2_R C L G L' C`` (``L`` the contrast's weights over the
    means, ``G`` their ``gram_inverse``, ``C`` the centring over templates; its share of S
    ``sigma2_R tr(C L G L' C) / (T - 1)``): the method of moments with names and words as crossed
    factors."""
    templates = fit.means.shape[0]
    cell_weights = np.zeros(4)
    for (minority, female), weight in weights.items():
        cell_weights[minority * 2 + female] = weight
    contrasts = fit.means @ cell_weights
    rows = np.kron(np.eye(templates), cell_weights)  # L: theta_t from the means, template-major
    centred = centring(templates) @ rows
    noise = fit.residual_var * (centred @ fit.gram_inverse @ centred.T)
    return TemplateSpread(float(np.var(contrasts, ddof=1)), noise, noise_dof=fit.residual_dof)


def pool_spread(contrasts, components: VarianceComponents, within_dof: int) -> TemplateSpread:
    """A sample's ``sigma2_T`` from its raw per-template ``contrasts`` of cell means (module
    docstring): a mean of ``N`` of a template x cell's ``M`` sentences drawn without replacement
    varies about the mean of all ``M`` by ``(1 - N/M) s2 / N``, ``s2`` the ``M`` sentences'
    variance, which the pooled within-cell variance ``sigma2_W`` (on ``within_dof`` df) estimates
    without bias whatever the names, words and their interactions are; the whole pool's mean varies
    between templates by ``sigma2_T + sigma2_R / M + (1/P - 1/M) sigma2_TN``. The noise share is
    both, the first on ``within_dof`` df; the point estimate median-unbiased (``median``)."""
    pool = components.pool
    assert pool is not None  # a sample from a known pool
    whole = Design(components.templates, pool, pool=pool, names=components.names)
    drawn = components.weight_square_sum * (1 - components.per_cell / pool) * components.within_var
    noise = drawn / components.per_cell + components.cell_var(whole)
    return TemplateSpread(
        float(np.var(contrasts, ddof=1)),
        noise * centring(len(contrasts)),
        noise_dof=within_dof,
        median=True,
    )


def is_crossed(templates, cells, names, words) -> bool:
    """Whether the layout is crossed (module docstring): each identity cell holds the same names in
    every template (so the names' effects are the same in every template), and each template the
    same emotion words in every cell (so the words' effects, and a template's own word effects,
    cancel in a contrast of its cells). The shipped EECs
    are: their later templates use other words than the first, but every cell of a template the same
    ones.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.design_power import is_crossed
    >>> templates, cells = np.array([1, 1, 2, 2]), np.array([0, 1, 0, 1])
    >>> words = np.array(["glad", "glad", "sad", "sad"])
    >>> is_crossed(templates, cells, np.array(["Ann", "Bob", "Ann", "Bob"]), words)
    True
    >>> is_crossed(templates, cells, np.array(["Ann", "Bob", "Cy", "Bob"]), words)
    False
    """
    for cell in np.unique(cells):
        # the names as a set: a template with fewer emotion words holds each name fewer times
        lists = [
            np.unique(names[(cells == cell) & (templates == t)]).tolist()
            for t in np.unique(templates[cells == cell])
        ]
        if any(other != lists[0] for other in lists[1:]):
            return False
    for template in np.unique(templates):
        lists = [
            sorted(words[(templates == template) & (cells == c)])
            for c in np.unique(cells[templates == template])
        ]
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
    """The components of ``effect`` (one of :data:`EFFECT_WEIGHTS`) from one unit's scores ``y``,
    their ``templates`` and 0/1 ``minority`` and ``female`` codes (module docstring). Templates that
    lack a cell are left out; ``seed_var``/``seeds``: the between-seed variance and seed count, when
    the run has several seeds; ``names``/``words``: each sentence's name and emotion word, for
    ``sigma2_R`` and the layout (crossed when every template of a cell holds the same ones);
    ``pool``: for a layout that is not crossed, how many names x words each template x cell drew
    from (None: an unlimited pool), and ``pool_names`` how many names per cell that pool holds (a
    crossed layout's own are counted); ``fits``: the additive fits already made on the same rows, by
    the templates they cover, to reuse and add to (the fit does not depend on the effect: a unit's
    effects share it).

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.design_power import variance_components
    >>> rng = np.random.default_rng(0)
    >>> templates = np.repeat(np.arange(8), 8)
    >>> minority = np.tile([0, 0, 1, 1], 16)
    >>> female = np.tile([0, 1], 32)
    >>> template_shift = 0.01 * rng.standard_normal(8)[templates]
    >>> y = 0.5 + 0.02 * minority + template_shift + 0.03 * rng.standard_normal(64)
    >>> c = variance_components(y, templates, minority, female, "group_ame")
    >>> c.templates, c.per_cell, round(c.within_var, 5), round(c.template_var, 5)
    (8, 2.0, 0.0007, 0.00051)
    """
    y, templates = np.asarray(y, dtype=float), np.asarray(templates)
    minority, female = np.asarray(minority, dtype=int), np.asarray(female, dtype=int)
    if not (len(y) == len(templates) == len(minority) == len(female)) or not np.all(np.isfinite(y)):
        raise InputError("scores, templates, minority and female must be finite and of one length")
    if (names is None) != (words is None) or (
        names is not None and not len(names) == len(words) == len(y)
    ):
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
        raise InputError(
            "the planner needs >= 2 templates with every cell, and a cell with >= 2 sentences"
        )
    within = squares / dof
    per_cell = harmonic_mean(sizes)
    weight_squares = float(sum(weight**2 for weight in weights.values()))
    residual, template_spread, name_fit = None, None, None
    residual_ends: tuple[float | None, float | None] = (None, None)
    name_ends: tuple[float | None, float | None] = (None, None)
    crossed = False
    if names is not None:
        kept = np.isin(templates, used)
        cells, names, words = (
            (minority * 2 + female)[kept],
            np.asarray(names)[kept],
            np.asarray(words)[kept],
        )
        fits = {} if fits is None else fits
        if tuple(used) not in fits:
            fits[tuple(used)] = additive_fit(y[kept], templates[kept], cells, names, words, used)
        fit = fits[tuple(used)]
        if fit is not None:
            residual, name_fit, residual_ends = (
                fit.residual_var,
                fit.name_template,
                fit.residual_interval(),
            )
            name_ends = (None, None) if name_fit is None else name_fit.interval()
            crossed = is_crossed(templates[kept], cells, names, words)
            if crossed:
                pool = per_cell
                pool_names = harmonic_mean(
                    [len(set(names[cells == cell])) for cell in np.unique(cells)]
                )
            # the template x name part of the spread, beyond its sigma2_TN / N in sigma2_R / N
            # (module docstring)
            name_var = 0.0 if name_fit is None else max(0.0, name_fit.estimate)
            names_share = weight_squares * name_share(per_cell, pool, pool_names) * name_var
            fitted = adjusted_template_var(fit, weights)
            template_spread = replace(
                fitted, noise_covariance=fitted.noise_covariance + names_share * centring(len(used))
            )
            scale = noise_scale(template_spread)
            if (
                scale < 1
            ):  # the spread refutes the noise share: only this much of it varies between templates
                template_spread = replace(
                    template_spread, noise_covariance=template_spread.noise_covariance * scale
                )
                residual = residual * scale
                name_fit = (
                    None
                    if name_fit is None
                    else replace(
                        name_fit,
                        mean_square=name_fit.mean_square * scale,
                        error_square=name_fit.error_square * scale,
                    )
                )
                residual_ends, name_ends = scaled(residual_ends, scale), scaled(name_ends, scale)
    if (
        template_spread is None
    ):  # no names and words: the raw spread less the within-cell noise's share of it
        noise = weight_squares * within / per_cell
        template_spread = TemplateSpread(
            float(np.var(contrasts, ddof=1)), noise * centring(len(contrasts)), dof
        )
    measured = VarianceComponents(
        template_var=0.0,
        within_var=within,
        weight_square_sum=weight_squares,
        templates=len(contrasts),
        per_cell=per_cell,
        seed_var=float(seed_var),
        seeds=int(seeds),
        residual_var=residual,
        pool=float(pool) if residual is not None and pool is not None else None,
        name_template_var=None if name_fit is None else name_fit.estimate,
        names=float(pool_names)
        if residual is not None and pool is not None and pool_names is not None
        else None,
        residual_var_low=residual_ends[0],
        residual_var_high=residual_ends[1],
        name_template_var_low=name_ends[0],
        name_template_var_high=name_ends[1],
        # sigma2_T >= 0 at sigma2_R's low end without sigma2_TN: a floor that rarely lifts a point
        # estimate above the truth (at their estimates, or at a noisy sigma2_TN's low end, it lifts
        # the median; module docstring)
        floor_residual_var=residual_ends[0],
        floor_name_template_var=0.0,
    )
    if residual is not None and not crossed and measured.pool is not None:
        # a sample of a known pool: the raw means' spread where its noise share is the smaller
        # (pool_spread)
        raw = pool_spread(contrasts, measured, dof)
        if raw.noise < template_spread.noise:
            template_spread = raw
    template_var_low, template_var_high = template_spread.interval()
    return replace(
        measured,
        template_var=template_spread.estimate(),
        template_var_low=template_var_low,
        template_var_high=template_var_high,
    )


def scaled(
    ends: tuple[float | None, float | None], scale: float
) -> tuple[float | None, float | None]:
    """An interval's ends times ``scale`` (None stays None).

    Examples
    --------
    >>> from eval_harness.stats.design_power import scaled
    >>> scaled((0.5, None), 2.0)
    (1.0, None)
    """
    return tuple(None if end is None else end * scale for end in ends)  # type: ignore[return-value]
