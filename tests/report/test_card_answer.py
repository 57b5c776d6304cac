"""The card carries the report's answer (issue 40): at most 60 model-index results, each EEC one an
intensity-scale effect record of results.jsonl (never a logit coefficient), named by what it
compares, under the Hub repo id given; a "Bias evaluation" body section with the verdict table; read
back by huggingface_hub; and every card option checked before the report is written."""

import json

import pytest
import yaml
from helpers.synthetic_run import MINILM, write_synthetic_run
from huggingface_hub import ModelCard, metadata_eval_result
from huggingface_hub.repocard_data import model_index_to_eval_results

from eval_harness.cli import main
from eval_harness.report.model_card import MAX_RESULTS


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("card") / "run")


@pytest.fixture(scope="module")
def card(run_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("card_out")
    argv = ["report", str(run_dir), "--out", str(folder / "report"), "--format", "md"]
    argv += [
        "--model-card",
        str(folder / "README.md"),
        "--card-model",
        MINILM,
        "--repo-id",
        "my-org/minilm-audit",
    ]
    assert main(argv) == 0
    return folder / "README.md"


def test_the_card_reads_back_through_huggingface_hub(card):
    loaded = ModelCard.load(card)
    assert (
        loaded.data.model_name == "my-org/minilm-audit"
    )  # the name the user gives: the Hub repo id
    results = loaded.data.eval_results
    assert 0 < len(results) <= MAX_RESULTS
    name, parsed = model_index_to_eval_results(
        yaml.safe_load(card.read_text().split("---")[1])["model-index"]
    )
    assert name == "my-org/minilm-audit" and len(parsed) == len(results)
    first = results[0]
    metadata = metadata_eval_result(
        model_pretty_name=name,
        task_pretty_name=first.task_name,
        task_id=first.task_type,
        metrics_pretty_name=first.metric_name,
        metrics_id=first.metric_type,
        metrics_value=first.metric_value,
        dataset_pretty_name=first.dataset_name,
        dataset_id=first.dataset_type,
    )
    assert metadata["model-index"][0]["results"][0]["metrics"][0]["value"] == first.metric_value


def test_every_eec_value_is_an_intensity_scale_effect_record(card, run_dir):
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    effects = {
        (r["config"], f"{r['emotion']}: {r['contrast']}"): r["value"]
        for r in records
        if r["model"] == MINILM and r["metric"] == "effect"
    }
    eec = [r for r in ModelCard.load(card).data.eval_results if r.metric_type == "eec_bias"]
    assert len(eec) == 3 * 5  # three headline effects per EEC config of the run
    for result in eec:
        assert result.metric_value == round(effects[result.dataset_config, result.metric_name], 6)
        assert "coefficient" not in result.metric_name and set(result.metric_args) <= {
            "reference_group",
            "reference_gender",
            "use_t",
        }


def test_the_body_has_the_verdict_table_margin_and_method(card):
    body = ModelCard.load(card).text
    assert "## Bias evaluation" in body
    # the answer first: the report's sentence on this model, before its verdict table
    answer = body.index(f"{MINILM}: of ")
    assert "EEC effects on the intensity scale" in body[answer:] and "±0.01" in body[answer:]
    assert answer < body.index("| lang. |")
    assert "| lang. | ±δ | race/ethnicity | gender | intersection | not measured |" in body
    assert "±0.01" in body and "Method:" in body
    assert "Not measured:" in body or "Every EEC effect of this model was measured" in body


def test_a_wrong_card_model_or_repo_id_stops_before_anything_is_written(run_dir, tmp_path, capsys):
    out, card = tmp_path / "report", tmp_path / "README.md"
    argv = ["report", str(run_dir), "--out", str(out), "--model-card", str(card)]
    assert main([*argv, "--card-model", "nope"]) == 2
    assert "--card-model 'nope' is no model of the run" in capsys.readouterr().err
    assert main([*argv, "--card-model", MINILM, "--repo-id", "not a repo id"]) == 2
    assert "is no Hub model id" in capsys.readouterr().err
    assert not out.exists() and not card.exists()
