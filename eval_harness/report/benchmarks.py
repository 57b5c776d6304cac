"""The ``eval.yaml`` a project dataset carries as a Hub benchmark, from what the methods' sections
declare.

The Hub's evaluation results (https://huggingface.co/docs/hub/eval-results) link a model's
``.eval_results/*.yaml`` entry to a leaderboard through ``dataset.id``, which must be a *benchmark*
dataset, and ``dataset.task_id``, which must be one of the tasks that dataset's ``eval.yaml``
defines. The file holds::

    name: ...                      # display name
    description: ...               # what the benchmark measures
    evaluation_framework: xbias    # the harness that computes its results
    tasks:
      - id: en_black_white-anger-group   # one leaderboard
        config: en_black_white           # the dataset config it reads
        split: train                     # and the split

Which datasets are benchmarks and what their tasks are, each method's section says
(:meth:`~.method_section.ReportSection.benchmarks`); the same section gives its card numbers those
task ids, so what :mod:`.eval_results` writes always names a task of the shipped ``eval.yaml``.
``xbias datasets build`` writes the file into the dataset's folder, and ``--push-to-hub`` uploads it
with the data.

The Hub checks ``evaluation_framework`` against its own list of frameworks (huggingface.js,
``packages/tasks/src/eval.ts``), which does not name xbias yet (nor lm-evaluation-harness; read
2026-08-21); a dataset becomes a listed benchmark once the Hub adds it (and its maintainers
allow-list the dataset, as the docs say for every benchmark). docs/model_card.md says what a
publisher must do.
"""

from __future__ import annotations

import yaml

from ..errors import ConfigError
from .kit.method_section import Benchmark
from .sections import report_sections

EVAL_YAML = "eval.yaml"
EVALUATION_FRAMEWORK = "xbias"


def benchmarks() -> dict[str, Benchmark]:
    """Every benchmark the registered methods' sections declare, by dataset name."""
    found: dict[str, Benchmark] = {}
    for section in report_sections().sections:
        for benchmark in section.benchmarks():
            if benchmark.dataset in found:
                raise ConfigError(
                    f"two report sections declare a benchmark for the dataset {benchmark.dataset!r}"
                )
            found[benchmark.dataset] = benchmark
    return found


def benchmark_task_ids(dataset: str) -> frozenset[str]:
    """The task ids of ``dataset``'s benchmark (empty when it is none)."""
    benchmark = benchmarks().get(dataset)
    return frozenset(task.id for task in benchmark.tasks) if benchmark else frozenset()


def eval_yaml_data(benchmark: Benchmark) -> dict:
    """The ``eval.yaml`` of ``benchmark`` as a mapping, in the spec's field order."""
    if benchmark.eval_yaml_data is not None:
        return dict(benchmark.eval_yaml_data)
    tasks = []
    for task in benchmark.tasks:
        entry = {"id": task.id}
        if task.config is not None:
            entry["config"] = task.config
        entry["split"] = task.split
        tasks.append(entry)
    return {
        "name": benchmark.name,
        "description": benchmark.description,
        "evaluation_framework": EVALUATION_FRAMEWORK,
        "tasks": tasks,
    }


def eval_yaml(dataset: str) -> str | None:
    """The text of ``dataset``'s ``eval.yaml``; None when no section declares a benchmark for it."""
    benchmark = benchmarks().get(dataset)
    if benchmark is None:
        return None
    return yaml.safe_dump(eval_yaml_data(benchmark), sort_keys=False, allow_unicode=True, width=110)


def eval_yaml_files() -> dict[str, dict[str, str]]:
    """Per benchmark dataset the files its folder gets: ``{"eec": {"eval.yaml": text}, ...}``."""
    return {dataset: {EVAL_YAML: eval_yaml(dataset)} for dataset in benchmarks()}
