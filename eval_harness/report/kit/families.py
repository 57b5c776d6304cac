"""The report's significance level and multiple-testing families: a building block the methods'
sections read (which results are findings, and how their p-values are adjusted, is the assembly's
:mod:`.findings`).

The *family* the p-values are adjusted over is a choice (:data:`FAMILIES`): ``"model"`` (default:
each model's tests together, so adding a model to a run does not change another model's verdicts),
``"model-suite"`` (each model x suite) or ``"run"`` (every test of the run).
"""

from __future__ import annotations

import pandas as pd

from ...errors import InputError

ALPHA = 0.05
# family name -> the columns whose values make one family
FAMILIES = {"model": ("model",), "model-suite": ("model", "suite"), "run": ()}
FAMILY_WORDS = {"model": "per model", "model-suite": "per model × suite", "run": "the whole run"}
DEFAULT_FAMILY = "model"


def check_family(family: str) -> None:
    if family not in FAMILIES:
        raise InputError(
            f"unknown multiple-testing family {family!r}; choose from {', '.join(FAMILIES)}"
        )


def family_labels(results: pd.DataFrame, family: str = DEFAULT_FAMILY) -> pd.Series:
    """Each row's family: ``"all-MiniLM-L6-v2"``, ``"all-MiniLM-L6-v2 × eec"`` or ``"run"``."""
    check_family(family)
    columns = FAMILIES[family]
    if not columns:
        return pd.Series("run", index=results.index, dtype=object)
    return results[list(columns)].astype(str).agg(" × ".join, axis=1)


def is_finding(results: pd.DataFrame) -> pd.Series:
    """True for the findings of annotated results (:func:`~.findings.adjust_p_values` gave them a
    family)."""
    return results["family"].notna()
