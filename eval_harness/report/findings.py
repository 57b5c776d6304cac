"""Which results of a run are findings, which survive multiple-testing control, which to distrust.

A run tests many hypotheses at once (EECs x emotions x terms x models, XWEAT tests x
languages x models, ...), so a report that reads each p-value alone overstates what
it found. Here the *family* is the whole run: every record with a p-value is a
finding, except the regressors' Pearson r (a quality check, not a bias claim), the
Beta-regression intercept (the reference cell's level, not a difference) and the WEAT
test statistic (the same permutation test as its effect size's record, which counts
it). Their p-values are adjusted together with Holm (family-wise error rate) and
Benjamini-Hochberg (false discovery rate) from :mod:`eval_harness.stats.multiple_testing`.
(The harness keeps the intersection's likelihood-ratio test as fields of the
``group:gender`` record, so that hypothesis is counted once too.)

A bias result measured through an emotion regressor that predicts poorly (Pearson r
on its test split below ``min_regressor_r``) says little about the model: such rows
are flagged ``poor_regressor``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.multiple_testing import benjamini_hochberg, holm

ALPHA = 0.05
# Below this test-split Pearson r the regressor tracks intensity too loosely for its
# bias coefficients to speak about the model (the paper's weakest methods sit near 0.4-0.5).
MIN_REGRESSOR_R = 0.4
QUALITY_METRIC = "pearson_r"
NOT_A_FINDING_METRICS = (QUALITY_METRIC, "statistic")
NOT_A_FINDING_TERMS = ("intercept",)
REGRESSOR_KEYS = ["model", "language", "emotion"]


def finding_mask(results: pd.DataFrame) -> pd.Series:
    """True for the rows that are hypothesis tests of the run's family (see the module docstring)."""
    return (
        results["p_value"].notna()
        & ~results["metric"].isin(NOT_A_FINDING_METRICS)
        & ~results["term"].isin(NOT_A_FINDING_TERMS)
    )


def adjust_p_values(results: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """A copy of ``results`` with ``p_holm``, ``p_bh``, ``survives_holm`` and ``survives_bh``.

    The adjusted p-values are computed over all findings of the run together; rows
    that are not findings get NaN and False. A finding survives a procedure when its
    adjusted p-value is at most ``alpha``.
    """
    annotated = results.copy()
    is_finding = finding_mask(annotated)
    annotated["p_holm"] = np.nan
    annotated["p_bh"] = np.nan
    if is_finding.any():
        p_values = annotated.loc[is_finding, "p_value"].to_numpy(dtype=float)
        annotated.loc[is_finding, "p_holm"] = holm(p_values)
        annotated.loc[is_finding, "p_bh"] = benjamini_hochberg(p_values)
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


def flag_poor_regressors(results: pd.DataFrame, min_regressor_r: float = MIN_REGRESSOR_R) -> pd.DataFrame:
    """A copy of ``results`` with ``regressor_r`` and ``poor_regressor`` on the rows measured through a regressor.

    A row is measured through a regressor when a Pearson r exists for its (model,
    language, emotion) and it is not that r itself. ``poor_regressor`` is True when that
    r is below ``min_regressor_r``.
    """
    quality = regressor_quality(results)
    annotated = results.merge(quality, on=REGRESSOR_KEYS, how="left")
    annotated.loc[(annotated["metric"] == QUALITY_METRIC) | annotated["emotion"].isna(), "regressor_r"] = np.nan
    annotated["poor_regressor"] = annotated["regressor_r"] < min_regressor_r
    return annotated


def annotate(results: pd.DataFrame, alpha: float = ALPHA, min_regressor_r: float = MIN_REGRESSOR_R) -> pd.DataFrame:
    """Both of the above: the results table every part of the report reads from."""
    return flag_poor_regressors(adjust_p_values(results, alpha), min_regressor_r)
