"""The write rule (docs/run_folder.md, ``eval_harness.io.write_problem``): every command that writes
(run, report with its --out, --details, --model-card and --eval-results, compare, datasets build)
writes into a folder it created or one whose marker says it is xbias's, never through a symbolic
link, and replaces only the files it wrote. A foreign file or a planted link at its target is one
line and exit 2, and both are left as they were.

Each command's test plants, at its target, a file xbias did not write and a symbolic link to a file
elsewhere, under names the command writes where it can (issue 31: a README overwritten,
comparison.md overwritten, a run.json turned into a model card, a run.lock link truncating its
target).
"""

import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from test_cli import fails_with_one_line
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.errors import InputError
from eval_harness.io import (
    BUILD_MARKER,
    output_folder,
    write_folder_whole,
    write_output_folder,
    write_problem,
)
from eval_harness.runner import RunStore, parse_config, run_sweep
from eval_harness.runner.store import RunFolderError
from eval_harness.suites import unregister_suite

KEPT = "not xbias's: keep me\n"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A run of two models' EEC units with samples (what report, details, eval results and compare
    read)."""
    folder = tmp_path_factory.mktemp("write_rule") / "run"
    suite = {"languages": ["en"], "emotions": ["anger"], "configs": ["en_arab_anglo"], "sample": 2}
    # Two models that score differently: compare refuses two that score every sentence alike
    # (nothing to test).
    models = [
        {"name": "svm", "type": "svm_tfidf"},
        {"name": "svm_b", "type": "svm_tfidf", "options": {"ngram_range": [1, 2], "min_df": 1}},
    ]
    run_sweep(
        parse_config({"seeds": [0], "models": models, "suites": {"eec": suite}}),
        folder,
        progress=False,
    )
    return folder


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def snapshot(*roots: Path) -> dict:
    """Every entry below the roots: a file's bytes, a link's target (never followed)."""
    found = {}
    for root in roots:
        for path in [root, *root.rglob("*")] if root.is_dir() and not root.is_symlink() else [root]:
            if path.is_symlink():
                found[str(path)] = ("link", os.readlink(path))
            elif path.is_file():
                found[str(path)] = ("file", path.read_bytes())
            elif path.exists():
                found[str(path)] = ("folder",)
    return found


def plant(folder: Path, foreign: str, link: str) -> tuple[Path, Path]:
    """A file xbias did not write (``foreign``) and a symbolic link (``link``) to a file outside, in
    ``folder``; returns ``(folder, the link's target)``."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder.parent / f"{folder.name}-elsewhere.txt"
    target.write_text(KEPT)
    (folder / foreign).parent.mkdir(parents=True, exist_ok=True)
    (folder / foreign).write_text(KEPT)
    (folder / link).parent.mkdir(parents=True, exist_ok=True)
    (folder / link).symlink_to(target)
    return folder, target


def check_refused(capsys, argv, folder: Path, target: Path, *fragments, untouched=()):
    """The command stops in one line, and the folder, the link's target and ``untouched`` are as
    they were."""
    before = snapshot(folder, target, *untouched)
    fails_with_one_line(capsys, argv, *fragments)
    assert snapshot(folder, target, *untouched) == before
    assert target.read_text() == KEPT


# -- the helper ------------------------------------------------------------------------------------


def test_the_rule_lets_a_writer_replace_only_a_folder_of_its_own_files(tmp_path):
    owner = {"writer": "test"}
    folder = tmp_path / "out"
    assert write_problem(folder, owner) is None  # new
    folder.mkdir()
    assert write_problem(folder, owner) is None  # empty
    write_folder_whole(folder, {"a.txt": b"a", "sub/b.txt": b"b"}, owner)
    assert write_problem(folder, owner) is None  # its own
    assert "which xbias did not write" in write_problem(
        folder, {"writer": "another"}
    )  # another writer's
    (folder / "sub" / "mine.txt").write_text(KEPT)
    assert write_problem(folder, owner) == "it holds sub/mine.txt, which xbias did not write"
    (folder / "sub" / "mine.txt").unlink()
    (folder / "a.txt").unlink()
    (folder / "a.txt").symlink_to(tmp_path / "elsewhere")
    assert write_problem(folder, owner) == "a.txt is a symbolic link, which xbias did not create"
    (folder / "a.txt").unlink()
    link = tmp_path / "link"
    link.symlink_to(folder)
    assert write_problem(link, owner).startswith("it is a symbolic link")


def test_a_folder_the_rule_refuses_is_not_replaced_even_when_it_appears_after_the_check(tmp_path):
    """The writer looks again under its lock: a foreign file put there between the check and the
    write stays."""
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "mine.txt").write_text(KEPT)
    with pytest.raises(FileExistsError, match="mine.txt, which xbias did not write"):
        write_folder_whole(folder, {"a.txt": b"a"}, {"writer": "test"})
    assert snapshot(folder) == {
        str(folder): ("folder",),
        str(folder / "mine.txt"): ("file", KEPT.encode()),
    }


@pytest.mark.parametrize("kind", ["report", "details", "comparison"])
def test_the_three_output_folders_share_one_check_and_one_writer(tmp_path, monkeypatch, kind):
    """A report, its details and a comparison are checked and written by eval_harness.io's one
    writer:
    the root refused, a foreign file met under the lock said in one line, a failed write one line
    naming the file, the option and the command, with the folder as it was."""
    from eval_harness import io as io_module
    from eval_harness.compare.output import COMPARE_FOLDER
    from eval_harness.report.build import REPORT_FOLDER
    from eval_harness.report.details import DETAILS_FOLDER

    spec = {"report": REPORT_FOLDER, "details": DETAILS_FOLDER, "comparison": COMPARE_FOLDER}[kind]
    root = f"^cannot write the {kind} into the root folder /; give another"
    with pytest.raises(InputError, match=root):
        output_folder("/", spec)
    folder = output_folder(tmp_path / "out", spec)
    write_output_folder(folder, {"a.txt": b"a"}, spec)
    assert output_folder(folder, spec) == folder  # its own folder: replaced next time
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.md").write_text(KEPT)
    refused = f"notes.md, which xbias did not write; give a new or empty {spec.option}$"
    with pytest.raises(InputError, match=refused):
        # as if it appeared after the check
        write_output_folder(tmp_path / "mine", {"a.txt": b"a"}, spec)

    def full_disk(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    before = snapshot(folder)
    monkeypatch.setattr(io_module, "write_new_file", full_disk)
    with pytest.raises(InputError) as failed:
        write_output_folder(folder, {"b.txt": b"b"}, spec)
    assert str(failed.value) == (
        f"cannot write the {kind} into {folder} (no space left on the "
        "device, at b.txt); the folder is as it was before: free some "
        f"space or give another {spec.option}, and run {spec.command} again"
    )
    assert snapshot(folder) == before and (folder / "a.txt").read_bytes() == b"a"


# -- xbias run -------------------------------------------------------------------------------------


def toy_run(out: Path, *extra: str) -> list[str]:
    options = (
        "--model-type",
        "svm_tfidf",
        "--suite",
        "toy",
        "--languages",
        "en",
        "--no-progress",
        "-q",
    )
    return ["run", *options, *extra, "--out", str(out)]


def test_run_refuses_a_foreign_file_and_a_planted_link(toy, tmp_path, capsys):
    folder, target = plant(tmp_path / "run", "notes.txt", "run.lock")
    check_refused(capsys, toy_run(folder), folder, target, "is not an xbias run folder")
    check_refused(capsys, toy_run(folder, "--force"), folder, target, "run.lock is a symbolic link")


def test_a_run_lock_planted_as_a_link_in_a_run_folder_never_truncates_its_target(
    toy, tmp_path, capsys
):
    """Guards: a symlink planted as RUN/run.lock made `xbias run` truncate the file it points to
    (O_CREAT without O_NOFOLLOW)."""
    folder = tmp_path / "run"
    assert main(toy_run(folder)) == 0
    (folder / "run.lock").unlink()
    target = tmp_path / "precious.txt"
    target.write_text(KEPT)
    (folder / "run.lock").symlink_to(target)
    check_refused(capsys, toy_run(folder), folder, target, "run.lock is a symbolic link")


def test_the_lock_and_the_results_are_never_opened_through_a_link(tmp_path):
    """Even a link planted after the folder was checked (between check_owner and the lock):
    O_NOFOLLOW."""
    target = tmp_path / "precious.txt"
    target.write_text(KEPT)
    store = RunStore(tmp_path / "run")
    store.make_folder()
    (store.root / "run.lock").symlink_to(target)
    with pytest.raises(RunFolderError, match="a symbolic link is in its place"):
        store.lock()
    (store.root / "results.jsonl").symlink_to(target)
    with pytest.raises(OSError) as error:
        store.append_results([{"metric": "x", "value": 1.0}])
    assert error.value.errno == errno.ELOOP
    assert target.read_text() == KEPT


def test_force_deletes_only_unit_files_and_never_through_a_linked_units_folder(
    toy, tmp_path, capsys
):
    """Guards: --force deleted any *.json in units/ and, through a symlinked units/, files
    elsewhere."""
    folder = tmp_path / "run"
    assert main(toy_run(folder)) == 0
    notes = folder / "units" / "notes.json"
    notes.write_text(KEPT)
    assert main(toy_run(folder, "--force", "--seeds", "1")) == 0
    assert notes.read_text() == KEPT  # a *.json that is no unit file of xbias's stays
    assert {
        json.loads(line)["seed"] for line in (folder / "results.jsonl").read_text().splitlines()
    } == {1}
    elsewhere = tmp_path / "elsewhere"
    shutil.move(folder / "units", elsewhere)
    (folder / "units").symlink_to(elsewhere)
    check_refused(
        capsys,
        toy_run(folder, "--force"),
        folder,
        notes,
        "units is a symbolic link",
        untouched=[elsewhere],
    )


def test_a_cache_dir_holding_what_no_cache_holds_or_a_link_is_refused(toy, tmp_path, capsys):
    """Guards: --cache-dir onto a foreign folder was only checked for writability (the cache's files
    went beside the user's)."""
    cache = tmp_path / "cache"
    assert main(toy_run(tmp_path / "first", "--cache-dir", str(cache))) == 0
    assert (
        main(toy_run(tmp_path / "second", "--cache-dir", str(cache))) == 0
    )  # a cache xbias wrote is reused
    folder, target = plant(cache, "notes.txt", "regressors/planted")
    second = tmp_path / "third"
    check_refused(
        capsys,
        toy_run(second, "--cache-dir", str(cache)),
        folder,
        target,
        "regressors/planted is a symbolic link",
    )
    (cache / "regressors" / "planted").unlink()
    check_refused(
        capsys,
        toy_run(second, "--cache-dir", str(cache)),
        folder,
        target,
        "notes.txt, which xbias did",
    )
    assert not second.exists()  # refused before the run folder was made


def test_a_resumed_run_removes_only_its_own_leftover_temporaries(toy, tmp_path):
    """Guards: a run removed every ``.*.tmp`` at the top of its folder and in units/, a user's own
    included."""
    folder = tmp_path / "run"
    assert main(toy_run(folder)) == 0
    mine = [
        folder / ".notes.tmp",
        folder / "units" / ".draft.tmp",
        folder / ".a.json.not-hex-12.tmp",
    ]
    for path in mine:
        path.write_text(KEPT)
    leftovers = [
        folder / ".run.json.0123456789ab.tmp",
        folder / "units" / ".x.json.fedcba987654.tmp",
    ]
    for path in leftovers:
        path.write_text("half-written")
    assert main(toy_run(folder)) == 0
    assert all(path.read_text() == KEPT for path in mine)
    assert not any(path.exists() for path in leftovers)


# -- xbias report ----------------------------------------------------------------------------------


def test_report_out_refuses_a_foreign_file_and_a_planted_link(run_dir, tmp_path, capsys):
    folder, target = plant(tmp_path / "report", "notes.txt", "report.md")
    check_refused(
        capsys,
        ["report", str(run_dir), "--out", str(folder)],
        folder,
        target,
        "which xbias did not",
    )


def test_report_out_replaces_an_earlier_report_but_not_a_file_added_to_it(
    run_dir, tmp_path, capsys
):
    """Guards: a report folder holding a user's own report.md (a name a report writes) was replaced
    whole."""
    folder = tmp_path / "report"
    assert main(["report", str(run_dir), "--out", str(folder), "--format", "md", "-q"]) == 0
    assert json.loads((folder / BUILD_MARKER).read_text())["stamp"]["writer"] == "xbias report"
    assert (
        main(["report", str(run_dir), "--out", str(folder), "--format", "html", "-q"]) == 0
    )  # its own: replaced
    (folder / "mine.md").write_text(KEPT)
    before = snapshot(folder)
    fails_with_one_line(capsys, ["report", str(run_dir), "--out", str(folder)], "it holds mine.md")
    assert snapshot(folder) == before
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "report.md").write_text(KEPT)
    fails_with_one_line(
        capsys, ["report", str(run_dir), "--out", str(theirs)], "it holds report.md"
    )
    assert (theirs / "report.md").read_text() == KEPT


def test_details_refuse_a_foreign_readme_and_a_planted_link_before_the_report_is_written(
    run_dir, tmp_path, capsys
):
    """Guards: `xbias report --details P` overwrote an existing P/README.md (exit 0)."""
    link = "data/eec/train-00000-of-00001.parquet"
    folder, target = plant(tmp_path / "details", "README.md", link)
    report = tmp_path / "report"
    argv = ["report", str(run_dir), "--out", str(report), "--details", str(folder)]
    check_refused(
        capsys, argv, folder, target, "cannot write the details into", f"{link} is a symbolic link"
    )
    (folder / link).unlink()
    check_refused(
        capsys, argv, folder, target, "it holds README.md, data, data/eec, which xbias did not"
    )
    assert not report.exists()  # refused before anything was written


def test_model_card_refuses_a_run_json_and_a_planted_link(run_dir, tmp_path, capsys):
    """Guards: `--model-card RUN/run.json` turned the run's own run.json into a model card."""
    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    report = tmp_path / "report"
    argv = ["report", str(run), "--out", str(report), "--model-card"]
    before = snapshot(run)
    fails_with_one_line(capsys, [*argv, str(run / "run.json")], "a model card is a Markdown file")
    assert snapshot(run) == before
    folder, target = plant(tmp_path / "card", "notes.txt", "README.md")
    check_refused(
        capsys, [*argv, str(folder / "README.md")], folder, target, "README.md is a symbolic link"
    )
    assert not report.exists()


@pytest.mark.parametrize(
    ("option", "inside"),
    [("--model-card", "README.md"), ("--details", "details"), ("--eval-results", ".")],
)
def test_a_target_inside_the_report_folder_is_refused_before_anything_is_written(
    run_dir, tmp_path, capsys, option, inside
):
    """Guards: a model card (or details, eval results) written into the report folder, which is
    written whole: its marker would not list the file, and the next report would refuse the
    folder."""
    report = tmp_path / "report"
    extra = ["--dataset-namespace", "org"] if option == "--eval-results" else []
    argv = ["report", str(run_dir), "--out", str(report), option, str(report / inside), *extra]
    fails_with_one_line(
        capsys, argv, f"{option} ", "lies inside the report folder", "written whole"
    )
    assert not report.exists()


def test_eval_results_refuse_a_same_named_file_of_another_and_a_planted_link(
    run_dir, tmp_path, capsys
):
    """Guards: --eval-results overwrote same-named files xbias did not write."""
    ours = tmp_path / "ours"
    namespace = ["--dataset-namespace", "org", "--card-model", "svm", "--format", "md", "-q"]
    assert (
        main(
            [
                "report",
                str(run_dir),
                "--out",
                str(tmp_path / "r1"),
                "--eval-results",
                str(ours),
                *namespace,
            ]
        )
        == 0
    )
    (name,) = sorted(
        path.name for path in ours.glob("*.yaml")
    )  # one file per benchmark dataset: eec.yaml
    assert (
        main(
            [
                "report",
                str(run_dir),
                "--out",
                str(tmp_path / "r2"),
                "--eval-results",
                str(ours),
                *namespace,
            ]
        )
        == 0
    )
    folder, target = plant(tmp_path / "eval_results", "notes.yaml", name)
    report = tmp_path / "report"
    argv = ["report", str(run_dir), "--out", str(report), "--eval-results", str(folder), *namespace]
    check_refused(capsys, argv, folder, target, f"{name} is a symbolic link")
    (folder / name).unlink()
    (folder / name).write_text(KEPT)
    check_refused(capsys, argv, folder, target, f"it holds {name}, which xbias did not write")
    assert not report.exists()


# -- xbias compare ---------------------------------------------------------------------------------


def test_compare_refuses_a_foreign_comparison_md_and_a_planted_link(run_dir, tmp_path, capsys):
    """Guards: `xbias compare A B --out C` overwrote C/comparison.md and wrote into any non-empty
    folder."""
    folder, target = plant(tmp_path / "comparison", "comparison.md", "comparison.csv")
    argv = [
        "compare",
        str(run_dir),
        "--model-a",
        "svm",
        "--model-b",
        "svm_b",
        "--out",
        str(folder),
        "-q",
    ]
    check_refused(capsys, argv, folder, target, "cannot write the comparison into")
    (folder / "comparison.csv").unlink()
    check_refused(capsys, argv, folder, target, "it holds comparison.md, which xbias did not write")
    other = tmp_path / "other"
    other.mkdir()
    (other / "thesis.tex").write_text(KEPT)
    argv[-2] = str(other)
    check_refused(capsys, argv, other, target, "it holds thesis.tex")


# -- xbias datasets build --------------------------------------------------------------------------


def test_datasets_build_refuses_a_foreign_readme_and_a_planted_link(tmp_path, capsys):
    """Guards: `xbias datasets build NAME --out D` replaced D/NAME whole: its README overwritten,
    other files deleted, exit 0."""
    folder, target = plant(tmp_path / "out" / "xweat", "README.md", "other.parquet")
    source = ["--source-dir", os.environ.get("XBIAS_SOURCE_DIR", str(tmp_path))]
    argv = ["datasets", "build", "xweat", "--out", str(tmp_path / "out"), *source, "-q"]
    check_refused(
        capsys,
        argv,
        folder,
        target,
        "cannot build the dataset xweat into",
        "other.parquet is a symbolic",
    )
    (folder / "other.parquet").unlink()
    check_refused(capsys, argv, folder, target, "it holds README.md, which xbias did not write")
