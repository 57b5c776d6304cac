"""Helpers of the harness tests: ``xbias run`` in fresh processes, in one process or in real
accelerate CPU ranks."""

import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def environment_without(names: Iterable[str]) -> dict:
    """This process's environment less the variables ``names``."""
    names = set(names)
    return {name: value for name, value in os.environ.items() if name not in names}


def launch_command(
    script: str | Path,
    args: list[str],
    num_processes: int,
    port: int,
    num_machines: int = 1,
    machine_rank: int = 0,
) -> list[str]:
    """The ``accelerate launch`` command line of real CPU ranks (``--multi_gpu``; the environment
    must say ``ACCELERATE_USE_CPU=1``): ``num_processes`` ranks in all over ``num_machines``
    machines, this one ``machine_rank``, rank 0's machine listening on 127.0.0.1:``port``."""
    machines = ["--num_machines", str(num_machines)]
    if num_machines > 1:
        machines += ["--machine_rank", str(machine_rank), "--main_process_ip", "127.0.0.1"]
    return [
        str(Path(sys.executable).parent / "accelerate"),
        "launch",
        "--multi_gpu",
        "--num_processes",
        str(num_processes),
        *machines,
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "--main_process_port",
        str(port),
        str(script),
        *args,
    ]


def ranks_environment(env: dict | None = None, without: Iterable[str] = ()) -> dict:
    """The environment of CPU ranks: this process's less ``without``, one thread each, plus
    ``env``."""
    return {
        **environment_without(without),
        "ACCELERATE_USE_CPU": "1",
        "OMP_NUM_THREADS": "1",
        **(env or {}),
    }


def accelerate_launch(
    script: str | Path,
    args: list[str],
    num_processes: int = 2,
    env: dict | None = None,
    without: Iterable[str] = (),
):
    """``accelerate launch`` with real CPU ranks (gloo), one thread each unless ``env`` says
    otherwise, as docs/environment.md says (``--cpu`` alone runs one process). ``script`` is a file,
    or ``"-m"`` with the module as the first of ``args``; the ranks inherit this process's
    environment less ``without``, plus ``env``."""
    command = launch_command(script, args, num_processes, free_port())
    return subprocess.run(
        command, env=ranks_environment(env, without), capture_output=True, text=True, timeout=900
    )


def accelerate_launch_machines(
    script: str | Path, args: list[str], machine_env: Sequence[dict] = ({}, {})
) -> list[subprocess.CompletedProcess]:
    """One "machine" on this box per item of ``machine_env`` (what its environment adds), one CPU
    rank each: one ``accelerate launch --num_machines N --machine_rank r --main_process_ip
    127.0.0.1`` per machine, started together (they meet at rank 0's port), as a cluster user starts
    one launcher per node. Returns each machine's finished launch, in rank order."""
    num_machines = len(machine_env)
    port = free_port()
    # Output to files, not pipes: a machine blocked on a full pipe would stall the other in a
    # collective.
    logs = [
        (tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")) for _ in range(num_machines)
    ]
    launches = [
        subprocess.Popen(
            launch_command(script, args, num_machines, port, num_machines, rank),
            env=ranks_environment(machine_env[rank]),
            stdout=stdout,
            stderr=stderr,
            text=True,
        )
        for rank, (stdout, stderr) in enumerate(logs)
    ]
    finished = []
    for launch, (stdout, stderr) in zip(launches, logs, strict=True):
        launch.wait(timeout=900)
        stdout.seek(0), stderr.seek(0)
        finished.append(
            subprocess.CompletedProcess(
                launch.args, launch.returncode, stdout.read(), stderr.read()
            )
        )
        stdout.close(), stderr.close()
    return finished


def xbias_run(
    config: str | Path, out: Path, processes: int = 1, threads: int = 1, without: Iterable[str] = ()
) -> Path:
    """``xbias run --config config --out out`` in fresh processes: ``processes`` accelerate CPU
    ranks (or one plain process), each with ``threads`` intra-op threads (``OMP_NUM_THREADS``), in
    this process's environment less the variables ``without``; fails the test with the stderr of a
    run that fails. Returns ``out``."""
    import pytest

    arguments = [
        "eval_harness.cli",
        "run",
        "--config",
        str(config),
        "--no-progress",
        "--out",
        str(out),
    ]
    threads_env = {"OMP_NUM_THREADS": str(threads)}
    if processes == 1:
        environment = {**environment_without(without), **threads_env}
        command = [sys.executable, "-m", *arguments]
        finished = subprocess.run(
            command, env=environment, capture_output=True, text=True, timeout=900
        )
    else:
        finished = accelerate_launch(
            "-m", arguments, num_processes=processes, env=threads_env, without=without
        )
    if finished.returncode != 0:
        pytest.fail(
            f"xbias run, {processes} process(es) x {threads} "
            f"thread(s), failed:\n{finished.stderr[-3000:]}"
        )
    return out


def run_in_one_and_two_ranks(config: str | Path, folder: Path) -> tuple[Path, Path]:
    """``xbias run --config config`` under two accelerate CPU ranks (into ``folder/two``) and in one
    process (``folder/one``), both fresh processes with one thread each, so that only the sharding
    differs; fails the test with the stderr of a run that fails. Returns the two run folders."""
    two = xbias_run(config, folder / "two", processes=2)
    return xbias_run(config, folder / "one"), two
