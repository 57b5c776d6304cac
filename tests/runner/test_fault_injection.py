"""A real ``xbias run`` killed (SIGKILL, SIGTERM) during encoding, during regressor training and
between units, then resumed: the resumed ``results.jsonl`` equals an uninterrupted run's record for
record.

The report (at the end): `xbias report` stopped by SIGTERM or a full disk at each file it writes
leaves the old report or the new one, whole, with one line and a non-zero exit.

The run: a tiny random BERT (tests/helpers/tiny_models.py) through the eec suite, one emotion, one
EEC: one task of two units (the regressor's quality, the Beta regression), one regressor trained on
200 SemEval texts. The kill points are pause points of tests/helpers/xbias_process.py (the process
waits there, so the kill lands at a known moment). Each signal's chain kills three runs in a row in
one folder, then resumes it to the end.
"""

import json
import os
import shutil
import signal
import stat

import pytest
from helpers.tiny_models import write_tiny_eec_config
from helpers.xbias_process import start, wait_for_pause

from eval_harness.contract.unit_file import unit_file_problem
from eval_harness.io import BUILD_MARKER
from eval_harness.runner import load_config, run_sweep

pytestmark = (
    pytest.mark.slow
)  # eight xbias processes, each loads a model and trains or reloads a regressor
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
def test_killed_at_every_point_then_resumed_gives_the_uninterrupted_results(
    config_path, reference, tmp_path, signum
):
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
            assert (
                unit_file_problem(
                    json.loads((out / "units" / name).read_text()), name[: -len(".json")]
                )
                is None
            )
        if signum == signal.SIGKILL:
            assert process.returncode == -signal.SIGKILL
        else:
            # a clean stop: one line, exit 143, and run.json says what is on disk
            assert process.returncode == 143, err
            lines = err.strip().splitlines()
            assert lines[-1].startswith("xbias: stopped by SIGTERM: ") and "Traceback" not in err, (
                err
            )
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
    """Run-folder files, the embedding cache and the saved regressors: 0640 / 0750 under the umask
    027."""
    kinds = set()
    for path in [reference, *reference.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o750 if path.is_dir() else 0o640), (path, oct(mode))
        kinds.add(path.relative_to(reference).parts[:2])
    assert {("cache", "embeddings"), ("cache", "regressors"), ("units",), ("run.lock",)} <= kinds


# -- the report ------------------------------------------------------------------------------------
# `xbias report` of a synthetic run folder (the gender-space suite: results.csv, report.html,
# report.md and the linked page of full tables, tables.html, one figure and tables.md), over an
# older report of the same run (another multiple-testing family, so every file differs but the
# figure). Stopped at each file it writes, or meeting a full disk there, it leaves the older report
# whole; stopped once the report is in place, the new one, whole. Each with one line and a non-zero
# exit.
REPORT_FILES = (
    "results.csv",
    "report.html",
    "report.md",
    "tables.html",
    "figures/gender_space_explained_variance.png",
    "tables.md",
)


def folder_bytes(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    """The run folder with its old report (in RUN/report)."""
    from helpers.synthetic_run import write_synthetic_run

    from eval_harness.report import write_report

    run = write_synthetic_run(tmp_path_factory.mktemp("report") / "run", suites=("gender_space",))
    write_report(run, family="run")
    assert sorted(folder_bytes(run / "report")) == sorted(
        [*REPORT_FILES, BUILD_MARKER]
    )  # with its writer's marker
    return run


@pytest.fixture
def fresh_run(report_run, tmp_path):
    """A copy of the run folder with the old report, for one test to stop a report in; and the old
    report."""
    copy = shutil.copytree(report_run, tmp_path / "run")
    return copy, folder_bytes(copy / "report")


def new_report(run, tmp_path):
    """The report `xbias report RUN` writes, written in this process elsewhere."""
    from eval_harness.report import write_report

    return folder_bytes(write_report(run, out_dir=tmp_path / "reference").folder)


def no_staging_left(run):
    """Nothing hidden beside the report but its writer's lock (kept, as every storage-kit folder's
    is)."""
    return [path.name for path in run.iterdir() if path.name.startswith(".")] in (
        [],
        [".report.lock"],
    )


@pytest.mark.parametrize("number", range(1, len(REPORT_FILES) + 1), ids=REPORT_FILES)
def test_a_sigterm_at_each_report_file_leaves_the_old_report_whole(fresh_run, tmp_path, number):
    run, old = fresh_run
    process = start(["report", str(run)], pause=f"report_file:{number}", pause_dir=tmp_path)
    os.kill(wait_for_pause(process, tmp_path), signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 143, err
    assert err.strip().splitlines() == ["xbias: stopped by SIGTERM"], err
    assert folder_bytes(run / "report") == old
    assert no_staging_left(run)


@pytest.mark.parametrize("number", range(1, len(REPORT_FILES) + 1), ids=REPORT_FILES)
def test_a_full_disk_at_each_report_file_leaves_the_old_report_whole(fresh_run, number):
    run, old = fresh_run
    process = start(["report", str(run)], env={"XBIAS_FULL_DISK": f"report_file:{number}"})
    out, err = process.communicate(timeout=300)
    assert process.returncode == 2, err
    (line,) = err.strip().splitlines()
    assert line.startswith(
        f"xbias: error: cannot write the report into {run / 'report'} (no space left on the"
    )
    assert f"at {REPORT_FILES[number - 1]})" in line and "the folder is as it was before" in line
    assert out == ""
    assert folder_bytes(run / "report") == old
    assert no_staging_left(run)


@pytest.mark.parametrize("point", ["report_written:1", "finished"])
def test_a_sigterm_once_the_report_is_written_leaves_the_new_report_and_says_so(
    fresh_run, tmp_path, point
):
    """Once the report is in place (before its paths are printed, or after the command returned,
    while the process exits) a SIGTERM still gives its one line and exit 143; the report is the new
    one, whole."""
    run, old = fresh_run
    process = start(["report", str(run)], pause=point, pause_dir=tmp_path)
    os.kill(wait_for_pause(process, tmp_path), signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 143, err
    expected = "xbias: stopped by SIGTERM" + (
        " after the command had finished" if point == "finished" else ""
    )
    (line,) = err.strip().splitlines()
    assert line.startswith(expected), err
    new = new_report(run, tmp_path)
    assert folder_bytes(run / "report") == new != old
    assert new["results.csv"] != old["results.csv"] and new["report.html"] != old["report.html"]
