"""The power planner: from one run's scores, the minimum detectable effect of another EEC design.

An effect of the 2 x 2 design is a contrast of the four group x gender cells' mean intensities,
``theta = sum_c w_c mu_c`` (:data:`EFFECT_WEIGHTS`; the Beta regression's effects on the intensity scale are these
contrasts of its fitted means). The model behind the planner (docs/conventions.md, "The power planner"):

    y_{t c i} = mu_c + a_{t c} + e_{t c i}                      score of sentence i of template t, cell c
    Var(sum_c w_c a_{t c}) = sigma2_T                           templates: the effect's template-to-template spread
    Var(e_{t c i}) = sigma2_W                                   within cells: names and emotion words
    theta_s = theta + b_s,  Var(b_s) = sigma2_B                 seeds: each trained regressor's own shift

Templates are exchangeable draws, sentences are drawn at random within a template x cell, and a seed's shift is
the same on every sentence set. The template-clustered estimate is the mean over templates of the per-template
contrast ``theta_t = sum_c w_c ybar_{t c}``, so with ``T`` templates, ``N`` sentences per template x cell and
``m`` seeds scored on the same sentences (the estimand: the mean over seeds)

    Var(theta_hat) = a + b,   a = (sigma2_T + sum_c w_c^2 sigma2_W / N) / T,   b = sigma2_B / m,
    df = (a + b)^2 / (a^2 / (T - 1) + b^2 / (m - 1))          (Satterthwaite; T - 1 when m = 1 or b = 0)

and the MDE is :func:`~eval_harness.stats.power.minimum_detectable_effect` of ``sqrt(a + b)`` on ``df``.

Estimates from one unit (one seed): ``sigma2_W`` the pooled within-cell variance (ddof 1 per template x cell);
``sigma2_T = max(0, var_t(theta_t) - sum_c w_c^2 sigma2_W / N)`` (ddof 1; the per-template contrasts' spread
less what the cells' sampling noise adds to it); ``sigma2_B`` the variance of the seeds' estimates (ddof 1),
known only when the run trained two or more seeds. More sentences shrink only the ``sigma2_W / N`` part: the
floor ``sigma2_T / T + sigma2_B / m`` is what more names alone can never lower.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
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


@dataclass(frozen=True)
class Design:
    """Another design: ``templates`` T, ``per_cell`` sentences N per template x cell, ``seeds`` m."""

    templates: int
    per_cell: float
    seeds: int = 1


def design_variance(components: VarianceComponents, design: Design) -> tuple[float, float]:
    """``(Var(theta_hat), df)`` of ``design`` (module docstring)."""
    if design.templates < 2 or design.per_cell <= 0 or design.seeds < 1:
        raise InputError(f"a design needs >= 2 templates, > 0 sentences per cell and >= 1 seed, got {design}")
    cells = components.template_var + components.weight_square_sum * components.within_var / design.per_cell
    a = cells / design.templates
    b = components.seed_var / design.seeds if design.seeds > 1 else 0.0
    if b == 0:
        return a, float(design.templates - 1)
    return a + b, (a + b) ** 2 / (a**2 / (design.templates - 1) + b**2 / (design.seeds - 1))


def design_mde(components: VarianceComponents, design: Design, alpha: float = ALPHA, power: float = POWER) -> float:
    """The MDE of ``design``: ``delta*(df) sqrt(Var(theta_hat))`` (:mod:`.power`); 0 for a zero variance."""
    variance, df = design_variance(components, design)
    return minimum_detectable_effect(math.sqrt(variance), df, alpha, power) if variance > 0 else 0.0


def current_design(components: VarianceComponents) -> Design:
    """The design the components were measured on."""
    return Design(components.templates, components.per_cell, components.seeds)


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

    def reaches(count: int) -> bool:
        design = Design(**{**start.__dict__, vary: count})
        return design_mde(components, design, alpha, power) <= target

    if not reaches(high):
        return None
    while low < high:  # the smallest count in [low, high] that reaches the target
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle + 1, high)
    return Design(**{**start.__dict__, vary: low})


def variance_components(
    y, templates, minority, female, effect: str, seed_var: float = 0.0, seeds: int = 1
) -> VarianceComponents:
    """The components of ``effect`` (one of :data:`EFFECT_WEIGHTS`) from one unit's scores ``y``, their
    ``templates`` and 0/1 ``minority`` and ``female`` codes (module docstring). Templates that lack a cell are
    left out; ``seed_var``/``seeds``: the between-seed variance and seed count, when the run has several seeds."""
    y, templates = np.asarray(y, dtype=float), np.asarray(templates)
    minority, female = np.asarray(minority, dtype=int), np.asarray(female, dtype=int)
    if not (len(y) == len(templates) == len(minority) == len(female)) or not np.all(np.isfinite(y)):
        raise InputError("scores, templates, minority and female must be finite and of one length")
    if effect not in EFFECT_WEIGHTS:
        raise InputError(f"unknown effect {effect!r}; effects: {', '.join(EFFECT_WEIGHTS)}")
    weights = EFFECT_WEIGHTS[effect](float(female.mean()), float(minority.mean()))
    contrasts, sizes, squares, dof = [], [], 0.0, 0
    for template in np.unique(templates):
        rows = templates == template
        cells = {cell: y[rows & (minority == cell[0]) & (female == cell[1])] for cell in weights}
        if any(len(values) == 0 for values in cells.values()):
            continue
        contrasts.append(sum(weight * cells[cell].mean() for cell, weight in weights.items()))
        for values in cells.values():
            sizes.append(len(values))
            squares += float(((values - values.mean()) ** 2).sum())
            dof += len(values) - 1
    if len(contrasts) < 2 or dof == 0:
        raise InputError("the planner needs >= 2 templates with every cell, and a cell with >= 2 sentences")
    within = squares / dof
    per_cell = len(sizes) / float(np.sum(1.0 / np.asarray(sizes)))
    weight_squares = float(sum(weight**2 for weight in weights.values()))
    spread = float(np.var(contrasts, ddof=1))
    return VarianceComponents(
        template_var=max(0.0, spread - weight_squares * within / per_cell),
        within_var=within,
        weight_square_sum=weight_squares,
        templates=len(contrasts),
        per_cell=per_cell,
        seed_var=float(seed_var),
        seeds=int(seeds),
    )
