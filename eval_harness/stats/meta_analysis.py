r"""Random-effects meta-analysis with the DerSimonian–Laird estimator of the between-study variance.

Given :math:`k \ge 2` effect sizes :math:`\theta_i` with within-study variances :math:`v_i > 0`
(DerSimonian & Laird 1986; Borenstein et al. 2009, *Introduction to Meta-Analysis*, ch. 12):

- fixed-effect weights :math:`w_i = 1 / v_i`, fixed-effect mean
  :math:`\hat\theta_F = \sum w_i \theta_i / \sum w_i` with standard error :math:`1 / \sqrt{\sum
  w_i}`;
- heterogeneity :math:`Q = \sum w_i (\theta_i - \hat\theta_F)^2` on :math:`df = k - 1` degrees of
  freedom (its p-value from :math:`\chi^2_{df}`), and :math:`I^2 = \max(0, (Q - df) / Q)` (0 when
  :math:`Q = 0`);
- between-study variance :math:`\tau^2 = \max\big(0, (Q - df) / C\big)`,
  :math:`C = \sum w_i - \sum w_i^2 / \sum w_i`;
- random-effects weights :math:`w_i^* = 1 / (v_i + \tau^2)`, combined effect
  :math:`\hat\theta_R = \sum w_i^* \theta_i / \sum w_i^*`, standard error :math:`SE = 1 / \sqrt{\sum
  w_i^*}`,
  :math:`z = \hat\theta_R / SE` and its normal p-value: one-sided :math:`P(Z \ge z)` (``"greater"``,
  CEAT's code), ``"less"``, or two-sided :math:`2 P(Z \ge |z|)`.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .results import Result

ALTERNATIVES = ("greater", "less", "two-sided")


@dataclass(frozen=True)
class MetaAnalysisResult(Result):
    """A DerSimonian–Laird random-effects combination; ``to_dict()`` gives plain JSON-ready values.

    Attributes:
        combined_effect: the random-effects mean :math:`\\hat\\theta_R`.
        std_err: its standard error.
        z, p_value: the z statistic and its p-value (``alternative``).
        tau2: between-study variance (DerSimonian–Laird, truncated at 0).
        q, df, p_heterogeneity: Cochran's Q, its degrees of freedom ``k - 1`` and chi-squared
        p-value.
        i2: share of the variation due to heterogeneity, in [0, 1].
        fixed_effect, fixed_std_err: the fixed-effect (inverse-variance) mean and its standard
        error.
        n: the number of combined effects ``k``.
        alternative: ``"greater"``, ``"less"`` or ``"two-sided"``.
    """

    combined_effect: float
    std_err: float
    z: float
    p_value: float
    tau2: float
    q: float
    df: int
    p_heterogeneity: float
    i2: float
    fixed_effect: float
    fixed_std_err: float
    n: int
    alternative: str

    def summary(self) -> str:
        return (
            f"random effects (DerSimonian–Laird, k={self.n}): {self.combined_effect:.4f} "
            f"(SE {self.std_err:.4f}, z={self.z:.2f}, p={self.p_value:.3g} "
            f"{self.alternative}); tau^2={self.tau2:.4g}, Q={self.q:.2f} on {self.df} df "
            f"(p={self.p_heterogeneity:.3g}), I^2={self.i2:.1%}; fixed effect "
            f"{self.fixed_effect:.4f} (SE {self.fixed_std_err:.4f})"
        )


def dersimonian_laird(effects: np.ndarray, variances: np.ndarray) -> dict[str, np.ndarray]:
    """DerSimonian and Laird's sums (module docstring) along the last axis, unchecked.

    Many combinations at once: ``total`` (sum of the fixed weights), ``fixed``, ``q``, ``tau2``,
    ``random_total`` (sum of the random-effects weights) and ``combined``.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.meta_analysis import dersimonian_laird
    >>> sums = dersimonian_laird(np.array([0.2, 0.8, 0.5]), np.array([0.01, 0.02, 0.015]))
    >>> [round(float(sums[name]), 4) for name in ("fixed", "tau2", "combined")]
    [0.4308, 0.0756, 0.4889]
    """
    weights = 1.0 / variances
    total = weights.sum(axis=-1)
    fixed = (weights * effects).sum(axis=-1) / total
    q = (weights * (effects - fixed[..., None]) ** 2).sum(axis=-1)
    c = total - (weights**2).sum(axis=-1) / total
    tau2 = np.maximum(0.0, (q - (effects.shape[-1] - 1)) / c)
    random_weights = 1.0 / (variances + tau2[..., None])
    random_total = random_weights.sum(axis=-1)
    combined = (random_weights * effects).sum(axis=-1) / random_total
    return {
        "total": total,
        "fixed": fixed,
        "q": q,
        "tau2": tau2,
        "random_total": random_total,
        "combined": combined,
    }


def random_effects(effects, variances, alternative: str = "greater") -> MetaAnalysisResult:
    """Combine ``effects`` with within-study ``variances`` by a DerSimonian–Laird random-effects
    model.

    See the module docstring for every formula.

    Examples
    --------
    >>> from eval_harness.stats.meta_analysis import random_effects
    >>> m = random_effects([0.2, 0.8, 0.5], [0.01, 0.02, 0.015])
    >>> round(m.combined_effect, 4), round(m.std_err, 4), round(m.tau2, 4), round(m.p_value, 4)
    (0.4889, 0.1736, 0.0756, 0.0024)
    """
    effects = np.asarray(effects, dtype=np.float64)
    variances = np.asarray(variances, dtype=np.float64)
    if effects.ndim != 1 or variances.shape != effects.shape:
        raise InputError(
            "need one variance per effect, two 1-D arrays of one "
            f"length; got shapes {effects.shape} and {variances.shape}"
        )
    if len(effects) < 2:
        raise InputError(f"a random-effects model needs at least 2 effects; got {len(effects)}")
    if not (np.isfinite(effects).all() and np.isfinite(variances).all()):
        raise InputError("the effects and variances must be finite (no NaN or inf)")
    if not (variances > 0).all():
        raise InputError(
            f"every variance must be > 0; got {np.count_nonzero(variances <= 0)} that are not "
            "(a sample whose associations are all equal has no effect size)"
        )
    if alternative not in ALTERNATIVES:
        raise InputError(f"unknown alternative {alternative!r}; use one of {ALTERNATIVES}")
    parts = dersimonian_laird(effects, variances)
    fixed, q, tau2, combined = (float(parts[name]) for name in ("fixed", "q", "tau2", "combined"))
    total, df = float(parts["total"]), len(effects) - 1
    std_err = float(1.0 / np.sqrt(parts["random_total"]))
    z = combined / std_err
    from scipy import stats as scipy_stats  # scipy on use: `xbias list` and config checks load none

    if alternative == "greater":
        p_value = scipy_stats.norm.sf(z)
    elif alternative == "less":
        p_value = scipy_stats.norm.cdf(z)
    else:
        p_value = 2 * scipy_stats.norm.sf(abs(z))
    return MetaAnalysisResult(
        combined_effect=combined,
        std_err=std_err,
        z=float(z),
        p_value=float(p_value),
        tau2=float(tau2),
        q=q,
        df=df,
        p_heterogeneity=float(scipy_stats.chi2.sf(q, df)),
        i2=max(0.0, (q - df) / q) if q > 0 else 0.0,
        fixed_effect=fixed,
        fixed_std_err=float(1.0 / np.sqrt(total)),
        n=len(effects),
        alternative=alternative,
    )
