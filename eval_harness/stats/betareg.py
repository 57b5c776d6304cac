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

* Fit: statsmodels ``BetaModel`` with Newton steps. ``converged`` is true when the
  estimates and their covariance are finite, the observed information ``-H`` is
  positive definite and the Newton decrement ``g' (-H)^{-1} g`` (``g`` the score:
  twice the log-likelihood gain a further Newton step promises, the same in any
  parameterisation) is at most ``DECREMENT_TOLERANCE * (1 + |loglik|)``, for the
  full and the reduced (no ``b3``) fit. A relative, likelihood-scale criterion: the
  raw score grows with ``phi``, so well-separated low-noise cells (``phi`` ~ 1e5)
  sit at the optimum with a per-row score far above any fixed absolute tolerance.
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
  carries its own test, interval and stars; never read a coefficient's p-value as
  the test of an effect.
* Standard errors, ``cov_type="model"`` (default): inverse expected information
  at the optimum (as R betareg, so numbers stay comparable with the paper).
* Standard errors, ``cov_type="cluster"``: the cluster-robust sandwich
  ``V = c H^{-1} (sum_g s_g s_g') H^{-1}``, ``H`` the observed Hessian of the
  log-likelihood and ``s_g`` the sum of the per-row scores of cluster ``g``, with
  the CR1 small-sample factor ``c = G / (G - 1) * (n - 1) / (n - k)`` (``G``
  clusters, ``n`` rows, ``k = 5`` parameters; Stata's and statsmodels' default).
  Two-way (e.g. template and person; Cameron, Gelbach & Miller 2011):
  ``V = V_1 + V_2 - V_12``, each term a one-way CR1 sandwich (``V_12`` clustered
  by the pairs of labels), negative eigenvalues of the sum set to 0 (CGM 2011,
  section 2.3). The likelihood-ratio test assumes independent rows and is not
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

import math
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats
from scipy.special import expit
from statsmodels.othermod.betareg import BetaModel

from ..errors import InputError
from .results import Result, is_missing
from .significance import significance_stars

TERMS = ("intercept", "group", "gender", "group:gender")
PARAMETERS = (*TERMS, "log_phi")
EFFECTS = (
    "group_within_reference_gender",
    "group_within_other_gender",
    "gender_within_reference_group",
    "gender_within_other_group",
    "group_ame",
    "gender_ame",
    "group:gender_did",
)
BOUNDARY_MODES = ("squeeze", "error")
COV_TYPES = ("model", "cluster")
# Per-row columns the eec_bias metric can cluster by (clusters_from_columns).
CLUSTER_COLUMNS = ("template_id", "person")
# The non-minority group levels of the shipped EECs and the male gender level: the
# only levels a caller may leave implicit (see infer_reference_level).
KNOWN_REFERENCE_LEVELS = {"group": ("European", "Anglo"), "gender": ("male",)}
MIN_ROWS_PER_CELL = 2
DECREMENT_TOLERANCE = 1e-10
MAX_PRECISION = 1e10
CONFIDENCE = 0.95
# The four cells (minority, female) in the order every weight vector below uses.
CELLS = ((0, 0), (0, 1), (1, 0), (1, 1))
_PEOPLE = {"male": "men", "female": "women"}


class BetaRegressionWarning(UserWarning):
    """The data were changed (boundary squeeze) or the fit did not converge."""


@dataclass(frozen=True)
class Coefficient(Result):
    """One term of the mean model, on the logit scale, with its Wald test.

    ``contrast`` says in words, with the level names, what the term compares and what it
    conditions on (e.g. "logit difference, Arab vs Anglo, among men (the reference gender)").
    ``z`` is estimate / std_err, compared with t when the fit's ``test`` is ``"t"``.
    """

    term: str
    contrast: str
    estimate: float
    std_err: float
    z: float
    p_value: float
    ci_low: float
    ci_high: float
    stars: str


@dataclass(frozen=True)
class Effect(Result):
    """A difference of predicted mean intensities with its own delta-method test (see the module docstring).

    ``name`` is one of ``EFFECTS``; ``term`` the factor it is about (``"group"``, ``"gender"`` or
    ``"group:gender"``); ``kind`` is ``"conditional"`` (one level of the other factor),
    ``"average"`` (AME over the fitted rows) or ``"difference-in-differences"``; ``contrast`` says
    it in words with the level names (e.g. "Arab vs Anglo, among men"). ``statistic`` is
    estimate / std_err, compared with the fit's reference distribution (``test``, ``df``), so
    ``statistic``, ``estimate``, ``ci_low``/``ci_high`` always agree in sign.
    """

    name: str
    term: str
    kind: str
    contrast: str
    estimate: float
    std_err: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    stars: str


@dataclass(frozen=True)
class Precision(Result):
    """The fitted precision ``phi`` and its log (the estimated parameter, with its std_err)."""

    phi: float
    log_phi: float
    log_phi_std_err: float


@dataclass(frozen=True)
class LikelihoodRatioTest(Result):
    """``statistic = 2 (log_likelihood_full - log_likelihood_reduced)`` ~ chi2(df) for dropping ``term``."""

    term: str
    statistic: float
    df: int
    p_value: float
    log_likelihood_reduced: float


@dataclass(frozen=True)
class Cell(Result):
    """One group x gender cell: its rows, the observed mean of y and the model's predicted mean."""

    group: str
    gender: str
    n: int
    observed_mean: float
    predicted_mean: float


@dataclass(frozen=True)
class IntersectionalBetaRegression:
    """Result of :func:`fit_intersectional`.

    ``group_levels`` and ``gender_levels`` are ``(reference, coded-1 level)``.
    ``effects`` are the differences of predicted means of ``EFFECTS``, each with its own test.
    ``covariance`` is the covariance of the parameters ``PARAMETERS`` used for every standard
    error (``cov_type`` ``"model"``: inverse expected information; ``"cluster"``: CR1 sandwich
    clustered by ``cluster_by``, with ``n_clusters`` clusters each).
    ``test`` is ``"z"`` or ``"t"``; ``df`` is the t degrees of freedom (None for z).
    ``squeezed`` says whether the boundary squeeze changed the data.
    """

    coefficients: tuple[Coefficient, ...]
    effects: tuple[Effect, ...]
    precision: Precision
    log_likelihood: float
    n: int
    n_excluded: int
    converged: bool
    test: str
    df: int | None
    cov_type: str
    cluster_by: tuple[str, ...]
    n_clusters: tuple[int, ...]
    covariance: tuple[tuple[float, ...], ...]
    group_levels: tuple[str, str]
    gender_levels: tuple[str, str]
    cells: tuple[Cell, ...]
    intersection_lr_test: LikelihoodRatioTest
    squeezed: bool

    def coefficient(self, term: str) -> Coefficient:
        """The coefficient named ``term`` (one of ``TERMS``)."""
        for coefficient in self.coefficients:
            if coefficient.term == term:
                return coefficient
        raise InputError(f"unknown term {term!r}; terms are {list(TERMS)}")

    def effect(self, name: str) -> Effect:
        """The effect named ``name`` (one of ``EFFECTS``)."""
        for effect in self.effects:
            if effect.name == name:
                return effect
        raise InputError(f"unknown effect {name!r}; effects are {list(EFFECTS)}")

    def to_dict(self) -> dict:
        """Plain nested dict: ``["coefficients"][term]`` and ``["effects"][name]`` -> their fields but the key."""
        result = asdict(self)
        result["coefficients"] = {
            c.term: {k: v for k, v in c.to_dict().items() if k != "term"} for c in self.coefficients
        }
        result["effects"] = {e.name: {k: v for k, v in e.to_dict().items() if k != "name"} for e in self.effects}
        for key in ("group_levels", "gender_levels", "cluster_by", "n_clusters"):
            result[key] = list(getattr(self, key))
        result["covariance"] = [list(row) for row in self.covariance]
        result["cells"] = [cell.to_dict() for cell in self.cells]
        return result

    def summary(self) -> str:
        """A readable table of the coefficients, the effects, the precision and the tests."""
        ci = f"{CONFIDENCE:.0%} CI"
        if self.cov_type == "cluster":
            clusters = ", ".join(f"{name} ({g})" for name, g in zip(self.cluster_by, self.n_clusters, strict=True))
            covariance = f"cluster-robust (CR1) standard errors, clustered by {clusters}"
        else:
            covariance = "model-based (expected-information) standard errors"
        lines = [
            "Intersectional Beta regression: logit(mean) = intercept + group + gender + group:gender, log(precision)",
            f"group: {self.group_levels[1]} = 1 (reference {self.group_levels[0]}); "
            f"gender: {self.gender_levels[1]} = 1 (reference {self.gender_levels[0]})",
            f"n = {self.n} ({self.n_excluded} rows without a group excluded)"
            + ("; boundary values squeezed" if self.squeezed else ""),
            f"{covariance}; " + (f"t tests with df = {self.df}" if self.test == "t" else "z tests"),
            "",
            "Coefficients (logit scale of the mean; each conditions on the reference levels):",
            f"{'term':<14}{'estimate':>10}{'std_err':>10}{self.test:>9}{'p_value':>10}{ci:>22}  {'stars':<6}contrast",
        ]
        for c in self.coefficients:
            interval = f"[{c.ci_low:.4f}, {c.ci_high:.4f}]"
            lines.append(
                f"{c.term:<14}{c.estimate:>10.4f}{c.std_err:>10.4f}{c.z:>9.3f}{c.p_value:>10.4f}"
                f"{interval:>22}  {c.stars:<6}{c.contrast}"
            )
        lines += [
            "",
            "Effects (differences of predicted mean intensity; each with its own delta-method test):",
            f"{'effect':<31}{'estimate':>10}{'std_err':>10}{self.test:>9}{'p_value':>10}{ci:>22}  {'stars':<6}contrast",
        ]
        for e in self.effects:
            interval = f"[{e.ci_low:.4f}, {e.ci_high:.4f}]"
            lines.append(
                f"{e.name:<31}{e.estimate:>10.4f}{e.std_err:>10.4f}{e.statistic:>9.3f}{e.p_value:>10.4f}"
                f"{interval:>22}  {e.stars:<6}{e.contrast}"
            )
        lr = self.intersection_lr_test
        lines += [
            "",
            f"precision phi = {self.precision.phi:.4g} (log phi = {self.precision.log_phi:.4f}, "
            f"std_err {self.precision.log_phi_std_err:.4f})",
            f"log-likelihood = {self.log_likelihood:.4f}; converged = {self.converged}",
            f"likelihood-ratio test of {lr.term} (assumes independent rows): chi2({lr.df}) = {lr.statistic:.4f}, "
            f"p = {lr.p_value:.4g}",
        ]
        return "\n".join(lines)


def squeeze_boundary(y: np.ndarray) -> np.ndarray:
    """Smithson & Verkuilen (2006): ``(y (n - 1) + 0.5) / n`` maps [0, 1] into (0, 1)."""
    n = len(y)
    return (y * (n - 1) + 0.5) / n


def infer_reference_level(factor: str, labels: Sequence[str | None]) -> str:
    """The reference level of ``factor`` ("group" or "gender") when the labels leave no doubt.

    It is the one level found that is in ``KNOWN_REFERENCE_LEVELS[factor]`` (the
    EECs' "European"/"Anglo", and "male"), when exactly two levels are found and
    exactly one of them is known. Otherwise :class:`InputError` names the levels
    found and asks for ``reference_<factor>``.
    """
    if factor not in KNOWN_REFERENCE_LEVELS:
        raise InputError(f"factor must be one of {sorted(KNOWN_REFERENCE_LEVELS)}, got {factor!r}")
    levels = sorted({label for label in labels if not is_missing(label)})
    known = [level for level in levels if level in KNOWN_REFERENCE_LEVELS[factor]]
    if len(levels) == 2 and len(known) == 1:
        return known[0]
    raise InputError(
        f"cannot tell the reference level of {factor} from the levels found {levels}: "
        f"pass reference_{factor}=<the level coded 0>"
    )


def clusters_from_columns(
    cov_type: str, cluster_by: str | Sequence[str] | None, columns: Mapping[str, Sequence | None]
) -> dict[str, Sequence] | None:
    """The ``clusters`` argument of :func:`fit_intersectional` from named per-row columns.

    ``columns`` maps each of ``CLUSTER_COLUMNS`` to its per-row labels or None (not given).
    With ``cov_type="model"`` the result is None and ``cluster_by`` must be None. With
    ``cov_type="cluster"``, ``cluster_by`` names one or two columns (a string is one name;
    None means ``"template_id"``), each of which must be given.
    """
    if cov_type not in COV_TYPES:
        raise InputError(f"cov_type must be one of {list(COV_TYPES)}, got {cov_type!r}")
    if cov_type == "model":
        if cluster_by is not None:
            raise InputError(f"cluster_by={cluster_by!r} needs cov_type='cluster' (cov_type is 'model')")
        return None
    names = ["template_id"] if cluster_by is None else [cluster_by] if isinstance(cluster_by, str) else cluster_by
    if not isinstance(names, Sequence) or not 1 <= len(names) <= 2 or len(set(names)) != len(names):
        raise InputError(
            f"cluster_by must name one or two distinct columns of {list(CLUSTER_COLUMNS)}, got {cluster_by!r}"
        )
    for name in names:
        if name not in CLUSTER_COLUMNS:
            raise InputError(f"cluster_by names {name!r}, which is not one of {list(CLUSTER_COLUMNS)}")
        if columns.get(name) is None:
            raise InputError(
                f"cov_type='cluster' with cluster_by={list(names)} needs the per-row {name}= labels, "
                "which were not given"
            )
    return {name: columns[name] for name in names}


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
    """Fit ``logit(E[y]) = b0 + b1 minority + b2 female + b3 minority female`` with log-linked precision.

    Args:
        y: predicted intensities in [0, 1], one per row.
        group: the row's group label, or None for rows without one (left out; counted in ``n_excluded``).
        gender: the row's gender label (two levels among the fitted rows).
        reference_group: the group level coded 0 (``minority = group != reference_group``).
        reference_gender: the gender level coded 0 (``female = gender != reference_gender``).
        use_t: None (default): z tests with model-based SEs, t(G - 1) with clustered SEs; True: t tests
            (n - 4 df model-based, G - 1 clustered); False: z tests. Must be a bool or None.
        boundary: ``"squeeze"`` (default; exact 0/1 trigger the Smithson-Verkuilen squeeze of all
            fitted values and a :class:`BetaRegressionWarning`) or ``"error"``.
        cov_type: ``"model"`` (default; inverse expected information, as R betareg and the paper) or
            ``"cluster"`` (CR1 sandwich; see the module docstring).
        clusters: with ``cov_type="cluster"``, one or two named per-row label sequences (same length as
            ``y``, e.g. ``{"template_id": [...]}`` or ``{"template_id": [...], "person": [...]}``); two
            give Cameron-Gelbach-Miller two-way clustering. Rows without a group may carry None.

    Returns:
        :class:`IntersectionalBetaRegression` (see the module docstring for every convention).

    Raises:
        InputError: mismatched lengths, non-finite or out-of-range y, boundary values with
            ``boundary="error"``, a factor with one level or more than two, an unknown reference
            level, fewer than ``MIN_ROWS_PER_CELL`` rows in a group x gender cell, y constant or
            nearly constant within the cells, ``use_t`` that is not a bool, a bad ``cov_type`` or
            ``clusters`` (wrong length, a missing label on a fitted row, fewer than 2 clusters).
    """
    if boundary not in BOUNDARY_MODES:
        raise InputError(f"boundary must be one of {list(BOUNDARY_MODES)}, got {boundary!r}")
    if use_t is not None and not isinstance(use_t, (bool, np.bool_)):
        raise InputError(f"use_t must be True, False or None, got {use_t!r} ({type(use_t).__name__})")
    if cov_type not in COV_TYPES:
        raise InputError(f"cov_type must be one of {list(COV_TYPES)}, got {cov_type!r}")
    y_all, group, gender = _validate_rows(y, group, gender)
    fitted = np.array([not is_missing(label) for label in group])
    cluster_codes = _cluster_codes(cov_type, clusters, len(y_all), fitted)
    y_fit = y_all[fitted]
    minority, group_levels = _indicator(
        "group", [g for g, keep in zip(group, fitted, strict=True) if keep], reference_group
    )
    female, gender_levels = _indicator(
        "gender", [g for g, keep in zip(gender, fitted, strict=True) if keep], reference_gender
    )
    _check_cells(minority, female, group_levels, gender_levels)
    y_fit, squeezed = _handle_boundary(y_fit, boundary)
    _check_within_cell_variation(y_fit, minority, female)

    n = len(y_fit)
    design = np.column_stack([np.ones(n), minority, female, minority * female])
    model, params, cov, log_likelihood, converged = _fit_beta(y_fit, design)
    _, _, _, reduced_log_likelihood, reduced_converged = _fit_beta(y_fit, design[:, :3])
    converged = converged and reduced_converged
    if not converged:
        warnings.warn(
            f"the Beta regression did not converge (n = {n}); estimates are not at the optimum",
            BetaRegressionWarning,
            stacklevel=2,
        )
    n_clusters: tuple[int, ...] = ()
    if cluster_codes is not None:
        cov = cluster_robust_covariance(
            model.score_obs(params), model.hessian(params, observed=True), list(cluster_codes.values())
        )
        n_clusters = tuple(int(codes.max()) + 1 for codes in cluster_codes.values())

    std_err = np.sqrt(np.diag(cov))
    if use_t is None:
        use_t = cov_type == "cluster"
    df = (min(n_clusters) - 1 if n_clusters else n - len(TERMS)) if use_t else None
    reference = stats.t(df) if use_t else stats.norm()
    levels = _Levels(
        group_levels, gender_levels, share_female=float(female.mean()), share_minority=float(minority.mean())
    )
    effects = _effects(params[:4], cov[:4, :4], levels, reference)
    coefficients = tuple(
        Coefficient(
            term=term,
            contrast=levels.coefficient_contrast(term),
            **_wald(float(params[k]), float(std_err[k]), reference, statistic_name="z"),
        )
        for k, term in enumerate(TERMS)
    )
    lr_statistic = max(0.0, 2 * (log_likelihood - reduced_log_likelihood))
    predicted = _cell_means(params[:4])
    cells = tuple(
        Cell(
            group=group_levels[m],
            gender=gender_levels[f],
            n=int(np.sum((minority == m) & (female == f))),
            observed_mean=float(np.mean(y_fit[(minority == m) & (female == f)])),
            predicted_mean=float(predicted[c]),
        )
        for c, (m, f) in enumerate(CELLS)
    )
    return IntersectionalBetaRegression(
        coefficients=coefficients,
        effects=effects,
        precision=Precision(
            phi=float(math.exp(params[4])), log_phi=float(params[4]), log_phi_std_err=float(std_err[4])
        ),
        log_likelihood=float(log_likelihood),
        n=n,
        n_excluded=int(len(y_all) - n),
        converged=bool(converged),
        test="t" if use_t else "z",
        df=df,
        cov_type=cov_type,
        cluster_by=tuple(cluster_codes) if cluster_codes is not None else (),
        n_clusters=n_clusters,
        covariance=tuple(tuple(float(v) for v in row) for row in cov),
        group_levels=group_levels,
        gender_levels=gender_levels,
        cells=cells,
        intersection_lr_test=LikelihoodRatioTest(
            term="group:gender",
            statistic=float(lr_statistic),
            df=1,
            p_value=float(stats.chi2.sf(lr_statistic, 1)),
            log_likelihood_reduced=float(reduced_log_likelihood),
        ),
        squeezed=squeezed,
    )


def cluster_robust_covariance(
    score_obs: np.ndarray, hessian: np.ndarray, cluster_codes: Sequence[np.ndarray]
) -> np.ndarray:
    """CR1 cluster-robust covariance from per-row scores and the Hessian of the log-likelihood.

    One-way (one code array): ``c H^{-1} (sum_g s_g s_g') H^{-1}`` with ``s_g`` the sum of the rows'
    scores in cluster ``g`` and ``c = G / (G - 1) * (n - 1) / (n - k)``. Two-way (two code arrays;
    Cameron, Gelbach & Miller 2011): ``V_1 + V_2 - V_12``, ``V_12`` clustered by the pairs of codes,
    each term with its own ``c``; negative eigenvalues of the sum are set to 0.
    ``cluster_codes`` hold integer codes ``0 .. G - 1`` per row.
    """
    n, k = score_obs.shape
    bread = np.linalg.inv(-hessian)

    def one_way(codes: np.ndarray) -> np.ndarray:
        n_clusters = int(codes.max()) + 1
        sums = np.zeros((n_clusters, k))
        np.add.at(sums, codes, score_obs)
        correction = n_clusters / (n_clusters - 1) * (n - 1) / (n - k)
        return correction * bread @ (sums.T @ sums) @ bread

    if len(cluster_codes) == 1:
        return one_way(cluster_codes[0])
    first, second = cluster_codes
    _, pairs = np.unique(np.column_stack([first, second]), axis=0, return_inverse=True)
    cov = one_way(first) + one_way(second) - one_way(pairs.ravel())
    cov = (cov + cov.T) / 2
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    return (eigenvectors * np.maximum(eigenvalues, 0.0)) @ eigenvectors.T


@dataclass(frozen=True)
class _Levels:
    """The level names and covariate shares that the effects' words and weights need."""

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
            "group": f"logit difference, {minority} vs {reference}, among {men} (the reference gender)",
            "gender": f"logit difference, {women} vs {men}, within {reference} (the reference group)",
            "group:gender": f"difference of logit differences: ({minority} {women} - {minority} {men}) "
            f"- ({reference} {women} - {reference} {men})",
        }[term]

    def effects(self) -> tuple[tuple[str, str, str, str, tuple[float, float, float, float]], ...]:
        """(name, term, kind, contrast, weights over CELLS) for every effect of ``EFFECTS``."""
        (reference, minority), (men, women) = self.group_levels, self.people
        p_f, p_m = self.share_female, self.share_minority
        return (
            ("group_within_reference_gender", "group", "conditional", f"{minority} vs {reference}, among {men}",
             (-1.0, 0.0, 1.0, 0.0)),
            ("group_within_other_gender", "group", "conditional", f"{minority} vs {reference}, among {women}",
             (0.0, -1.0, 0.0, 1.0)),
            ("gender_within_reference_group", "gender", "conditional", f"{women} vs {men}, within {reference}",
             (-1.0, 1.0, 0.0, 0.0)),
            ("gender_within_other_group", "gender", "conditional", f"{women} vs {men}, within {minority}",
             (0.0, 0.0, -1.0, 1.0)),
            ("group_ame", "group", "average",
             f"{minority} vs {reference}, averaged over the fitted rows ({p_f:.0%} {women})",
             (-(1 - p_f), -p_f, 1 - p_f, p_f)),
            ("gender_ame", "gender", "average",
             f"{women} vs {men}, averaged over the fitted rows ({p_m:.0%} {minority})",
             (-(1 - p_m), 1 - p_m, -p_m, p_m)),
            ("group:gender_did", "group:gender", "difference-in-differences",
             f"({minority} {women} - {minority} {men}) - ({reference} {women} - {reference} {men})",
             (1.0, -1.0, -1.0, 1.0)),
        )  # fmt: skip


def _effects(mean_params: np.ndarray, mean_cov: np.ndarray, levels: _Levels, reference) -> tuple[Effect, ...]:
    """Each effect ``w . mu`` with delta-method std_err ``sqrt(d' V d)``, ``d = sum_c w_c mu_c (1 - mu_c) x_c``."""
    mu = _cell_means(mean_params)
    cell_design = np.array([[1.0, m, f, m * f] for m, f in CELLS])
    jacobian = (mu * (1 - mu))[:, None] * cell_design  # d mu_c / d b
    effects = []
    for name, term, kind, contrast, weights in levels.effects():
        w = np.asarray(weights)
        gradient = w @ jacobian
        std_err = float(math.sqrt(max(gradient @ mean_cov @ gradient, 0.0)))
        effects.append(
            Effect(
                name=name,
                term=term,
                kind=kind,
                contrast=contrast,
                **_wald(float(w @ mu), std_err, reference, statistic_name="statistic"),
            )
        )
    return tuple(effects)


def _wald(estimate: float, std_err: float, reference, statistic_name: str) -> dict:
    """estimate, std_err, the ratio (named ``statistic_name``), two-sided p, 95 % interval and stars."""
    if not std_err > 0:
        raise InputError(
            f"a standard error is {std_err!r}: the covariance is singular (e.g. two-way clusters that explain "
            "every row); use one-way clustering or cov_type='model'"
        )
    ratio = estimate / std_err
    p_value = float(2 * reference.sf(abs(ratio)))
    critical = reference.ppf(0.5 + CONFIDENCE / 2)
    return {
        "estimate": estimate,
        "std_err": std_err,
        statistic_name: float(ratio),
        "p_value": p_value,
        "ci_low": float(estimate - critical * std_err),
        "ci_high": float(estimate + critical * std_err),
        "stars": significance_stars(p_value),
    }


def _validate_rows(y, group, gender) -> tuple[np.ndarray, list, list]:
    try:
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as error:
        raise InputError(f"predictions must be numbers: {error}") from None
    if y.ndim != 1:
        raise InputError(f"predictions must be one-dimensional, got shape {y.shape}")
    group, gender = list(group), list(gender)
    if not len(y) == len(group) == len(gender):
        raise InputError(
            f"predictions, group and gender must have the same length, got {len(y)}, {len(group)} and {len(gender)}"
        )
    bad = ~np.isfinite(y)
    if bad.any():
        raise InputError(
            f"{int(bad.sum())} of {len(y)} predictions are NaN or infinite (first at row "
            f"{int(np.argmax(bad))}); the model must return a finite score for every sentence"
        )
    outside = (y < 0) | (y > 1)
    if outside.any():
        raise InputError(
            f"{int(outside.sum())} of {len(y)} predictions are outside [0, 1] (min {y.min():.4g}, max {y.max():.4g}); "
            "Beta regression needs intensities in [0, 1]: clip or rescale them first"
        )
    for name, labels in (("group", group), ("gender", gender)):
        odd = sorted({type(label).__name__ for label in labels if not is_missing(label) and not isinstance(label, str)})
        if odd:
            raise InputError(f"{name} labels must be strings (or None), found values of type {odd}")
    missing_gender = sum(1 for g, s in zip(group, gender, strict=True) if not is_missing(g) and is_missing(s))
    if missing_gender:
        raise InputError(f"{missing_gender} rows have a group but no gender; every fitted row needs both")
    return y, group, gender


def _indicator(name: str, labels: list[str], reference: str) -> tuple[np.ndarray, tuple[str, str]]:
    levels = sorted(set(labels))
    if len(levels) != 2:
        what = {0: "no labels", 1: f"a single level {levels}"}.get(len(levels), f"{len(levels)} levels {levels}")
        raise InputError(
            f"{name} has {what} among the {len(labels)} rows with a group; the intersectional model needs exactly "
            f"two levels of {name}"
        )
    if reference not in levels:
        raise InputError(f"reference_{name}={reference!r} is not one of the {name} levels found {levels}")
    other = levels[1] if levels[0] == reference else levels[0]
    return np.array([label != reference for label in labels], dtype=float), (reference, other)


def _check_cells(minority, female, group_levels, gender_levels) -> None:
    counts = {
        f"{group_levels[m]}/{gender_levels[f]}": int(np.sum((minority == m) & (female == f)))
        for m in (0, 1)
        for f in (0, 1)
    }
    if min(counts.values()) < MIN_ROWS_PER_CELL:
        raise InputError(f"too few rows: every group x gender cell needs at least {MIN_ROWS_PER_CELL}, found {counts}")


def _handle_boundary(y: np.ndarray, boundary: str) -> tuple[np.ndarray, bool]:
    at_boundary = int(np.sum((y == 0) | (y == 1)))
    if not at_boundary:
        return y, False
    if boundary == "error":
        raise InputError(
            f"{at_boundary} of {len(y)} predictions are exactly 0 or 1, which a Beta distribution cannot take; "
            'pass boundary="squeeze" to apply (y (n - 1) + 0.5) / n (Smithson & Verkuilen 2006)'
        )
    warnings.warn(
        f"{at_boundary} of {len(y)} predictions are exactly 0 or 1: all {len(y)} were squeezed with "
        "(y (n - 1) + 0.5) / n (Smithson & Verkuilen 2006)",
        BetaRegressionWarning,
        stacklevel=3,
    )
    return squeeze_boundary(y), True


def _check_within_cell_variation(y, minority, female) -> None:
    in_cell = [(minority == m) & (female == f) for m, f in CELLS]
    residuals = np.concatenate([y[rows] - y[rows].mean() for rows in in_cell])
    if not np.any(residuals):
        raise InputError(
            "predictions are constant within every group x gender cell: the precision is infinite and the "
            "Beta regression has no maximum; the scorer must vary across sentences"
        )
    within_variance = float(residuals @ residuals) / (len(y) - len(CELLS))
    cell_mean = np.concatenate([np.full(rows.sum(), y[rows].mean()) for rows in in_cell])
    implied_precision = float(np.mean(cell_mean * (1 - cell_mean))) / within_variance - 1
    if implied_precision > MAX_PRECISION:
        largest_range = max(float(np.ptp(y[rows])) for rows in in_cell)
        raise InputError(
            f"predictions barely vary within the group x gender cells (largest within-cell range "
            f"{largest_range:.3g}, pooled within-cell SD {math.sqrt(within_variance):.3g}): the implied Beta "
            f"precision ~{implied_precision:.3g} exceeds {MAX_PRECISION:.0e}, past which the likelihood is "
            "dominated by rounding and has no usable maximum; the scorer must vary across sentences"
        )


def _cluster_codes(cov_type: str, clusters, n_rows: int, fitted: np.ndarray) -> dict[str, np.ndarray] | None:
    """Integer codes ``0 .. G - 1`` of each clustering over the fitted rows (validated), or None for model SEs."""
    if cov_type == "model":
        if clusters is not None:
            raise InputError("clusters were given with cov_type='model': pass cov_type='cluster' to use them")
        return None
    if not isinstance(clusters, Mapping) or not 1 <= len(clusters) <= 2:
        raise InputError(
            "cov_type='cluster' needs clusters={name: per-row labels} with one or two entries "
            f"(e.g. {{'template_id': [...]}}), got {type(clusters).__name__}"
            + (f" with {len(clusters)} entries" if isinstance(clusters, Mapping) else "")
        )
    codes = {}
    for name, labels in clusters.items():
        labels = None if isinstance(labels, str | bytes) or not hasattr(labels, "__len__") else list(labels)
        if labels is None or len(labels) != n_rows:
            found = "not a sequence" if labels is None else f"{len(labels)} labels"
            raise InputError(f"clusters[{name!r}] must hold one label per row ({n_rows}), got {found}")
        kept = [label for label, keep in zip(labels, fitted, strict=True) if keep]
        missing = sum(is_missing(label) for label in kept)
        if missing:
            raise InputError(f"clusters[{name!r}] has {missing} missing labels on rows with a group; label every row")
        try:
            index = {label: i for i, label in enumerate(dict.fromkeys(kept))}
        except TypeError as error:
            raise InputError(f"clusters[{name!r}] labels must be hashable (strings or numbers): {error}") from None
        if len(index) < 2:
            raise InputError(
                f"clusters[{name!r}] has {len(index)} cluster among the fitted rows; clustering needs at least 2 "
                "(and many more for reliable standard errors)"
            )
        codes[str(name)] = np.array([index[label] for label in kept])
    return codes


def _fit_beta(y: np.ndarray, design: np.ndarray) -> tuple[BetaModel, np.ndarray, np.ndarray, float, bool]:
    """MLE of a Beta regression with constant log-linked precision: model, params, model-based covariance,
    log-likelihood, converged (the relative Newton-decrement criterion of the module docstring)."""
    model = BetaModel(y, design)
    # The optimiser's own warnings and flag (overflow on a wild step, a ConvergenceWarning when
    # the parameter steps stall at rounding level) are replaced by the converged criterion.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = model.fit(method="newton", cov_type="eim", maxiter=100, tol=1e-12, disp=False)
        params = np.asarray(result.params, dtype=float)
        cov = np.asarray(result.cov_params(), dtype=float)
        log_likelihood = float(result.llf)
        score = model.score(params)
        hessian = model.hessian(params, observed=True)
    finite = bool(np.all(np.isfinite(params)) and np.all(np.isfinite(cov)) and math.isfinite(log_likelihood))
    if not finite:
        raise InputError(
            "the Beta regression failed numerically (non-finite estimates); check that the predictions vary "
            "within the group x gender cells and are not all at one boundary"
        )
    try:
        cholesky = np.linalg.cholesky(-hessian)
        decrement = float(np.sum(np.linalg.solve(cholesky, score) ** 2))  # g' (-H)^{-1} g
    except np.linalg.LinAlgError:
        decrement = math.inf
    converged = decrement <= DECREMENT_TOLERANCE * (1 + abs(log_likelihood))
    return model, params, cov, log_likelihood, converged


def _cell_means(mean_params: np.ndarray) -> np.ndarray:
    """``mu(m, f) = logistic(b0 + b1 m + b2 f + b3 m f)`` for the four ``CELLS``."""
    b0, b1, b2, b3 = mean_params
    return np.array([expit(b0 + b1 * m + b2 * f + b3 * m * f) for m, f in CELLS])
