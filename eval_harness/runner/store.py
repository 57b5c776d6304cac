"""The run folder: what ``xbias run --out DIR`` writes, and how a re-run recognises its own results.

::

    DIR/run.lock         held (an OS file lock) by the run that uses the folder; holds its pid and host
    DIR/config.yaml      the normalised config (RunConfig.to_yaml)
    DIR/run.json         config hash, seeds, versions, process count, unit counts, status
    DIR/units/<id>.json  one file per finished unit: its key, config hash, records and a checksum
                         (:mod:`eval_harness.contract.unit_file`)
    DIR/units/<id>.samples.parquet   the unit's per-sentence (per-word) numbers, named and hashed in its unit
                         file (:mod:`eval_harness.contract.samples`)
    DIR/results.jsonl    every record of every finished unit, long format: rewritten in plan order when a run
                         starts (the units it resumes) and ends, each unit's records appended as it finishes
    DIR/cache/           embeddings and trained regressors (default cache folder)

Every file is written atomically (:mod:`eval_harness.io`) with the permissions the user's umask
gives, except that ``results.jsonl`` grows by one append per finished unit while a run is in
progress (a reader may meet a last line cut short, which the report names and leaves out); the run
rewrites it atomically when it ends. One run at a time: :meth:`RunStore.lock` takes an exclusive
``flock`` on ``run.lock`` for the whole run (the OS drops it when the process ends, however it
ends), and a second run on the folder stops at once with one line naming the holder's pid. Finished
units are the unit files that pass :func:`~eval_harness.contract.unit_file.unit_file_problem`;
``results.jsonl`` is rebuilt from them, so a crash loses nothing that finished. The bookkeeping is
linear in the number of units: a unit file is read and verified once, when a run starts (resuming
it), and written once; nothing is re-read after each task. A folder is a run folder only when its
``run.json`` says so (:meth:`RunStore.is_ours`; the first thing a run writes): any other non-empty
folder is refused before anything, even ``run.lock``, is written into it, and even ``force`` never
deletes or overwrites a file that is not xbias's (:meth:`RunStore.check_owner`). A folder holding
finished units of another config belongs to a different run: :meth:`RunStore.check` refuses it
unless ``force``; a folder whose run finished no unit (a failed start) is taken over.
docs/run_folder.md states these guarantees for users.
"""  # noqa: E501

import errno
import fcntl
import hashlib
import json
import os
import platform
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from ..contract import Unit
from ..contract.unit_file import SAMPLES_KEY, samples_file_name, unit_file_problem, unit_payload
from ..errors import ConfigError, XBiasError
from ..io import (
    atomic_write_bytes,
    atomic_write_text,
    leftover_temporaries,
    read_json,
    write_problem,
)
from .config import RunConfig

LOCK_NAME = "run.lock"
RESULTS_NAME = "results.jsonl"
RUN_INFO_NAME = "run.json"
# What run.json says of a folder xbias made: a folder is an xbias run folder only when its run.json
# says so.
RUN_FOLDER_KIND = "xbias run folder"
# The entries xbias writes into a run folder (never anything else; a wipe removes only its own
# files).
OWN_ENTRIES = ("config.yaml", RUN_INFO_NAME, "units", RESULTS_NAME, "cache", LOCK_NAME)
# Errors of a full disk (or quota): nothing finished is lost, the run can resume once there is room.
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
# Errors of a file system without file locks (some network and FUSE file systems).
NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS)
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


@dataclass(frozen=True)
class ResultsFile:
    """What :meth:`RunStore.write_results` wrote: the record count and the sha256 of
    ``results.jsonl``'s bytes (``run.json`` keeps both, so a reader can tell the file it reads is
    the one the run finished with)."""

    records: int
    sha256: str

    def to_dict(self) -> dict:
        return {"file": RESULTS_NAME, "records": self.records, "sha256": self.sha256}


def results_lines(records: Iterable[dict]) -> str:
    """``results.jsonl``'s lines for ``records``: one JSON object per line."""
    return "".join(
        json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n" for record in records
    )


class RunFolderError(XBiasError):
    """The run folder cannot be used: another run holds it, it is not a folder one can write, or the
    disk is full. The message names the folder, the cause and what to do."""


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


class RunLock:
    """An exclusive ``flock`` on ``DIR/run.lock``, held until :meth:`release` or the end of the
    process.

    The lock file stays in the folder: deleting it while a run holds it would let a second run lock
    a new file of the same name.
    """

    def __init__(self, descriptor: int):
        self.descriptor: int | None = descriptor

    def release(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)  # closing the last descriptor drops the flock
            self.descriptor = None

    def __enter__(self) -> "RunLock":
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()


class RunStore:
    """Reads and writes one run folder (see the module docstring). Only rank 0 writes.

    ``config``: the run's config; then only units written for it count as finished.
    """

    def __init__(self, out: str | Path, config: RunConfig | None = None):
        self.root = Path(out)
        self.units_dir = self.root / "units"
        self.cache_dir = self.root / "cache"
        self.results_path = self.root / RESULTS_NAME
        self.config_hash = config.config_hash() if config is not None else None

    # -- the folder and its lock -------------------------------------------------------------------
    def make_folder(self) -> None:
        """Create the folder (and its parents) if needed.

        Raises:
            RunFolderError: the path is a file, lies below a file, or cannot be created.
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # what exists is not a folder
            raise RunFolderError(
                f"the run folder {self.root} is a file, not a folder; give another --out"
            ) from None
        except OSError as error:
            raise self.write_error(error, "the folder") from None

    def lock(self) -> RunLock:
        """Take the folder's exclusive lock (see :class:`RunLock`) and write this process's pid into
        it.

        Raises:
            RunFolderError: another process holds the lock (the message names its pid), or the
                folder is not writable.
        """
        path = self.root / LOCK_NAME
        try:
            # O_NOFOLLOW: a symbolic link planted as run.lock is refused, never opened (truncated)
            # through
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        except OSError as error:
            raise self.write_error(error, f"creating {LOCK_NAME}") from None
        try:
            holder = _take_lock(descriptor)
        except OSError as error:
            os.close(descriptor)
            if error.errno not in NO_LOCKS:
                raise self.write_error(error, LOCK_NAME) from None
            raise RunFolderError(
                f"the file system of the run folder {self.root} has no file "
                f"locks (flock: {error.strerror}), so two runs could write it at "
                "once; give an --out on a local disk or on a file system with "
                "locks (NFSv4, or Lustre mounted with -o flock; docs/scaling.md)"
            ) from None
        if holder is not None:
            os.close(descriptor)
            raise self.in_use_error(holder)
        try:
            os.ftruncate(descriptor, 0)
            # the host too: on shared storage the holder may run on another machine, where its pid
            # means nothing here
            os.pwrite(descriptor, f"{os.getpid()} {socket.gethostname()}\n".encode(), 0)
        except OSError as error:
            os.close(descriptor)
            raise self.write_error(error, LOCK_NAME) from None
        return RunLock(descriptor)

    def in_use_error(self, holder: str) -> RunFolderError:
        """The error of a folder whose lock another run holds (``holder``: as :func:`_holder`
        says)."""
        return RunFolderError(
            f"the run folder {self.root} is in use by another "
            f"xbias run ({holder}); wait for it to end (then run "
            "this command again: it resumes) or give another --out"
        )

    def holder(self) -> str | None:
        """Who holds the folder's lock now (as :func:`_holder` says), or None when no one does or
        the folder has no lock file (or only a link in its place, which :meth:`check_owner`
        refuses). Reads only: the lock is probed through a read-only descriptor, with a shared lock
        that is dropped at once."""
        try:
            descriptor = os.open(self.root / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder(descriptor)
        except OSError:  # no locks on this file system: :meth:`lock` says so
            return None
        finally:
            os.close(descriptor)
        return None

    def write_error(self, error: OSError, what: str, finished: int | None = None) -> RunFolderError:
        """A one-line :class:`RunFolderError` for an OS error met while writing ``what`` into the
        folder; ``finished``: the units safely on disk (said when the run can simply be resumed)."""
        if error.errno in DISK_FULL:
            kept = (
                f"the {finished} finished unit(s) are safe"
                if finished is not None
                else "nothing is lost"
            )
            return RunFolderError(
                f"no space left on the device while writing {what} (run folder {self.root}); "
                f"{kept}: free some space and run the same command again to resume"
            )
        if error.errno == errno.ELOOP:
            return RunFolderError(
                f"cannot write {what} in the run folder {self.root}: a "
                "symbolic link is in its place, which xbias did not "
                "create and never writes through; give another --out"
            )
        if error.errno == errno.ENOTDIR:
            return RunFolderError(
                f"the run folder {self.root} lies below a file, not a folder; give another --out"
            )
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return RunFolderError(
                f"cannot write into the run folder {self.root} "
                f"({error.strerror}); give an --out you can write to"
            )
        return RunFolderError(
            f"cannot write {what} in the run folder {self.root}: {error.strerror or error}"
        )

    # -- identity ----------------------------------------------------------------------------------
    def is_ours(self) -> bool:
        """Whether the folder is an xbias run folder: its ``run.json`` says so (``kind``; a run.json
        of an xbias before the field existed has its config hash and xbias's version), or, with
        run.json deleted (which the user may do), ``units/`` holds an intact unit file. Reads
        only."""
        info = self.run_info()
        if info.get("kind") == RUN_FOLDER_KIND:
            return True
        versions = info.get("versions")
        if (
            isinstance(info.get("config_hash"), str)
            and isinstance(versions, dict)
            and "xbias" in versions
        ):
            return True
        return not (self.root / RUN_INFO_NAME).exists() and bool(self._intact_units())

    def check_owner(self, force: bool = False) -> None:
        """Refuse a folder that is not empty and not an xbias run folder (:meth:`is_ours`), before
        anything is written into it (not even ``run.lock``). With ``force`` such a folder is written
        into only when none of xbias's entries (:data:`OWN_ENTRIES`) exists there: its files are
        never deleted or overwritten. None of those entries may be a symbolic link, in any folder
        (the write rule, :func:`eval_harness.io.write_problem`).

        Raises:
            RunFolderError: another run holds the folder's lock (it is starting or running).
            ConfigError: naming the folder, what makes it foreign and the fix.
        """
        if not self.root.is_dir() or self.root.is_symlink():
            self._refuse(write_problem(self.root, lambda path: False, OWN_ENTRIES))
            return
        # A run that holds the lock is starting or running: while it starts, its folder can hold
        # run.lock and a half-written run.json only, which is not yet "ours" by its files.
        holder = self.holder()
        if holder is not None:
            raise self.in_use_error(holder)
        present = sorted(path.name for path in self.root.iterdir())
        ours = (
            set(present) <= {LOCK_NAME} or self.is_ours()
        )  # new (a lock alone: a run that stopped at once)
        if not ours and not force:
            shown = ", ".join(present[:5]) + (
                f" and {len(present) - 5} more" if len(present) > 5 else ""
            )
            raise ConfigError(
                f"{self.root} is not an xbias run folder (it holds {shown}, and no "
                "run.json of xbias says it is one); give a new or empty --out (--force "
                "adds a run beside files that are not xbias's, never replacing them)"
            )
        # The write rule (io.write_problem): in a folder of xbias's its entries are its own, never a
        # link; in another (with --force) none of the names a run writes may exist.
        self._refuse(write_problem(self.root, lambda path: ours, OWN_ENTRIES))

    def _refuse(self, problem: str | None) -> None:
        if problem is not None:
            raise ConfigError(
                f"{self.root} cannot be a run folder: {problem}; even "
                "with --force xbias never replaces or writes through "
                "files that are not its own: give another --out"
            )

    def check(self, config: RunConfig, force: bool = False) -> bool:
        """Whether the folder can take ``config``'s run, and whether its old results must go first.
        Reads only.

        Called under the lock, after :meth:`check_owner` (before it, which judges a folder that is
        not xbias's). The folder is refused when it holds finished units of another config (a
        different run), unless ``force``. Returns True when old
        results must be wiped: with ``force`` (in a folder of xbias's), or when the previous run of
        another config finished no unit (a failed start, which a corrected config takes over).

        Raises:
            ConfigError: naming the folder, both config hashes and the fix.
        """
        if force:
            return (
                self.is_ours()
            )  # a folder that is not xbias's passed check_owner: nothing of it is wiped
        this_hash = config.config_hash()
        previous = self.run_info().get("config_hash")
        intact = self._intact_units()
        hashes = {payload["config_hash"] for payload in intact.values()}
        others = sorted(hashes - {this_hash})
        if others:
            foreign = sorted(
                unit_id
                for unit_id, payload in intact.items()
                if payload["config_hash"] != this_hash
            )
            raise ConfigError(
                f"{self.root} holds the results of a different run "
                f"(config hash {str(others[0])[:12]}, this config "
                f"{this_hash[:12]}): {_named_units(foreign)}; "
                + (
                    "move those files out of units/ to go on with this run's own units, "
                    if this_hash in hashes
                    else ""
                )
                + "use --force to replace them all, or another --out"
            )
        if hashes and previous is not None and previous != this_hash:
            # Its units are this config's, so run.json was edited or swapped: wiping would delete
            # finished units.
            raise ConfigError(
                f"{self.root}/{RUN_INFO_NAME} names config hash "
                f"{str(previous)[:12]}, but its finished units are this config's "
                f"({this_hash[:12]}): run.json was edited; delete it (the next "
                "run rebuilds it from the units) or use --force to start over"
            )
        return (
            previous is not None and previous != this_hash
        )  # another config's run that finished no unit

    def open(self, config: RunConfig, wipe: bool = False) -> None:
        """Make the folder ready for ``config`` (after :meth:`check`): new, resumed, or (``wipe``)
        cleared of old results: the intact unit files, ``results.jsonl`` and ``run.json``, nothing
        else (the cache is content-addressed and stays; a file in ``units/`` that is no unit file of
        xbias's stays too). First of all ``run.json`` claims the folder (status ``starting``), so a
        start that fails at once leaves a folder the next run recognises as its own."""
        self.config_hash = config.config_hash()
        try:
            # only what xbias wrote: intact unit files (never any other *.json), results, run.json
            if wipe:
                units = [self.units_dir / f"{unit_id}.json" for unit_id in self._intact_units()]
                for path in [*units, self.results_path, self.root / RUN_INFO_NAME]:
                    path.unlink(missing_ok=True)
            if not self.is_ours():
                self.write_run_info(config, status="starting")
            self.units_dir.mkdir(parents=True, exist_ok=True)
            # What a killed writer left (an atomic write's temporary file); no one else writes here
            # under the lock.
            for temporary in [
                *leftover_temporaries(self.root),
                *leftover_temporaries(self.units_dir),
            ]:
                temporary.unlink(missing_ok=True)
            atomic_write_text(self.root / "config.yaml", config.to_yaml())
        except OSError as error:
            raise self.write_error(error, "config.yaml") from None

    def write_run_info(self, config: RunConfig, **fields: Any) -> None:
        info = {
            "kind": RUN_FOLDER_KIND,
            "config_hash": config.config_hash(),
            "name": config.name,
            "seeds": config.seeds_setting,
            "versions": package_versions(),
            **fields,
        }
        atomic_write_text(self.root / RUN_INFO_NAME, json.dumps(info, indent=2) + "\n")

    def run_info(self) -> dict:
        info = self._read_json(self.root / RUN_INFO_NAME)
        return info if isinstance(info, dict) else {}

    # -- units -------------------------------------------------------------------------------------
    def unit_path(self, unit: Unit) -> Path:
        return self.units_dir / f"{unit.id}.json"

    def finished_units(
        self,
        units: Iterable[Unit],
        warn: bool = True,
        keeps_samples: Callable[[Unit], bool] | None = None,
    ) -> dict[str, dict]:
        """The finished units among ``units``: id -> the parsed, verified unit file, in the order of
        ``units``; each file (and its samples file) is read once. A unit file that is not a finished
        unit of this run (see :func:`~eval_harness.contract.unit_file.unit_file_problem`: its
        samples file is checked too), or that has no samples where ``keeps_samples(unit)`` says it
        keeps them, gives one warning naming the file (with ``warn``); the unit is then computed
        again."""
        found = {}
        for unit in units:
            path = self.unit_path(unit)
            if not path.exists():
                continue
            payload = self._read_json(path)
            problem = self._problem(unit, payload)
            if (
                problem is None
                and keeps_samples is not None
                and keeps_samples(unit)
                and SAMPLES_KEY not in payload
            ):
                problem = (
                    "it has no samples file (written by an xbias that kept no per-sentence scores)"
                )
            if problem is None:
                found[unit.id] = payload
            elif warn:
                warnings.warn(
                    f"{path} is not a finished unit: {problem}; it is computed again",
                    RuntimeWarning,
                    stacklevel=2,
                )
        return found

    def write_unit(
        self,
        unit: Unit,
        records: list[dict],
        seconds: float,
        samples: tuple[bytes, dict] | None = None,
    ) -> dict:
        """Write the unit's file (atomically) and return its content; ``samples``: the Parquet bytes
        of its samples and their entry (:func:`~eval_harness.contract.samples.samples_entry`),
        written first, so that a unit file never names a samples file that is not there yet."""
        entry = None
        if samples is not None:
            data, entry = samples
            atomic_write_bytes(self.units_dir / samples_file_name(unit.id), data)
        payload = unit_payload(
            unit.id, unit.fields(), self.config_hash, records, seconds, samples=entry
        )
        atomic_write_text(
            self.unit_path(unit), json.dumps(payload, indent=1, allow_nan=False) + "\n"
        )
        return payload

    def append_results(self, records: list[dict]) -> None:
        """Add one finished unit's records to the end of ``results.jsonl``, in one append (a run in
        progress grows the file unit by unit; :meth:`write_results` rewrites it whole when the run
        starts and ends)."""
        data = results_lines(records).encode("utf-8")
        descriptor = os.open(
            self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o666
        )
        try:
            while data:
                data = data[os.write(descriptor, data) :]
        finally:
            os.close(descriptor)

    def write_results(self, payloads: Iterable[dict]) -> ResultsFile:
        """Write ``results.jsonl`` anew (atomically) from finished units' files, in the order
        given."""
        records = [record for payload in payloads for record in payload["records"]]
        text = results_lines(records)
        atomic_write_text(self.results_path, text)
        return ResultsFile(
            records=len(records), sha256=hashlib.sha256(text.encode("utf-8")).hexdigest()
        )

    def _problem(self, unit: Unit, payload: Any) -> str | None:
        if payload is None:
            return "it is not JSON (cut short?)"
        return unit_file_problem(
            payload, unit.id, unit.fields(), self.config_hash, units_dir=self.units_dir
        )

    def _intact_units(self) -> dict[str, dict]:
        """Every unit file in the folder that is intact (whatever its config), by id."""
        intact = {}
        for path in sorted(self.units_dir.glob("*.json")) if self.units_dir.is_dir() else ():
            payload = self._read_json(path)
            if payload is not None and unit_file_problem(payload, path.stem) is None:
                intact[path.stem] = payload
        return intact

    @staticmethod
    def _read_json(path: Path) -> Any:
        # None when missing, not a regular file (a FIFO would hang a resume), unreadable, not JSON
        # (too deep too)
        return read_json(path)


def _named_units(unit_ids: list[str], shown: int = 3) -> str:
    """``units/A.json, units/B.json and 4 more``: the unit files a message names."""
    names = ", ".join(f"units/{unit_id}.json" for unit_id in unit_ids[:shown])
    return names + (f" and {len(unit_ids) - shown} more" if len(unit_ids) > shown else "")


def _take_lock(descriptor: int) -> str | None:
    """Take the exclusive lock on ``descriptor`` without waiting; None when taken, else who holds it
    (:func:`_holder`). Another run's :meth:`RunStore.holder` holds a shared lock for an instant, so
    the lock is tried again after reading its holder (which waits a moment when the file names no
    live process): only a lock still held then is another run's."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        holder = _holder(descriptor)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        return holder


def _holder(descriptor: int, attempts: int = 20) -> str:
    """Who holds the lock, from the pid and host its holder wrote into the lock file: ``pid N``
    (this machine) or ``pid N on host H``. A holder writes them just after locking, so an empty
    file, or the pid of a process of this machine that is gone (a previous holder's), is read again
    for a moment."""
    here, text = socket.gethostname(), ""
    for _ in range(attempts):
        text = os.pread(descriptor, 300, 0).decode(errors="replace").strip()
        pid, _, host = text.partition(" ")
        if pid.isdigit() and host and host != here:
            return f"pid {pid} on host {host}"
        if pid.isdigit() and _alive(int(pid)):
            return f"pid {pid}"
        time.sleep(0.05)
    return f"pid {text.partition(' ')[0] or 'unknown'}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True
