"""The walk (issue 42): every command that reads or writes, as docs/run_folder.md lists them beside
the write rule, with a FIFO, a link to /dev/zero, an oversized file and a link to a folder elsewhere
planted at each path it touches. Each must end within a time limit (nothing hangs), in one line and
exit 2, with nothing written anywhere (the planted entry and the folder elsewhere included). A file
inside a run folder (``RUN/...``) counts as damaged instead, as docs/run_folder.md says: the command
goes on without it, after a warning that names it, and writes only its own output.

The list here and the one in the docs are the same list
(:func:`test_the_walk_is_the_documented_list`), so a command or path added to one and not the other
fails.
"""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from helpers.hostile_files import KINDS, plant
from lmeval.test_lm_eval_import import TIME, write_logged
from test_read_rule import finishes
from test_write_rule import run_dir, toy, toy_run  # noqa: F401 - fixtures, used by name

from eval_harness.cli import main
from eval_harness.io import MAX_DOCUMENT_BYTES

DOCS = Path(__file__).resolve().parents[1] / "docs" / "run_folder.md"
WALK_HEADING = "### Every command that reads or writes"
# Beyond every limit the package reads a document or a cache entry up to (a sparse file: no disk is
# used).
OVERSIZED = 8 * MAX_DOCUMENT_BYTES
SECONDS = 90.0


def state(root: Path) -> dict:
    """Every entry below ``root``, never followed: its kind, and a file's size and modification time
    (a planted oversized file is never read; a folder's own time changes with a write probe made and
    removed in it)."""
    found = {}
    for folder, folders, files in os.walk(root):
        for name in folders:
            found[os.path.join(folder, name)] = os.lstat(Path(folder) / name).st_mode
        for name in files:
            status = os.lstat(Path(folder) / name)
            found[os.path.join(folder, name)] = (status.st_mode, status.st_size, status.st_mtime_ns)
    return found


def copied_run(case: Path, run: Path) -> Path:
    return Path(shutil.copytree(run, case / "run", symlinks=True))


def logged(case: Path) -> Path:
    return write_logged(case / "logged")


NAMESPACE = ["--dataset-namespace", "org", "--card-model", "svm"]
COMPARED = ["--model-a", "svm", "--model-b", "svm_b"]

# (command, path) -> (case folder, the run of two models) -> (argv, the path planted). "read": a
# file the command reads; the others it writes (or writes into).
WALK = {
    ("xbias run", "--config"): lambda c, r: (
        ["run", "--config", str(c / "config.yaml"), "--out", str(c / "out"), "--no-progress"],
        c / "config.yaml",
    ),
    ("xbias run", "--out"): lambda c, r: (toy_run(c / "out"), c / "out"),
    ("xbias run", "--cache-dir"): lambda c, r: (
        toy_run(c / "out", "--cache-dir", str(c / "cache")),
        c / "cache",
    ),
    ("xbias run", "RUN/cache/regressors"): lambda c, r: (
        toy_run(c / "out"),
        (main(toy_run(c / "out")), c / "out" / "cache" / "regressors")[1],
    ),
    ("xbias report", "RUN/run.json"): lambda c, r: (
        ["report", str(copied_run(c, r)), "--out", str(c / "report"), "--format", "md", "-q"],
        c / "run" / "run.json",
    ),
    ("xbias report", "--out"): lambda c, r: (
        ["report", str(r), "--out", str(c / "report"), "-q"],
        c / "report",
    ),
    ("xbias report", "--details"): lambda c, r: (
        ["report", str(r), "--out", str(c / "report"), "--details", str(c / "details"), "-q"],
        c / "details",
    ),
    ("xbias report", "--model-card"): lambda c, r: (
        [
            "report",
            str(r),
            "--out",
            str(c / "report"),
            "--model-card",
            str(c / "card" / "README.md"),
            "-q",
        ],
        c / "card" / "README.md",
    ),
    ("xbias report", "--eval-results"): lambda c, r: (
        [
            "report",
            str(r),
            "--out",
            str(c / "report"),
            "--eval-results",
            str(c / "eval"),
            *NAMESPACE,
            "-q",
        ],
        c / "eval",
    ),
    ("xbias compare", "RUN/run.json"): lambda c, r: (
        ["compare", str(copied_run(c, r)), *COMPARED, "--out", str(c / "comparison"), "-q"],
        c / "run" / "run.json",
    ),
    ("xbias compare", "--out"): lambda c, r: (
        ["compare", str(r), *COMPARED, "--out", str(c / "comparison"), "-q"],
        c / "comparison",
    ),
    ("xbias datasets build", "--out"): lambda c, r: (
        ["datasets", "build", "xweat", "--out", str(c / "datasets"), "-q"],
        c / "datasets",
    ),
    ("xbias lm-eval tasks", "--out"): lambda c, r: (
        ["lm-eval", "tasks", "--model", "pypi:none", "--languages", "en", "--out", str(c / "pack")],
        c / "pack",
    ),
    ("xbias lm-eval import", "SAMPLES"): lambda c, r: (
        ["lm-eval", "import", str(logged(c)), "--out", str(c / "imported")],
        logged(c),
    ),
    ("xbias lm-eval import", "results_<time>.json"): lambda c, r: (
        ["lm-eval", "import", str(logged(c)), "--out", str(c / "imported")],
        c / "logged" / f"results_{TIME}.json",
    ),
    ("xbias lm-eval import", "--out"): lambda c, r: (
        ["lm-eval", "import", str(logged(c)), "--out", str(c / "imported")],
        c / "imported",
    ),
    ("xbias power", "RUN/run.json"): lambda c, r: (
        ["power", str(copied_run(c, r))],
        c / "run" / "run.json",
    ),
}


# The walk's paths inside a run folder, which count as damaged files (the module docstring): the
# output each writes.
DAMAGED = {
    ("xbias report", "RUN/run.json"): "report",
    ("xbias compare", "RUN/run.json"): "comparison",
    ("xbias power", "RUN/run.json"): None,
}


def documented_walk() -> set[tuple[str, str]]:
    """(command, path) of every item of the docs' list: ``- `xbias run`: `--config`, `--out`
    ...``."""
    text = DOCS.read_text(encoding="utf-8").split(WALK_HEADING, 1)[1].split("\n#", 1)[0]
    walk = set()
    for line in text.splitlines():
        spans = re.findall(r"`([^`]+)`", line) if line.startswith("- `xbias") else []
        walk |= {(spans[0], path) for path in spans[1:]}
    return walk


def test_the_walk_is_the_documented_list():
    assert documented_walk() == set(WALK)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("step", sorted(WALK), ids=" ".join)
def test_a_planted_path_is_one_line_and_exit_2_with_nothing_written(
    toy,  # noqa: F811
    run_dir,  # noqa: F811
    tmp_path,
    capsys,
    step,
    kind,
):
    case, elsewhere = tmp_path / "case", tmp_path / "elsewhere"
    case.mkdir()
    elsewhere.mkdir()
    (elsewhere / "kept.txt").write_text("not xbias's\n")
    argv, path = WALK[step](case, run_dir)
    plant(path, kind, size=OVERSIZED, link_to=elsewhere)
    capsys.readouterr()
    before = state(tmp_path)
    code = finishes(lambda: main(argv), SECONDS)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    after = state(tmp_path)
    if (
        step in DAMAGED
    ):  # a damaged file of a run folder: named in a warning, the rest of the run read
        assert code == 0 and all(line.startswith("xbias: warning: ") for line in lines), (
            code,
            err[-2000:],
        )
        assert any(path.name in line for line in lines), err[-2000:]
        output = DAMAGED[step]
        if (
            output is not None
        ):  # the command's own output (and the lock it was written under) may be new
            own = {case / output, case / f".{output}.lock"}
            after = {
                entry: value
                for entry, value in after.items()
                if not own & {Path(entry), *Path(entry).parents}
            }
    else:
        assert code == 2 and len(lines) == 1 and lines[0].startswith("xbias: error: "), (
            code,
            err[-2000:],
        )
    assert after == before, "something was written"
    assert json.dumps(sorted(os.listdir(elsewhere))) == '["kept.txt"]'
