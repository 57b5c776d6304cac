"""Helpers of the harness tests: ``accelerate launch`` with two real CPU ranks."""

import os
import socket
import subprocess
import sys
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def accelerate_launch(script: str | Path, args: list[str], num_processes: int = 2, env: dict | None = None):
    """``accelerate launch`` with real CPU ranks (gloo), one thread each, as docs/environment.md says (``--cpu``
    alone runs one process). ``script`` is a file, or ``"-m"`` with the module as the first of ``args``."""
    command = [
        str(Path(sys.executable).parent / "accelerate"),
        "launch",
        "--multi_gpu",
        "--num_processes",
        str(num_processes),
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "--main_process_port",
        str(free_port()),
        str(script),
        *args,
    ]
    environment = {**os.environ, "ACCELERATE_USE_CPU": "1", "OMP_NUM_THREADS": "1", **(env or {})}
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300)


def run_in_one_and_two_ranks(config: str | Path, folder: Path) -> tuple[Path, Path]:
    """``xbias run --config config`` under two accelerate CPU ranks (into ``folder/two``) and in one process
    (``folder/one``), both fresh processes with one thread each, so that only the sharding differs; fails the
    test with the stderr of a run that fails. Returns the two run folders."""
    import pytest

    run = ["run", "--config", str(config), "--no-progress", "--out"]
    launched = accelerate_launch("-m", ["eval_harness.cli", *run, str(folder / "two")])
    if launched.returncode != 0:
        pytest.fail(f"two ranks failed:\n{launched.stderr[-3000:]}")
    single = subprocess.run(
        [sys.executable, "-m", "eval_harness.cli", *run, str(folder / "one")],
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    if single.returncode != 0:
        pytest.fail(f"one process failed:\n{single.stderr[-3000:]}")
    return folder / "one", folder / "two"
