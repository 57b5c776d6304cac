"""How stable is each finding of a Beta regression under other reasonable templates and names?

A finding is a coefficient or an effect of :func:`~eval_harness.stats.factorial.fit_factorial` with
its test. Each resampling scheme refits the model on reweighted data and records, per finding, its
estimate and its test's verdict:

* ``template_bootstrap``: draw the templates with replacement (``n_bootstrap`` times); a template
  drawn twice counts twice in the likelihood and is two clusters in a template-clustered covariance
  (the cluster bootstrap).
* ``template_leave_one_out``: drop each template in turn.
* ``person_bootstrap``: draw the persons (names) with replacement within each design cell, when
  every person sits in one cell (as in an EEC, where a name carries its group and gender; otherwise
  over all persons).
* ``person_leave_one_out``: drop each person in turn (a resample that empties a cell is counted as
  failed).

Every scheme is a reweighting of per-block sums (a block: the rows of one cell, template and
person), so a resample costs one Newton fit on the cells' sums, and all resamples of a scheme are
fitted at once (:func:`~eval_harness.stats.beta_likelihood.fit_sums` is batched); each resample's
standard errors are those of the full fit (``cov_type``, ``cluster_by``), recomputed on the
resample.

Per finding and scheme: ``sign_kept``, the share of resamples whose estimate has the full fit's
sign; ``significance_kept``, the share whose verdict at ``alpha`` is the full fit's (significant
with the same sign when the full fit is significant, not significant when it is not); the estimates'
standard deviation and range (2.5 and 97.5 % percentiles for a bootstrap, min and max for
leave-one-out), and for leave-one-out the template or person whose removal moves the estimate most.
``template_share = v_T / (v_T + v_P)`` splits the estimate's variance between templates and names
(``v`` the variance over the template and the person bootstrap). A significant finding is
``fragile`` (default threshold ``FRAGILE_SHARE`` = 0.2, which a report states with the mark) when
its sign flips, or it stops being significant with that sign, in at least that share of the template
bootstrap's resamples. A non-significant finding claims nothing and is never fragile; its shares say
how often another choice of templates would have made it a finding.
"""

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import special

from ..errors import InputError
from . import beta_likelihood as likelihood
from . import factorial, label_coding
from .fit_options import MAX_BOOTSTRAP  # noqa: F401 (re-exported: the resamples' limit)
from .results import Result, keyed, named

SCHEMES = (
    "template_bootstrap",
    "template_leave_one_out",
    "person_bootstrap",
    "person_leave_one_out",
)
FRAGILE_SHARE = 0.2
TEMPLATES, PERSONS = "template_id", "person"


@dataclass(frozen=True)
class ResampleSummary(Result):
    """One finding under one scheme (module docstring). ``low``/``high``: the estimates' 2.5/97.5 %
    percentiles (bootstrap) or min/max (leave-one-out); ``most_influential`` the left-out label that
    moves the estimate most and ``estimate_without`` the estimate without it (leave-one-out only,
    else None)."""

    scheme: str
    n_resamples: int
    n_failed: int
    sign_kept: float
    significance_kept: float
    std_dev: float
    low: float
    high: float
    most_influential: str | None
    estimate_without: float | None


@dataclass(frozen=True)
class FindingStability(Result):
    """A coefficient or effect of the full fit (``name``, ``kind``: ``"coefficient"`` or the
    effect's kind), its ``estimate``, ``p_value`` and verdict (``significant`` at the stability's
    alpha), and one :class:`ResampleSummary` per scheme run; ``template_variance``,
    ``person_variance`` and ``template_share`` (None without the person bootstrap)."""

    name: str
    kind: str
    estimate: float
    p_value: float
    significant: bool
    resamples: tuple[ResampleSummary, ...]
    template_variance: float
    person_variance: float | None
    template_share: float | None

    def scheme(self, scheme: str) -> ResampleSummary:
        return named(self.resamples, scheme, "scheme", key="scheme")

    def fragile(self, threshold: float = FRAGILE_SHARE) -> bool:
        """Whether a significant finding's sign flips, or its verdict changes, in at least
        ``threshold`` of the template bootstrap's resamples (never for a non-significant finding;
        module docstring)."""
        boot = self.scheme("template_bootstrap")
        return is_fragile(self.significant, boot.sign_kept, boot.significance_kept, threshold)

    def to_dict(self) -> dict:
        result = asdict(self)
        result["resamples"] = keyed(self.resamples, key="scheme")
        return result


@dataclass(frozen=True)
class Stability(Result):
    """Result of :func:`resampling_stability`: the full ``fit``, the ``alpha`` of the verdicts,
    ``n_bootstrap``, the ``seed`` of the draws, and one :class:`FindingStability` per mean
    coefficient and per effect."""

    fit: factorial.FactorialBetaRegression
    alpha: float
    n_bootstrap: int
    seed: int
    findings: tuple[FindingStability, ...]

    def finding(self, name: str) -> FindingStability:
        """The finding called ``name`` (a coefficient's or an effect's name in ``fit``)."""
        return named(self.findings, name, "finding")

    def to_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "fit": self.fit.to_dict(),
            "findings": keyed(self.findings),
        }

    def summary(self, threshold: float = FRAGILE_SHARE) -> str:
        """One line per finding: estimate, p, and per scheme the shares that keep the sign / the
        verdict."""
        schemes = [s.scheme for s in self.findings[0].resamples]
        width = max(len(f.name) for f in self.findings) + 2
        short = {
            "template_bootstrap": "template boot",
            "template_leave_one_out": "template LOO",
            "person_bootstrap": "person boot",
            "person_leave_one_out": "person LOO",
        }
        lines = [
            f"Stability (alpha = {self.alpha}; per scheme: share of resamples "
            "keeping the sign / the verdict; ! fragile: a significant "
            f"finding whose sign or verdict changes in >= {threshold:.0%} of "
            f"the {self.n_bootstrap} template bootstrap resamples)",
            f"{'finding':<{width}}{'estimate':>10}{'p_value':>10}"
            + "".join(f"{short[s]:>16}" for s in schemes),
        ]
        for f in self.findings:
            cells = "".join(
                f"{f'{s.sign_kept:.0%} / {s.significance_kept:.0%}':>16}" for s in f.resamples
            )
            lines.append(
                f"{f.name:<{width}}{f.estimate:>10.4f}{f.p_value:>10.4f}"
                f"{cells}{' !' if f.fragile(threshold) else ''}"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class Resamples:
    """One scheme's resamples: block ``weights`` (R, B), the cluster ``copies`` per clustering name,
    and the label left out (leave-one-out) or None per resample."""

    scheme: str
    weights: np.ndarray
    copies: dict[str, np.ndarray]
    left_out: list | None


def is_fragile(significant, sign_kept, significance_kept, threshold: float = FRAGILE_SHARE):
    """The one rule of fragility, for any resampling (templates, names, word lists, prompts, seeds):
    a significant finding whose sign flips, or whose verdict changes, in at least ``threshold`` of
    the resamples. Scalars or numpy arrays (elementwise); a missing share (NaN) never makes a
    finding fragile.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.stability import is_fragile
    >>> is_fragile(True, sign_kept=0.75, significance_kept=0.95)
    True
    >>> significant = np.array([True, True, False])
    >>> is_fragile(significant, np.array([1.0, 0.9, 0.1]), np.array([0.9, 0.7, 0.1])).tolist()
    [False, True, False]
    """
    with np.errstate(invalid="ignore"):
        flips = np.asarray(1 - np.asarray(sign_kept, dtype=float) >= threshold - 1e-12)
        changes = np.asarray(1 - np.asarray(significance_kept, dtype=float) >= threshold - 1e-12)
    result = np.asarray(significant, dtype=bool) & (flips | changes)
    return bool(result) if result.ndim == 0 else result


def _bootstrap_counts(rng, n_units: int, n_draws: int, strata: np.ndarray | None) -> np.ndarray:
    """(n_draws, n_units) counts of each unit in a draw with replacement, within each stratum if
    given."""
    if strata is None:
        return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n_draws).astype(float)
    counts = np.zeros((n_draws, n_units))
    for stratum in np.unique(strata):
        members = np.flatnonzero(strata == stratum)
        counts[:, members] = rng.multinomial(
            len(members), np.full(len(members), 1.0 / len(members)), size=n_draws
        )
    return counts


def scheme_resamples(
    scheme: str,
    blocks: likelihood.Blocks,
    cluster_by: Sequence[str],
    labels: Sequence,
    rng,
    n_bootstrap: int,
) -> Resamples:
    """Block weights and cluster copies of ``scheme`` (module docstring). The resampled unit's own
    clustering (and the pairs that contain it) counts copies as clusters; other clusterings keep one
    cluster each."""
    unit = TEMPLATES if scheme.startswith("template") else PERSONS
    codes, n_units = blocks.groups[unit], blocks.n_groups[unit]
    if scheme.endswith("leave_one_out"):
        unit_weights, left_out = 1.0 - np.eye(n_units), list(labels)
    else:
        strata = None
        if unit == PERSONS:
            cell_of_unit = np.full(n_units, -1)
            cell_of_unit[codes] = blocks.cell
            nested = np.all(np.bincount(codes, weights=(blocks.cell != cell_of_unit[codes])) == 0)
            strata = cell_of_unit if nested else None
        unit_weights, left_out = _bootstrap_counts(rng, n_units, n_bootstrap, strata), None
    copies = {}
    if unit in cluster_by:
        copies[unit] = unit_weights
        if len(cluster_by) == 2:
            pairs, n_pairs = likelihood.pair_codes(
                blocks.groups[cluster_by[0]], blocks.groups[cluster_by[1]]
            )
            unit_of_pair = np.zeros(n_pairs, dtype=np.intp)
            unit_of_pair[pairs] = codes
            copies["pairs"] = unit_weights[:, unit_of_pair]
    return Resamples(scheme, unit_weights[:, codes], copies, left_out)


@dataclass(frozen=True)
class _Refits:
    """Estimates, standard errors and degrees of freedom of every finding in every resample; ``ok``
    marks fits that converged with a usable covariance."""

    estimates: np.ndarray
    std_errs: np.ndarray
    df: np.ndarray | None
    ok: np.ndarray


def refit(fit: factorial.Fit, resamples: Resamples) -> _Refits:
    """Refit every resample at once from the full fit's optimum; the findings are the mean
    coefficients and the effects of the design (:func:`~eval_harness.stats.factorial.effect_specs`,
    the AMEs weighted by each resample's rows)."""
    design, blocks = fit.design, fit.blocks
    sums = blocks.cell_sums(resamples.weights)
    empty = np.any(sums["count"] < factorial.MIN_ROWS_PER_CELL, axis=1)
    sums = {
        name: np.where(empty[:, None], fit.blocks.totals[name][None], values)
        for name, values in sums.items()
    }
    start = np.repeat(fit.optimum.params, len(resamples.weights), axis=0)
    optimum = likelihood.fit_sums(sums, design.mean_design, design.precision_design, start=start)
    ok = optimum.converged & ~empty
    counts = resamples.weights * blocks.count
    if fit.cov_type == "cluster":
        scores = likelihood.block_scores(
            optimum.params, blocks, design.mean_design, design.precision_design, resamples.weights
        )
        with np.errstate(all="ignore"):
            covariance, one_way, n_clusters = likelihood.cluster_covariance(
                scores,
                optimum.hessian,
                factorial.clusterings(blocks, fit.cluster_by, resamples.copies),
                counts,
            )
    p = design.mean_design.shape[1]
    with np.errstate(all="ignore"):
        model_covariance = likelihood.model_covariance(optimum.information)
        if fit.cov_type != "cluster":
            covariance, one_way = (
                model_covariance,
                np.empty((len(model_covariance), 0, *model_covariance.shape[1:])),
            )
        covariances = likelihood.Covariances(covariance, model_covariance, one_way)
        effect_estimates, effect_errors, _ = factorial.effect_values(
            factorial.effect_weights(design, sums["count"]),
            optimum.params,
            covariances,
            design.mean_design,
        )
        coefficient_variances, _ = covariances.variances(
            np.broadcast_to(np.eye(p), (len(optimum.params), p, p))
        )
        coefficient_errors = np.sqrt(coefficient_variances)
    estimates = np.concatenate([optimum.params[:, :p], effect_estimates], axis=1)
    std_errs = np.concatenate([coefficient_errors, effect_errors], axis=1)
    ok &= np.all(np.isfinite(std_errs) & (std_errs > 0), axis=1)
    if fit.df is None:
        df = None
    elif fit.cov_type == "cluster":
        df = (n_clusters.min(axis=1) - 1).astype(float)
    else:
        df = counts.sum(axis=1) - p
    return _Refits(estimates, std_errs, df, ok)


def _p_values(estimates: np.ndarray, std_errs: np.ndarray, df: np.ndarray | None) -> np.ndarray:
    statistic = -np.abs(estimates / std_errs)
    return 2 * (special.ndtr(statistic) if df is None else special.stdtr(df[:, None], statistic))


def _summaries(
    resamples: Resamples, refits: _Refits, full_estimates, full_significant, alpha
) -> tuple[list[ResampleSummary], np.ndarray]:
    """Per finding: the :class:`ResampleSummary` of one scheme, and the resamples' estimates (for
    the variances)."""
    ok = refits.ok
    estimates, std_errs = refits.estimates[ok], refits.std_errs[ok]
    df = None if refits.df is None else refits.df[ok]
    significant = _p_values(estimates, std_errs, df) <= alpha
    same_sign = np.sign(estimates) == np.sign(full_estimates)
    verdict = np.where(full_significant, significant & same_sign, ~significant)
    bootstrap = resamples.left_out is None
    summaries = []
    for j in range(estimates.shape[1]):
        column = estimates[:, j]
        influential = without = None
        if not bootstrap and len(column):
            k = int(np.argmax(np.abs(column - full_estimates[j])))
            influential, without = (
                str(np.asarray(resamples.left_out, dtype=object)[ok][k]),
                float(column[k]),
            )
        low, high = (
            (np.percentile(column, [2.5, 97.5]) if bootstrap else (column.min(), column.max()))
            if len(column)
            else (np.nan, np.nan)
        )
        summaries.append(
            ResampleSummary(
                scheme=resamples.scheme,
                n_resamples=int(ok.sum()),
                n_failed=int((~ok).sum()),
                sign_kept=float(same_sign[:, j].mean()) if len(column) else float("nan"),
                significance_kept=float(verdict[:, j].mean()) if len(column) else float("nan"),
                std_dev=float(column.std(ddof=1)) if len(column) > 1 else float("nan"),
                low=float(low),
                high=float(high),
                most_influential=influential,
                estimate_without=without,
            )
        )
    return summaries, estimates


def resampling_stability(
    y: Sequence[float],
    factors: Mapping[str, Sequence[str | None]],
    reference_levels: Mapping[str, str],
    order: int | None = None,
    *,
    templates: Sequence[Hashable],
    persons: Sequence[Hashable] | None = None,
    cov_type: str = "cluster",
    cluster_by: Sequence[str] = (TEMPLATES,),
    use_t: bool | None = None,
    boundary: str = "squeeze",
    n_bootstrap: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> Stability:
    """Fit the design (as :func:`~eval_harness.stats.factorial.fit_factorial`) and resample it
    (module docstring).

    Args:
        y, factors, reference_levels, order, use_t, boundary: as in ``fit_factorial``.
        templates: each row's template (required); persons: each row's person (name), for the person
        schemes.
        cov_type: ``"cluster"`` (default) or ``"model"``: the standard errors of the full fit and of
            every resample. cluster_by: ``"template_id"`` and/or ``"person"`` (default: by
            template).
        n_bootstrap: draws per bootstrap (1 .. ``MAX_BOOTSTRAP``); alpha: the verdicts' level; seed:
        the draws'.

    Returns:
        :class:`Stability`.

    Examples
    --------
    >>> import numpy as np
    >>> from eval_harness.stats.stability import resampling_stability
    >>> gender = ["male", "female"] * 12
    >>> y = 0.4 + 0.05 * (np.array(gender) == "female") + 0.02 * np.sin(np.arange(24))
    >>> templates = np.repeat(np.arange(6), 4)
    >>> s = resampling_stability(
    ...     y, {"gender": gender}, {"gender": "male"}, templates=templates, n_bootstrap=20)
    >>> [(finding.kind, finding.name) for finding in s.findings][1:]
    [('coefficient', 'gender[female]'), ('conditional', 'gender[female]')]
    >>> finding = s.finding("gender[female]")
    >>> finding.significant, finding.fragile(), finding.scheme("template_leave_one_out").sign_kept
    (True, False, 1.0)
    """
    if (
        isinstance(n_bootstrap, bool)
        or not isinstance(n_bootstrap, int)
        or not 1 <= n_bootstrap <= MAX_BOOTSTRAP
    ):
        raise InputError(
            f"n_bootstrap must be a whole number from 1 to {MAX_BOOTSTRAP}, got {n_bootstrap!r}"
        )
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha!r}")
    groupings = {TEMPLATES: templates, **({PERSONS: persons} if persons is not None else {})}
    cluster_by = tuple(cluster_by) if cov_type == "cluster" else ()
    unknown = [name for name in cluster_by if name not in groupings]
    if cov_type == "cluster" and (
        unknown or len(set(cluster_by)) != len(cluster_by) or not 1 <= len(cluster_by) <= 2
    ):
        raise InputError(
            f"cluster_by must be one or two distinct of {list(groupings)}, got {list(cluster_by)}"
        )
    factorial.checked_cov_options(
        cov_type, dict.fromkeys(cluster_by) if cluster_by else None, use_t
    )
    rows = label_coding.prepare_rows(
        y, factors, reference_levels, boundary, groupings, grouping_argument="groupings"
    )
    design = factorial.FactorialDesign.up_to_order(rows.factors, order)
    fit = factorial.fit_design(rows, design, cov_type, cluster_by, use_t)
    specs = factorial.effect_specs(design, fit.cell_counts / fit.n)
    result = factorial.result_of(fit, rows, specs)
    findings = [*result.coefficients, *result.effects]
    full_estimates = np.array([f.estimate for f in findings])
    full_significant = np.array([f.p_value <= alpha for f in findings])

    rng = np.random.default_rng(seed)
    schemes = [s for s in SCHEMES if s.startswith("template") or persons is not None]
    per_scheme, draws = {}, {}
    for scheme in schemes:
        labels = rows.group_labels[TEMPLATES if scheme.startswith("template") else PERSONS]
        resamples = scheme_resamples(scheme, fit.blocks, cluster_by, labels, rng, n_bootstrap)
        refits = refit(fit, resamples)
        per_scheme[scheme], draws[scheme] = _summaries(
            resamples, refits, full_estimates, full_significant, alpha
        )
    stabilities = []
    for j, finding in enumerate(findings):
        template_variance = float(np.var(draws["template_bootstrap"][:, j], ddof=1))
        person_variance = (
            float(np.var(draws["person_bootstrap"][:, j], ddof=1)) if persons is not None else None
        )
        total = template_variance + (person_variance or 0.0)
        stabilities.append(
            FindingStability(
                name=finding.name,
                kind=getattr(finding, "kind", "coefficient"),
                estimate=finding.estimate,
                p_value=finding.p_value,
                significant=bool(full_significant[j]),
                resamples=tuple(per_scheme[scheme][j] for scheme in schemes),
                template_variance=template_variance,
                person_variance=person_variance,
                template_share=None
                if person_variance is None or not total > 0
                else template_variance / total,
            )
        )
    return Stability(result, alpha, n_bootstrap, seed, tuple(stabilities))
