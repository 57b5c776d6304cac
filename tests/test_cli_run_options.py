"""`xbias run` with the options an lm-evaluation-harness user reaches for: --model-args, --limit,
--batch-size, --device, --trust-remote-code, and -q that hides every library's progress bars."""

import json
import os
import subprocess
import sys

import pytest
import yaml
from helpers.tiny_models import build_tiny_bert

from eval_harness.cli import build_parser, main
from eval_harness.cli.run import _config_from_options, _with_run_options
from eval_harness.errors import ModelLoadError
from eval_harness.models.loading import load_pretrained
from eval_harness.runner import parse_config

QUICK_EEC = {
    "models": [{"type": "svm_tfidf"}],
    "suites": {"eec": {"languages": ["es"], "emotions": ["anger"]}},
}


def _config(argv: list[str]) -> dict:
    args = build_parser().parse_args(["run", *argv, "--out", "unused"])
    return _with_run_options(_config_from_options(args), args)


def test_model_args_take_lm_evaluation_harness_syntax():
    config = _config(
        [
            "--model-args",
            "pretrained=my-org/my-llm,revision=abc123,dtype=bfloat16,device_map=auto,batch_size=8,trust_remote_code=true",
            "--model-type",
            "llm",
            "--suite",
            "eec",
            "--languages",
            "en",
        ]
    )
    (model,) = config["models"]
    assert model == {
        "id": "my-org/my-llm",
        "type": "llm",
        "options": {"dtype": "bfloat16", "device_map": "auto", "batch_size": 8},
        "trust_remote_code": True,
        "revision": "abc123",
    }
    parsed = parse_config(config)  # the type takes every option given
    assert parsed.models[0].trust_remote_code and parsed.models[0].options["batch_size"] == 8


def test_model_args_errors_are_one_line(capsys):
    run = ["run", "--suite", "eec", "--languages", "en", "--out", "unused"]
    assert main([*run, "--model-args", "dtype"]) == 2
    assert "--model-args takes key=value pairs separated by commas" in capsys.readouterr().err
    assert main([*run, "--model", "a/b", "--model-args", "pretrained=c/d"]) == 2
    assert "give the model once" in capsys.readouterr().err
    # An option the type does not take is named, with the ones it takes.
    assert main([*run, "--model-args", "pretrained=a/b,dtype=bfloat16"]) == 2
    error = capsys.readouterr().err
    assert "dtype" in error and "pooling" in error and error.count("\n") == 1


def test_batch_size_device_and_remote_code_reach_the_models_that_take_them(tmp_path):
    config = tmp_path / "two.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "models": [
                    {"name": "bert", "id": "org/bert", "type": "encoder"},
                    {"type": "svm_tfidf"},
                ],
                "suites": {"eec": {"languages": ["en"]}},
            }
        )
    )
    args = build_parser().parse_args(
        [
            "run",
            "--config",
            str(config),
            "--batch-size",
            "4",
            "--device",
            "cpu",
            "--trust-remote-code",
            "--out",
            "x",
        ]
    )
    from eval_harness.runner import read_config

    bert, svm = _with_run_options(read_config(args.config)[0], args)["models"]
    assert (
        bert["options"] == {"batch_size": 4, "device": "cpu"} and bert["trust_remote_code"] is True
    )
    assert "options" not in svm and "trust_remote_code" not in svm
    # Off by default.
    assert parse_config(read_config(config)[0]).models[0].trust_remote_code is False


def test_options_no_model_takes_are_errors(capsys):
    run = [
        "run",
        "--model-type",
        "svm_tfidf",
        "--suite",
        "eec",
        "--languages",
        "es",
        "--out",
        "unused",
    ]
    assert main([*run, "--batch-size", "8"]) == 2
    assert "--batch-size: no model of the run takes a batch_size option" in capsys.readouterr().err
    assert main([*run, "--trust-remote-code"]) == 2
    assert "no model of the run is loaded from an id or path" in capsys.readouterr().err
    xweat = [
        "run",
        "--model-type",
        "svm_tfidf",
        "--suite",
        "xweat",
        "--languages",
        "en",
        "--limit",
        "3",
    ]
    assert main([*xweat, "--out", "unused"]) == 2
    assert "--limit has nothing to limit in xweat" in capsys.readouterr().err


def _with_custom_code(folder):
    """A tiny BERT whose config names classes of its own (``auto_map``): loading it runs the
    folder's code."""
    build_tiny_bert(folder)
    (folder / "configuration_custom.py").write_text(
        "from transformers import BertConfig\n\n\nclass "
        "CustomConfig(BertConfig):\n    model_type = 'custom-bert'\n"
    )
    (folder / "modeling_custom.py").write_text(
        "from transformers import BertModel\n\nfrom .configuration_custom import CustomConfig\n\n\n"
        "class CustomModel(BertModel):\n    config_class = CustomConfig\n"
    )
    config = json.loads((folder / "config.json").read_text())
    config.update(
        model_type="custom-bert",
        auto_map={
            "AutoConfig": "configuration_custom.CustomConfig",
            "AutoModel": "modeling_custom.CustomModel",
        },
    )
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_remote_code_runs_only_when_trusted(tmp_path):
    folder = _with_custom_code(tmp_path / "custom")
    with pytest.raises(ModelLoadError, match="ships its own code .* pass --trust-remote-code"):
        load_pretrained(folder)
    model, _, _ = load_pretrained(folder, trust_remote_code=True)
    assert type(model).__name__ == "CustomModel"


def _eec_cells(config: str, emotion: str, limit: int) -> tuple[int, int]:
    """(sentences fitted, noun-phrase sentences left out) when every template x group x gender cell
    of the EEC config's ``emotion`` rows keeps at most ``limit`` rows: counted on the dataset
    itself."""
    from eval_harness.data import load_eec

    rows = load_eec(config).to_pandas()
    rows = rows[rows["emotion"] == emotion]
    sizes = rows.groupby(["template_id", rows["group"].fillna("(noun phrase)"), "gender"]).size()
    kept = sizes.clip(upper=limit)
    noun = kept[kept.index.get_level_values(1) == "(noun phrase)"].sum()
    return int(kept.sum() - noun), int(noun)


@pytest.mark.slow
def test_limit_scores_exactly_n_sentences_per_cell(tmp_path, capsys):
    """What the README says --limit does: N sentences of each template x group x gender cell are
    scored."""
    config = tmp_path / "quick.yaml"
    config.write_text(yaml.safe_dump(QUICK_EEC))
    out = tmp_path / "run"
    assert (
        main(["run", "--config", str(config), "--limit", "5", "--out", str(out), "--no-progress"])
        == 0
    )
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    fits = [record for record in records if record["suite"] == "eec" and record["dataset"] == "eec"]
    assert fits and {record["config"] for record in fits} == {"es_latino_anglo"}
    fitted, left_out = _eec_cells("es_latino_anglo", "anger", 5)
    assert fitted == 7 * 2 * 2 * 5  # 7 emotional templates x 2 groups x 2 genders, 5 sentences each
    estimates = [record for record in fits if record["metric"] == "estimate"]
    assert {record["n"] for record in estimates} == {fitted}
    assert {record["n_excluded"] for record in estimates} == {left_out}
    # Each group x gender cell of the fit: 7 templates x 5 sentences.
    assert {record["n"] for record in fits if record["metric"] == "cell_mean"} == {7 * 5}
    # The power planner's pool: the sentences and names of each template x cell the 5 were drawn
    # from.
    from eval_harness.data import load_eec

    rows = load_eec("es_latino_anglo").to_pandas()
    cells = rows[(rows["emotion"] == "anger") & rows["group"].notna()].groupby(
        ["template_id", "group", "gender"]
    )
    pools = {
        (float(size), float(names))
        for size, names in zip(cells.size(), cells["person"].nunique(), strict=True)
    }
    effects = [record for record in fits if record["metric"] == "effect"]
    assert (
        effects
        and {(record["planner_pool"], record["planner_pool_names"]) for record in effects} == pools
    )


@pytest.mark.slow
def test_quiet_hides_every_progress_bar_including_datasets(tmp_path):
    """-q: no bar from xbias, and none from datasets (its "Generating train split" when it prepares
    the EEC and SemEval parquet files, which a fresh cache makes it do); without -q those bars are
    there."""
    config = tmp_path / "quick.yaml"
    config.write_text(yaml.safe_dump(QUICK_EEC))

    def run(name, *flags):
        env = {
            **os.environ,
            "HF_HOME": str(tmp_path / name / "hf"),
            "XBIAS_CACHE_DIR": str(tmp_path / name / "x"),
        }
        command = [
            sys.executable,
            "-m",
            "eval_harness.cli",
            "run",
            "--config",
            str(config),
            "--limit",
            "2",
        ]
        done = subprocess.run(
            [*command, "--out", str(tmp_path / name / "run"), *flags],
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        return done.stderr

    loud = run("loud")
    assert "Generating train split" in loud and "%|" in loud
    quiet = run("quiet", "-q")
    assert "Generating" not in quiet and "%|" not in quiet and "it/s" not in quiet, quiet
