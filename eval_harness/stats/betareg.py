"""Intersectional Beta regression of predicted intensities (Câmara et al. 2022).

For predictions ``y_i`` in (0, 1) on sentences that name a person of one of two
groups and one of two genders, fit by maximum likelihood

    y_i ~ Beta(mu_i * phi, (1 - mu_i) * phi)
    logit(mu_i) = b0 + b1 * minority_i + b2 * female_i + b3 * minority_i * female_i
    log(phi)    = g0

(Ferrari & Cribari-Neto 2004; R ``betareg`` with ``link.phi = "log"``), where
``minority_i = 1`` when the row's group is not ``reference_group`` and
``female_i = 1`` when its gender is not ``reference_gender``. ``E[y_i] = mu_i`` and
``Var[y_i] = mu_i (1 - mu_i) / (1 + phi)``. The parameters are ``theta = (b0, b1, b2,
b3, g0)`` (``PARAMETERS``).

Conventions:

* Fit: the design has only categorical covariates, so the log-likelihood depends on ``y`` only
  through each group x gender cell's count, ``sum log y`` and ``sum log(1 - y)`` (after the boundary
  squeeze), and the cluster-robust score only through the same sums per cell x cluster. The fit is
  computed from those sums (:mod:`~eval_harness.stats.beta_likelihood`, Newton with the analytic
  Hessian, as statsmodels' ``BetaModel`` Newton row by row, whose numbers it equals to ~1e-13; the
  row-wise path stays there as ``fit_rows``, for designs with a continuous covariate). ``converged``
  is true when the estimates and their covariance are finite, the observed information ``-H`` is
  positive definite and the Newton decrement ``g' (-H)^{-1} g`` (``g`` the score: twice the
  log-likelihood gain a further Newton step promises, the same in any parameterisation) is at most
  ``DECREMENT_TOLERANCE * (1 + |loglik|)``, for the full and the reduced (no ``b3``) fit. A
  relative, likelihood-scale criterion: the raw score grows with ``phi``, so well-separated
  low-noise cells (``phi`` ~ 1e5) sit at the optimum with a per-row score far above any fixed
  absolute tolerance. This is the 2 x 2 case of :func:`eval_harness.stats.factorial.fit_factorial`
  (k-level factors, any number of them), and its result is that fit's
  :class:`~eval_harness.stats.factorial.FactorialBetaRegression` under the names and words of the
  paper's design (:class:`IntersectionalBetaRegression`, a named view: no numbers of its own).
* Coefficients are on the logit scale of the mean and condition on the reference
  levels: ``group`` (``b1``) is the difference between the minority and the
  reference group **among the reference gender**; ``gender`` (``b2``) the
  difference between the genders **within the reference group**; ``group:gender``
  (``b3``) the difference of those logit differences. Each says so in its
  ``contrast``.
* Effects on the predicted-intensity scale, with
  ``mu(m, f) = logistic(b0 + b1 m + b2 f + b3 m f)`` and ``p_f``, ``p_m`` the
  shares of fitted rows with ``female = 1`` and ``minority = 1`` (``EFFECTS``):

  - ``group_within_reference_gender``: ``mu(1, 0) - mu(0, 0)``;
  - ``group_within_other_gender``: ``mu(1, 1) - mu(0, 1)``;
  - ``gender_within_reference_group``: ``mu(0, 1) - mu(0, 0)``;
  - ``gender_within_other_group``: ``mu(1, 1) - mu(1, 0)``;
  - ``group_ame``: ``mean_i [mu(1, f_i) - mu(0, f_i)]
    = (1 - p_f) [mu(1, 0) - mu(0, 0)] + p_f [mu(1, 1) - mu(0, 1)]``, the average
    marginal effect of group over the fitted rows;
  - ``gender_ame``: ``mean_i [mu(m_i, 1) - mu(m_i, 0)]``, likewise for gender;
  - ``group:gender_did``: ``[mu(1, 1) - mu(1, 0)] - [mu(0, 1) - mu(0, 0)]``, the
    difference-in-differences of predicted means.

  Every effect is ``w . mu`` for weights ``w`` over the four cells, so its
  delta-method standard error is ``sqrt(d' V d)`` with
  ``d = sum_c w_c mu_c (1 - mu_c) x_c`` (``x_c = (1, m, f, m f)``) and ``V`` the
  covariance of ``(b0, b1, b2, b3)`` in use (model-based or clustered). The AMEs
  hold the rows' covariates fixed (``p_f``, ``p_m`` are not estimated). Each effect
  carries its own test, interval, stars and minimum detectable effect (``mde``, 80 %
  power at alpha = 0.05, :mod:`~eval_harness.stats.power`); never read a coefficient's
  p-value as the test of an effect.
* Standard errors, ``cov_type="model"`` (default): inverse expected information
  at the optimum (as R betareg, so numbers stay comparable with the paper).
* Standard errors, ``cov_type="cluster"``: the cluster-robust sandwich
  ``V = c H^{-1} (sum_g s_g s_g') H^{-1}``, ``H`` the observed Hessian of the
  log-likelihood and ``s_g`` the sum of the per-row scores of cluster ``g``, with
  the CR1 small-sample factor ``c = G / (G - 1) * (n - 1) / (n - k)`` (``G``
  clusters, ``n`` rows, ``k = 5`` parameters; Stata's and statsmodels' default).
  Two-way (e.g. template and person; Cameron, Gelbach & Miller 2011):
  ``V = V_1 + V_2 - V_12``, each term a one-way CR1 sandwich (``V_12`` clustered
  by the pairs of labels), not clipped to positive semi-definite (that would tie an
  effect's SE to the reference levels); each coefficient's or effect's own variance
  ``d' V d`` is floored at its larger one-way variance instead (with a warning), and
  one at rounding level is 0 (``beta_likelihood.Covariances.variances``): a 0
  standard error gets no test (an InputError). The likelihood-ratio test assumes independent rows
  and is not
  clustered: read the clustered Wald test of ``group:gender`` instead.
* Tests: Wald ratio ``estimate / std_err``. ``use_t=None`` (default): against the
  standard normal with model-based SEs (as R betareg), against Student's t with
  ``G - 1`` degrees of freedom with clustered SEs (``G`` the smallest number of
  clusters; Cameron & Miller 2015, because with the 11 templates of an EEC the
  normal reference over-rejects). ``use_t=True`` always uses t (``n - 4`` df
  model-based, the paper's "two-sided t-test"; ``G - 1`` clustered);
  ``use_t=False`` always uses the normal. p-values are two-sided; confidence
  intervals are 95 %. Stars as in the paper: ``***`` p <= 0.01, ``**`` p <= 0.05,
  ``*`` p <= 0.10.
* Rows whose group is missing (``None``; the EEC's noun-phrase sentences such as
  "my mother") carry no group and are left out; their count is ``n_excluded``.
* Exact 0 or 1 cannot be Beta distributed: by default every fitted value is
  squeezed, ``y' = (y (n - 1) + 0.5) / n`` (Smithson & Verkuilen 2006), with a
  warning; ``boundary="error"`` refuses instead.
* Predictions (nearly) constant within the cells have no finite maximum: the
  moment estimate of the precision, ``mean_i[ybar_c(i) (1 - ybar_c(i))] / s^2 - 1``
  with ``s^2`` the pooled within-cell variance, must not exceed ``MAX_PRECISION``
  (past it the log-likelihood is dominated by rounding); otherwise
  :class:`InputError` names the spread found.
* Likelihood-ratio test of the intersection: ``2 (l_full - l_without_b3)``
  against chi-squared with 1 degree of freedom.
"""

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import fields as dataclass_fields

import numpy as np

from ..errors import InputError
from . import factorial, label_coding
from .beta_likelihood import (
    DECREMENT_TOLERANCE,  # noqa: F401 (part of this module's documented conventions)
    BetaRegressionWarning,  # noqa: F401 (re-exported: names of the 2 x 2 API)
)
from .factorial import (  # noqa: F401 (re-exported: names of the 2 x 2 API)
    COV_TYPES,
    LOG_PHI,
    MAX_PRECISION,
    MIN_ROWS_PER_CELL,
    Cell,
    Coefficient,
    Effect,
    LikelihoodRatioTest,
)
from .fit_options import CLUSTER_COLUMNS, clusters_from_columns  # noqa: F401 (re-exported: the metric's API)
from .label_coding import BOUNDARY_MODES, squeeze_boundary  # noqa: F401 (re-exported: names of the 2 x 2 API)
from .results import is_missing
from .significance import significance_stars

TERMS = ("intercept", "group", "gender", "group:gender")
PARAMETERS = (*TERMS, LOG_PHI)
EFFECTS = (
    "group_within_reference_gender",
    "group_within_other_gender",
    "gender_within_reference_group",
    "gender_within_other_group",
    "group_ame",
    "gender_ame",
    "group:gender_did",
)
# The non-minority group levels of the shipped EECs and the male gender level: the
# only levels a caller may leave implicit (see infer_reference_level).
KNOWN_REFERENCE_LEVELS = {"group": ("European", "Anglo"), "gender": ("male",)}
_PEOPLE = {"male": "men", "female": "women"}


@dataclass(frozen=True)
class IntersectionalBetaRegression(factorial.FactorialBetaRegression):
    """Result of :func:`fit_intersectional`: the 2 x 2 factorial fit under the paper's names and
    words.

    A named view, as statsmodels' results wrapper attaches names to the same numbers: every field is
    that of :class:`~eval_harness.stats.factorial.FactorialBetaRegression`, but the coefficients are
    named by ``TERMS`` (``parameter_names`` by ``PARAMETERS``) and the effects by ``EFFECTS`` (the
    interaction contrast's ``kind`` is ``"difference-in-differences"``), each with the paper's
    ``contrast`` ("Arab vs Anglo, among men"). ``group_levels`` and ``gender_levels`` are
    ``(reference, coded-1 level)``; ``intersection_lr_test`` is the one likelihood-ratio test (of
    ``group:gender``); ``phi`` the precision. ``to_dict()`` is the eec_bias metric's output (its
    card).
    """

    @property
    def group_levels(self) -> tuple[str, str]:
        return self.factors[0].levels

    @property
    def gender_levels(self) -> tuple[str, str]:
        return self.factors[1].levels

    @property
    def intersection_lr_test(self) -> LikelihoodRatioTest:
        (test,) = self.lr_tests
        return test

    @property
    def phi(self) -> float:
        return float(np.exp(self.coefficient(LOG_PHI).estimate))

    def to_dict(self) -> dict:
        """Plain nested dict: ``["coefficients"][term]`` (with ``z``) and ``["effects"][name]`` ->
        their fields and stars, ``precision`` as ``phi``, ``log_phi`` and ``log_phi_std_err``, each
        cell's ``group`` and ``gender``, the rest as fields."""

        def tested(item, statistic: str) -> dict:
            """The item's test, its statistic called ``statistic``, and its stars."""
            return {
                "estimate": item.estimate,
                "std_err": item.std_err,
                statistic: item.statistic,
                **{name: getattr(item, name) for name in ("p_value", "ci_low", "ci_high", "mde")},
                "stars": significance_stars(item.p_value),
            }

        log_phi = self.coefficient(LOG_PHI)
        return {
            "coefficients": {
                c.name: {"contrast": c.contrast, **tested(c, "z")} for c in self.coefficients
            },
            "effects": {
                e.name: {
                    "term": e.term,
                    "kind": e.kind,
                    "contrast": e.contrast,
                    **tested(e, "statistic"),
                }
                for e in self.effects
            },
            "precision": {
                "phi": self.phi,
                "log_phi": log_phi.estimate,
                "log_phi_std_err": log_phi.std_err,
            },
            **{
                key: getattr(self, key)
                for key in (
                    "log_likelihood",
                    "n",
                    "n_excluded",
                    "converged",
                    "test",
                    "df",
                    "cov_type",
                )
            },
            "cluster_by": list(self.cluster_by),
            "n_clusters": list(self.n_clusters),
            "covariance": [list(row) for row in self.covariance],
            "group_levels": list(self.group_levels),
            "gender_levels": list(self.gender_levels),
            "cells": [
                {
                    **dict(cell.levels),
                    "n": cell.n,
                    "observed_mean": cell.observed_mean,
                    "predicted_mean": cell.predicted_mean,
                }
                for cell in self.cells
            ],  # fmt: skip
            "intersection_lr_test": self.intersection_lr_test.to_dict(),
            "squeezed": self.squeezed,
        }


def infer_reference_level(
    factor: str, labels: Sequence[str | None], two_levels: bool = True
) -> str:
    """The reference level of ``factor`` ("group" or "gender") when the labels leave no doubt.

    It is the one level found that is in ``KNOWN_REFERENCE_LEVELS[factor]`` (the
    EECs' "European"/"Anglo", and "male"), when exactly one of the levels found is
    known and there are exactly two levels (``two_levels``, the 2 x 2 design) or at
    least two (``two_levels=False``, a k-level design). Otherwise :class:`InputError`
    names the levels found and asks for ``reference_<factor>``.

    Examples
    --------
    >>> from eval_harness.stats.betareg import infer_reference_level
    >>> infer_reference_level("group", ["European", "African-American", None])
    'European'
    >>> infer_reference_level("gender", ["female", "nonbinary"])
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: cannot tell the reference level of gender from the ...
    """
    if factor not in KNOWN_REFERENCE_LEVELS:
        raise InputError(f"factor must be one of {sorted(KNOWN_REFERENCE_LEVELS)}, got {factor!r}")
    levels = sorted(level for level in set(labels) if not is_missing(level))
    known = [level for level in levels if level in KNOWN_REFERENCE_LEVELS[factor]]
    if len(known) == 1 and (len(levels) == 2 or (not two_levels and len(levels) > 2)):
        return known[0]
    raise InputError(
        f"cannot tell the reference level of {factor} from the levels found {levels}: "
        f"pass reference_{factor}=<the level coded 0>"
    )


def fit_intersectional(
    y: Sequence[float],
    group: Sequence[str | None],
    gender: Sequence[str | None],
    reference_group: str,
    reference_gender: str,
    use_t: bool | None = None,
    boundary: str = "squeeze",
    cov_type: str = "model",
    clusters: Mapping[str, Sequence[Hashable]] | None = None,
) -> IntersectionalBetaRegression:
    """Fit ``logit(E[y]) = b0 + b1 minority + b2 female + b3 minority female`` with log-linked
    precision.

    Args:
        y: predicted intensities in [0, 1], one per row (numbers: strings and booleans are refused).
        group: the row's group label, or None for rows without one (left out; counted in
        ``n_excluded``).
        gender: the row's gender label (two levels among the fitted rows).
        reference_group: the group level coded 0 (``minority = group != reference_group``).
        reference_gender: the gender level coded 0 (``female = gender != reference_gender``).
        use_t: None (default): z tests with model-based SEs, t(G - 1) with clustered SEs; True: t
            tests (n - 4 df model-based, G - 1 clustered); False: z tests. Must be a bool or None.
        boundary: ``"squeeze"`` (default; exact 0/1 trigger the Smithson-Verkuilen squeeze of all
            fitted values and a :class:`BetaRegressionWarning`) or ``"error"``.
        cov_type: ``"model"`` (default; inverse expected information, as R betareg and the paper) or
            ``"cluster"`` (CR1 sandwich; see the module docstring).
        clusters: with ``cov_type="cluster"``, one or two named per-row label sequences (same length
            as ``y``, e.g. ``{"template_id": [...]}`` or ``{"template_id": [...], "person":
            [...]}``); two give Cameron-Gelbach-Miller two-way clustering. Rows without a group may
            carry None.

    Returns:
        :class:`IntersectionalBetaRegression` (see the module docstring for every convention).

    Raises:
        InputError: empty input, mismatched lengths, non-numeric, non-finite or out-of-range y,
            boundary values with ``boundary="error"``, a factor with one level or more than two (the
            error points to :func:`~eval_harness.stats.factorial.fit_factorial` for k levels), an
            unknown reference level, fewer than ``MIN_ROWS_PER_CELL`` rows in a group x gender cell,
            y constant or nearly constant within the cells, ``use_t`` that is not a bool, a bad
            ``cov_type`` or ``clusters`` (wrong length, a missing label on a fitted row, fewer than
            2 clusters).

    Examples
    --------
    >>> from eval_harness.stats.betareg import fit_intersectional
    >>> y = [0.30, 0.32, 0.35, 0.41, 0.33, 0.36, 0.44, 0.47]
    >>> group = ["European"] * 4 + ["African-American"] * 4
    >>> gender = ["male", "male", "female", "female"] * 2
    >>> fit = fit_intersectional(y, group, gender, "European", "male")
    >>> effect = fit.effect("group_within_other_gender")
    >>> effect.contrast, round(effect.estimate, 3), round(effect.std_err, 3)
    ('African-American vs European, among women', 0.075, 0.019)
    """
    if boundary not in BOUNDARY_MODES:
        raise InputError(f"boundary must be one of {list(BOUNDARY_MODES)}, got {boundary!r}")
    factorial.checked_cov_options(cov_type, clusters, use_t)
    values = label_coding.checked_scores(y)
    coded = label_coding.code_factors(values, {"group": group, "gender": gender})
    _check_two_by_two(coded, reference_group, reference_gender)
    rows = label_coding.rows_from_codes(
        values, coded, {"group": reference_group, "gender": reference_gender}, boundary, clusters
    )
    design = factorial.FactorialDesign.up_to_order(rows.factors, 2)
    fit = factorial.fit_design(rows, design, cov_type, tuple(rows.groups), use_t)
    specs = factorial.effect_specs(design, fit.cell_counts / fit.n)
    result = factorial.result_of(fit, rows, specs)
    return _two_by_two(
        result, factorial_effect_names(design.factors[0].levels, design.factors[1].levels)
    )


def factorial_effect_names(
    group_levels: Sequence[str], gender_levels: Sequence[str]
) -> dict[str, str]:
    """Map each 2 x 2 effect and term name to its name in the k-level model's result.

    ``EFFECTS`` name -> the name of the same effect in
    :func:`~eval_harness.stats.factorial.fit_factorial`'s result for these ``(reference, other)``
    levels (e.g. ``"group[Arab]|gender=male"``); ``TERMS`` likewise.

    Examples
    --------
    >>> from eval_harness.stats.betareg import factorial_effect_names
    >>> names = factorial_effect_names(["European", "Arab"], ["male", "female"])
    >>> names["group"], names["group_within_other_gender"]
    ('group[Arab]', 'group[Arab]|gender=female')
    """
    (reference, minority), (men, women) = group_levels, gender_levels
    group, gender = f"group[{minority}]", f"gender[{women}]"
    return {
        "intercept": "intercept",
        "group": group,
        "gender": gender,
        "group:gender": f"{group}:{gender}",
        "group_within_reference_gender": f"{group}|gender={men}",
        "group_within_other_gender": f"{group}|gender={women}",
        "gender_within_reference_group": f"{gender}|group={reference}",
        "gender_within_other_group": f"{gender}|group={minority}",
        "group_ame": f"{group}|average",
        "gender_ame": f"{gender}|average",
        "group:gender_did": f"{group}:{gender}",
    }


def _check_two_by_two(coded, reference_group: str, reference_gender: str) -> None:
    """The 2 x 2 design's own checks, before the general ones: every row with a group has a gender,
    each factor has exactly two levels among those rows, and the reference levels are among them."""
    group_codes, gender_codes = coded["group"][0], coded["gender"][0]
    with_group = label_coding.labelled_rows([group_codes])
    n_with_group = len(group_codes) if isinstance(with_group, slice) else int(with_group.sum())
    missing_gender = int(np.sum(gender_codes[with_group] < 0))
    if missing_gender:
        raise InputError(
            f"{missing_gender} rows have a group but no gender; every fitted row needs both"
        )
    for name, (codes, found), reference in (
        ("group", coded["group"], reference_group),
        ("gender", coded["gender"], reference_gender),
    ):
        levels = sorted(
            found[k] for k in np.flatnonzero(np.bincount(codes[with_group], minlength=len(found)))
        )
        if len(levels) != 2:
            what = {0: "no labels", 1: f"a single level {levels}"}.get(
                len(levels), f"{len(levels)} levels {levels}"
            )
            raise InputError(
                f"{name} has {what} among the {n_with_group} rows with "
                "a group; the intersectional model needs exactly two "
                f"levels of {name} (fit_factorial takes k-level factors)"
            )
        if reference not in levels:
            raise InputError(
                f"reference_{name}={reference!r} is not one of the {name} levels found {levels}"
            )


def _two_by_two(
    result: factorial.FactorialBetaRegression, names: Mapping[str, str]
) -> IntersectionalBetaRegression:
    """The factorial result under this module's names and words (``names``: ours -> the
    factorial's)."""
    group_levels, gender_levels = (tuple(f.levels) for f in result.factors)
    words = _Levels(
        group_levels,
        gender_levels,
        share_female=sum(c.n for c in result.cells if dict(c.levels)["gender"] != gender_levels[0])
        / result.n,
        share_minority=sum(c.n for c in result.cells if dict(c.levels)["group"] != group_levels[0])
        / result.n,
    )
    coefficients = tuple(
        replace(
            result.coefficient(names[term]), name=term, contrast=words.coefficient_contrast(term)
        )
        for term in TERMS
    )
    effects = tuple(
        replace(result.effect(names[name]), name=name, kind=kind, contrast=contrast)
        for name, kind, contrast in words.effects()
    )
    fields = {field.name: getattr(result, field.name) for field in dataclass_fields(result)}
    return IntersectionalBetaRegression(
        **{
            **fields,
            "coefficients": coefficients,
            "effects": effects,
            "parameter_names": PARAMETERS,
        }
    )


@dataclass(frozen=True)
class _Levels:
    """The level names and covariate shares that the effects' words need."""

    group_levels: tuple[str, str]
    gender_levels: tuple[str, str]
    share_female: float
    share_minority: float

    @property
    def people(self) -> tuple[str, str]:
        return tuple(_PEOPLE.get(level, level) for level in self.gender_levels)

    def coefficient_contrast(self, term: str) -> str:
        (reference, minority), (men, women) = self.group_levels, self.people
        return {
            "intercept": f"logit of the mean for {reference} {men} (the reference cell)",
            "group": f"logit difference, {minority} vs {reference}, "
            f"among {men} (the reference gender)",
            "gender": f"logit difference, {women} vs {men}, "
            f"within {reference} (the reference group)",
            "group:gender": f"difference of logit differences: ({minority} {women} - "
            f"{minority} {men}) - ({reference} {women} - {reference} {men})",
        }[term]

    def effects(self) -> tuple[tuple[str, str, str], ...]:
        """(name, kind, contrast) for every effect of ``EFFECTS``."""
        (reference, minority), (men, women) = self.group_levels, self.people
        p_f, p_m = self.share_female, self.share_minority
        return (
            (
                "group_within_reference_gender",
                "conditional",
                f"{minority} vs {reference}, among {men}",
            ),
            (
                "group_within_other_gender",
                "conditional",
                f"{minority} vs {reference}, among {women}",
            ),
            (
                "gender_within_reference_group",
                "conditional",
                f"{women} vs {men}, within {reference}",
            ),
            ("gender_within_other_group", "conditional", f"{women} vs {men}, within {minority}"),
            (
                "group_ame",
                "average",
                f"{minority} vs {reference}, averaged over the fitted rows ({p_f:.0%} {women})",
            ),
            (
                "gender_ame",
                "average",
                f"{women} vs {men}, averaged over the fitted rows ({p_m:.0%} {minority})",
            ),
            (
                "group:gender_did",
                "difference-in-differences",
                f"({minority} {women} - {minority} {men}) - "
                f"({reference} {women} - {reference} {men})",
            ),
        )
