"""Atomic writes: whole files only, the user's umask, nothing left behind by a failed write."""

import os
import stat

import pytest

from eval_harness import io


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_an_atomic_write_gets_the_mode_a_plain_write_would(tmp_path, umask):
    previous = os.umask(umask)
    try:
        io.atomic_write_text(tmp_path / "atomic.txt", "new")
        (tmp_path / "plain.txt").write_text("plain")
    finally:
        os.umask(previous)
    modes = {name: stat.S_IMODE((tmp_path / name).stat().st_mode) for name in ("atomic.txt", "plain.txt")}
    assert modes == {"atomic.txt": 0o666 & ~umask, "plain.txt": 0o666 & ~umask}


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "results.jsonl"
    io.atomic_write_text(target, "old\n")

    def disk_full(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(io.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        io.atomic_write_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["results.jsonl"]
