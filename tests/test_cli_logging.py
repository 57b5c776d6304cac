"""`--verbose` and `--quiet`: the package logs through `logging`, one line a message; -v says what
each step is doing, -q keeps only warnings and errors (and no progress bars)."""

import yaml
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.suites import unregister_suite


def run(tmp_path, capsys, *flags):
    register_toy_suite()
    try:
        config = tmp_path / "toy.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "models": [{"name": "m1", "type": "svm_tfidf"}],
                    "suites": {"toy": {"languages": ["en"]}},
                }
            )
        )
        assert main(["run", "--config", str(config), "--out", str(tmp_path / "run"), *flags]) == 0
    finally:
        unregister_suite("toy")
    return capsys.readouterr()


def test_verbose_says_what_each_step_is_doing(tmp_path, capsys):
    captured = run(tmp_path, capsys, "--verbose", "--no-progress")
    lines = captured.err.splitlines()
    assert "xbias: m1 x toy x en (seed 0): preparing" in lines
    assert "xbias: m1 x toy x en (seed 0): 8 units" in lines
    assert all(line.startswith("xbias: ") for line in lines), lines


def test_quiet_shows_no_progress_and_no_step(tmp_path, capsys):
    captured = run(tmp_path, capsys, "--quiet")
    assert "preparing" not in captured.err and "units:" not in captured.err
    assert "results:" in captured.out  # the summary is the command's output, not a log line


def test_the_default_shows_no_steps(tmp_path, capsys):
    captured = run(tmp_path, capsys, "--no-progress")
    assert "preparing" not in captured.err
