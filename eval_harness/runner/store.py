"""The run folder: what ``xbias run --out DIR`` writes, and how a re-run recognises its own results.

::

    DIR/config.yaml      the normalised config (RunConfig.to_yaml)
    DIR/run.json         config hash, seeds, versions, process count, unit counts, status
    DIR/units/<id>.json  one file per finished unit: its key, records and seconds (written atomically)
    DIR/results.jsonl    every record of every finished unit, long format, in plan order
    DIR/cache/           embeddings and trained regressors (default cache folder)

A folder whose ``run.json`` carries another config hash belongs to a different run:
:meth:`RunStore.open` refuses it unless ``force`` (which deletes the old results, not the
content-addressed cache). Finished units are the ``units/*.json`` files: ``results.jsonl``
is rebuilt from them, so a crash loses nothing that finished.
"""

import json
import platform
import shutil
import time
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..io import atomic_write_text
from .config import RunConfig
from .suite import Unit

_OWN_ENTRIES = {"config.yaml", "run.json", "units", "results.jsonl", "cache"}
_VERSIONED = (
    "xbias",
    "torch",
    "transformers",
    "datasets",
    "evaluate",
    "accelerate",
    "numpy",
    "scipy",
    "statsmodels",
    "scikit-learn",
    "pandas",
)


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


class RunStore:
    """Reads and writes one run folder (see the module docstring). Only rank 0 writes."""

    def __init__(self, out: str | Path):
        self.root = Path(out)
        self.units_dir = self.root / "units"
        self.cache_dir = self.root / "cache"

    # -- identity -------------------------------------------------------------------------------------------------
    def check(self, config: RunConfig, force: bool = False) -> None:
        """Refuse a folder that holds another run's results (a different config hash), or that is not
        empty and not a run folder, unless ``force``. Reads only.

        Raises:
            ConfigError: naming the folder, both config hashes and the fix.
        """
        run_file = self.root / "run.json"
        if run_file.is_file():
            previous = self._read_json(run_file) or {}
            if previous.get("config_hash") != config.config_hash() and not force:
                raise ConfigError(
                    f"{self.root} holds the results of a different run (config hash "
                    f"{str(previous.get('config_hash'))[:12]}, this config {config.config_hash()[:12]}); "
                    "use --force to replace them, or another --out"
                )
        elif self.root.is_dir() and any(p.name not in _OWN_ENTRIES for p in self.root.iterdir()) and not force:
            raise ConfigError(
                f"{self.root} is not empty and is not an xbias run folder; use another --out "
                "(or --force to write into it anyway)"
            )

    def open(self, config: RunConfig, force: bool = False) -> None:
        """Make the folder ready for ``config`` (after :meth:`check`): new, resumed, or with ``force`` wiped
        of old results (the cache is content-addressed and stays)."""
        if force:
            shutil.rmtree(self.units_dir, ignore_errors=True)
            for name in ("results.jsonl", "run.json"):
                (self.root / name).unlink(missing_ok=True)
        self.units_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.root / "config.yaml", config.to_yaml())

    def write_run_info(self, config: RunConfig, **fields: Any) -> None:
        info = {
            "config_hash": config.config_hash(),
            "name": config.name,
            "seeds": list(config.seeds),
            "versions": package_versions(),
            **fields,
        }
        atomic_write_text(self.root / "run.json", json.dumps(info, indent=2) + "\n")

    def run_info(self) -> dict:
        return self._read_json(self.root / "run.json") or {}

    # -- units ----------------------------------------------------------------------------------------------------
    def unit_path(self, unit: Unit) -> Path:
        return self.units_dir / f"{unit.id}.json"

    def is_finished(self, unit: Unit) -> bool:
        """A unit is finished when its file exists and parses (an atomic write never leaves half a file)."""
        return self.read_unit(unit) is not None

    def read_unit(self, unit: Unit) -> dict | None:
        return self._read_json(self.unit_path(unit))

    def write_unit(self, unit: Unit, records: list[dict], seconds: float) -> None:
        payload = {
            "unit": unit.fields(),
            "id": unit.id,
            "seconds": round(seconds, 3),
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "records": records,
        }
        atomic_write_text(self.unit_path(unit), json.dumps(payload, indent=1, allow_nan=False) + "\n")

    def write_results(self, units: Iterable[Unit]) -> int:
        """Rebuild ``results.jsonl`` from the finished units among ``units``, in order; returns the record count."""
        lines = []
        for unit in units:
            payload = self.read_unit(unit)
            if payload is not None:
                lines.extend(json.dumps(record, ensure_ascii=False, allow_nan=False) for record in payload["records"])
        atomic_write_text(self.root / "results.jsonl", "".join(line + "\n" for line in lines))
        return len(lines)

    @staticmethod
    def _read_json(path: Path) -> dict | None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            return None
