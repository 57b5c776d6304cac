"""Atomic writes: whole files only, the user's umask, nothing left behind by a failed write. The
storage kit: folders built staged, sealed last, verified on read, reused or rebuilt, once under two
processes."""

import multiprocessing
import os
import stat
import time

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
    modes = {
        name: stat.S_IMODE((tmp_path / name).stat().st_mode) for name in ("atomic.txt", "plain.txt")
    }
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


# ------------------------------------------------------------------ the storage kit


def write_files(files):
    def build(staging):
        for name, data in files.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_bytes(data)
        return {"rows": len(files)}

    return build


def test_a_built_folder_is_sealed_last_and_verified_on_read(tmp_path):
    folder = tmp_path / "built"
    marker = io.build_folder(
        folder, write_files({"a.bin": b"A", "sub/b.bin": b"B"}), {"source": "s1"}
    )
    assert marker["stamp"] == {"source": "s1", "rows": 2}
    assert marker["files"] == {
        "a.bin": io.hashlib.sha256(b"A").hexdigest(),
        "sub/b.bin": io.hashlib.sha256(b"B").hexdigest(),
    }
    assert (
        io.verify_checksums(folder, {"source": "s1"}) == marker
        and io.verify_checksums(folder) == marker
    )
    assert io.verify_checksums(folder, {"source": "s2"}) is None  # another stamp
    (folder / "extra.txt").write_text("planted")
    assert io.verify_checksums(folder) is None  # a file the marker does not list
    (folder / "extra.txt").unlink()
    (folder / "a.bin").write_bytes(b"Z")
    assert io.verify_checksums(folder) is None  # a changed file
    (folder / "a.bin").unlink()
    assert io.verify_checksums(folder) is None  # a missing file
    assert io.verify_checksums(tmp_path / "absent") is None
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / io.BUILD_MARKER).write_text(
        '{"stamp": {}, "files": {}}'
    )  # no format: an older marker
    assert io.verify_checksums(tmp_path / "old") is None


def test_a_verified_folder_is_reused_and_a_stale_one_rebuilt(tmp_path):
    folder, builds = tmp_path / "built", []

    def build(staging):
        builds.append(staging)
        (staging / "data").write_bytes(b"x")

    io.build_folder(folder, build, {"version": 1})
    io.build_folder(folder, build, {"version": 1})
    assert len(builds) == 1
    io.build_folder(folder, build, {"version": 2})
    io.build_folder(folder, build, {"version": 2}, rebuild=True)
    assert len(builds) == 3 and io.verify_checksums(folder, {"version": 2})
    assert sorted(path.name for path in tmp_path.iterdir()) == [".built.lock", "built"]


def test_a_failed_build_keeps_the_previous_folder_and_leaves_no_staging(tmp_path):
    folder = tmp_path / "built"
    io.build_folder(folder, write_files({"a.bin": b"old"}), {"v": 1})

    def failing(staging):
        (staging / "a.bin").write_bytes(b"half")
        raise RuntimeError("killed half-way")

    with pytest.raises(RuntimeError, match="half-way"):
        io.build_folder(folder, failing, {"v": 2})
    assert (folder / "a.bin").read_bytes() == b"old" and io.verify_checksums(folder, {"v": 1})
    assert sorted(path.name for path in tmp_path.iterdir()) == [".built.lock", "built"]


def test_the_next_build_removes_what_a_dead_builder_left(tmp_path):
    folder = tmp_path / "built"
    for leftover in (
        ".built.building-0123456789ab",
        ".built.retired-0123456789ab",
        ".other.building-0123",
    ):
        (tmp_path / leftover).mkdir()
        (tmp_path / leftover / "half.bin").write_bytes(b"half")
    io.build_folder(folder, write_files({"a.bin": b"A"}))
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        ".built.lock",
        ".other.building-0123",
        "built",
    ]


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_a_built_folder_gets_the_modes_plain_writes_would(tmp_path, umask):
    previous = os.umask(umask)
    try:
        io.build_folder(tmp_path / "built", write_files({"a.bin": b"A"}))
    finally:
        os.umask(previous)
    modes = {
        path.name: stat.S_IMODE(path.stat().st_mode) for path in (tmp_path / "built").iterdir()
    }
    assert modes == {"a.bin": 0o666 & ~umask, io.BUILD_MARKER: 0o666 & ~umask}
    assert stat.S_IMODE((tmp_path / "built").stat().st_mode) == 0o777 & ~umask


def _build_in_a_process(folder: str, log: str) -> None:
    def slow(staging):
        with open(log, "a") as stream:
            stream.write(f"{os.getpid()}\n")
        time.sleep(0.5)  # long enough for the other process to reach the lock
        (staging / "data").write_bytes(b"built once")

    io.build_folder(folder, slow, {"v": 1})


def test_two_processes_building_one_folder_build_it_once(tmp_path):
    context = multiprocessing.get_context("fork")
    log = tmp_path / "builds.log"
    processes = [
        context.Process(target=_build_in_a_process, args=(str(tmp_path / "built"), str(log)))
        for _ in "ab"
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert [process.exitcode for process in processes] == [0, 0]
    assert (
        len(log.read_text().splitlines()) == 1
    )  # the second found the first's build under the lock
    assert (tmp_path / "built" / "data").read_bytes() == b"built once" and io.verify_checksums(
        tmp_path / "built"
    )
