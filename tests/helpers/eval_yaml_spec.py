"""The Hub's ``eval.yaml`` spec as the tests read a built file: what ``xbias datasets build``
ships is checked against it (tests/report/test_hub_results.py, tests/inspect_pack/).

The product writes the file from what the methods' sections declare
(eval_harness.report.benchmarks) and never reads one back, so the reader lives beside its tests.
"""

from collections.abc import Mapping

import yaml

from eval_harness.errors import ConfigError
from eval_harness.report.benchmarks import EVAL_YAML

# What the spec lets a task hold besides its id; an inspect-ai benchmark's tasks must hold the rest.
TASK_KEYS = ("id", "config", "split")
INSPECT_TASK_KEYS = ("field_spec", "solvers", "scorers")


def read_eval_yaml(text: str, where: str = EVAL_YAML) -> dict[str, dict]:
    """The tasks of an ``eval.yaml`` by id, after checking the file against the spec.

    ``name``, ``description`` and ``evaluation_framework`` are non-empty strings, ``tasks`` a
    non-empty list of mappings whose ``id`` is a non-empty string, unique, and whose other keys are
    the spec's (an ``inspect-ai`` benchmark's tasks also hold ``field_spec``, ``solvers`` and
    ``scorers``).

    Raises:
        ConfigError: naming what breaks the spec.
    """
    data = yaml.safe_load(text)
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{where}: an eval.yaml is a mapping (name, description, evaluation_framework, tasks)"
        )
    for key in ("name", "description", "evaluation_framework"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ConfigError(f"{where}: {key} must be a non-empty string")
    tasks = data.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise ConfigError(f"{where}: tasks must be a non-empty list")
    by_id: dict[str, dict] = {}
    inspect = data["evaluation_framework"] == "inspect-ai"
    for index, task in enumerate(tasks):
        task_id = task.get("id") if isinstance(task, Mapping) else None
        if not isinstance(task_id, str) or not task_id.strip():
            raise ConfigError(f"{where}: tasks[{index}] needs an id (a non-empty string)")
        unknown = sorted(set(task) - set(TASK_KEYS) - set(INSPECT_TASK_KEYS if inspect else ()))
        if unknown:
            raise ConfigError(f"{where}: tasks[{index}] has keys the spec does not know: {unknown}")
        missing = [key for key in INSPECT_TASK_KEYS if inspect and not task.get(key)]
        if missing:
            raise ConfigError(
                f"{where}: tasks[{index}] of an inspect-ai benchmark needs {', '.join(missing)}"
            )
        if task_id in by_id:
            raise ConfigError(f"{where}: task id {task_id!r} appears twice")
        by_id[task_id] = dict(task)
    return by_id
