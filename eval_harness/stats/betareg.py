"""Intersectional Beta regression of predicted intensities (Câmara et al. 2022).

For predictions ``y_i`` in (0, 1) on sentences that name a person of one of two
groups and one of two genders, fit by maximum likelihood

    y_i ~ Beta(mu_i * phi, (1 - mu_i) * phi)
    logit(mu_i) = b0 + b1 * minority_i + b2 * female_i + b3 * minority_i * female_i
    log(phi)    = g0

(Ferrari & Cribari-Neto 2004; R ``betareg`` with ``link.phi = "log"``), where
``minority_i = 1`` when the row's group is not ``reference_group`` and
``female_i = 1`` when its gender is not ``reference_gender``. ``E[y_i] = mu_i`` and
``Var[y_i] = mu_i (1 - mu_i) / (1 + phi)``.

Conventions:

* Fit: statsmodels ``BetaModel`` with Newton-type steps on the expected
  information (Fisher scoring), run to a gradient of ~1e-10 rather than the
  default BFGS, which stops ~1e-5 short of the optimum. ``converged`` is true
  only when the optimiser says so and the largest absolute score per row is
  below ``SCORE_TOLERANCE``.
* Standard errors: inverse expected information at the optimum (as R betareg).
* Tests: Wald ``z = estimate / std_err`` against the standard normal (as R
  betareg); with ``use_t=True`` the same ratio against Student's t with
  ``n - 4`` degrees of freedom (the paper's "two-sided t-test"; 4 = mean
  coefficients). p-values are two-sided; confidence intervals are 95 %.
  Stars as in the paper: ``***`` p <= 0.01, ``**`` p <= 0.05, ``*`` p <= 0.10.
* Rows whose group is missing (``None``; the EEC's noun-phrase sentences such as
  "my mother") carry no group and are left out; their count is ``n_excluded``.
* Exact 0 or 1 cannot be Beta distributed: by default every fitted value is
  squeezed, ``y' = (y (n - 1) + 0.5) / n`` (Smithson & Verkuilen 2006), with a
  warning; ``boundary="error"`` refuses instead.
* Marginal effects are on the predicted-intensity scale, with
  ``mu(m, f) = logistic(b0 + b1 m + b2 f + b3 m f)``:

  - ``intercept``: ``mu(0, 0)``, the predicted mean of the reference cell (the
    level every other effect is read against; not a difference);
  - ``group``: ``mean_i [mu(1, f_i) - mu(0, f_i)]``, the average over the fitted
    rows of the change in predicted mean when the row's minority indicator is
    switched from 0 to 1 holding its gender (the interaction applies for
    female rows);
  - ``gender``: ``mean_i [mu(m_i, 1) - mu(m_i, 0)]``, likewise for gender;
  - ``group:gender``: ``[mu(1, 1) - mu(1, 0)] - [mu(0, 1) - mu(0, 0)]``, the
    difference-in-differences: how much more the minority-female cell differs
    from the reference than the group and gender differences add up to. It is
    the same for every row, so its average over the rows is itself.

* Likelihood-ratio test of the intersection: ``2 (l_full - l_without_b3)``
  against chi-squared with 1 degree of freedom.
"""

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats
from scipy.special import expit
from statsmodels.othermod.betareg import BetaModel

from ..errors import InputError

TERMS = ("intercept", "group", "gender", "group:gender")
BOUNDARY_MODES = ("squeeze", "error")
# The non-minority group levels of the shipped EECs and the male gender level: the
# only levels a caller may leave implicit (see infer_reference_level).
KNOWN_REFERENCE_LEVELS = {"group": ("European", "Anglo"), "gender": ("male",)}
MIN_ROWS_PER_CELL = 2
SCORE_TOLERANCE = 1e-8
CONFIDENCE = 0.95
STAR_THRESHOLDS = ((0.01, "***"), (0.05, "**"), (0.10, "*"))


class BetaRegressionWarning(UserWarning):
    """The data were changed (boundary squeeze) or the fit did not converge."""


class _Record:
    """A frozen dataclass whose to_dict() is its fields as a plain dict."""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Coefficient(_Record):
    """One term of the mean model; ``z`` is estimate / std_err (compared with t when use_t)."""

    term: str
    estimate: float
    std_err: float
    z: float
    p_value: float
    ci_low: float
    ci_high: float
    stars: str
    marginal_effect: float


@dataclass(frozen=True)
class Precision(_Record):
    """The fitted precision ``phi`` and its log (the estimated parameter, with its std_err)."""

    phi: float
    log_phi: float
    log_phi_std_err: float


@dataclass(frozen=True)
class LikelihoodRatioTest(_Record):
    """``statistic = 2 (log_likelihood_full - log_likelihood_reduced)`` ~ chi2(df) for dropping ``term``."""

    term: str
    statistic: float
    df: int
    p_value: float
    log_likelihood_reduced: float


@dataclass(frozen=True)
class Cell(_Record):
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
    ``test`` is ``"z"`` or ``"t"``; ``df`` is the t degrees of freedom (None for z).
    ``squeezed`` says whether the boundary squeeze changed the data.
    """

    coefficients: tuple[Coefficient, ...]
    precision: Precision
    log_likelihood: float
    n: int
    n_excluded: int
    converged: bool
    test: str
    df: int | None
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

    def to_dict(self) -> dict:
        """Plain nested dict: ``["coefficients"][term]`` -> the fields of :class:`Coefficient` except term."""
        result = asdict(self)
        result["coefficients"] = {
            c.term: {k: v for k, v in c.to_dict().items() if k != "term"} for c in self.coefficients
        }
        result["group_levels"] = list(self.group_levels)
        result["gender_levels"] = list(self.gender_levels)
        result["cells"] = [cell.to_dict() for cell in self.cells]
        return result

    def summary(self) -> str:
        """A readable table of the coefficients, the precision and the tests."""
        ci_percent = f"{CONFIDENCE:.0%}"
        lines = [
            "Intersectional Beta regression: logit(mean) = intercept + group + gender + group:gender, log(precision)",
            f"group: {self.group_levels[1]} = 1 (reference {self.group_levels[0]}); "
            f"gender: {self.gender_levels[1]} = 1 (reference {self.gender_levels[0]})",
            f"n = {self.n} ({self.n_excluded} rows without a group excluded)"
            + ("; boundary values squeezed" if self.squeezed else ""),
            "",
            f"{'term':<14}{'estimate':>10}{'std_err':>10}{self.test:>9}{'p_value':>10}"
            f"{ci_percent + ' CI':>22}  {'stars':<6}{'marginal_effect':>16}",
        ]
        for c in self.coefficients:
            ci = f"[{c.ci_low:.4f}, {c.ci_high:.4f}]"
            lines.append(
                f"{c.term:<14}{c.estimate:>10.4f}{c.std_err:>10.4f}{c.z:>9.3f}{c.p_value:>10.4f}"
                f"{ci:>22}  {c.stars:<6}{c.marginal_effect:>16.4f}"
            )
        lr = self.intersection_lr_test
        lines += [
            "",
            f"precision phi = {self.precision.phi:.4g} (log phi = {self.precision.log_phi:.4f}, "
            f"std_err {self.precision.log_phi_std_err:.4f})",
            f"log-likelihood = {self.log_likelihood:.4f}; converged = {self.converged}"
            + (f"; t tests with df = {self.df}" if self.test == "t" else "; z tests"),
            f"likelihood-ratio test of {lr.term}: chi2({lr.df}) = {lr.statistic:.4f}, p = {lr.p_value:.4g}",
            "marginal_effect: intercept = predicted mean of the reference cell; group/gender = average change in "
            "predicted mean; group:gender = difference-in-differences of predicted means",
        ]
        return "\n".join(lines)


def significance_stars(p_value: float) -> str:
    """The paper's stars: ``***`` p <= 0.01, ``**`` p <= 0.05, ``*`` p <= 0.10, else ``""``."""
    for threshold, stars in STAR_THRESHOLDS:
        if p_value <= threshold:
            return stars
    return ""


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
    levels = sorted({label for label in labels if not _is_missing(label)})
    known = [level for level in levels if level in KNOWN_REFERENCE_LEVELS[factor]]
    if len(levels) == 2 and len(known) == 1:
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
    use_t: bool = False,
    boundary: str = "squeeze",
) -> IntersectionalBetaRegression:
    """Fit ``logit(E[y]) = b0 + b1 minority + b2 female + b3 minority female`` with log-linked precision.

    Args:
        y: predicted intensities in [0, 1], one per row.
        group: the row's group label, or None for rows without one (left out; counted in ``n_excluded``).
        gender: the row's gender label (two levels among the fitted rows).
        reference_group: the group level coded 0 (``minority = group != reference_group``).
        reference_gender: the gender level coded 0 (``female = gender != reference_gender``).
        use_t: compare estimate / std_err with t(n - 4) instead of the standard normal.
        boundary: ``"squeeze"`` (default; exact 0/1 trigger the Smithson-Verkuilen squeeze of all
            fitted values and a :class:`BetaRegressionWarning`) or ``"error"``.

    Returns:
        :class:`IntersectionalBetaRegression` (see the module docstring for every convention).

    Raises:
        InputError: mismatched lengths, non-finite or out-of-range y, boundary values with
            ``boundary="error"``, a factor with one level or more than two, an unknown reference
            level, fewer than ``MIN_ROWS_PER_CELL`` rows in a group x gender cell, or y constant
            within every cell.
    """
    if boundary not in BOUNDARY_MODES:
        raise InputError(f"boundary must be one of {list(BOUNDARY_MODES)}, got {boundary!r}")
    y_all, group, gender = _validate_rows(y, group, gender)
    fitted = np.array([not _is_missing(label) for label in group])
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
    params, cov, log_likelihood, converged = _fit_beta(y_fit, design)
    _, _, reduced_log_likelihood, reduced_converged = _fit_beta(y_fit, design[:, :3])
    converged = converged and reduced_converged
    if not converged:
        warnings.warn(
            f"the Beta regression did not converge (n = {n}); estimates are not at the optimum",
            BetaRegressionWarning,
            stacklevel=2,
        )

    std_err = np.sqrt(np.diag(cov))
    df = n - len(TERMS) if use_t else None
    reference = stats.t(df) if use_t else stats.norm()
    critical = reference.ppf(0.5 + CONFIDENCE / 2)
    effects = _marginal_effects(params[:4], minority, female)
    coefficients = []
    for k, term in enumerate(TERMS):
        ratio = params[k] / std_err[k]
        p_value = float(2 * reference.sf(abs(ratio)))
        coefficients.append(
            Coefficient(
                term=term,
                estimate=float(params[k]),
                std_err=float(std_err[k]),
                z=float(ratio),
                p_value=p_value,
                ci_low=float(params[k] - critical * std_err[k]),
                ci_high=float(params[k] + critical * std_err[k]),
                stars=significance_stars(p_value),
                marginal_effect=float(effects[k]),
            )
        )
    lr_statistic = max(0.0, 2 * (log_likelihood - reduced_log_likelihood))
    cells = tuple(
        Cell(
            group=group_levels[m],
            gender=gender_levels[f],
            n=int(np.sum((minority == m) & (female == f))),
            observed_mean=float(np.mean(y_fit[(minority == m) & (female == f)])),
            predicted_mean=float(_cell_mean(params[:4], m, f)),
        )
        for m in (0, 1)
        for f in (0, 1)
    )
    return IntersectionalBetaRegression(
        coefficients=tuple(coefficients),
        precision=Precision(
            phi=float(math.exp(params[4])), log_phi=float(params[4]), log_phi_std_err=float(std_err[4])
        ),
        log_likelihood=float(log_likelihood),
        n=n,
        n_excluded=int(len(y_all) - n),
        converged=bool(converged),
        test="t" if use_t else "z",
        df=df,
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


def _is_missing(label) -> bool:
    # None, or the float NaN pandas uses for a missing string.
    return label is None or (isinstance(label, float) and math.isnan(label))


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
        odd = sorted(
            {type(label).__name__ for label in labels if not _is_missing(label) and not isinstance(label, str)}
        )
        if odd:
            raise InputError(f"{name} labels must be strings (or None), found values of type {odd}")
    missing_gender = sum(1 for g, s in zip(group, gender, strict=True) if not _is_missing(g) and _is_missing(s))
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
    spread = sum(np.ptp(y[(minority == m) & (female == f)]) for m in (0, 1) for f in (0, 1))
    if spread == 0:
        raise InputError(
            "predictions are constant within every group x gender cell: the precision is infinite and the "
            "Beta regression has no maximum; the scorer must vary across sentences"
        )


def _fit_beta(y: np.ndarray, design: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """MLE of a Beta regression with constant log-linked precision: params, covariance, log-likelihood, converged."""
    model = BetaModel(y, design)
    # The optimiser's own warnings (overflow on a wild step, ConvergenceWarning) are
    # replaced by the converged flag, which also checks the score at the optimum.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = model.fit(method="newton", cov_type="eim", maxiter=200, tol=1e-12, disp=False)
        params = np.asarray(result.params, dtype=float)
        cov = np.asarray(result.cov_params(), dtype=float)
        score = model.score(params)
    converged = (
        bool(result.mle_retvals.get("converged", False))
        and bool(np.all(np.isfinite(params)))
        and bool(np.all(np.isfinite(cov)))
        and float(np.max(np.abs(score))) / len(y) < SCORE_TOLERANCE
    )
    return params, cov, float(result.llf), converged


def _cell_mean(mean_params: np.ndarray, minority, female):
    b0, b1, b2, b3 = mean_params
    return expit(b0 + b1 * minority + b2 * female + b3 * minority * female)


def _marginal_effects(mean_params: np.ndarray, minority: np.ndarray, female: np.ndarray) -> np.ndarray:
    """The marginal effects of the module docstring, in ``TERMS`` order."""
    mu = {(m, f): _cell_mean(mean_params, m, f) for m in (0, 1) for f in (0, 1)}
    group_effect = np.mean(np.where(female == 1, mu[1, 1] - mu[0, 1], mu[1, 0] - mu[0, 0]))
    gender_effect = np.mean(np.where(minority == 1, mu[1, 1] - mu[1, 0], mu[0, 1] - mu[0, 0]))
    interaction = (mu[1, 1] - mu[1, 0]) - (mu[0, 1] - mu[0, 0])
    return np.array([mu[0, 0], group_effect, gender_effect, interaction])
