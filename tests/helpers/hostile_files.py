"""What the read and walk rules must refuse, planted where a file is expected: a FIFO (a read
blocks), a link to /dev/zero (a read never ends), an oversized sparse file (a read exhausts memory)
and a link (to a folder elsewhere, or to nothing)."""

import os
import shutil
from pathlib import Path

KINDS = ("fifo", "dev-zero", "oversized", "link")


def plant(path: Path, kind: str, *, size: int, link_to: Path | None = None) -> Path:
    """Put a ``kind`` (of :data:`KINDS`) at ``path``, replacing what is there: an oversized file
    holds ``size`` bytes (sparse: no disk, but its size is what a reader sees first); a link points
    at ``link_to``, or at nothing when it is None."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "oversized":
        with open(path, "wb") as stream:
            stream.truncate(size)
    elif kind == "link":
        target = link_to if link_to is not None else path.parent / "nothing-here"
        path.symlink_to(target, target_is_directory=link_to is not None and link_to.is_dir())
    else:
        raise ValueError(f"no such kind of planted file: {kind!r}")
    return path
