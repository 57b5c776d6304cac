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


def marked_block(word: str) -> str:
    """The Python block after a ``RUNS`` marker that uses ``word``."""
    blocks = [BLOCK.findall(part)[0][1] for part in README.split(RUNS)[1:]]
    (code,) = [block for block in blocks if word in block]
    return code


@pytest.mark.slow
def test_the_metric_example_runs(registered_metrics, capsys):
    exec(compile(marked_block("eec_bias"), "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == ["anger", "fear", "joy", "sadness"]
    assert all("Arab vs Anglo, among men" in line for line in printed)


@pytest.mark.slow
def test_the_python_api_example_runs_a_sweep_and_writes_its_report(tmp_path, monkeypatch, capsys):
    import pandas as pd

    monkeypatch.chdir(tmp_path)  # the example writes runs/api, relative to where it runs
    exec(compile(marked_block("run_sweep"), "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert (tmp_path / "runs/api/report/report.html").is_file() and "runs/api/report/report.html" in printed
    # What it prints is the run's records, read here straight from results.jsonl.
    records = pd.read_json(tmp_path / "runs/api/results.jsonl", lines=True)
    estimates = records.query("metric == 'estimate' and term in ('group', 'gender', 'group:gender')")
    assert len(estimates) == 3 and set(estimates["config"]) == {"en_arab_anglo"}
    for _, record in estimates.iterrows():
        line = next(line for line in printed.splitlines() if line.split()[2:3] == [record["term"]])
        assert float(line.split()[3]) == pytest.approx(record["value"], rel=1e-5, abs=1e-6)
