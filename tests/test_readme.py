"""The README is the front door, and the guide and the developer notes hold what moved out of it:
every command their bash blocks show parses with the real parser (and the `xbias list` and
model-free run ones run offline), every Python block marked as run runs as written, and the README
stays short enough to read (at most 1,500 words)."""

import re
import shlex

import pytest
from helpers import PROJECT_ROOT

from eval_harness.cli import build_parser, main

DOCUMENTS = ("README.md", "docs/guide.md", "docs/development.md")
TEXTS = {name: (PROJECT_ROOT / name).read_text(encoding="utf-8") for name in DOCUMENTS}
README = TEXTS["README.md"]
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
RUNS = "<!-- tests/test_readme.py runs this block -->"


def commands(text: str) -> list[list[str]]:
    """Every `xbias ...` (and `accelerate launch -m eval_harness.cli ...`) command of a document's
    bash blocks."""
    found = []
    for language, body in BLOCK.findall(text):
        if language != "bash":
            continue
        for line in body.splitlines():
            words = shlex.split(line.split("#", 1)[0])
            if words[:1] == ["xbias"]:
                found.append(words[1:])
            elif words[:4] == ["accelerate", "launch", "-m", "eval_harness.cli"]:
                found.append(words[4:])
    return found


def every_command() -> list[list[str]]:
    return [argv for text in TEXTS.values() for argv in commands(text)]


def test_the_readme_is_short_and_shows_the_main_commands():
    assert len(README.split()) <= 1500
    assert {("run",), ("report",), ("list",), ("lm-eval",)} <= {
        tuple(words[:1]) for words in commands(README)
    }
    assert ("datasets",) in {tuple(words[:1]) for words in every_command()}
    # The two set-up commands, the ones .ci/run and a new user's demo rely on.
    (setup,) = [body for language, body in BLOCK.findall(README) if "make demo" in body]
    assert [line.split()[:2] for line in setup.splitlines()] == [["make", "demo"], ["make", "test"]]
    assert "make test" in (PROJECT_ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("argv", every_command(), ids=" ".join)
def test_every_documented_command_parses(argv):
    args = build_parser().parse_args(argv)
    assert callable(args.func)


def test_the_listing_and_a_model_free_run_work_offline(tmp_path, capsys):
    assert main(["list"]) == 0
    assert "pypi:multilingual-e5-small" in capsys.readouterr().out
    argv = next(
        words for words in commands(README) if "--model-type" in words and "svm_tfidf" in words
    )
    argv = [*argv[: argv.index("--out") + 1], str(tmp_path / "svm")]
    assert main([*argv, "--no-progress"]) == 0
    assert "results:" in capsys.readouterr().out


def marked_blocks(word: str) -> list[tuple[str, str]]:
    """(document, code) of each Python block after a ``RUNS`` marker that uses ``word``."""
    return [
        (name, code)
        for name, text in TEXTS.items()
        for code in [BLOCK.findall(part)[0][1] for part in text.split(RUNS)[1:]]
        if word in code
    ]


def test_the_readme_shows_the_metric_in_ten_lines():
    (code,) = [code for name, code in marked_blocks("eec_bias") if name == "README.md"]
    assert len([line for line in code.splitlines() if line.strip()]) <= 10


@pytest.mark.slow
@pytest.mark.parametrize(
    ("document", "code"), marked_blocks("eec_bias"), ids=lambda value: value[:12]
)
def test_the_metric_examples_run(registered_metrics, capsys, document, code):
    exec(compile(code, document, "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == ["anger", "fear", "joy", "sadness"]
    assert all("Arab vs Anglo, among men" in line for line in printed)


@pytest.mark.slow
def test_the_python_api_example_runs_a_sweep_and_writes_its_report(tmp_path, monkeypatch, capsys):
    import pandas as pd

    ((document, code),) = marked_blocks("run_sweep")
    monkeypatch.chdir(tmp_path)  # the example writes runs/api, relative to where it runs
    exec(compile(code, document, "exec"), {})
    printed = capsys.readouterr().out
    assert (
        tmp_path / "runs/api/report/report.html"
    ).is_file() and "runs/api/report/report.html" in printed
    # What it prints is the run's records, read here straight from results.jsonl.
    records = pd.read_json(tmp_path / "runs/api/results.jsonl", lines=True)
    estimates = records.query(
        "metric == 'estimate' and term in ('group', 'gender', 'group:gender')"
    )
    assert len(estimates) == 3 and set(estimates["config"]) == {"en_arab_anglo"}
    for _, record in estimates.iterrows():
        line = next(line for line in printed.splitlines() if line.split()[2:3] == [record["term"]])
        assert float(line.split()[3]) == pytest.approx(record["value"], rel=1e-5, abs=1e-6)
