"""Which results of a run are findings, which survive multiple-testing control, which to distrust.

A run tests many hypotheses at once (EECs x emotions x terms x models, XWEAT tests x languages x
models, ...), so a report that reads each p-value alone overstates what it found. Every record with a
p-value is a finding, except the regressors' Pearson r (a quality check, not a bias claim), the
Beta-regression intercept (the reference cell's level, not a difference) and the WEAT test statistic
(the same permutation test as its effect size's record, which counts it). An EEC fit contributes its
three bias coefficients (logit scale) and its seven effects (predicted-intensity scale), each with its
own test: the report makes claims on both scales, so both count (a coefficient and the conditional
effect within the reference level test the same null on two scales; counting both only makes Holm
stricter, never laxer). The intersection's likelihood-ratio test rides on the ``group:gender``
coefficient's record and is not counted again.

The *family* the p-values are adjusted over is a choice (:data:`FAMILIES`): ``"model"`` (default: each
model's tests together, so adding a model to a run does not change another model's verdicts),
``"model-suite"`` (each model x suite) or ``"run"`` (every test of the run). Within each family, Holm
(family-wise error rate) and Benjamini-Hochberg (false discovery rate) from
:mod:`eval_harness.stats.multiple_testing`.

Three flags say when not to read a finding at face value:

* ``poor_regressor``: measured through an emotion regressor that predicts poorly (Pearson r on its test
  split below ``min_regressor_r``); it says more about the regressor than about the model.
* ``loses_under_clustering``: significant at ``alpha`` with model-based standard errors but not with
  the template-clustered ones the EEC records carry beside them (``clustered_p_value``): EEC rows are
  templates crossed with persons, not independent sentences.
* ``bootstrap_ci_spans_zero``: a WEAT effect size whose permutation p is at most ``alpha`` while its
  bootstrap interval (resampling the words of each set) contains 0: there is an association, but its
  size, even its sign, rests on a few words.

With several seeds, :func:`pool_over_seeds` first makes one row per quantity (see
:mod:`eval_harness.contract.seeds`), and the findings are the pooled tests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..contract.seeds import SPREAD_FIELDS, pool_seeds
from ..errors import InputError
from ..stats.multiple_testing import benjamini_hochberg, holm
from ..suites import record_schemas

ALPHA = 0.05
# Below this test-split Pearson r the regressor tracks intensity too loosely for its
# bias coefficients to speak about the model (the paper's weakest methods sit near 0.4-0.5).
MIN_REGRESSOR_R = 0.4
QUALITY_METRIC = "pearson_r"
# A zero-shot judge's validity: the mean probability its answer starts with a numeral of the scale.
VALIDITY_METRIC = "numeral_mass"
MIN_NUMERAL_MASS = 0.5
NOT_A_FINDING_METRICS = (QUALITY_METRIC, "statistic")
NOT_A_FINDING_TERMS = ("intercept",)
REGRESSOR_KEYS = ["model", "language", "emotion"]
# family name -> the columns whose values make one family
FAMILIES = {"model": ("model",), "model-suite": ("model", "suite"), "run": ()}
FAMILY_WORDS = {"model": "per model", "model-suite": "per model × suite", "run": "the whole run"}
DEFAULT_FAMILY = "model"


def check_family(family: str) -> None:
    if family not in FAMILIES:
        raise InputError(f"unknown multiple-testing family {family!r}; choose from {', '.join(FAMILIES)}")


def finding_mask(results: pd.DataFrame) -> pd.Series:
    """True for the rows that are hypothesis tests (see the module docstring)."""
    return (
        results["p_value"].notna()
        & ~results["metric"].isin(NOT_A_FINDING_METRICS)
        & ~results["term"].isin(NOT_A_FINDING_TERMS)
    )


def family_labels(results: pd.DataFrame, family: str = DEFAULT_FAMILY) -> pd.Series:
    """Each row's family: ``"all-MiniLM-L6-v2"``, ``"all-MiniLM-L6-v2 × eec"`` or ``"run"``."""
    check_family(family)
    columns = FAMILIES[family]
    if not columns:
        return pd.Series("run", index=results.index, dtype=object)
    return results[list(columns)].astype(str).agg(" × ".join, axis=1)


def adjust_p_values(results: pd.DataFrame, alpha: float = ALPHA, family: str = DEFAULT_FAMILY) -> pd.DataFrame:
    """A copy of ``results`` with ``family``, ``p_holm``, ``p_bh``, ``survives_holm`` and ``survives_bh``.

    The adjusted p-values are computed over the findings of each family together; rows that are not
    findings get NaN (no family) and False. A finding survives a procedure when its adjusted p-value is
    at most ``alpha``.
    """
    annotated = results.copy()
    is_finding = finding_mask(annotated)
    annotated["family"] = family_labels(annotated, family).where(is_finding)
    annotated["p_holm"] = np.nan
    annotated["p_bh"] = np.nan
    for _, rows in annotated[is_finding].groupby("family", sort=False):
        p_values = rows["p_value"].to_numpy(dtype=float)
        annotated.loc[rows.index, "p_holm"] = holm(p_values)
        annotated.loc[rows.index, "p_bh"] = benjamini_hochberg(p_values)
    annotated["survives_holm"] = annotated["p_holm"] <= alpha
    annotated["survives_bh"] = annotated["p_bh"] <= alpha
    return annotated


def regressor_quality(results: pd.DataFrame) -> pd.DataFrame:
    """Pearson r per (model, language, emotion): the test split's when the records name splits."""
    quality = results[results["metric"] == QUALITY_METRIC]
    if "split" in quality.columns and (quality["split"] == "test").any():
        quality = quality[quality["split"] == "test"]
    return (
        quality.groupby(REGRESSOR_KEYS, dropna=False, as_index=False)["value"]
        .mean()
        .rename(columns={"value": "regressor_r"})
    )


def judge_validity(results: pd.DataFrame) -> pd.DataFrame:
    """The smallest mean numeral mass of a zero-shot judge per (model, language, emotion), over its EEC units
    (``metric="numeral_mass"`` records); empty when the run has no judge."""
    validity = results[results["metric"] == VALIDITY_METRIC]
    return (
        validity.groupby(REGRESSOR_KEYS, dropna=False, as_index=False)["value"]
        .min()
        .rename(columns={"value": "numeral_mass"})
    )


def flag_poor_regressors(
    results: pd.DataFrame, min_regressor_r: float = MIN_REGRESSOR_R, min_numeral_mass: float = MIN_NUMERAL_MASS
) -> pd.DataFrame:
    """A copy of ``results`` with ``regressor_r`` and ``poor_regressor`` on the rows measured through a regressor.

    A row is measured through a regressor when a Pearson r exists for its (model,
    language, emotion) and it is not that r itself. ``poor_regressor`` is True when that
    r is below ``min_regressor_r``, or when the regressor is a zero-shot judge that put less than
    ``min_numeral_mass`` of its answer on the scale's numerals (it was not answering the question).
    """
    quality = regressor_quality(results).merge(judge_validity(results), on=REGRESSOR_KEYS, how="left")
    annotated = results.merge(quality, on=REGRESSOR_KEYS, how="left")
    own = (annotated["metric"].isin((QUALITY_METRIC, VALIDITY_METRIC))) | annotated["emotion"].isna()
    annotated.loc[own, ["regressor_r", "numeral_mass"]] = np.nan
    annotated["poor_regressor"] = (annotated["regressor_r"] < min_regressor_r) | (
        annotated["numeral_mass"] < min_numeral_mass
    )
    return annotated.drop(columns="numeral_mass")


def _column(results: pd.DataFrame, name: str) -> pd.Series:
    return results[name] if name in results.columns else pd.Series(np.nan, index=results.index, dtype=object)


def flag_fragile_findings(results: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """A copy of ``results`` with ``loses_under_clustering`` and ``bootstrap_ci_spans_zero`` (module docstring)."""
    annotated = results.copy()
    p_value = annotated["p_value"].where(finding_mask(annotated))  # an intercept is no finding to flag
    clustered_p = pd.to_numeric(_column(annotated, "clustered_p_value"), errors="coerce")
    model_based = _column(annotated, "cov_type").fillna("model") == "model"
    annotated["loses_under_clustering"] = model_based & (p_value <= alpha) & (clustered_p > alpha)
    low = pd.to_numeric(_column(annotated, "ci_low"), errors="coerce")
    high = pd.to_numeric(_column(annotated, "ci_high"), errors="coerce")
    bootstrapped = _column(annotated, "bootstrap_std_err").notna()
    annotated["bootstrap_ci_spans_zero"] = bootstrapped & (p_value <= alpha) & (low <= 0) & (high >= 0)
    return annotated


def pool_over_seeds(results: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per quantity when the run has several seeds (:func:`eval_harness.contract.seeds.pool_seeds`);
    ``results`` itself with one seed."""
    if "seed" not in results.columns or results["seed"].nunique() < 2:
        return results
    schemas = record_schemas(results["suite"].dropna().unique())
    pooled = pd.DataFrame.from_records(pool_seeds(results.to_dict("records"), alpha, schemas))
    columns = [*results.columns, *(c for c in pooled.columns if c not in results.columns)]
    for name in SPREAD_FIELDS:
        if name not in columns:
            columns.append(name)
    return pooled.reindex(columns=columns)


def annotate(
    results: pd.DataFrame,
    alpha: float = ALPHA,
    min_regressor_r: float = MIN_REGRESSOR_R,
    family: str = DEFAULT_FAMILY,
) -> pd.DataFrame:
    """The results table every part of the report reads from: seeds pooled, p-values adjusted within each
    ``family``, poor regressors and fragile findings flagged."""
    check_family(family)
    pooled = pool_over_seeds(results, alpha)
    return flag_fragile_findings(flag_poor_regressors(adjust_p_values(pooled, alpha, family), min_regressor_r), alpha)
