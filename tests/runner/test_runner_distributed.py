"""Two real accelerate CPU ranks give the same run folder as one process (toy suite; the EEC suite's
two-rank test is in test_suite_eec.py), and stop together, with one line, when the run folder is
locked."""

import json
import os
from pathlib import Path

import pytest
import yaml
from helpers.accelerate_ranks import accelerate_launch
from toy_method import register_toy_suite

from eval_harness.runner import RunStore, load_config, run_sweep
from eval_harness.suites import unregister_suite

TESTS_DIR = Path(__file__).resolve().parents[1]
LAUNCHER = f"""
import sys
sys.path.insert(0, {str(TESTS_DIR)!r})
from toy_method import register_toy_suite
register_toy_suite()
from eval_harness.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_two_cpu_ranks_give_the_results_of_one_process(tmp_path):
    config_path = tmp_path / "toy.yaml"
    config_path.write_text(
        yaml.safe_dump(
            {
                "models": [
                    {"name": "m1", "type": "svm_tfidf"},
                    {"name": "m2", "type": "svm_tfidf"},
                ],
                # 3 configs x 4 emotions = 12 units per task: rounds of 2 units, 37 texts in 5
                # chunks over 2 ranks
                "suites": {"toy": {"languages": ["en", "ar"], "n_configs": 3}},
            }
        )
    )
    script = tmp_path / "launch_toy.py"
    script.write_text(LAUNCHER)
    log = tmp_path / "log"
    log.mkdir()
    launched = accelerate_launch(
        script,
        ["run", "--config", str(config_path), "--out", str(tmp_path / "two"), "--no-progress"],
        env={"TOY_SUITE_LOG": str(log)},
    )
    assert launched.returncode == 0, launched.stderr[-3000:]
    run_info = json.loads((tmp_path / "two" / "run.json").read_text())
    assert run_info["num_processes"] == 2 and run_info["status"] == "complete"
    # both ranks evaluated units, each unit exactly once
    ran = [name.split("__", 1) for name in os.listdir(log)]
    assert {rank for rank, _ in ran} == {"0", "1"}
    assert len(ran) == len({unit for _, unit in ran}) == run_info["units_planned"] == 2 * 2 * 3 * 4
    # the summary is printed once (rank 0)
    assert launched.stdout.count("units: 48 planned") == 1

    register_toy_suite()
    try:
        summary = run_sweep(load_config(config_path), tmp_path / "one", progress=False)
    finally:
        unregister_suite("toy")
    assert summary.num_processes == 1
    one = (tmp_path / "one" / "results.jsonl").read_text()
    assert (tmp_path / "two" / "results.jsonl").read_text() == one and len(one.splitlines()) == 96
    for unit_file in (tmp_path / "one" / "units").glob("*.json"):
        ours, theirs = (
            json.loads(p.read_text())
            for p in (unit_file, tmp_path / "two" / "units" / unit_file.name)
        )
        assert ours["records"] == theirs["records"]


@pytest.mark.slow
def test_under_accelerate_a_locked_folder_stops_every_rank_with_one_line(tmp_path):
    """Only rank 0 takes the lock; the other rank waits for its answer and stops with it, computing
    nothing."""
    config_path = tmp_path / "toy.yaml"
    config_path.write_text(
        yaml.safe_dump(
            {"models": [{"type": "svm_tfidf"}], "suites": {"toy": {"languages": ["en"]}}}
        )
    )
    script = tmp_path / "launch_toy.py"
    script.write_text(LAUNCHER)
    log = tmp_path / "log"
    log.mkdir()
    out = tmp_path / "run"
    store = RunStore(out)
    store.make_folder()
    with store.lock():
        launched = accelerate_launch(
            script,
            ["run", "--config", str(config_path), "--out", str(out), "--no-progress"],
            env={"TOY_SUITE_LOG": str(log)},
        )
    assert launched.returncode != 0
    errors = [line for line in launched.stderr.splitlines() if line.startswith("xbias: error:")]
    assert errors == [
        f"xbias: error: the run folder {out} is in use by another "
        f"xbias run (pid {os.getpid()}); wait for it to end (then "
        "run this command again: it resumes) or give another --out"
    ], launched.stderr[-3000:]
    # (accelerate's launcher prints its own traceback when a rank exits non-zero; no rank printed
    # one)
    assert "eval_harness" not in launched.stderr and not list(log.iterdir())
    assert sorted(path.name for path in out.iterdir()) == ["run.lock"]
