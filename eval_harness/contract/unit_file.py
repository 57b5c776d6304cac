"""One unit's file, ``units/<id>.json``: what it holds, its checksum, and how a reader tells a
finished unit from anything else (the harness on resume, the report when it counts finished units).

A unit file is a JSON object::

    {"id": "<unit id>", "unit": {model, suite, language, dataset, config, emotion, test, seed},
     "config_hash": "<the run's config hash>", "seconds": 1.234, "finished_at": "2025-...",
     "records": [{model, suite, ..., metric, value, std_err, p_value, ...}, ...],
     "samples": {"file": "<unit id>.samples.parquet", "sha256": "...", "rows": 700, "columns": [...]},
     "checksum": "<sha256>"}

``samples`` is there when the unit kept its per-sentence (per-word) numbers (:mod:`.samples`): the
Parquet file beside the unit file, named and hashed inside the unit's checksum.

``checksum`` is the sha256 of the canonical JSON (sorted keys, no spaces, UTF-8) of every other
field, so any change of the content after it was written (an edit, a truncated or partial copy, a
record dropped, ``{}`` or ``{"records": []}`` written by hand) is seen. A file is a finished unit
only when :func:`unit_file_problem` finds nothing wrong with it (given the units folder, that
includes its samples file).
"""  # noqa: E501

import hashlib
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..io import read_bytes
from .records import RECORD_FIELDS

PAYLOAD_KEYS = ("id", "unit", "config_hash", "seconds", "finished_at", "records", "checksum")
SAMPLES_KEY = "samples"
SAMPLES_SUFFIX = ".samples.parquet"
ENTRY_KEYS = ("file", "sha256", "rows", "columns")


def payload_checksum(payload: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of ``payload`` without its ``checksum`` field."""
    content = {key: value for key, value in payload.items() if key != "checksum"}
    canonical = json.dumps(
        content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def unit_payload(
    unit_id: str,
    unit_fields: Mapping[str, Any],
    config_hash: str,
    records: list[dict],
    seconds: float,
    finished_at: str | None = None,
    samples: Mapping[str, Any] | None = None,
) -> dict:
    """The content of a unit file (see the module docstring), its checksum included; ``finished_at``
    (ISO 8601) defaults to now; ``samples``: the entry of its samples file
    (:func:`.samples.samples_entry`)."""
    payload = {
        "id": unit_id,
        "unit": dict(unit_fields),
        "config_hash": config_hash,
        "seconds": round(seconds, 3),
        "finished_at": finished_at or time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "records": records,
    }
    if samples is not None:
        payload[SAMPLES_KEY] = dict(samples)
    payload["checksum"] = payload_checksum(payload)
    return payload


def unit_file_problem(
    payload: Any,
    unit_id: str,
    unit_fields: Mapping[str, Any] | None = None,
    config_hash: str | None = None,
    units_dir: str | Path | None = None,
) -> str | None:
    """Why ``payload`` (a parsed unit file) is not the finished unit ``unit_id``, or None when it
    is.

    Checked: a JSON object with the unit file's keys; its id (and, when given, its key
    ``unit_fields`` and the run's ``config_hash``); records that are a list of objects with every
    field of :data:`~eval_harness.contract.records.RECORD_FIELDS`; a well-formed samples entry, if
    any; the checksum of the content; and, given the folder of the unit files ``units_dir``, that
    the samples file it names is there with the bytes it hashed (:func:`.samples.samples_problem`).
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
    if SAMPLES_KEY in payload:
        problem = entry_problem(payload[SAMPLES_KEY], unit_id)
        if problem is not None:
            return problem
    try:
        checksum = payload_checksum(payload)
    except ValueError as error:  # a NaN or an infinity: never written by the harness
        return f"its content is not plain JSON ({error})"
    if payload["checksum"] != checksum:
        return "its checksum does not match its content (edited or damaged)"
    if units_dir is not None:
        return samples_problem(units_dir, payload)
    return None


def samples_file_name(unit_id: str) -> str:
    """``<unit id>.samples.parquet``: the samples file of a unit, in the run folder's ``units/``."""
    return unit_id + SAMPLES_SUFFIX


def entry_problem(entry: Any, unit_id: str) -> str | None:
    """Why ``entry`` is not a well-formed ``"samples"`` entry of unit ``unit_id``, or None (reads no
    file)."""
    if not isinstance(entry, dict) or any(key not in entry for key in ENTRY_KEYS):
        return f"its samples entry is not an object with {', '.join(ENTRY_KEYS)}"
    if entry["file"] != samples_file_name(unit_id):
        return f"its samples entry names {entry['file']!r}, not {samples_file_name(unit_id)!r}"
    return None


# The largest samples file read (a regular file only: io.read_bytes); a unit's per-sentence Parquet
# is some MB.
MAX_SAMPLES_BYTES = 1 << 30


def read_samples_bytes(path: Path) -> bytes:
    """The bytes of a samples file: a regular file of at most :data:`MAX_SAMPLES_BYTES` (OSError
    otherwise)."""
    return read_bytes(path, MAX_SAMPLES_BYTES)


def samples_problem(
    units_dir: str | Path, payload: Mapping[str, Any], data: bytes | None = None
) -> str | None:
    """Why the samples file a unit file (``payload``, already verified) names is not the one it
    wrote, or None: no file, or bytes whose sha256 is not the entry's. ``data``: the file's bytes
    when already read. A unit file without a samples entry has no problem here."""
    entry = payload.get(SAMPLES_KEY)
    if entry is None:
        return None
    problem = entry_problem(entry, str(payload.get("id")))
    if problem is not None:
        return problem
    if data is None:
        try:
            data = read_samples_bytes(Path(units_dir) / entry["file"])
        except FileNotFoundError:
            return f"its samples file {entry['file']} is missing"
        except OSError as error:
            return f"its samples file {entry['file']} cannot be read ({error.strerror or error})"
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        return (
            f"its samples file {entry['file']} does not match "
            "its checksum (edited, truncated or replaced)"
        )
    return None
