"""One unit's file, ``units/<id>.json``: what it holds, its checksum, and how a reader tells a finished unit
from anything else (the harness on resume, the report when it counts finished units).

A unit file is a JSON object::

    {"id": "<unit id>", "unit": {model, suite, language, dataset, config, emotion, test, seed},
     "config_hash": "<the run's config hash>", "seconds": 1.234, "finished_at": "2025-...",
     "records": [{model, suite, ..., metric, value, std_err, p_value, ...}, ...],
     "checksum": "<sha256>"}

``checksum`` is the sha256 of the canonical JSON (sorted keys, no spaces, UTF-8) of every other field,
so any change of the content after it was written (an edit, a truncated or partial copy, a record
dropped, ``{}`` or ``{"records": []}`` written by hand) is seen. A file is a finished unit only when
:func:`unit_file_problem` finds nothing wrong with it.
"""

import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any

from .records import RECORD_FIELDS

PAYLOAD_KEYS = ("id", "unit", "config_hash", "seconds", "finished_at", "records", "checksum")


def payload_checksum(payload: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of ``payload`` without its ``checksum`` field."""
    content = {key: value for key, value in payload.items() if key != "checksum"}
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def unit_payload(
    unit_id: str,
    unit_fields: Mapping[str, Any],
    config_hash: str,
    records: list[dict],
    seconds: float,
    finished_at: str | None = None,
) -> dict:
    """The content of a unit file (see the module docstring), its checksum included; ``finished_at``
    (ISO 8601) defaults to now."""
    payload = {
        "id": unit_id,
        "unit": dict(unit_fields),
        "config_hash": config_hash,
        "seconds": round(seconds, 3),
        "finished_at": finished_at or time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "records": records,
    }
    payload["checksum"] = payload_checksum(payload)
    return payload


def unit_file_problem(
    payload: Any,
    unit_id: str,
    unit_fields: Mapping[str, Any] | None = None,
    config_hash: str | None = None,
) -> str | None:
    """Why ``payload`` (a parsed unit file) is not the finished unit ``unit_id``, or None when it is.

    Checked: a JSON object with the unit file's keys; its id (and, when given, its key ``unit_fields``
    and the run's ``config_hash``); records that are a list of objects with every field of
    :data:`~eval_harness.contract.records.RECORD_FIELDS`; and the checksum of the content.
    """
    if not isinstance(payload, dict):
        return f"it holds a JSON {type(payload).__name__}, not a unit object"
    absent = [key for key in PAYLOAD_KEYS if key not in payload]
    if absent:
        return f"it lacks {', '.join(absent)}"
    if payload["id"] != unit_id:
        return f"it is the file of unit {payload['id']!r}"
    if unit_fields is not None and payload["unit"] != dict(unit_fields):
        return f"its key {payload['unit']} is not this unit's {dict(unit_fields)}"
    if config_hash is not None and payload["config_hash"] != config_hash:
        return f"it was written by another config (hash {str(payload['config_hash'])[:12]})"
    records = payload["records"]
    if not isinstance(records, list) or not all(isinstance(record, dict) for record in records):
        return "its records are not a list of objects"
    for index, record in enumerate(records):
        absent = [name for name in RECORD_FIELDS if name not in record]
        if absent:
            return f"record {index} lacks {', '.join(absent)}"
    try:
        checksum = payload_checksum(payload)
    except ValueError as error:  # a NaN or an infinity: never written by the harness
        return f"its content is not plain JSON ({error})"
    if payload["checksum"] != checksum:
        return "its checksum does not match its content (edited or damaged)"
    return None
