"""The precision a run used: run.json and every record name what each model's forward passes ran as,
and a folder computed in one precision is not resumed in another: ``auto`` follows the hardware
(bf16 on a GPU, fp32 on a CPU), so the same config resumed on another machine must not mix bf16 and
fp32 units. The first machine is simulated by an ``auto`` that resolves to bf16 (as on a GPU) while
the model runs on this CPU."""

import json

import pytest
import torch
import yaml
from helpers.tiny_models import build_tiny_bert
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.models import batching
from eval_harness.suites import unregister_suite


@pytest.fixture
def toy():
    yield register_toy_suite()
    unregister_suite("toy")


def config_file(tmp_path, options=None) -> str:
    folder = tmp_path / "model"
    if not folder.exists():
        build_tiny_bert(folder)
    models = [
        {
            "name": "tiny",
            "path": str(folder),
            "type": "encoder",
            "options": {"device": "cpu", **(options or {})},
        },
        {"name": "tfidf", "type": "svm_tfidf"},
    ]
    path = tmp_path / "toy.yaml"
    path.write_text(
        yaml.safe_dump({"models": models, "suites": {"toy": {"languages": ["en"], "n_configs": 1}}})
    )
    return str(path)


@pytest.fixture
def auto_is_bf16(monkeypatch):
    """``precision: auto`` resolves to bf16, as on a machine with a GPU (the toy suite runs no
    model)."""
    resolve = batching.resolve_precision
    monkeypatch.setattr(
        batching,
        "resolve_precision",
        lambda precision, device: (
            torch.bfloat16 if precision == "auto" else resolve(precision, device)
        ),
    )
    return monkeypatch


def records_of(out) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_records_and_run_json_name_the_precision_and_another_one_does_not_resume(
    toy, tmp_path, auto_is_bf16, capsys
):
    out = tmp_path / "run"
    assert main(["run", "--config", config_file(tmp_path), "--out", str(out), "--no-progress"]) == 0
    assert json.loads((out / "run.json").read_text())["provenance"]["precisions"] == {
        "tiny": "bf16"
    }
    by_model = {(record["model"], record["precision"]) for record in records_of(out)}
    assert by_model == {
        ("tiny", "bf16"),
        ("tfidf", None),
    }  # a model without a network has no precision

    auto_is_bf16.undo()  # the same config on another machine, where auto runs fp32
    capsys.readouterr()
    assert main(["run", "--config", config_file(tmp_path), "--out", str(out), "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert (
        "model 'tiny' runs in fp32 here, but the run" in error
        and "computed its units in bf16" in error
    )
    assert {record["precision"] for record in records_of(out) if record["model"] == "tiny"} == {
        "bf16"
    }

    assert (
        main(
            [
                "run",
                "--config",
                config_file(tmp_path),
                "--out",
                str(out),
                "--no-progress",
                "--force",
            ]
        )
        == 0
    )
    assert json.loads((out / "run.json").read_text())["provenance"]["precisions"] == {
        "tiny": "fp32"
    }
    assert {record["precision"] for record in records_of(out) if record["model"] == "tiny"} == {
        "fp32"
    }


def test_an_explicit_precision_is_what_the_records_name(toy, tmp_path, auto_is_bf16):
    out = tmp_path / "run"
    assert (
        main(
            [
                "run",
                "--config",
                config_file(tmp_path, {"precision": "fp32"}),
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    assert {record["precision"] for record in records_of(out) if record["model"] == "tiny"} == {
        "fp32"
    }
