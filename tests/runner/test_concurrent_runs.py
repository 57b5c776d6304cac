"""Two real ``xbias run`` processes started at the same instant on one run folder (toy suite): the
one that takes the folder's lock runs, the other stops at once with one line naming the holder's pid
and exit code 2, having computed nothing; the folder then holds the first run's results only.

The lock holder pauses after its first unit (tests/helpers/xbias_process.py) until the other process
has ended, so the two overlap whatever the machine's load.
"""

import json
import time

import pytest
import yaml
from helpers.xbias_process import start
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.runner import load_config
from eval_harness.suites import unregister_suite

pytestmark = (
    pytest.mark.slow
)  # two processes start python, torch and accelerate at once: 20-35 s on 2 busy cores


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def write_config(path, n_configs):
    path.write_text(
        yaml.safe_dump(
            {
                "models": [{"name": "m1", "type": "svm_tfidf"}],
                "suites": {"toy": {"languages": ["en"], "n_configs": n_configs}},
            }
        )
    )
    return path


def wait_for_the_holder(pause_dir, processes, timeout=240.0) -> int:
    """The pid of the process that pauses (the lock holder)."""
    paused, deadline = pause_dir / "paused", time.monotonic() + timeout
    while time.monotonic() < deadline:
        if paused.is_file() and paused.read_text().strip():
            return int(paused.read_text())
        if all(process.poll() is not None for process in processes):
            raise AssertionError(
                f"both ended, none paused: {[process.communicate() for process in processes]}"
            )
        time.sleep(0.05)
    raise AssertionError("no process paused")


@pytest.mark.parametrize("same_config", [False, True], ids=["different-configs", "same-config"])
def test_two_runs_started_at_once_on_one_folder(toy, tmp_path, capsys, same_config):
    out, pause_dir = tmp_path / "run", tmp_path / "pause"
    pause_dir.mkdir()
    configs = [
        write_config(tmp_path / "a.yaml", 2),
        write_config(tmp_path / "b.yaml", 2 if same_config else 1),
    ]
    logs = [tmp_path / "log-a", tmp_path / "log-b"]  # each process's evaluations
    processes = []
    for config, log in zip(configs, logs, strict=True):
        log.mkdir()
        processes.append(
            start(
                ["run", "--config", str(config), "--out", str(out), "--no-progress"],
                pause="unit_written:1",
                pause_dir=pause_dir,
                env={"XBIAS_TOY_SUITE": "1", "TOY_SUITE_LOG": str(log)},
            )
        )
    holder_pid = wait_for_the_holder(pause_dir, processes)
    holder = next(index for index, process in enumerate(processes) if process.pid == holder_pid)
    other = 1 - holder

    out_text, err = processes[other].communicate(timeout=240)
    assert processes[other].returncode == 2, err
    assert err.strip().splitlines() == [
        f"xbias: error: the run folder {out} is in use by another "
        f"xbias run (pid {holder_pid}); wait for it to end (then "
        "run this command again: it resumes) or give another --out"
    ]
    assert out_text == "" and not list(logs[other].iterdir())  # it computed nothing

    (pause_dir / "go").touch()
    out_text, err = processes[holder].communicate(timeout=240)
    assert processes[holder].returncode == 0, err
    holder_config = load_config(configs[holder])
    n_units = 4 * (2 if holder == 0 or same_config else 1)
    assert f"units: {n_units} planned, 0 already finished (resumed), {n_units} computed" in out_text
    assert len(list(logs[holder].iterdir())) == n_units
    # the folder is the holder's run, whole and unmixed
    assert json.loads((out / "run.json").read_text())["config_hash"] == holder_config.config_hash()
    unit_hashes = [
        json.loads(path.read_text())["config_hash"] for path in (out / "units").glob("*.json")
    ]
    assert unit_hashes == [holder_config.config_hash()] * n_units
    assert f"({2 * n_units} records)" in out_text
    assert len((out / "results.jsonl").read_text().splitlines()) == 2 * n_units

    # the one that stopped, run again: with the same config it has nothing left to do; another
    # config is refused
    capsys.readouterr()
    code = main(["run", "--config", str(configs[other]), "--out", str(out), "--no-progress"])
    if same_config:
        assert (
            code == 0
            and f"{n_units} already finished (resumed), 0 computed" in capsys.readouterr().out
        )
    else:
        assert code == 2 and "holds the results of a different run" in capsys.readouterr().err
