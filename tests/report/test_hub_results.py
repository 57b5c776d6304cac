"""What the model-index and ``.eval_results`` files say, read the way the Hub reads them.

model-index: every ``dataset.type`` is the Hub id under the namespace given, every (config, split) is one that
``datasets.load_dataset`` accepts on the built dataset folder, p-values have a type of their own, metric
types are the evaluate modules. ``.eval_results``: one file per number, parsed back by huggingface_hub's own
parser into exactly the entries written, with values equal to the run's records.
"""

import json

import pytest
import yaml
from helpers.synthetic_run import E5, GLOVE, MINILM, write_synthetic_run
from huggingface_hub import ModelCard, parse_eval_result_entries

from eval_harness.cli import main
from eval_harness.contract.unit_file import payload_checksum
from eval_harness.data import build_datasets
from eval_harness.errors import ConfigError
from eval_harness.metric_modules import metric_names
from eval_harness.report import load_run
from eval_harness.report.eval_results import run_date, write_eval_results
from eval_harness.report.model_card import dataset_ids_in, eval_results, update_model_card

NAMESPACE = "my-org"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = write_synthetic_run(tmp_path_factory.mktemp("run") / "synthetic")
    # The harness stamps each unit file when it finishes; the run's date is the last stamp.
    for i, unit_file in enumerate(sorted((folder / "units").glob("*.json"))[:3]):
        payload = json.loads(unit_file.read_text())
        payload["finished_at"] = f"2026-03-0{i + 1}T12:00:00+0100"
        payload["checksum"] = payload_checksum(payload)  # as the harness writes it: the stamp is content
        unit_file.write_text(json.dumps(payload))
    return folder


@pytest.fixture(scope="module")
def run(run_dir):
    return load_run(run_dir)


@pytest.fixture(scope="module")
def built(tmp_path_factory, source_dir):
    return build_datasets(out_dir=tmp_path_factory.mktemp("datasets"), source_dir=source_dir)


@pytest.mark.parametrize("model", [MINILM, E5, GLOVE])
def test_model_index_fields_mean_what_the_spec_says(model, run, built):
    import datasets

    results = eval_results(run.results, model, dataset_ids_in(NAMESPACE))
    assert results
    loaded = {}
    for result in results:
        namespace, local_name = result.dataset_type.split("/")
        assert namespace == NAMESPACE and local_name in built
        assert result.metric_config is None  # the modules have no configurations
        assert result.metric_type in {*metric_names(), "pearsonr", "p_value"}
        assert result.dataset_split is not None
        if result.dataset_config is None:
            # Only measures that read several configs name none.
            assert result.task_name == "Gender space" or "targets" in result.metric_name
            continue
        where = (local_name, result.dataset_config, result.dataset_split)
        if where not in loaded:  # what load_dataset(id, config, split=split) gives on the built folder
            loaded[where] = datasets.load_dataset(
                str(built[local_name]), result.dataset_config, split=result.dataset_split
            )
        assert loaded[where].num_rows > 0
    # A p-value is a metric of its own type, next to the statistic it belongs to.
    by_name = {(r.dataset_config, r.metric_name): r for r in results}
    for (config, name), result in by_name.items():
        if name.endswith(" p-value"):
            assert result.metric_type == "p_value"
            assert by_name[config, name.removesuffix(" p-value")].metric_type != "p_value"


def test_cross_lingual_xweat_and_gender_space_name_no_config(run):
    results = eval_results(run.results, E5, dataset_ids_in(NAMESPACE))
    pairs = [r for r in results if "targets" in r.metric_name]
    assert pairs and all(r.dataset_config is None and r.dataset_type == f"{NAMESPACE}/xweat" for r in pairs)
    record = run.results.query("model == @E5 and config == 'en-de' and test == 'T1' and metric == 'effect_size'")
    (t1,) = [r for r in pairs if r.metric_name == "T1 effect size (targets en, attributes de)"]
    assert t1.metric_value == round(record["value"].iloc[0], 6)
    glove = eval_results(run.results, GLOVE, dataset_ids_in(NAMESPACE))
    spaces = [r for r in glove if r.task_name == "Gender space"]
    assert spaces and {r.dataset_config for r in spaces} == {None}
    assert {r.metric_name for r in spaces if r.metric_type == "gender_space"} >= {"direct bias (static)"}


def test_dataset_namespace_must_be_one_name():
    assert dataset_ids_in(None) == {}
    assert dataset_ids_in("org")["eec"] == "org/eec"
    for bad in ("", "org/eec"):
        with pytest.raises(ConfigError, match="must be a Hub user or organisation name"):
            dataset_ids_in(bad)


def test_eval_results_round_trip_through_the_hub_parser(run, run_dir, tmp_path):
    written = write_eval_results(tmp_path / ".eval_results", run, NAMESPACE, model=MINILM)
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    card = eval_results(run.results, MINILM, dataset_ids_in(NAMESPACE))
    assert len(written.paths) == sum(r.metric_type != "p_value" for r in card)  # one file per number
    entries = {}
    for path in written.paths:
        (entry,) = parse_eval_result_entries(yaml.safe_load(path.read_text()))
        entries[entry.dataset_id, entry.task_id] = entry
    assert len(entries) == len(written.paths)
    assert {entry.date for entry in entries.values()} == {"2026-03-03T12:00:00+01:00"}

    planted = next(
        r
        for r in records
        if r["model"] == MINILM
        and r["config"] == "en_black_white"
        and r["emotion"] == "anger"
        and r["term"] == "group"
        and r["metric"] == "estimate"
    )
    coefficient = entries[f"{NAMESPACE}/eec", "en_black_white/anger/group"]
    assert coefficient.value == round(planted["value"], 6)
    assert (
        f"p-value {planted['p_value']:.4g}" in coefficient.notes
        and f"std err {planted['std_err']:.4g}" in coefficient.notes
    )
    assert "reference_group=European" in coefficient.notes and coefficient.source_url is None
    pearson = next(r for r in records if r["model"] == MINILM and r["metric"] == "pearson_r" and r["split"] == "test")
    assert entries[f"{NAMESPACE}/semeval2018_affect", f"en_{pearson['emotion']}"].value == round(pearson["value"], 6)


def test_eval_results_are_rewritten_identically_and_need_a_namespace(run, tmp_path):
    folder = tmp_path / ".eval_results"
    first = write_eval_results(folder, run, NAMESPACE, model=MINILM, source_url="https://example.org/report")
    contents = {path: path.read_bytes() for path in first.paths}
    again = write_eval_results(folder, run, NAMESPACE, model=MINILM, source_url="https://example.org/report")
    assert {path: path.read_bytes() for path in again.paths} == contents
    (entry,) = parse_eval_result_entries(yaml.safe_load(first.paths[0].read_text()))
    assert (entry.source_url, entry.source_name) == ("https://example.org/report", "xbias")
    with pytest.raises(ConfigError, match="give --dataset-namespace ORG"):
        write_eval_results(folder, run, None, model=MINILM)


def test_run_date_without_stamps_is_none(tmp_path):
    (tmp_path / "units").mkdir()
    (tmp_path / "units" / "a.json").write_text(json.dumps({"records": []}))
    assert run_date(tmp_path) is None


def test_cli_report_writes_eval_results_beside_the_model_card(run_dir, tmp_path, capsys):
    card_path, folder = tmp_path / "README.md", tmp_path / ".eval_results"
    options = ["report", str(run_dir), "--out", str(tmp_path / "report"), "--format", "md", "--card-model", MINILM]
    assert main([*options, "--eval-results", str(folder)]) == 2
    assert "--eval-results needs --dataset-namespace ORG" in capsys.readouterr().err
    assert main([*options, "--model-card", str(card_path)]) == 0
    assert "dataset.type values are the local dataset names" in capsys.readouterr().err
    arguments = [
        *options,
        "--model-card",
        str(card_path),
        "--eval-results",
        str(folder),
        "--dataset-namespace",
        NAMESPACE,
    ]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert f"eval results ({MINILM}): {len(list(folder.glob('*.yaml')))} files in {folder}" in out
    types = {r.dataset_type for r in ModelCard.load(card_path).data.eval_results}
    assert f"{NAMESPACE}/eec" in types


def test_update_model_card_with_dataset_ids(run, tmp_path):
    update = update_model_card(tmp_path / "README.md", run.results, model=MINILM, dataset_ids=dataset_ids_in(NAMESPACE))
    assert update.added > 0
    card = ModelCard.load(tmp_path / "README.md")
    assert all(r.dataset_type.startswith(f"{NAMESPACE}/") for r in card.data.eval_results)
