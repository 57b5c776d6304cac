"""The paired tests of a comparison, one unit pair at a time.

EEC (per EEC x emotion x seed both sides measured): the sentences' scores under A and under B in one
joint Beta regression with a ``model`` factor
(:func:`eval_harness.suites.eec.paired.fit.paired_contrasts`, the paired difference the
cross-language suite fits for languages): every identity effect of the EEC (its conditional
contrasts, AMEs and interaction contrast) gets its difference B minus A on the predicted-intensity
scale, its delta-method test clustered by template (default) or sentence (a row's two scores share
its
cluster: that is the pairing), and its minimum detectable difference at 80 % power (``mde``). What
is tested is the difference, on its own standard error: a model that scores two groups alike within
every template (names it does not know, as SVM-tfidf) has a zero standard error on its own group
effects, which the note names (:func:`tested_on_its_own`); only a difference whose own standard
error is 0 is left untested, as a skipped record of its term that says so.

WEAT (per test x language x seed): ``d_B - d_A`` over the words both sides found, with the
paired-swap test and paired bootstrap over words
(:func:`eval_harness.stats.paired_weat.paired_effect_size_difference`).

With several seeds, each difference is pooled over them as a run's records are
(:func:`pooled_over_seeds`: the mean over seeds, so its standard error holds the training noise both
sides leave in that mean, and its MDE is the pooled test's).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import pandas as pd

from ..contract.records import RecordSchema
from ..contract.seeds import pool_seeds
from ..errors import InputError
from ..stats.paired_weat import paired_effect_size_difference
from ..stats.significance import significance_stars
from ..suites.eec.paired.fit import paired_contrasts
from ..suites.eec.paired.records import DIFFERENCE_FIELDS, difference_records, skipped_record
from .pairing import Side, UnitPair, paired_sentences, paired_words

EEC_METRIC = "model_difference"
WEAT_METRIC = "weat_effect_size_difference"
CONDITION = "model"
CLUSTER_SOURCES = {"template_id": "template_id", "sentence": "sentence_id", "person": "person"}
# What seed pooling needs of a comparison's records: the per-side effects are averaged, the MDE
# computed again.
COMPARISON_RECORDS = RecordSchema(
    metrics={
        EEC_METRIC: "an identity effect's difference between two "
        "models on the same sentences (B minus A)",
        WEAT_METRIC: "a WEAT effect size's difference between "
        "two models on the same words (B minus A)",
    },
    fields=DIFFERENCE_FIELDS,
    mde="mde",
)


def pooled_over_seeds(records: list[dict]) -> list[dict]:
    """The comparison's records with each difference pooled over its seeds
    (:func:`eval_harness.contract.seeds.pool_seeds`); unchanged with one seed."""
    return pool_seeds(records, schemas={suite: COMPARISON_RECORDS for suite in ("eec", "xweat")})


def _fields(pair: UnitPair, a: Side, b: Side) -> dict:
    return {
        **{
            name: pair.key[name]
            for name in ("suite", "language", "dataset", "config", "emotion", "test", "seed")
        },
        "model_a": a.label,
        "model_b": b.label,
        "unit_a": pair.unit_a,
        "unit_b": pair.unit_b,
    }


def reference_levels(pair: UnitPair) -> dict[str, str]:
    """The EEC's reference group and gender, as side A's unit fitted them (its records'
    ``group_levels`` and ``gender_levels``, reference first)."""
    for record in pair.records_a:
        if record.get("group_levels") and record.get("gender_levels"):
            return {"group": record["group_levels"][0], "gender": record["gender_levels"][0]}
    raise InputError(
        f"unit {pair.unit_a} records no group_levels/gender_levels: not an EEC Beta-regression unit"
    )


def paired_samples(pair: UnitPair, a: Side, b: Side):
    """What the unit pair's test reads (:func:`.pairing.paired_sentences` or
    :func:`.pairing.paired_words`).

    Raises:
        RunsDiffer: the sides scored other sentences (words).
    """
    return paired_sentences(pair, a, b) if pair.key["suite"] == "eec" else paired_words(pair, a, b)


# Why an EEC unit pair has no test when the two models scored every sentence alike (the same model
# twice).
IDENTICAL_SCORES = (
    "model B scored every sentence exactly as model A did (the same model?): every difference is 0"
)


def eec_differences(
    pair: UnitPair,
    a: Side,
    b: Side,
    rows: pd.DataFrame,
    *,
    cov_type: str = "cluster",
    cluster_by: Sequence[str] = ("template_id",),
) -> list[dict]:
    """The difference records (:func:`~eval_harness.suites.eec.paired.records.difference_records`,
    metric ``model_difference``) of one EEC unit pair on its paired ``rows``
    (:func:`.pairing.paired_sentences`), or its one skipped record when the joint fit cannot be
    made."""
    rows = rows[rows["group"].notna()].reset_index(
        drop=True
    )  # noun phrases: no group, not in the fit
    fields = _fields(pair, a, b)
    if rows["score_a"].equals(
        rows["score_b"]
    ):  # else the joint fit's singular covariance would be blamed
        return [skipped_record(IDENTICAL_SCORES, fields, EEC_METRIC)]
    try:
        with warnings.catch_warnings(
            record=True
        ) as caught:  # e.g. a one-way variance standing in for two-way
            warnings.simplefilter("always")
            result = paired_contrasts(
                rows,
                rows["score_a"],
                rows["score_b"],
                CONDITION,
                ("A", "B"),
                reference_levels(pair),
                cluster_sources=CLUSTER_SOURCES,
                cov_type=cov_type,
                cluster_by=tuple(cluster_by),
                zero_untested=True,
            )
    except InputError as error:
        return [skipped_record(str(error), fields, EEC_METRIC)]
    note = "; ".join(sorted({str(warning.message) for warning in caught})) or None
    fields = {**fields, "n_sentences": len(rows)}
    records = difference_records(result, {**fields, "note": note}, EEC_METRIC)
    return [tested_on_its_own(record, fields, a, b) for record in records]


def tested_on_its_own(record: dict, fields: dict, a: Side, b: Side) -> dict:
    """A difference record as compare shows it: tested on the difference's own standard error, with
    a note that names the side whose own effect has a standard error of 0 (a model that scores the
    groups alike within every template: names it does not know); a difference whose own standard
    error is 0 is one skipped record of its term, which says so (with the unit pair's ``fields``;
    the unit's other differences keep their tests)."""
    term = record["term"]
    if not record["std_err"] > 0:
        reason = (
            f"{term}: the difference B − A has a standard error of 0 "
            "(within every cluster the two models' scores differ "
            "alike, e.g. names neither model knows): nothing to test"
        )
        return skipped_record(reason, {**fields, "term": term}, EEC_METRIC)
    zero = [
        side.label
        for side, name in ((a, "reference_std_err"), (b, "other_std_err"))
        if not record[name] > 0
    ]
    if not zero:
        return record
    said = (
        f"{' and '.join(zero)}'s own {term} has a standard "
        "error of 0 (scored alike within every cluster): "
        + ("the difference is tested on its own standard error")
    )
    return {**record, "note": "; ".join(filter(None, (record.get("note"), said)))}


def weat_difference(
    pair: UnitPair,
    a: Side,
    b: Side,
    words: dict[str, pd.DataFrame],
    *,
    n_bootstrap: int = 10_000,
    seed: int = 0,
) -> dict:
    """The WEAT record of one xweat unit pair on its paired ``words``
    (:func:`.pairing.paired_words`):
    ``value = d_B - d_A`` with its paired-swap ``p_value``, bootstrap
    ``ci_low``/``ci_high``/``std_err`` and ``mde``, both effect sizes, and the paired word counts; a
    skipped record when fewer than 2 words per target set are paired (or an effect size is
    undefined)."""
    fields = {
        **_fields(pair, a, b),
        "term": pair.key["test"],
        "n_x": len(words["X"]),
        "n_y": len(words["Y"]),
    }
    if min(len(words["X"]), len(words["Y"])) < 2:
        return skipped_record(
            "fewer than 2 target words of X or Y found by both models", fields, WEAT_METRIC
        )
    try:
        result = paired_effect_size_difference(
            words["X"]["association_a"],
            words["Y"]["association_a"],
            words["X"]["association_b"],
            words["Y"]["association_b"],
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    except InputError as error:
        return skipped_record(str(error), fields, WEAT_METRIC)
    return {
        **fields,
        "metric": WEAT_METRIC,
        "value": result.estimate,
        "std_err": result.std_err,
        "p_value": result.p_value,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "stars": significance_stars(result.p_value),
        "mde": result.mde,
        "reference_estimate": result.effect_a,
        "other_estimate": result.effect_b,
        "p_method": result.method,
        "contrast": f"WEAT effect size {pair.key['test']}: model B minus model A",
    }
