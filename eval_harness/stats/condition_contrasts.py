"""Differences of identity effects between two conditions, tested in one joint Beta regression.

A condition is what a comparison varies while the sentences stay aligned: the language of a
translated EEC (English vs Arabic on the rows of the same ``sentence_en``), or two models (or
checkpoints) scoring the same sentences. The joint model crosses every identity term with a
two-level condition factor ``C`` (reference ``A``, other level ``B``):

    logit(mu) = [identity terms up to ``order``] + C + [every identity term] x C,
    log(phi)  = g0 + g1 C                       (each condition its own precision; ``precision_by_condition``)

so the mean model in each condition is the identity model of :mod:`~eval_harness.stats.factorial`,
with its own coefficients, and the ``x C`` coefficients are their differences on the logit scale.

Each identity effect ``w . mu`` (conditional contrasts, AMEs, interaction contrasts; the AMEs
weighted by each condition's own rows) is evaluated in ``A`` and in ``B``; its difference ``w_B .
mu_B - w_A . mu_A`` gets a delta-method Wald test from the joint covariance, which with clustering
by the aligned template (or sentence; and person, two-way) uses the pairing: rows of one template in
both conditions share a cluster, so what a template does to both conditions cancels out of the
difference. Defaults: clustered standard errors (``cov_type="cluster"``) with t(G - 1) tests, as the
comparison is paired by design.
"""  # noqa: E501

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from . import factorial, label_coding
from .results import Result, keyed, named
from .wald import wald_test


@dataclass(frozen=True)
class EffectDifference(factorial.Effect):
    """One identity effect's difference between the conditions, other minus reference, with its own
    Wald test (the :class:`~eval_harness.stats.factorial.Effect` fields: ``estimate``, ``std_err``,
    ..., ``mde``, the smallest true difference this design detects with 80 % power), and the effect
    in each condition (``reference_estimate``, ``other_estimate``). ``contrast`` ends with which
    condition is subtracted."""

    reference_estimate: float
    other_estimate: float


@dataclass(frozen=True)
class ConditionContrasts(Result):
    """Result of :func:`fit_condition_contrasts`.

    ``condition``: the condition factor (name, ``(reference, other)``); ``joint``: the joint fit
    with every coefficient (``group[Arab]:language[ar]`` is a logit-scale difference), its cells,
    precision and covariance; ``effects_by_condition``: ``(level, effects)`` for each condition,
    from the joint fit; ``differences``: every effect's difference between the conditions, each with
    its own test.
    """

    condition: label_coding.Factor
    joint: factorial.FactorialBetaRegression
    effects_by_condition: tuple[tuple[str, tuple[factorial.Effect, ...]], ...]
    differences: tuple[EffectDifference, ...]

    def difference(self, name: str) -> EffectDifference:
        """The difference of the effect called ``name`` (e.g. ``"group[Arab]|gender=female"``)."""
        return named(self.differences, name, "effect")

    def effects_in(self, level: str) -> tuple[factorial.Effect, ...]:
        """The identity effects within condition ``level``."""
        found = dict(self.effects_by_condition)
        if level not in found:
            raise InputError(
                f"unknown condition {level!r}; conditions are {list(self.condition.levels)}"
            )
        return found[level]

    def to_dict(self) -> dict:
        """``condition`` (name and levels), ``joint`` (its to_dict), ``effects_by_condition``
        ({level: {name: fields}}) and ``differences`` ({name: fields})."""
        return {
            "condition": {"name": self.condition.name, "levels": list(self.condition.levels)},
            "joint": self.joint.to_dict(),
            "effects_by_condition": {
                level: keyed(effects) for level, effects in self.effects_by_condition
            },
            "differences": keyed(self.differences),
        }

    def summary(self) -> str:
        """The joint fit's design line, then every difference with its test, then the joint fit's
        summary."""
        reference, other = self.condition.levels
        width = max(len(d.name) for d in self.differences) + 2
        joint = self.joint
        lines = [
            f"Differences of identity effects between {self.condition.name} "
            f"{other} and {reference} (one joint fit, n = {joint.n})",
            factorial.covariance_words(
                joint.cov_type, joint.cluster_by, joint.n_clusters, joint.test, joint.df
            ),
            "",
            f"{'effect':<{width}}{reference:>10}{other:>10}{'diff':>10}{'std_err':>10}{joint.test:>9}{'p_value':>10}"
            f"{'95% CI':>22}{'mde':>9}  contrast",
        ]
        for d in self.differences:
            interval = f"[{d.ci_low:.4f}, {d.ci_high:.4f}]"
            lines.append(
                f"{d.name:<{width}}{d.reference_estimate:>10.4f}{d.other_estimate:>10.4f}"
                f"{d.estimate:>10.4f}{d.std_err:>10.4f}{d.statistic:>9.3f}"
                f"{d.p_value:>10.4f}{interval:>22}{d.mde:>9.4f}  {d.contrast}"
            )
        return "\n".join([*lines, "", "The joint fit:", joint.summary()])


def joint_design(
    identity: factorial.FactorialDesign,
    condition: label_coding.Factor,
    precision_by_condition: bool,
):
    """The identity design's terms, the condition, and every identity term crossed with the
    condition."""
    terms = (
        identity.terms
        + ((condition.name,),)
        + tuple((*term, condition.name) for term in identity.terms)
    )
    return factorial.FactorialDesign(
        (*identity.factors, condition),
        tuple(sorted(terms, key=len)),
        (condition.name,) if precision_by_condition else (),
    )


def condition_specs(
    identity: factorial.FactorialDesign, joint: factorial.FactorialDesign, cell_counts: np.ndarray
) -> tuple[tuple[factorial.EffectSpec, ...], ...]:
    """For each condition level, the identity effects as weights over the joint cells (each
    condition's AMEs weighted by its own rows)."""
    m = len(identity.factors)
    identity_cell = identity.cell_of([joint.cells[:, j] for j in range(m)])
    level = joint.cells[:, m]
    per_condition = []
    for k in range(len(joint.factors[m].levels)):
        counts = np.bincount(
            identity_cell[level == k],
            weights=cell_counts[level == k],
            minlength=len(identity.cells),
        )
        specs = factorial.effect_specs(identity, counts / counts.sum())
        per_condition.append(
            tuple(
                factorial.EffectSpec(
                    spec.name,
                    spec.kind,
                    spec.term,
                    spec.levels,
                    spec.given,
                    spec.contrast,
                    np.where(level == k, spec.weights[identity_cell], 0.0),
                )  # fmt: skip
                for spec in specs
            )
        )
    return tuple(per_condition)


def fit_condition_contrasts(
    y: Sequence[float] | np.ndarray,
    factors: Mapping[str, Sequence[str | None] | np.ndarray],
    reference_levels: Mapping[str, str],
    condition: Sequence[str | None],
    reference_condition: str,
    order: int | None = None,
    *,
    condition_name: str = "condition",
    precision_by_condition: bool = True,
    use_t: bool | None = None,
    boundary: str = "squeeze",
    cov_type: str = "cluster",
    clusters: Mapping[str, Sequence[Hashable] | np.ndarray] | None = None,
    zero_untested: bool = False,
) -> ConditionContrasts:
    """Fit the joint model of the module docstring and test every identity effect's difference
    between conditions.

    Args:
        y: predicted intensities in [0, 1] of both conditions, one per row.
        factors, reference_levels, order: the identity design, as in
            :func:`~eval_harness.stats.factorial.fit_factorial`.
        condition: each row's condition label (exactly two levels, e.g. ``"en"``/``"ar"`` or two
        model names).
        reference_condition: the condition subtracted (``A``): differences are other minus
        reference.
        condition_name: the condition factor's name in the coefficients (e.g. ``"language"``,
        ``"model"``).
        precision_by_condition: give each condition its own precision (default True).
        use_t, boundary: as in ``fit_factorial``.
        cov_type: ``"cluster"`` (default; needs ``clusters``) or ``"model"``.
        clusters: one or two ``{name: per-row labels}``: the aligned template (or sentence) id,
            shared by the rows of both conditions, and optionally the person.
        zero_untested: a quantity whose standard error is 0 (an effect within a condition whose
            model scores two groups alike within every template, a joint coefficient, a difference)
            gets no test of its own (``std_err`` 0, NaN test fields: :func:`~.wald.untested`)
            instead of an InputError, so that every difference whose own standard error is positive
            is tested.

    Returns:
        :class:`ConditionContrasts`.

    Raises:
        InputError: as ``fit_factorial``; a condition with other than two levels; ``condition_name``
            that is also an identity factor; a standard error of 0 (unless ``zero_untested``).

    Examples
    --------
    >>> from eval_harness.stats.condition_contrasts import fit_condition_contrasts
    >>> english, arabic = [0.30, 0.34, 0.40, 0.44], [0.31, 0.35, 0.46, 0.50]
    >>> fit = fit_condition_contrasts(
    ...     english + arabic, {"group": ["European", "European", "Arab", "Arab"] * 2},
    ...     {"group": "European"}, condition=["en"] * 4 + ["ar"] * 4, reference_condition="en",
    ...     cov_type="model")
    >>> difference = fit.differences[0]
    >>> difference.contrast, round(difference.estimate, 3), round(difference.p_value, 3)
    ('Arab vs European (group): condition ar minus en', 0.05, 0.077)
    """
    if condition_name in factors:
        raise InputError(
            f"condition_name {condition_name!r} is also an identity factor: pick another name"
        )
    factorial.checked_cov_options(cov_type, clusters, use_t)
    rows = label_coding.prepare_rows(
        y,
        {**factors, condition_name: condition},
        {**reference_levels, condition_name: reference_condition},
        boundary,
        clusters,
    )
    condition_factor = rows.factors[-1]
    if len(condition_factor.levels) != 2:
        raise InputError(
            f"{condition_name} has {len(condition_factor.levels)} levels "
            f"{list(condition_factor.levels)}: a contrast compares exactly "
            "two conditions (fit each pair of conditions on its own)"
        )
    identity = factorial.FactorialDesign.up_to_order(rows.factors[:-1], order)
    design = joint_design(identity, condition_factor, precision_by_condition)
    fit = factorial.fit_design(rows, design, cov_type, tuple(rows.groups), use_t)
    joint = factorial.result_of(fit, rows, (), zero_untested=zero_untested)
    reference_specs, other_specs = condition_specs(identity, design, fit.cell_counts)
    effects_by_condition = tuple(
        (level, factorial.effects_of(fit, specs, zero_untested))
        for level, specs in zip(
            condition_factor.levels, (reference_specs, other_specs), strict=True
        )
    )
    weights = np.stack(
        [b.weights - a.weights for a, b in zip(reference_specs, other_specs, strict=True)]
    )
    estimates, std_errs, raised = factorial.effect_values(
        weights, fit.optimum.params, fit.covariances, design.mean_design
    )
    factorial.warn_one_way_stand_ins(
        [
            f"the difference of {spec.name}"
            for spec, flag in zip(reference_specs, raised[0], strict=True)
            if flag
        ]
    )
    reference, other = condition_factor.levels
    differences = tuple(
        EffectDifference(
            **{
                label: getattr(in_a, label) for label in ("name", "kind", "term", "levels", "given")
            },
            contrast=f"{in_a.contrast}: {condition_name} {other} minus {reference}",
            reference_estimate=in_a.estimate,
            other_estimate=in_b.estimate,
            **wald_test(
                float(estimate),
                float(std_err),
                fit.df,
                f"the difference of {in_a.name}",
                zero_untested,
            ),
        )
        for in_a, in_b, estimate, std_err in zip(
            effects_by_condition[0][1],
            effects_by_condition[1][1],
            estimates[0],
            std_errs[0],
            strict=True,
        )  # fmt: skip
    )
    return ConditionContrasts(condition_factor, joint, effects_by_condition, differences)
