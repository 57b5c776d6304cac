"""Reading a run folder written by ``xbias run`` (the harness).

A run folder holds ``config.yaml`` (the resolved run config), ``run.json`` (versions,
seed, config hash), ``units/<unit_id>.json`` (one per finished unit) and
``results.jsonl`` (the long format: one flat record per number). The report needs
only the records; everything else is context. It reads only records it verified: a
``results.jsonl`` whose sha256 ``run.json`` records (the run writes both when it ends),
else the unit files that pass their checksums, rebuilt in file order (an edited
``results.jsonl`` is one warning). A folder with some of these files missing, or with
units left unfinished (a run killed mid-way), still gives a report of what is there,
and :attr:`RunFolder.missing` says what is not.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from ..contract.records import RECORD_FIELDS
from ..contract.unit_file import unit_file_problem
from ..errors import InputError, unreadable_file
from ..io import file_sha256, load_yaml, parse_json, read_text

RESULTS_NAME = "results.jsonl"
# Needed to place a number at all; the other record columns may be absent or null.
REQUIRED_COLUMNS = ("model", "suite", "metric", "value")


@dataclass(frozen=True)
class RunFolder:
    """What a run folder holds.

    Attributes:
        path: the folder.
        results: every record, one row per number (``RECORD_FIELDS`` + any extra fields).
        config: the parsed ``config.yaml``, or None when it is missing or unreadable.
        run_info: the parsed ``run.json``, or None likewise.
        unit_ids: the finished units (file stems under ``units/``).
        missing: one plain sentence per thing that is missing or unreadable.
    """

    path: Path
    results: pd.DataFrame
    config: dict | None = None
    run_info: dict | None = None
    unit_ids: tuple[str, ...] = ()
    missing: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "path": str(self.path),
            "n_records": len(self.results),
            "config": self.config,
            "run_info": self.run_info,
            "unit_ids": list(self.unit_ids),
            "missing": list(self.missing),
        }

    def summary(self) -> str:
        suites = ", ".join(sorted(self.results["suite"].dropna().unique()))
        models = ", ".join(sorted(self.results["model"].dropna().unique()))
        lines = [
            f"run folder {self.path}: {len(self.results)} records from {len(self.unit_ids)} units",
            f"models: {models}",
            f"suites: {suites}",
        ]
        lines += [f"missing: {item}" for item in self.missing]
        return "\n".join(lines)


def load_run(path: str | Path) -> RunFolder:
    """Read a run folder; raise :class:`InputError` when it holds no results at all.

    Records come from ``results.jsonl`` when its sha256 is the one ``run.json`` records; otherwise
    (a run in progress or killed, an older xbias, the file missing, or edited: then with one
    RuntimeWarning) they are rebuilt from the verified unit files (each unit file's ``records``
    list). Unreadable lines and unit files that fail their checks are skipped and named in
    ``missing``.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(
            f"run folder {folder} does not exist; give the --out folder of an `xbias run`"
        )
    missing: list[str] = []
    config = _read_mapping(folder / "config.yaml", load_yaml, "the resolved run config", missing)
    run_info = _read_mapping(
        folder / "run.json", parse_json, "versions, seed and config hash", missing
    )
    units = _read_units(folder / "units", missing, (run_info or {}).get("config_hash"))

    results_path = folder / RESULTS_NAME
    verified = _verified_results(results_path, run_info)
    if verified:
        records = _read_jsonl(results_path, missing)
    else:
        records = [record for unit in units.values() for record in unit["records"]]
        if not results_path.is_file():
            missing.append(
                f"{RESULTS_NAME} is missing"
                + (f"; the records were rebuilt from {len(units)} unit files" if records else "")
            )
        elif isinstance((run_info or {}).get("results"), dict):
            warnings.warn(
                f"{results_path} is not the file the run wrote (its sha256 is "
                "not the one run.json records: edited or damaged); the report "
                f"is built from the {len(units)} verified unit files instead",
                RuntimeWarning,
                stacklevel=2,
            )
    if not records:
        if results_path.is_file() and not verified:
            missing.append(
                f"{RESULTS_NAME} is not read: run.json records no sha256 that it matches"
            )
        present = sorted(p.name for p in folder.iterdir()) or ["nothing"]
        raise InputError(
            f"run folder {folder} holds no results: "
            f"{'; '.join(missing) or 'results.jsonl is empty'}. It contains: "
            f"{', '.join(present)}. Run (or resume) `xbias run ... --out {folder}` first"
        )
    results = _records_frame(records, results_path if verified else folder / "units")
    missing += _unfinished_units(run_info, len(units))
    missing += _unfinished_suites(config, results)
    return RunFolder(
        path=folder,
        results=results,
        config=config,
        run_info=run_info,
        unit_ids=tuple(sorted(units)),
        missing=tuple(missing),
    )


def _verified_results(path: Path, run_info: dict | None) -> bool:
    """Whether ``path`` is the ``results.jsonl`` the run wrote when it ended: its sha256 is the one
    ``run.json`` records (``results: {file, records, sha256}``). A run in progress (which appends to
    the file) records none."""
    recorded = (run_info or {}).get("results")
    if not isinstance(recorded, dict) or not path.is_file():
        return False
    try:
        return file_sha256(path) == recorded.get("sha256")
    except OSError:
        return False


def _read_mapping(path: Path, parse, what: str, missing: list[str]) -> dict | None:
    if not path.is_file():
        missing.append(f"{path.name} is missing ({what})")
        return None
    try:  # a regular file (a FIFO would hang), of bounded size and depth
        value = parse(read_text(path))
    except (OSError, ValueError, yaml.YAMLError) as error:
        missing.append(
            f"{path.name} is unreadable ({what}): "
            f"{unreadable_file(path.name, error).split(': ', 1)[1]}"
        )
        return None
    if not isinstance(value, dict):
        missing.append(f"{path.name} does not hold a mapping ({what})")
        return None
    return value


def _read_units(folder: Path, missing: list[str], config_hash: str | None) -> dict[str, dict]:
    """The finished units (unit files that pass their checks, of the run's config, with the samples
    file each names), by id; any other unit file is named in ``missing`` and counts as
    unfinished."""
    if not folder.is_dir():
        missing.append("units/ is missing (one JSON file per finished unit)")
        return {}
    units = {}
    for path in sorted(folder.glob("*.json")):
        try:
            unit = parse_json(read_text(path))
        except (OSError, ValueError) as error:
            why = unreadable_file(path.name, error, "unit file").split(": ", 1)[
                1
            ]  # "not valid JSON (line 1, ...)"
            said = why if why.startswith("not ") else f"unreadable ({why})"
            missing.append(f"units/{path.name} is {said}; that unit is left out")
            continue
        problem = unit_file_problem(unit, path.stem, config_hash=config_hash, units_dir=folder)
        if problem is not None and unit_file_problem(unit, path.stem) is None:
            # Intact but another config's: `xbias run` refuses a folder that holds it
            # (RunStore.check).
            missing.append(
                f"units/{path.name} is not this run's unit ({problem}); it is "
                "left out: move it out of units/ before the next `xbias run` "
                "here, which refuses a folder holding another run's units"
            )
            continue
        if problem is not None:
            missing.append(
                f"units/{path.name} is not a finished unit ({problem}); it "
                "counts as unfinished: re-run the same `xbias run` to compute it"
            )
            continue
        units[path.stem] = unit
    return units


def _read_jsonl(path: Path, missing: list[str]) -> list[dict]:
    records, bad_lines = [], []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                bad_lines.append(number)
                continue
            if isinstance(record, dict):
                records.append(record)
            else:
                bad_lines.append(number)
    if bad_lines:
        missing.append(
            f"results.jsonl lines {bad_lines[:10]}{' ...' if len(bad_lines) > 10 else ''} "
            "are not JSON records (a write cut short?); they are left out"
        )
    return records


def _records_frame(records: list[dict], source: Path) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(records)
    absent = [column for column in REQUIRED_COLUMNS if column not in frame.columns]
    if absent:
        raise InputError(
            f"{source}: records lack the columns {absent} (found {sorted(frame.columns)}); "
            f"every record needs {list(REQUIRED_COLUMNS)}"
        )
    for column in RECORD_FIELDS:
        if column not in frame.columns:
            frame[column] = None
    for column in ("value", "std_err", "p_value"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def _unfinished_units(run_info: dict | None, n_finished: int) -> list[str]:
    """What ``run.json`` says about a run that did not complete (status and planned units)."""
    if not run_info:
        return []
    notes = []
    status = run_info.get("status")
    if status and status != "complete":
        notes.append(f"run.json says the run is {status!r}, not 'complete'")
    planned = run_info.get("units_planned")
    if isinstance(planned, int) and n_finished < planned:
        notes.append(
            f"{n_finished} of {planned} planned units are finished; "
            "re-run the same `xbias run` to resume the rest"
        )
    return notes


def _unfinished_suites(config: dict | None, results: pd.DataFrame) -> list[str]:
    """Suites the config asks for (a list of names, or name -> settings) that left no record."""
    if not config or "suites" not in config:
        return []
    wanted = config["suites"]
    wanted = (
        [wanted]
        if isinstance(wanted, str)
        else [s if isinstance(s, str) else s.get("name") for s in wanted]
    )
    done = set(results["suite"].dropna())
    return [
        f"suite {name!r} is in config.yaml but has no results yet"
        for name in wanted
        if name and name not in done
    ]
