"""The ``eval.yaml`` that ``xbias datasets build eec`` writes: an ``inspect-ai`` benchmark (the
framework the Hub's allow-list holds) whose tasks are the Inspect pack's tasks, each on a config the
built dataset has, read back by the spec check and by huggingface_hub's own eval-results types as
the task ids of ``.eval_results`` entries."""

import pytest
import yaml
from helpers.eval_yaml_spec import read_eval_yaml
from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml, parse_eval_result_entries
from inspect_ai import list_tasks

from eval_harness.cli import main
from eval_harness.data.eec_benchmark import SCORER, SOLVER, inspect_task_id, inspect_task_ids
from eval_harness.errors import ConfigError
from eval_harness.inspect_pack.tasks import TASK_FILE
from eval_harness.report.benchmarks import EVAL_YAML


@pytest.fixture(scope="module")
def built(tmp_path_factory, source_dir):
    out = tmp_path_factory.mktemp("datasets")
    assert (
        main(["datasets", "build", "eec", "--out", str(out), "--source-dir", str(source_dir)]) == 0
    )
    return out / "eec"


def test_the_eec_is_an_inspect_ai_benchmark_whose_tasks_are_the_packs(built, tmp_path):
    text = (built / EVAL_YAML).read_text()
    data = yaml.safe_load(text)
    assert data["evaluation_framework"] == "inspect-ai"
    tasks = read_eval_yaml(text, "eec/eval.yaml")  # the spec's keys, the inspect-ai ones required
    assert main(["inspect", "tasks", "--out", str(tmp_path)]) == 0
    assert (
        set(tasks)
        == {task.name for task in list_tasks(TASK_FILE, root_dir=tmp_path)}
        == set(inspect_task_ids())
    )
    for task_id, (language, config, emotion) in inspect_task_ids().items():
        task = tasks[task_id]
        assert (task["config"], task["split"]) == (config, "train") and (built / config).is_dir()
        assert task["field_spec"] == {"input": "sentence", "target": "emotion"}
        assert [solver["name"] for solver in task["solvers"]] == [SOLVER, "generate"]
        assert task["solvers"][0]["args"] == {"language": language, "emotion": emotion}
        assert task["scorers"] == [{"name": SCORER}]


def test_huggingface_hubs_eval_results_types_take_its_task_ids(built):
    tasks = read_eval_yaml((built / EVAL_YAML).read_text())
    entries = [
        EvalResultEntry(dataset_id="org/eec", task_id=task_id, value=0.1) for task_id in tasks
    ]
    parsed = parse_eval_result_entries(
        yaml.safe_load(yaml.safe_dump(eval_result_entries_to_yaml(entries)))
    )
    assert [entry.task_id for entry in parsed] == list(tasks) and all(
        entry.dataset_id == "org/eec" for entry in parsed
    )
    assert inspect_task_id("ar", "ar_arab_anglo", "sadness") in tasks


def test_an_inspect_ai_task_without_its_solvers_is_refused_and_an_unknown_cell_has_no_task_id(
    built,
):
    data = yaml.safe_load((built / EVAL_YAML).read_text())
    del data["tasks"][0]["solvers"]
    with pytest.raises(ConfigError, match="needs solvers"):
        read_eval_yaml(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="no EEC task"):
        inspect_task_id("es", "en_black_white", "anger")
