"""The long format of results: one flat record per number, the schema the run folder and the report share.

A record holds the unit's key (``model, suite, language, dataset, config, emotion, test``), then
``term, metric, value, std_err, p_value`` (:data:`RECORD_FIELDS`, in that order), then any extra
fields the suite adds (``seed``, ``ci_low``, ``n``, notes...). ``value``, ``std_err`` and ``p_value``
are finite numbers or None: a suite reports a number it cannot give as None with a note.
"""

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError
from .suite import Unit

RECORD_FIELDS = (
    "model",
    "suite",
    "language",
    "dataset",
    "config",
    "emotion",
    "test",
    "term",
    "metric",
    "value",
    "std_err",
    "p_value",
)


def make_record(unit: Unit, record: Mapping[str, Any]) -> dict:
    """A result record in long format: the unit's key, then term/metric/value/std_err/p_value, then extras.

    Raises:
        InputError: the record lacks ``metric`` or has a value that is not a finite number or None.
    """
    if "metric" not in record or "value" not in record:
        raise InputError(f"unit {unit.id}: a record needs 'metric' and 'value', got keys {sorted(record)}")
    merged = {**unit.fields(), "term": None, "std_err": None, "p_value": None, **record}
    for name in ("value", "std_err", "p_value"):
        merged[name] = _finite_or_none(merged[name], unit, record["metric"], name)
    ordered = {name: merged.pop(name) for name in RECORD_FIELDS}
    return {**ordered, **{k: _plain(v) for k, v in merged.items()}}


def _finite_or_none(value: Any, unit: Unit, metric: str, name: str) -> float | None:
    if value is None:
        return None
    number = float(value)
    if not math.isfinite(number):
        raise InputError(
            f"unit {unit.id}: {metric} has a non-finite {name} ({number}); the suite must report "
            "None with a note instead"
        )
    return number


def _plain(value: Any) -> Any:
    """numpy scalars and arrays -> Python scalars and lists, so records are plain JSON."""
    return value.tolist() if isinstance(value, (np.generic, np.ndarray)) else value
