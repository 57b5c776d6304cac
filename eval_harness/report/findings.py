"""Which results of a run are findings, and which survive multiple-testing control.

A run tests many hypotheses at once (EECs x emotions x terms x models, XWEAT tests x languages x
models, ...), so a report that reads each p-value alone overstates what it found. Every record with
a p-value is a finding, except those its method's report section says are no test of their own
(:meth:`~.method_section.ReportSection.not_a_finding`: the EEC regressors' Pearson r, a quality
check, and the Beta-regression intercept, the reference cell's level; the WEAT test statistic, whose
test its effect size's record carries). An EEC fit contributes its three bias coefficients (logit
scale) and its seven effects (predicted-intensity scale), each with its own test: the report makes
claims on both scales, so both count (counting both only makes Holm stricter, never laxer).

The *family* the p-values are adjusted over is a choice (:data:`~.families.FAMILIES`): ``"model"``
(default: each model's tests together, so adding a model to a run does not change another model's
verdicts), ``"model-suite"`` (each model x suite) or ``"run"`` (every test of the run). Within each
family, Holm (family-wise error rate) and Benjamini-Hochberg (false discovery rate) from
:mod:`eval_harness.stats.multiple_testing`.

The methods' sections then flag findings not to read at face value (:class:`~.method_section.Flag`):
the EEC's ``poor_regressor`` (measured through an emotion regressor whose test-split Pearson r is
below its report option ``min_regressor_r``, or a zero-shot judge that was not answering) and
``loses_under_clustering`` (significant with model-based standard errors, not with the
template-clustered ones), XWEAT's ``bootstrap_ci_spans_zero`` (a small permutation p, a bootstrap
interval of d across 0).

With several seeds, :func:`pool_over_seeds` first makes one row per quantity (see
:mod:`eval_harness.contract.seeds`), and the findings are the pooled tests.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..contract.seeds import SPREAD_FIELDS, pool_seeds
from ..stats.estimands import DEFAULT_ESTIMAND
from ..stats.multiple_testing import benjamini_hochberg, holm
from ..suites import record_schemas
from .kit.families import ALPHA, DEFAULT_FAMILY, check_family, family_labels
from .sections import report_sections, report_settings


def finding_mask(results: pd.DataFrame) -> pd.Series:
    """True for the rows that are hypothesis tests (see the module docstring)."""
    mask = results["p_value"].notna()
    for section in report_sections().sections:
        rows = section.rows(results)
        mask.loc[rows.index] = mask.loc[rows.index] & ~section.not_a_finding(rows)
    return mask


def adjust_p_values(
    results: pd.DataFrame, alpha: float = ALPHA, family: str = DEFAULT_FAMILY
) -> pd.DataFrame:
    """A copy of ``results`` with ``family``, ``p_holm``, ``p_bh``, ``survives_holm`` and
    ``survives_bh``.

    The adjusted p-values are computed over the findings of each family together; rows that are not
    findings get NaN (no family) and False. A finding survives a procedure when its adjusted p-value
    is at most ``alpha``.
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


def pool_over_seeds(
    results: pd.DataFrame, alpha: float = ALPHA, seed_estimand: str = DEFAULT_ESTIMAND
) -> pd.DataFrame:
    """One row per quantity when the run has several seeds
    (:func:`eval_harness.contract.seeds.pool_seeds`, for ``seed_estimand``: the mean over seeds, or
    ``"one_head"``, Rubin's rules); ``results`` itself with one seed."""
    if "seed" not in results.columns or results["seed"].nunique() < 2:
        return results
    schemas = record_schemas(results["suite"].dropna().unique())
    pooled = pd.DataFrame.from_records(
        pool_seeds(results.to_dict("records"), alpha, schemas, seed_estimand)
    )
    columns = [*results.columns, *(c for c in pooled.columns if c not in results.columns)]
    for name in SPREAD_FIELDS:
        if name not in columns:
            columns.append(name)
    return pooled.reindex(columns=columns)


def annotate(
    results: pd.DataFrame,
    alpha: float = ALPHA,
    family: str = DEFAULT_FAMILY,
    seed_estimand: str = DEFAULT_ESTIMAND,
    options: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """The results table every part of the report reads from: seeds pooled (for ``seed_estimand``),
    p-values adjusted within each ``family``, then each method's section's flags added
    (:meth:`~.method_section.ReportSection.annotate`), with the sections' report ``options``
    (:func:`~.sections.report_options`: the EEC's ``{"min_regressor_r": 0.4}``).

    Raises:
        InputError: an unknown family, an option no section reads, or an option that is no finite
        number.
    """
    check_family(family)
    settings = report_settings(alpha, family, options)
    annotated = adjust_p_values(pool_over_seeds(results, alpha, seed_estimand), alpha, family)
    for section in settings.sections.sections:
        annotated = section.annotate(annotated, settings)
    return annotated
