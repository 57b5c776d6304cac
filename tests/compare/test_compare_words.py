"""`xbias compare` names the flag that works (issue 40): a skipped fit's note says --cov-type model,
never the Python cov_type='model', and a comparison where every difference was skipped is one line
and exit 2, not "compared 0 differences" and exit 0."""

from types import SimpleNamespace

import pandas as pd

import eval_harness.compare as compare
from eval_harness.cli import main
from eval_harness.compare.output import as_flags, nothing_compared

NOTE = (
    "the standard error of group is 0: its clustered variance is at rounding "
    "level (e.g. scores alike within every cluster); use cov_type='model'"
)


def _table(p_values):
    return pd.DataFrame(
        {
            "config": "en_black_white",
            "emotion": "anger",
            "p_value": p_values,
            "note": [NOTE] * len(p_values),
        }
    )


def test_a_note_names_the_commands_flag():
    assert as_flags(NOTE).endswith("use --cov-type model") and "cov_type=" not in as_flags(NOTE)


def test_all_skipped_is_one_line_naming_the_flag_and_one_tested_difference_is_not():
    line = nothing_compared(_table([None, None]))
    assert (
        line.startswith("compared 0 differences: all 2 were skipped") and "--cov-type model" in line
    )
    assert nothing_compared(_table([0.3, None])) is None
    assert nothing_compared(_table([])) is None


def test_the_cli_exits_2_when_nothing_could_be_compared(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(
        compare, "compare_runs", lambda *args, **kwargs: SimpleNamespace(results=_table([None]))
    )
    assert (
        main(
            [
                "compare",
                str(tmp_path / "a"),
                str(tmp_path / "b"),
                "--out",
                str(tmp_path / "out"),
                "-q",
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--cov-type model" in error and "cov_type=" not in error
