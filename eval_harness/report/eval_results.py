"""Write a run's results as ``.eval_results/*.yaml``, the Hub's per-file evaluation-results format.

huggingface_hub 2.4 calls the README's ``model-index`` legacy: a model repo's ``.eval_results/`` folder holds
YAML files, each a list of entries ``{dataset: {id, task_id}, value, date, source: {url, name}, notes}``
(:class:`huggingface_hub.EvalResultEntry`). :func:`write_eval_results` writes one file per reported number
of one model, the same numbers as the model card (:func:`.model_card.reported_numbers`): ``dataset.id`` is
the Hub dataset, ``task_id`` says which number within it (``en_black_white/anger/group:gender``: EEC config,
emotion, term), ``value`` the number, ``date`` when the run's last unit finished, ``notes`` the rest (the
metric, std err, p-value, the compute() arguments). Files are serialised by huggingface_hub's own
``eval_result_entries_to_yaml``; writing the same run again rewrites the same files with the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import yaml
from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

from ..errors import ConfigError, InputError
from .model_card import ReportedNumber, card_model, dataset_ids_in, reported_numbers
from .run_folder import RunFolder

SOURCE_NAME = "xbias"


@dataclass(frozen=True)
class EvalResultsWrite:
    """What :func:`write_eval_results` wrote."""

    folder: Path
    model: str
    paths: tuple[Path, ...]

    def summary(self) -> str:
        return f"eval results ({self.model}): {len(self.paths)} files in {self.folder}"


def run_date(run_dir: Path) -> str | None:
    """When the run's last unit finished (ISO-8601), from the unit files; None when none says."""
    stamps = []
    for unit_file in sorted((run_dir / "units").glob("*.json")):
        try:
            stamp = json.loads(unit_file.read_text(encoding="utf-8")).get("finished_at")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(stamp, str):
            try:
                stamps.append(datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S%z"))
            except ValueError:
                continue
    return max(stamps).isoformat() if stamps else None


def _notes(number: ReportedNumber, model: str, version: str | None) -> str:
    """The entry's notes: what the number is, where it was measured, and its uncertainty."""
    source = " ".join(filter(None, [SOURCE_NAME, version]))
    where = [f"config {number.dataset_config}" if number.dataset_config else None]
    where.append(f"split {number.dataset_split}" if number.dataset_split else None)
    parts = [f"{source}, model {model}: {number.metric_name} ({number.metric_type})"]
    if any(where):
        parts[0] += " on " + ", ".join(filter(None, where))
    if number.std_err is not None:
        parts.append(f"std err {number.std_err:.4g}")
    if number.p_value is not None:
        parts.append(f"p-value {number.p_value:.4g}")
    if number.metric_args:
        parts.append("compute args " + ", ".join(f"{key}={value}" for key, value in number.metric_args.items()))
    return "; ".join(parts)


def eval_result_entries(
    run: RunFolder,
    model: str,
    dataset_ids: dict[str, str],
    source_url: str | None = None,
) -> list[tuple[ReportedNumber, EvalResultEntry]]:
    """Each reported number of ``model`` with its ``.eval_results`` entry."""
    date = run_date(run.path)
    version = ((run.run_info or {}).get("versions") or {}).get("xbias")
    return [
        (
            number,
            EvalResultEntry(
                dataset_id=number.dataset_id,
                task_id=number.task_id,
                value=number.value,
                date=date,
                source_url=source_url,
                source_name=SOURCE_NAME if source_url else None,
                notes=_notes(number, model, version),
            ),
        )
        for number in reported_numbers(run.results, model, dataset_ids)
    ]


def file_name(number: ReportedNumber) -> str:
    """``<dataset>__<task id>.yaml`` with every character a file name may not safely hold replaced by ``_``."""
    dataset = number.dataset_id.split("/")[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{dataset}__{number.task_id.replace('/', '__')}") + ".yaml"


def write_eval_results(
    folder: str | Path,
    run: RunFolder,
    dataset_namespace: str | None,
    model: str | None = None,
    source_url: str | None = None,
) -> EvalResultsWrite:
    """Write one ``.eval_results`` YAML file per reported number of ``model`` into ``folder``.

    Args:
        folder: the ``.eval_results`` folder (of a local clone of the model repo, or any folder to upload).
        run: the run folder (:func:`~eval_harness.report.load_run`).
        dataset_namespace: the Hub user or organisation the datasets are pushed under (``dataset.id`` is
            ``ORG/eec``); required, since an entry's dataset must be a Hub dataset.
        model: which of the run's models; may be left out when the run has one.
        source_url: where the evaluation can be seen (a Space, a report); recorded as the entry's source.

    Raises:
        ConfigError: no dataset namespace.
        InputError: the run has no reportable numbers for the model, or several models and none was named.
    """
    if not dataset_namespace:
        raise ConfigError(
            "the .eval_results files name Hub datasets: give --dataset-namespace ORG (the user or organisation "
            "the datasets are pushed under: python datasets_scripts/<name>/build.py --push-to-hub ORG/<name>)"
        )
    model = card_model(run.results, model)
    entries = eval_result_entries(run, model, dataset_ids_in(dataset_namespace), source_url)
    names = [file_name(number) for number, _ in entries]
    if len(set(names)) != len(names):
        raise InputError(f"two results map to one file name: {sorted({n for n in names if names.count(n) > 1})}")
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (_, entry) in zip(names, entries, strict=True):
        path = target / name
        path.write_text(
            yaml.safe_dump(eval_result_entries_to_yaml([entry]), sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
        paths.append(path)
    return EvalResultsWrite(target, model, tuple(paths))
