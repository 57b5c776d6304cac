"""Nothing is lost that was not ours: a folder is an xbias run folder only when its run.json says
so; any other folder is refused before anything (even run.lock) is written into it, --force never
deletes or overwrites a file that is not xbias's, and names that are not plain path components are
an error before anything is written.

With the toy suite (tests/toy_method), in this process."""

import json

import pytest
import yaml
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.errors import ConfigError
from eval_harness.runner import RunStore, parse_config, run_sweep
from eval_harness.runner.store import RUN_FOLDER_KIND
from eval_harness.suites import unregister_suite

# What another program left in a folder: files with the names xbias writes, and one of its own.
FOREIGN = {
    "results.jsonl": "their results\n",
    "units/notes.txt": "their notes\n",
    "cache/mine.bin": "their cache",
}


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def toy_config(models=None, **top):
    return parse_config(
        {
            "models": models or [{"name": "m1", "type": "svm_tfidf"}],
            "suites": {"toy": {"languages": ["en"]}},
            **top,
        }
    )


def write_files(folder, files):
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def contents(folder):
    return {
        path.relative_to(folder).as_posix(): path.read_text()
        for path in folder.rglob("*")
        if path.is_file()
    }


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_a_folder_of_another_program_is_refused_and_left_as_it_was(toy, tmp_path, force):
    """Guards: a folder holding only another program's results.jsonl, units/ and cache/ was taken
    for a run folder and its results.jsonl overwritten (exit 0), and a refused folder got a
    run.lock. Now it is refused before anything is written, and --force, which would overwrite its
    files, is refused too."""
    folder = tmp_path / "theirs"
    write_files(folder, FOREIGN)
    message = "even with --force xbias never replaces" if force else "is not an xbias run folder"
    with pytest.raises(ConfigError, match=message) as error:
        run_sweep(toy_config(), folder, force=force, progress=False)
    assert "\n" not in str(error.value)
    assert contents(folder) == FOREIGN  # not one byte changed, no run.lock, no config.yaml
    assert sorted(path.name for path in folder.iterdir()) == ["cache", "results.jsonl", "units"]


def test_force_adds_a_run_beside_other_files_and_never_removes_them(toy, tmp_path, capsys):
    """Guards: --force wrote into any folder (and its wipe removed the whole units/ folder).
    Decided: --force in a folder that is not xbias's adds a run beside its files when none of them
    has a name xbias writes; the folder is then a run folder, and a later --force removes only
    xbias's own files."""
    folder = tmp_path / "shared"
    theirs = {"notes.txt": "keep me\n", "data/table.csv": "a,b\n"}
    write_files(folder, theirs)
    with pytest.raises(ConfigError, match="is not an xbias run folder"):
        run_sweep(toy_config(), folder, progress=False)
    assert contents(folder) == theirs
    assert run_sweep(toy_config(), folder, force=True, progress=False).computed == 8
    assert json.loads((folder / "run.json").read_text())["kind"] == RUN_FOLDER_KIND
    (folder / "units" / "README.txt").write_text("mine, in the run's units/\n")
    assert run_sweep(toy_config(seeds=[1]), folder, force=True, progress=False).computed == 8
    after = contents(folder)
    assert {name: after[name] for name in theirs} == theirs
    assert after["units/README.txt"] == "mine, in the run's units/\n"
    assert {json.loads(line)["seed"] for line in after["results.jsonl"].splitlines()} == {1}


def test_a_run_folder_is_claimed_first_so_a_failed_start_is_taken_over(toy, tmp_path):
    """run.json is the first file a run writes (status "starting"): a start that fails before its
    first unit leaves a folder the next run knows as xbias's, not a foreign one."""
    folder = tmp_path / "run"
    store = RunStore(folder, toy_config())
    store.make_folder()
    store.open(toy_config())
    assert json.loads((folder / "run.json").read_text())["status"] == "starting" and store.is_ours()
    assert run_sweep(toy_config(), folder, progress=False).computed == 8


def test_a_run_folder_whose_run_json_was_deleted_is_still_known_by_its_unit_files(toy, tmp_path):
    folder = tmp_path / "run"
    run_sweep(toy_config(), folder, progress=False)
    (folder / "run.json").unlink()  # docs/run_folder.md: the user may delete it
    assert run_sweep(toy_config(), folder, progress=False).resumed == 8


@pytest.mark.parametrize(
    "models",
    [
        [{"name": "..", "type": "svm_tfidf"}],
        [{"name": ".hidden", "type": "svm_tfidf"}],
        [{"name": "a/b", "type": "svm_tfidf"}],
        [{"name": ".", "type": "svm_tfidf"}],
    ],
    ids=["dotdot", "hidden", "slash", "dot"],
)
def test_a_model_name_that_is_not_a_plain_name_is_refused_before_anything_is_written(
    toy, tmp_path, models
):
    """Guards: a model named `..` was accepted and its unit files became hidden dotfiles in
    units/."""
    with pytest.raises(ConfigError, match="is not a plain name"):
        run_sweep(toy_config(models), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_a_run_name_that_is_not_a_plain_name_is_refused(toy):
    for name in ("..", "../x", ".run"):
        with pytest.raises(ConfigError, match="name must be a plain name"):
            toy_config(name=name)


def test_a_model_given_as_dotdot_on_the_command_line_is_one_line_before_anything_is_written(
    toy, tmp_path, capsys, monkeypatch
):
    """`--model ..` names the model after its path's last part, `..`: an error that says how to name
    it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inner").mkdir()
    monkeypatch.chdir(tmp_path / "inner")
    argv = [
        "run",
        "--model",
        "..",
        "--model-type",
        "static_mlp",
        "--suite",
        "toy",
        "--languages",
        "en",
    ]
    assert main([*argv, "--out", "run"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert (
        line.startswith("xbias: error: ")
        and "name '..' (from '..'" in line
        and "set `name:`" in line
    )
    assert sorted(path.name for path in (tmp_path / "inner").iterdir()) == []
    config = tmp_path / "named.yaml"
    config.write_text(
        yaml.safe_dump({"models": [{"name": "..", "type": "svm_tfidf"}], "suites": ["toy"]})
    )
    assert main(["run", "--config", str(config), "--out", "run2"]) == 2
    assert "is not a plain name" in capsys.readouterr().err
