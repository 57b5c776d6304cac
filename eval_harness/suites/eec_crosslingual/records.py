"""The eec_crosslingual suite's records: one per identity effect's difference between English and its translation.

:data:`CROSSLINGUAL_RECORDS` is their schema, in one place. :func:`difference_records` turns any two-condition
contrast (:class:`~eval_harness.stats.condition_contrasts.ConditionContrasts`: two languages here, two models in
``xbias compare``) into flat records, each difference with its own test and the effect in each condition.
"""

from collections.abc import Mapping
from typing import Any

from ...contract.records import Field, RecordSchema
from ...stats.significance import significance_stars

DIFFERENCE_METRIC = "language_difference"

# The fields of a two-condition difference record, whatever the conditions are.
DIFFERENCE_FIELDS = {
    "kind": Field(str, "the effect's kind: conditional, average (marginal) or interaction"),
    "effect_term": Field(str, "the factors the effect is about (group, gender, group:gender)"),
    "levels": Field(list, "[factor, level] of each contrasted factor (against its reference level)"),
    "given": Field(list, "[factor, level] of the stratum a conditional effect holds fixed (empty: none)"),
    "contrast": Field(str, "what the difference compares, in words"),
    "mde": Field(float, "the smallest true difference its test detects with 80 % power at alpha 0.05"),
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

CROSSLINGUAL_RECORDS = RecordSchema(
    metrics={
        DIFFERENCE_METRIC: "an identity effect's difference on the predicted-intensity scale between the translated "
        "EEC and its English original (translated minus English), from one joint fit over the aligned sentences",
    },
    fields={
        **DIFFERENCE_FIELDS,
        "reference_language": Field(str, "the language subtracted: en"),
        "other_language": Field(str, "the translated EEC's language"),
        "english_config": Field(str, "the English EEC the unit's config translates"),
        "n_pairs": Field(int, "aligned sentence pairs fitted"),
        "n_english_only": Field(int, "rows with a group of the English EEC that no translated row names"),
        "n_translation_only": Field(int, "translated rows with a group whose English original is missing"),
        "reference_regressor_r": Field(
            float, "the English regressor's test Pearson r on SemEval-2018 (pooled: the seeds' mean)", seed_mean=True
        ),
        "other_regressor_r": Field(
            float,
            "the other language's regressor's test Pearson r on SemEval-2018 (pooled: the seeds' mean)",
            seed_mean=True,
        ),
        "reference_numeral_mass": Field(
            float, "a zero-shot judge's mean numeral mass on the English sentences", seed_mean=True
        ),
        "other_numeral_mass": Field(float, "a zero-shot judge's mean numeral mass on the translations", seed_mean=True),
    },
    mde="mde",
)


def difference_records(result, fields: Mapping[str, Any] | None = None, metric: str = DIFFERENCE_METRIC) -> list[dict]:
    """One record per difference of ``result`` (a ``ConditionContrasts``): ``term`` the effect's name
    (``group[Arab]|gender=female``), ``value`` the difference (other condition minus reference), its own
    ``std_err``, ``p_value``, 95 % interval, ``stars`` and ``mde``, the effect in each condition, and the joint fit's
    design and covariance (:data:`DIFFERENCE_FIELDS`); ``fields`` are added to every record."""
    joint = result.joint
    reference, other = result.condition.levels
    within = {level: {effect.name: effect for effect in result.effects_in(level)} for level in (reference, other)}
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


def skipped_record(reason: str, fields: Mapping[str, Any] | None = None, metric: str = DIFFERENCE_METRIC) -> dict:
    """The one record of a unit whose joint fit could not be made (``status`` skipped, ``note`` why)."""
    return {"metric": metric, "value": None, "status": "skipped", "note": reason, **(fields or {})}
