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
