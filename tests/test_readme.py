"""The README is the front door: every command it shows parses with the real parser (and the `xbias list` and
model-free run ones run offline), and its Python example of the metric runs as written."""

import re
import shlex

import pytest
from helpers import PROJECT_ROOT

from eval_harness.cli import build_parser, main

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
RUNS = "<!-- tests/test_readme.py runs this block -->"


def commands() -> list[list[str]]:
    """Every `xbias ...` (and `accelerate launch -m eval_harness.cli ...`) command of the README's bash blocks."""
    found = []
    for language, body in BLOCK.findall(README):
        if language != "bash":
            continue
        for line in body.splitlines():
            words = shlex.split(line.split("#", 1)[0])
            if words[:1] == ["xbias"]:
                found.append(words[1:])
            elif words[:4] == ["accelerate", "launch", "-m", "eval_harness.cli"]:
                found.append(words[4:])
    return found


def test_the_readme_shows_the_main_commands():
    shown = {tuple(words[:1]) for words in commands()}
    assert {("run",), ("report",), ("list",), ("datasets",)} <= shown


@pytest.mark.parametrize("argv", commands(), ids=" ".join)
def test_every_readme_command_parses(argv):
    args = build_parser().parse_args(argv)
    assert callable(args.func)


def test_the_listing_and_a_model_free_run_work_offline(tmp_path, capsys):
    assert main(["list"]) == 0
    assert "pypi:multilingual-e5-small" in capsys.readouterr().out
    argv = next(words for words in commands() if "--model-type" in words and "svm_tfidf" in words)
    argv = [*argv[: argv.index("--out") + 1], str(tmp_path / "svm")]
    assert main([*argv, "--no-progress"]) == 0
    assert "results:" in capsys.readouterr().out


@pytest.mark.slow
def test_the_metric_example_runs(registered_metrics, capsys):
    block = README.split(RUNS, 1)[1]
    (code,) = BLOCK.findall(block)[:1]
    exec(compile(code[1], "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == ["anger", "fear", "joy", "sadness"]
    assert all("Arab vs Anglo, among men" in line for line in printed)
