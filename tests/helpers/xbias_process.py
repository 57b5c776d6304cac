"""A real ``xbias`` process for the tests, with *pause points*: moments, found deterministically, at
which a test kills the process (SIGKILL, SIGTERM, SIGINT) or lets it go on.

Run as a script, ``python xbias_process.py run --config ... --out ...`` calls
``eval_harness.cli.main`` with those arguments, as the ``xbias`` command does. Its environment may
hold:

- ``XBIAS_PAUSE=POINT:N``: the N-th time the process passes POINT (one of :data:`POINTS`) it writes
  its pid into ``$XBIAS_PAUSE_DIR/paused`` and waits until ``$XBIAS_PAUSE_DIR/go`` exists (at most
  five minutes); ``finished`` is the point after the command has returned, just before the process
  exits;
- ``XBIAS_FULL_DISK=POINT:N``: the N-th call of POINT fails as on a full disk (``OSError(ENOSPC)``)
  instead;
- ``XBIAS_TOY_SUITE=1``: register the toy suite of ``tests/toy_method`` first.

In a test, :func:`start` launches the process and :func:`wait_for_pause` waits until it pauses.
"""

import errno
import functools
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parents[1]
# point -> (module, class, method): the pause comes right after that method returns, so:
POINTS = {
    # an encoder chunk is computed but not yet in the embedding cache (earlier chunks are)
    "encoding": ("eval_harness.models.encoder", "TransformerEncoder", "_encode_uncached"),
    # an MLP head is trained, its regressor not yet saved
    "training": ("eval_harness.models.heads", "MlpHead", "fit"),
    # a unit file is written, the next unit not yet begun
    "unit_written": ("eval_harness.runner.store", "RunStore", "write_unit"),
    # one file of a report is written into the staging folder (a module function: no class)
    "report_file": ("eval_harness.io", None, "write_new_file"),
    # the whole report is in place, nothing printed yet
    "report_written": ("eval_harness.report", None, "write_report"),
}
FINISHED = "finished"
PAUSE_LIMIT_SECONDS = 300


def start(
    args: list[str],
    pause: str | None = None,
    pause_dir: Path | None = None,
    env: dict | None = None,
):
    """``xbias ARGS`` in a new process (a :class:`subprocess.Popen` with text pipes), paused at
    ``pause`` (``"POINT:N"``) when given."""
    environment = {**os.environ, **(env or {})}
    if pause is not None:
        environment.update(XBIAS_PAUSE=pause, XBIAS_PAUSE_DIR=str(pause_dir))
    return subprocess.Popen(
        [sys.executable, __file__, *args],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_pause(process: subprocess.Popen, pause_dir: Path, timeout: float = 240.0) -> int:
    """Wait until ``process`` pauses; returns its pid. Fails (with its stderr) if it ends first or
    takes too long."""
    paused = Path(pause_dir) / "paused"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if paused.is_file() and paused.read_text().strip():
            return int(paused.read_text())
        if process.poll() is not None:
            out, err = process.communicate()
            raise AssertionError(
                f"the process ended (rc {process.returncode}) before its pause:\n{out}\n{err}"
            )
        time.sleep(0.05)
    process.kill()
    raise AssertionError(
        f"the process did not pause within {timeout} s:\n{process.communicate()[1][-3000:]}"
    )


def _pause(pause_dir: Path) -> None:
    temporary = pause_dir / f".paused.{os.getpid()}"
    temporary.write_text(str(os.getpid()))
    temporary.replace(pause_dir / "paused")
    deadline = time.monotonic() + PAUSE_LIMIT_SECONDS
    while not (pause_dir / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def _install(point: str, count: int, on_call) -> None:
    """Wrap POINT's function: its ``count``-th call runs ``on_call(original, args, kwargs)``
    instead."""
    module, owner_name, method = POINTS[point]
    owner = importlib.import_module(module)
    owner = getattr(owner, owner_name) if owner_name else owner
    original = getattr(owner, method)
    calls = 0

    @functools.wraps(original)
    def wrapped(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == count:
            return on_call(original, args, kwargs)
        return original(*args, **kwargs)

    setattr(owner, method, wrapped)


def _install_pause(point: str, count: int, pause_dir: Path) -> None:
    def paused_after(original, args, kwargs):
        result = original(*args, **kwargs)
        _pause(pause_dir)
        return result

    _install(point, count, paused_after)


def _install_full_disk(point: str, count: int) -> None:
    def disk_full(original, args, kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    _install(point, count, disk_full)


def _point(variable: str) -> tuple[str, int]:
    point, _, count = os.environ[variable].partition(":")
    return point, int(count or 1)


def _main(argv: list[str]) -> int:
    sys.path.insert(0, str(TESTS_DIR))
    if os.environ.get("XBIAS_TOY_SUITE"):
        from toy_method import register_toy_suite

        register_toy_suite()
    pause = _point("XBIAS_PAUSE") if os.environ.get("XBIAS_PAUSE") else None
    if pause is not None and pause[0] != FINISHED:
        _install_pause(*pause, Path(os.environ["XBIAS_PAUSE_DIR"]))
    if os.environ.get("XBIAS_FULL_DISK"):
        _install_full_disk(*_point("XBIAS_FULL_DISK"))
    from eval_harness.cli import main

    code = main(argv)
    if pause is not None and pause[0] == FINISHED:
        _pause(Path(os.environ["XBIAS_PAUSE_DIR"]))
    return code


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
