"""Every output is whole and is what was verified: `xbias report` reads only a results.jsonl whose
sha256 run.json records, or the checksummed unit files; it writes its folder as one set (staged,
swapped in whole) and only a folder that holds nothing but a report; its errors are one line,
checked before any work.

The fault injection (SIGTERM and a full disk at each report file, in a real process) is in
tests/runner/test_fault_injection.py.
"""

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest
from helpers.synthetic_run import write_synthetic_run
from test_cli import fails_with_one_line, unwritable

from eval_harness.cli import main
from eval_harness.contract.unit_file import unit_payload
from eval_harness.errors import InputError
from eval_harness.report import load_run, write_report


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A synthetic run of the EEC suite and its report (results.csv the reference)."""
    run = write_synthetic_run(tmp_path_factory.mktemp("integrity") / "run", suites=("eec",))
    reference = write_report(
        run, formats=("html",), out_dir=tmp_path_factory.mktemp("reference") / "report"
    )
    return run, reference.csv.read_text()


@pytest.fixture
def run(small_run, tmp_path):
    return shutil.copytree(small_run[0], tmp_path / "run")


def edit_one_digit(path):
    """One value of results.jsonl with a digit changed (the unit files stay intact); returns the
    edited record."""
    lines = path.read_text().splitlines()
    record = json.loads(lines[100])
    assert record["value"] is not None
    record["value"] = round(record["value"] - 0.5, 6)
    lines[100] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    return record


def test_an_edited_results_jsonl_is_one_warning_and_the_report_comes_from_the_units(
    run, small_run, capsys
):
    """Guards: one edited digit of results.jsonl (unit files intact) changed the report's numbers
    with exit 0 and no warning. Now results.jsonl is read only when its sha256 is the one run.json
    records; otherwise the report is built from the checksummed unit files, with one warning, given
    before anything is printed."""
    edited = edit_one_digit(run / "results.jsonl")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_run(run)
    (warning,) = [str(item.message) for item in caught]
    assert str(run / "results.jsonl") in warning and "edited or damaged" in warning
    assert "verified unit files" in warning and "\n" not in warning
    assert edited["value"] not in set(loaded.results["value"])

    assert main(["report", str(run), "--format", "html"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"xbias: warning: {warning}"]
    csv = (run / "report" / "results.csv").read_text()
    # the same numbers as the report of the untouched run (rows in unit-file order, not the file's)
    assert sorted(csv.splitlines()) == sorted(small_run[1].splitlines())


def test_a_results_jsonl_of_a_run_in_progress_is_not_read(run):
    """A run in progress records no sha256 (it appends to results.jsonl): the report reads the unit
    files, quietly."""
    info = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**info, "status": "running", "results": None}))
    (run / "results.jsonl").write_text("")  # what a reader may meet while the run rewrites it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = load_run(run)
    assert len(loaded.results) == sum(
        len(json.loads(p.read_text())["records"]) for p in (run / "units").iterdir()
    )


def folder_files(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


def test_a_report_replaces_the_old_one_whole(run):
    """Guards: a report over an older one left a mix (a new csv and html beside an old md). Now the
    folder holds exactly the new report's files: an html-only report leaves no older report.md or
    figures behind."""
    write_report(run, formats=("html", "md"))
    assert {"report.md", "report.html", "results.csv"} <= set(folder_files(run / "report"))
    assert any(name.startswith("figures/") for name in folder_files(run / "report"))
    write_report(run, formats=("html",))
    assert sorted(folder_files(run / "report")) == [
        ".xbias-build.json",
        "report.html",
        "results.csv",
        "tables.html",
    ]
    assert [path.name for path in run.iterdir() if path.name.startswith(".report")] == [
        ".report.lock"
    ]  # no staging


def test_a_report_out_that_is_a_file_below_a_file_or_holds_other_files_is_one_line(
    run, tmp_path, capsys
):
    """Guards: `xbias report --out` onto a file gave a traceback. Each is now one line, checked
    before any work, and what is there is left as it was."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    fails_with_one_line(
        capsys, ["report", str(run), "--out", str(a_file)], f"into {a_file}", "is a file"
    )
    fails_with_one_line(
        capsys, ["report", str(run), "--out", str(a_file / "report")], "lies below the file"
    )
    assert a_file.read_text() == "keep me"
    # a folder of other files is never replaced by a report
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine")
    fails_with_one_line(
        capsys,
        ["report", str(run), "--out", str(mine)],
        "it holds thesis.tex, which xbias did not write",
    )
    assert folder_files(mine) == {"thesis.tex": b"mine"}


def test_a_report_out_that_is_read_only_is_one_line(run, capsys):
    """Guards: `xbias report --out` onto a read-only folder gave a traceback."""
    import eval_harness.report.eval_results
    import eval_harness.report.model_card  # noqa: F401 - imported here: the user nobody cannot read the venv

    with (
        tempfile.TemporaryDirectory() as scratch
    ):  # in /tmp, which the user nobody may enter (pytest's is 0700)
        os.chmod(scratch, 0o755)
        locked = Path(scratch) / "locked"
        locked.mkdir()
        with unwritable(locked):
            fails_with_one_line(
                capsys, ["report", str(run), "--out", str(locked / "report")], "is not writable"
            )
            fails_with_one_line(
                capsys, ["report", str(run), "--out", str(locked)], "is not writable"
            )
        assert list(locked.iterdir()) == []


def test_a_figure_name_from_the_records_never_leaves_the_report_folder(run, tmp_path):
    """A run folder someone sent may hold any record (its checksums are only of its own content): a
    dataset config named "../../escape" names an EEC figure, whose file stays a plain file in
    report/figures/."""
    unit_path = next(
        path
        for path in sorted((run / "units").glob("eec-*.json"))
        if any(record.get("term") for record in json.loads(path.read_text())["records"])
    )  # a Beta-regression unit: its config names a forest plot
    payload = json.loads(unit_path.read_text())
    records = [{**record, "config": "../../escape"} for record in payload["records"]]
    forged = unit_payload(
        payload["id"], payload["unit"], payload["config_hash"], records, payload["seconds"]
    )
    unit_path.write_text(json.dumps(forged))
    (run / "results.jsonl").unlink()
    before = {path for path in tmp_path.rglob("*")}
    files = write_report(run, formats=("md",))
    created = (
        {path for path in tmp_path.rglob("*")} - before - {run / ".report.lock"}
    )  # the writer's lock beside it
    assert all(path.is_relative_to(run / "report") for path in created), sorted(created)
    assert all(path.parent == run / "report" / "figures" for path in files.figures)
    assert any(path.name == "forest_..-..-escape.png" for path in files.figures)
    assert "figures/forest_..-..-escape.png" in (files.folder / "tables.md").read_text()


def test_an_unknown_format_is_refused_before_the_folder_is_touched(run):
    with pytest.raises(InputError, match="unknown report formats"):
        write_report(run, formats=("pdf",))
    assert not (run / "report").exists()
