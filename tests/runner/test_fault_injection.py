"""A real ``xbias run`` killed (SIGKILL, SIGTERM) during encoding, during regressor training and between units,
then resumed: the resumed ``results.jsonl`` equals an uninterrupted run's record for record.

The run: a tiny random BERT (tests/helpers/tiny_models.py) through the eec suite, one emotion, one EEC: one
task of two units (the regressor's quality, the Beta regression), one regressor trained on 200 SemEval texts.
The kill points are pause points of tests/helpers/xbias_process.py (the process waits there, so the kill
lands at a known moment). Each signal's chain kills three runs in a row in one folder, then resumes it to
the end.
"""

import json
import os
import signal
import stat

import pytest
from helpers.tiny_models import write_tiny_eec_config
from helpers.xbias_process import start, wait_for_pause

from eval_harness.contract.unit_file import unit_file_problem
from eval_harness.runner import load_config, run_sweep

pytestmark = pytest.mark.slow  # eight xbias processes, each loads a model and trains or reloads a regressor
# The pause points, in the order of one chain: where the run is when it is killed.
KILL_POINTS = (
    "encoding:2",  # a chunk of texts encoded and cached, the next one computed but not cached
    "training:1",  # the regressor trained but not saved
    "unit_written:1",  # one of the two units written
)
N_UNITS = 2


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    return write_tiny_eec_config(tmp_path_factory.mktemp("faults"))


@pytest.fixture(scope="module")
def reference(config_path, tmp_path_factory):
    """An uninterrupted run (in this process), under the umask 027."""
    folder = tmp_path_factory.mktemp("reference") / "run"
    previous = os.umask(0o027)
    try:
        summary = run_sweep(load_config(config_path), folder, progress=False)
    finally:
        os.umask(previous)
    assert summary.computed == N_UNITS
    return folder


def read_results(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def unit_files(folder):
    return sorted(path.name for path in (folder / "units").glob("*.json"))


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_at_every_point_then_resumed_gives_the_uninterrupted_results(config_path, reference, tmp_path, signum):
    out = tmp_path / "run"
    command = ["run", "--config", str(config_path), "--out", str(out), "--no-progress"]
    for number, point in enumerate(KILL_POINTS):
        pause_dir = tmp_path / f"pause{number}"
        pause_dir.mkdir()
        process = start(command, pause=point, pause_dir=pause_dir)
        os.kill(wait_for_pause(process, pause_dir), signum)
        _, err = process.communicate(timeout=120)
        on_disk = unit_files(out)
        assert len(on_disk) == (1 if point == "unit_written:1" else 0), point
        for name in on_disk:  # what a killed run leaves is whole
            assert unit_file_problem(json.loads((out / "units" / name).read_text()), name[: -len(".json")]) is None
        if signum == signal.SIGKILL:
            assert process.returncode == -signal.SIGKILL
        else:
            # a clean stop: one line, exit 143, and run.json says what is on disk
            assert process.returncode == 143, err
            lines = err.strip().splitlines()
            assert lines[-1].startswith("xbias: stopped by SIGTERM: ") and "Traceback" not in err, err
            assert f"{len(on_disk)} of {N_UNITS} units are finished" in lines[-1]
            run_info = json.loads((out / "run.json").read_text())
            assert run_info["status"] == "interrupted"
            assert run_info["units_finished"] == len(on_disk)
    finished = start(command)
    out_text, err = finished.communicate(timeout=300)
    assert finished.returncode == 0, err
    assert f"units: {N_UNITS} planned, 1 already finished (resumed), 1 computed" in out_text
    assert read_results(out) == read_results(reference)
    assert unit_files(out) == unit_files(reference)
    assert json.loads((out / "run.json").read_text())["status"] == "complete"


def test_every_file_of_a_real_run_follows_the_umask(reference):
    """Run-folder files, the embedding cache and the saved regressors: 0640 / 0750 under the umask 027."""
    kinds = set()
    for path in [reference, *reference.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o750 if path.is_dir() else 0o640), (path, oct(mode))
        kinds.add(path.relative_to(reference).parts[:2])
    assert {("cache", "embeddings"), ("cache", "regressors"), ("units",), ("run.lock",)} <= kinds
