"""The records of a paired difference (:mod:`eval_harness.suites.eec.paired`): one per identity
effect's difference between the two conditions, with its own test and the effect in each condition
(:func:`difference_records`, from a
:class:`~eval_harness.stats.condition_contrasts.ConditionContrasts`), and the one record of a fit
that could not be made (:func:`skipped_record`). :data:`DIFFERENCE_FIELDS` declares their fields for
a user's ``RecordSchema``; the user names the metric (``language_difference`` in the cross-language
suite, ``model_difference`` in ``xbias compare``).
"""

from collections.abc import Mapping
from typing import Any

from ....contract.records import Field
from ....stats.significance import significance_stars

# The fields of a two-condition difference record, whatever the conditions are.
DIFFERENCE_FIELDS = {
    "kind": Field(str, "the effect's kind: conditional, average (marginal) or interaction"),
    "effect_term": Field(str, "the factors the effect is about (group, gender, group:gender)"),
    "levels": Field(
        list, "[factor, level] of each contrasted factor (against its reference level)"
    ),
    "given": Field(
        list, "[factor, level] of the stratum a conditional effect holds fixed (empty: none)"
    ),
    "contrast": Field(str, "what the difference compares, in words"),
    "mde": Field(
        float, "the smallest true difference its test detects with 80 % power at alpha 0.05"
    ),
    # Pooled over seeds, an effect in one condition is the seeds' mean; its standard
    # error, which differs between seeds, is then left out rather than shown as one seed's.
    "reference_estimate": Field(float, "the effect in the reference condition", seed_mean=True),
    "reference_std_err": Field(float, "its standard error (from the joint fit)"),
    "other_estimate": Field(float, "the effect in the other condition", seed_mean=True),
    "other_std_err": Field(float, "its standard error (from the joint fit)"),
    "n": Field(int, "rows of the joint fit (both conditions)"),
    "factors": Field(dict, "each identity factor's levels, the reference first"),
    "cov_type": Field(str, "the standard errors: cluster or model"),
    "cluster_by": Field(list, "the clustered standard errors' cluster columns (none: model-based)"),
    "n_clusters": Field(list, "clusters per cluster column"),
    "converged": Field(bool, "whether the joint fit converged"),
    "squeezed": Field(bool, "whether scores at 0 or 1 were squeezed into (0, 1)"),
}


def difference_records(result, fields: Mapping[str, Any] | None, metric: str) -> list[dict]:
    """One record per difference of ``result`` (a ``ConditionContrasts``): ``term`` the effect's
    name (``group[Arab]|gender=female``), ``value`` the difference (other condition minus
    reference), its own ``std_err``, ``p_value``, 95 % interval, ``stars`` and ``mde``, the effect
    in each condition, and the joint fit's design and covariance (:data:`DIFFERENCE_FIELDS`), under
    ``metric``; ``fields`` are added to every record."""
    joint = result.joint
    reference, other = result.condition.levels
    within = {
        level: {effect.name: effect for effect in result.effects_in(level)}
        for level in (reference, other)
    }
    identity = [factor for factor in joint.factors if factor.name != result.condition.name]
    fit = {
        "statistic_kind": joint.test,
        "df": joint.df,
        "n": joint.n,
        "factors": {factor.name: list(factor.levels) for factor in identity},
        "cov_type": joint.cov_type,
        "cluster_by": list(joint.cluster_by),
        "n_clusters": list(joint.n_clusters),
        "converged": joint.converged,
        "squeezed": joint.squeezed,
        **(fields or {}),
    }
    return [
        {
            "term": difference.name,
            "metric": metric,
            "value": difference.estimate,
            "std_err": difference.std_err,
            "p_value": difference.p_value,
            "statistic": difference.statistic,
            "ci_low": difference.ci_low,
            "ci_high": difference.ci_high,
            "stars": significance_stars(difference.p_value),
            "mde": difference.mde,
            "kind": difference.kind,
            "effect_term": difference.term,
            "levels": [list(pair) for pair in difference.levels],
            "given": [list(pair) for pair in difference.given],
            "contrast": difference.contrast,
            "reference_estimate": difference.reference_estimate,
            "reference_std_err": within[reference][difference.name].std_err,
            "other_estimate": difference.other_estimate,
            "other_std_err": within[other][difference.name].std_err,
            **fit,
        }
        for difference in result.differences
    ]


def skipped_record(reason: str, fields: Mapping[str, Any] | None, metric: str) -> dict:
    """The one record, under ``metric``, of a unit whose joint fit could not be made (``status``
    skipped, ``note`` why)."""
    return {"metric": metric, "value": None, "status": "skipped", "note": reason, **(fields or {})}
