"""Model folders that xbias builds once into its cache (from GGUF files, from packaged weights).

:func:`build_once` makes such a folder safe to share between runs and processes:

- the build runs in a staging folder; a marker (``xbias-build.json``: the source's digest and the
  sha256 of every file) is written LAST, then the folder is renamed into place. A crash leaves a
  staging folder, never a half-built model where a finished one is looked for;
- a file lock keeps two processes (accelerate ranks) from building the same folder at once;
- a later use checks the marker (:func:`is_built`: file hashes are remembered by path, size and
  modification time, so this is instant after the first check) and builds again only when a file
  is missing or changed.
"""

import fcntl
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from eval_harness.paths import cache_root

MARKER = "xbias-build.json"
logger = logging.getLogger(__name__)


def models_root() -> Path:
    """Where built model folders live: ``cache_root()/"models"``."""
    return cache_root() / "models"


def build_once(final: Path, source_digest: str, build: Callable[[Path], None], message: str | None = None) -> Path:
    """``final`` when it is a finished build of ``source_digest``, else ``build(staging)`` then moved there.

    ``build`` writes the model's files into the (empty, existing) folder it is given; ``message``
    is printed to stderr before a build starts (what is built, how long it takes).
    """
    final = Path(final)
    if is_built(final, source_digest):
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(final.parent / f".{final.name}.lock"):
        if is_built(final, source_digest):  # another process finished while this one waited
            return final
        staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".tmp-{final.name}-"))
        try:
            if message:
                logger.info(message)  # a build takes minutes: say what is happening
            model_dir = staging / "model"
            model_dir.mkdir()
            build(model_dir)
            write_marker(model_dir, source_digest)
            shutil.rmtree(final, ignore_errors=True)  # a folder that failed verification
            os.replace(model_dir, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return final


def write_marker(folder: Path, source_digest: str) -> None:
    """Write the marker into ``folder``: ``source_digest`` and the sha256 of every file there."""
    from eval_harness.models.loading import file_sha256

    files = {path.name: file_sha256(path) for path in sorted(Path(folder).iterdir()) if path.is_file()}
    temporary = Path(folder) / f".{MARKER}.tmp"
    temporary.write_text(json.dumps({"source_digest": source_digest, "files": files}, indent=1, sort_keys=True))
    temporary.replace(Path(folder) / MARKER)


def read_marker(folder: Path) -> dict | None:
    """The marker of a built folder, or None when there is none (or it is unreadable)."""
    try:
        return json.loads((Path(folder) / MARKER).read_text())
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None


def is_built(folder: Path, source_digest: str) -> bool:
    """Whether ``folder`` is a finished build of ``source_digest`` whose files all have their recorded sha256."""
    from eval_harness.models.loading import file_sha256

    marker = read_marker(folder)
    if marker is None or marker.get("source_digest") != source_digest:
        return False
    files = marker.get("files") or {}
    return bool(files) and all(
        (Path(folder) / name).is_file() and file_sha256(Path(folder) / name) == digest for name, digest in files.items()
    )


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``lock_path`` (other processes wait for it)."""
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def package_folder(distribution: str) -> Path | None:
    """The installed folder of a distribution's import package (``a-b==1`` -> ``a_b``), or None; not imported."""
    module = distribution.split("==", 1)[0].replace("-", "_")
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))
