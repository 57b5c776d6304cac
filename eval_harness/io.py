"""File writes that never leave half a file, built folders that are whole or absent, and file digests: the
package's one home for all three.

- :func:`atomic_write_bytes` / :func:`atomic_write_text` / :func:`atomic_write_json`: readers
  see the old file or the whole new one. The data go to a temporary file in the same folder,
  are flushed to disk, and are renamed over the target. The file gets the permissions a plain
  ``open(path, "w")`` would give (0666 less the umask): results are meant to be shared.
- :func:`read_json`: the JSON in a file, or None (missing, unreadable, not JSON).
- :func:`file_sha256`: a file's sha256, read in blocks.
- The storage kit, for every folder xbias builds into a cache (datasets, converted models, fitted
  regressors): :func:`build_folder` builds a folder in a temporary sibling, under an exclusive
  ``flock`` on a sibling lock file (two processes never build one folder at once; the second
  finds the first's), seals it with :func:`write_checksums` (the marker ``.xbias-build.json``:
  a stamp saying what was built, and the sha256 of every file, written last) and renames it into
  place. :func:`verify_checksums` is the verify-on-read: a folder counts only when it holds
  exactly the files its marker lists, with those digests, and its stamp is the one expected. A
  crash leaves a hidden staging folder beside it (the next build of that folder removes it),
  never a half-built folder where a finished one is looked for.
"""

import fcntl
import glob
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BUILD_MARKER = ".xbias-build.json"
MARKER_FORMAT = 1
_BLOCK = 1 << 20


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see the module docstring); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = _new_temporary(path)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def _new_temporary(path: Path) -> tuple[int, Path]:
    """A new file beside ``path``, open for writing, created with mode 0666 so that the kernel applies the
    umask (as a plain ``open(path, "w")`` does; ``mkstemp`` would make it 0600, and reading the umask means
    setting it, which races with other threads)."""
    while True:
        temporary = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), temporary
        except FileExistsError:
            continue


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """:func:`atomic_write_bytes` of ``text`` in UTF-8."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, data: Any, indent: int | None = 1) -> Path:
    """:func:`atomic_write_text` of ``data`` as JSON (NaN and infinities refused: they are not JSON)."""
    return atomic_write_text(path, json.dumps(data, indent=indent, sort_keys=True, allow_nan=False) + "\n")


def read_json(path: str | os.PathLike) -> Any:
    """The JSON in ``path``, or None when the file is missing, unreadable or not JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def file_sha256(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(folder: str | os.PathLike, stamp: Mapping[str, Any] | None = None) -> dict:
    """Seal ``folder``: write its marker (``stamp`` and the sha256 of every other file in it), last; returns it."""
    folder = Path(folder)
    marker = {"format": MARKER_FORMAT, "stamp": dict(stamp or {}), "files": _digests(folder)}
    atomic_write_json(folder / BUILD_MARKER, marker)
    return marker


def verify_checksums(folder: str | os.PathLike, expect: Mapping[str, Any] | None = None) -> dict | None:
    """The marker of ``folder`` when the folder holds exactly the files it lists, with those contents, and its
    stamp has every item of ``expect``; None otherwise (no marker, a marker of another format, a missing, extra
    or changed file, another stamp)."""
    folder = Path(folder)
    marker = read_json(folder / BUILD_MARKER)
    if not isinstance(marker, dict) or marker.get("format") != MARKER_FORMAT:
        return None
    stamp, files = marker.get("stamp"), marker.get("files")
    if not isinstance(stamp, dict) or not isinstance(files, dict):
        return None
    if any(stamp.get(key) != value for key, value in (expect or {}).items()):
        return None
    return marker if _digests(folder) == files else None


def _digests(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): file_sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.relative_to(folder).as_posix() != BUILD_MARKER
    }


def build_folder(
    folder: str | os.PathLike,
    build: Callable[[Path], Mapping[str, Any] | None],
    expect: Mapping[str, Any] | None = None,
    *,
    rebuild: bool = False,
) -> dict:
    """The marker of ``folder``, a verified build whose stamp has ``expect``'s items, built now when there is none
    (or always, with ``rebuild``).

    ``build(staging)`` writes the folder's files into ``staging`` (an empty folder beside ``folder``) and may
    return more stamp items (what only the build knows: row counts...). The stamp is ``expect`` plus those.
    Under the lock the folder is looked at again, so a process that waited for another's build uses it. The
    previous folder, if any, is renamed aside and the new one renamed into its place: between the two renames a
    reader finds no folder (and, building it, waits for the lock and then finds the new one), never a mixed one.

    Raises:
        OSError: the parent cannot be created or written; whatever ``build`` raises (nothing is left but the
            lock file).
    """
    folder = Path(folder)
    expect = dict(expect or {})
    if not rebuild and (marker := verify_checksums(folder, expect)) is not None:
        return marker
    folder.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(folder.parent / f".{folder.name}.lock"):
        if not rebuild and (marker := verify_checksums(folder, expect)) is not None:
            return marker  # another process built it while this one waited
        _remove_leftovers(folder)
        staging = _new_sibling(folder, "building")
        try:
            extra = build(staging)
            marker = write_checksums(staging, {**expect, **(extra or {})})
            _swap_in(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return marker


@contextmanager
def exclusive_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing; kept afterwards): other processes wait."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _new_sibling(folder: Path, role: str) -> Path:
    """A new empty folder beside ``folder`` (``mkdir``, so it gets the umask's permissions, as ``folder`` would)."""
    while True:
        sibling = folder.parent / f".{folder.name}.{role}-{secrets.token_hex(6)}"
        try:
            sibling.mkdir()
            return sibling
        except FileExistsError:
            continue


def _remove_leftovers(folder: Path) -> None:
    """Staging and retired siblings of ``folder`` left by a process that died building it (under the lock, no
    live builder has any)."""
    for role in ("building", "retired"):
        for leftover in folder.parent.glob(f".{glob.escape(folder.name)}.{role}-*"):
            shutil.rmtree(leftover, ignore_errors=True)


def _swap_in(staging: Path, folder: Path) -> None:
    retired = folder.parent / f".{folder.name}.retired-{secrets.token_hex(6)}"
    try:
        folder.rename(retired)
    except FileNotFoundError:
        retired = None
    staging.rename(folder)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
