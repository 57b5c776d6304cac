"""File writes that never leave half a file, and file digests: the package's one home for both.

- :func:`atomic_write_bytes` / :func:`atomic_write_text` / :func:`atomic_write_json`: readers
  see the old file or the whole new one. The data go to a temporary file in the same folder,
  are flushed to disk, and are renamed over the target. The file gets the permissions a plain
  ``open(path, "w")`` would give (0666 less the umask): results are meant to be shared.
- :func:`file_sha256`: a file's sha256, read in blocks.
- :func:`write_checksums` / :func:`verify_checksums`: a folder's ``checksums.json``, written
  last, so its presence marks a complete save and a re-read detects any changed file.
"""

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

CHECKSUMS = "checksums.json"
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


def write_checksums(folder: str | os.PathLike) -> None:
    """Record the sha256 of every file in ``folder`` in ``checksums.json`` (write it last)."""
    folder = Path(folder)
    digests = {
        path.relative_to(folder).as_posix(): file_sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != CHECKSUMS
    }
    atomic_write_json(folder / CHECKSUMS, digests)


def verify_checksums(folder: str | os.PathLike) -> bool:
    """Whether ``folder`` holds exactly the files its ``checksums.json`` lists, with those contents."""
    folder = Path(folder)
    digests = read_json(folder / CHECKSUMS)
    if not isinstance(digests, dict):
        return False
    present = {
        path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file() and path.name != CHECKSUMS
    }
    return present == set(digests) and all(file_sha256(folder / name) == digest for name, digest in digests.items())
