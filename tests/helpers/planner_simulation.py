"""Simulated EECs with known variance components, for the power planner's coverage (tests/stats and
bench/planner_coverage.py).

The layout is the shipped EECs' (``generate_eec``): ``templates`` templates x 4 identity cells
(minority, female), each cell its own ``names`` names, every name with the same ``words`` emotion
words in every template and cell (crossed). A score is

    y = mu_c + a_{t c} + p_n + k_w + u_{t n} + r,

``a_{t c}`` ~ N(0, template_var / 2) (so a two-cell contrast's template spread is ``template_var``),
``p_n`` ~ N(0, name_var), ``k_w`` ~ N(0, word_var), ``u_{t n}`` ~ N(0, name_template_var) (a name's
own reading in a template), ``r`` ~ N(0, error_var). A ``sample: N`` run draws N of a template x
cell's ``names x words`` sentences without replacement, as the suite's stratified sample does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eval_harness.stats.design_power import Design, VarianceComponents

MEANS = np.array(
    [0.40, 0.45, 0.40, 0.46]
)  # the cells minority * 2 + female: (0, 0), (0, 1), (1, 0), (1, 1)
EFFECT = "group_within_reference_gender"  # cell (1, 0) less cell (0, 0): sum w^2 = 2


@dataclass(frozen=True)
class Truth:
    """The simulated components and layout (module docstring)."""

    template_var: float
    name_template_var: float
    error_var: float
    name_var: float
    word_var: float
    names: int = 10
    words: int = 5
    templates: int = 7

    @property
    def pool(self) -> int:
        """M: the sentences of a template x cell."""
        return self.names * self.words

    def whole_design(self) -> Design:
        """The whole crossed EEC."""
        return Design(self.templates, self.pool, pool=self.pool, names=self.names)

    def components(self) -> VarianceComponents:
        """The true components, as the planner takes them."""
        residual = self.name_template_var + self.error_var
        return VarianceComponents(
            self.template_var,
            self.name_var + self.word_var + residual,
            2.0,
            templates=self.templates,
            per_cell=self.pool,
            residual_var=residual,
            pool=self.pool,
            name_template_var=self.name_template_var,
            names=self.names,
        )


@dataclass(frozen=True)
class Layout:
    """The whole EEC's rows: template, cell (minority * 2 + female), name and word of each."""

    template: np.ndarray
    cell: np.ndarray
    name: np.ndarray
    word: np.ndarray

    @property
    def minority(self) -> np.ndarray:
        return self.cell // 2

    @property
    def female(self) -> np.ndarray:
        return self.cell % 2


def layout(truth: Truth) -> Layout:
    """The whole EEC's rows in template x cell x name x word order."""
    t, c, n, w = np.meshgrid(
        np.arange(truth.templates),
        np.arange(4),
        np.arange(truth.names),
        np.arange(truth.words),
        indexing="ij",
    )
    t, c, n, w = (a.ravel() for a in (t, c, n, w))
    return Layout(t, c, c * truth.names + n, w)


def whole_scores(rng, truth: Truth, rows: Layout, replicates: int) -> np.ndarray:
    """``replicates`` x rows scores of the whole EEC (module docstring)."""
    shape = (replicates,)
    return (
        MEANS[rows.cell]
        + rng.normal(0, np.sqrt(truth.template_var / 2), shape + (truth.templates, 4))[
            :, rows.template, rows.cell
        ]
        + rng.normal(0, np.sqrt(truth.name_var), shape + (4 * truth.names,))[:, rows.name]
        + rng.normal(0, np.sqrt(truth.word_var), shape + (truth.words,))[:, rows.word]
        + rng.normal(
            0, np.sqrt(truth.name_template_var), shape + (truth.templates, 4 * truth.names)
        )[:, rows.template, rows.name]
        + rng.normal(0, np.sqrt(truth.error_var), shape + (len(rows.template),))
    )


def sample_rows(rng, truth: Truth, replicates: int, per_cell: int) -> np.ndarray:
    """``replicates`` x (templates x 4 x ``per_cell``) row positions of the whole EEC: each template
    x cell's ``per_cell`` of its ``pool`` sentences, drawn without replacement, in row order."""
    blocks = truth.templates * 4
    drawn = np.argsort(rng.random((replicates, blocks, truth.pool)), axis=2)[:, :, :per_cell]
    return np.sort(drawn, axis=2).reshape(replicates, -1) + np.repeat(
        np.arange(blocks) * truth.pool, per_cell
    )


@dataclass(frozen=True)
class Predictions:
    """Per replicate: whether the planner's interval at LEVEL for the whole EEC's MDE holds the true
    one, its point prediction over the true MDE, and the run's sigma2_TN (NaN: not measured) and
    sigma2_T estimates."""

    covered: np.ndarray
    ratio: np.ndarray
    name_template_var: np.ndarray
    template_var: np.ndarray


def predictions(
    truth: Truth, replicates: int, per_cell: int | None, seed: int = 0, share: int = 20
) -> Predictions:
    """The planner's predictions of the whole EEC's MDE from ``replicates`` simulated runs of
    ``truth``: whole EECs (``per_cell`` None) or ``sample: per_cell`` runs of them (the pool of
    names x words known, as the suite gives it). Runs on one layout have their additive fits made
    together: a whole EEC's is the same in every replicate, and each sample draw is shared by
    ``share`` replicates (each its own scores), which leaves the expected coverage as it is and
    makes the simulation about ``share`` times faster."""
    from threadpoolctl import threadpool_limits

    from eval_harness.stats import design_power

    rng = np.random.default_rng(seed)
    rows = layout(truth)
    scores = whole_scores(rng, truth, rows, replicates)
    design, order = truth.whole_design(), list(range(truth.templates))
    true_mde = design_power.design_mde(truth.components(), design)
    every = np.arange(len(rows.template))
    draws = sample_rows(rng, truth, replicates // share, per_cell) if per_cell else every[None, :]
    size = replicates // len(draws)
    assert size * len(draws) == replicates, "a sample's replicates must be a multiple of share"
    batch = getattr(
        design_power, "additive_fits", None
    )  # absent before the planner's fits came in batches
    options = {"pool": truth.pool, "pool_names": truth.names} if per_cell else {}
    found = []
    with threadpool_limits(1):  # small matrices: BLAS threads only contend for the cores
        for index, kept in enumerate(draws):
            block = scores[index * size : (index + 1) * size][:, kept]
            columns = [rows.template[kept], rows.cell[kept], rows.name[kept], rows.word[kept]]
            fits = batch(block, *columns, order) if batch else [None] * len(block)
            for y, fit in zip(block, fits, strict=True):
                shared = {"fits": {tuple(order): fit}} if fit else {}
                found.append(
                    design_power.variance_components(
                        y,
                        rows.template[kept],
                        rows.minority[kept],
                        rows.female[kept],
                        EFFECT,
                        names=rows.name[kept],
                        words=rows.word[kept],
                        **options,
                        **shared,
                    )
                )
    intervals = np.array([design_power.mde_interval(c, design) for c in found])
    return Predictions(
        (intervals[:, 0] <= true_mde) & (true_mde <= intervals[:, 1]),
        np.array([design_power.design_mde(c, design) for c in found]) / true_mde,
        np.array([np.nan if c.name_template_var is None else c.name_template_var for c in found]),
        np.array([c.template_var for c in found]),
    )
