"""Write a run's results as ``.eval_results/*.yaml``, the Hub's per-file evaluation-results format.

huggingface_hub 2.4 calls the README's ``model-index`` legacy: a model repo's ``.eval_results/``
folder holds YAML files, each a list of entries ``{dataset: {id, task_id, revision}, value, date,
source: {url, name}, notes}`` (:class:`huggingface_hub.EvalResultEntry`). An entry shows on a
leaderboard when ``dataset.id`` is a benchmark dataset and ``task_id`` one of the tasks its
``eval.yaml`` defines (:mod:`.benchmarks`).

:func:`write_eval_results` writes one file per benchmark dataset (``eec.yaml``) with an entry per
reported number of one model that is a task of that benchmark, the same bounded numbers as the model
card (:func:`.model_card.reported_numbers`): ``dataset.id`` is the Hub dataset,
``task_id`` its benchmark task (``en_black_white-anger-group_x_gender_did``: EEC config, emotion,
effect; one function, :func:`task_id`),
``dataset.revision`` the dataset's fingerprint, ``value`` the number, ``date`` when the run's last
unit finished. The spec has a single ``value`` and no field for its uncertainty, so ``notes``
carries it, in a fixed form: ``std err 0.0123; 95% CI [0.0012, 0.0501]; p-value 0.0312; p_clustered
0.081`` after what the number is, then what the method's section adds (``ReportSection.card_notes``:
an EEC effect's verdict at its margin, "verdict: beyond ±0.01"), and then the compute() arguments;
``source`` can link the full details (``--source-url``, e.g. the per-sentence details dataset).
Numbers on datasets that are no benchmark (a regressor's Pearson r on SemEval-2018, the gender-space
measures) stay in the model-index only. Files are serialised by huggingface_hub's own
``eval_result_entries_to_yaml``; writing the same run again rewrites the same files with the same
bytes, and files xbias wrote earlier that name no task of the benchmark (an older naming) are
removed. The folder is shared with what others write there, so xbias replaces only its own files
(the write rule, :func:`eval_results_problem`): a same-named file it did not write, or a symbolic
link, stops the write before any file is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import yaml
from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

from ..errors import ConfigError, InputError
from ..io import atomic_write_text, folder_problem, load_yaml, parse_json, read_text, write_problem
from .benchmarks import benchmark_task_ids
from .model_card import ReportedNumber, card_model, dataset_ids_in, dataset_titles, reported_numbers
from .run_folder import RunFolder

SOURCE_NAME = "xbias"


@dataclass(frozen=True)
class EvalResultsWrite:
    """What :func:`write_eval_results` wrote."""

    folder: Path
    model: str
    paths: tuple[Path, ...]
    not_benchmarks: int = 0  # numbers on datasets that are no benchmark: model-index only
    removed: tuple[Path, ...] = ()  # stale files xbias wrote before

    def summary(self) -> str:
        parts = [f"eval results ({self.model}): {len(self.paths)} files in {self.folder}"]
        if self.not_benchmarks:
            parts.append(
                f"{self.not_benchmarks} numbers on datasets "
                "that are no benchmark stay in the model-index"
            )
        if self.removed:
            parts.append(f"removed {len(self.removed)} stale file(s) xbias wrote before")
        return "; ".join(parts)


def run_date(run_dir: Path) -> str | None:
    """When the run's last unit finished (ISO-8601), from the unit files; None when none says."""
    stamps = []
    for unit_file in sorted((run_dir / "units").glob("*.json")):
        try:
            stamp = parse_json(read_text(unit_file)).get("finished_at")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(stamp, str):
            try:
                stamps.append(datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S%z"))
            except ValueError:
                continue
    return max(stamps).isoformat() if stamps else None


def uncertainty_note(uncertainty: dict[str, float]) -> str:
    """``std err 0.0123; 95% CI [0.0012, 0.0501]; p-value 0.0312`` (and any further p-value by its
    label)."""
    parts = []
    if "std_err" in uncertainty:
        parts.append(f"std err {uncertainty['std_err']:.4g}")
    if "ci_low" in uncertainty and "ci_high" in uncertainty:
        parts.append(f"95% CI [{uncertainty['ci_low']:.4g}, {uncertainty['ci_high']:.4g}]")
    if "p_value" in uncertainty:
        parts.append(f"p-value {uncertainty['p_value']:.4g}")
    known = {"std_err", "ci_low", "ci_high", "p_value"}
    parts += [f"{label} {value:.4g}" for label, value in uncertainty.items() if label not in known]
    return "; ".join(parts)


def _notes(number: ReportedNumber, model: str, version: str | None) -> str:
    """The entry's notes: what the number is, where it was measured, its uncertainty, its compute()
    arguments."""
    source = " ".join(filter(None, [SOURCE_NAME, version]))
    where = [f"config {number.dataset_config}" if number.dataset_config else None]
    where.append(f"split {number.dataset_split}" if number.dataset_split else None)
    parts = [f"{source}, model {model}: {number.metric_name} ({number.metric_type})"]
    if any(where):
        parts[0] += " on " + ", ".join(filter(None, where))
    if number.uncertainty:
        parts.append(uncertainty_note(dict(number.uncertainty)))
    if number.notes:
        parts.append(number.notes)
    if number.metric_args:
        parts.append(
            "compute args "
            + ", ".join(f"{key}={value}" for key, value in number.metric_args.items())
        )
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
                task_id=task_id(number),
                dataset_revision=number.dataset_revision,
                value=number.value,
                date=date,
                source_url=source_url,
                source_name=SOURCE_NAME if source_url else None,
                notes=_notes(number, model, version),
            ),
        )
        for number in reported_numbers(run.results, model, dataset_ids)
    ]


def task_id(number: ReportedNumber) -> str:
    """The ``.eval_results`` task id of a reported number: the benchmark task it is (the one place
    that says it)."""
    return number.task_id


def file_name(number: ReportedNumber) -> str:
    """``<dataset>.yaml``: one file per dataset (benchmark) holds every entry of the model on it;
    every character a file name may not safely hold replaced by ``_``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", number.dataset_id.split("/")[-1]) + ".yaml"


def _on_a_benchmark(number: ReportedNumber) -> bool:
    """Whether the number is a task of its dataset's benchmark (an entry the Hub can link to a
    leaderboard)."""
    return task_id(number) in benchmark_task_ids(number.dataset_id.split("/")[-1])


def _xbias_entries(path: Path) -> list | None:
    """The entries of ``path`` when it is a file xbias wrote (a plain file, every entry's notes
    starting with ``xbias`` and naming one of its datasets); None otherwise (not ours to touch)."""
    from huggingface_hub import parse_eval_result_entries

    if path.is_symlink() or not path.is_file():
        return None
    try:
        entries = parse_eval_result_entries(load_yaml(read_text(path)) or [])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, yaml.YAMLError):
        return None  # not an entries file this writer can read
    ours = bool(entries) and all(
        (entry.notes or "").startswith(SOURCE_NAME)
        and entry.dataset_id.split("/")[-1] in dataset_titles()
        for entry in entries
    )
    return entries if ours else None


def _stale_files(folder: Path, written: set[str]) -> list[Path]:
    """The files in ``folder`` that xbias wrote (:func:`_xbias_entries`) that name no task of a
    benchmark (an older naming, or a dataset that is no benchmark) and that this write did not
    rewrite: entries the Hub could never link to a leaderboard."""
    stale = []
    for path in sorted(folder.glob("*.yaml")):
        entries = _xbias_entries(path) if path.name not in written else None
        if entries and not any(
            entry.task_id in benchmark_task_ids(entry.dataset_id.split("/")[-1])
            for entry in entries
        ):
            stale.append(path)
    return stale


def eval_results_problem(folder: str | Path, names: list[str]) -> str | None:
    """Why the files ``names`` may not be written into ``folder``: it cannot be written, is a
    symbolic link, or a file of one of those names is one xbias did not write (the write rule,
    :func:`eval_harness.io.write_problem`)."""
    return folder_problem(folder) or write_problem(
        folder, lambda path: _xbias_entries(path) is not None, names
    )


def _planned(
    run: RunFolder, dataset_namespace: str | None, model: str | None, source_url: str | None
):
    """``(model, [(file name, [entries])], numbers left out)``: what :func:`write_eval_results`
    writes, one file per dataset."""
    if not dataset_namespace:
        raise ConfigError(
            "the .eval_results files name Hub datasets: give "
            "--dataset-namespace ORG (the user or organisation the datasets are "
            "pushed under: xbias datasets build <name> --push-to-hub ORG/<name>)"
        )
    model = card_model(run.results, model)
    every = eval_result_entries(run, model, dataset_ids_in(dataset_namespace), source_url)
    entries = [(number, entry) for number, entry in every if _on_a_benchmark(number)]
    files: dict[str, list[EvalResultEntry]] = {}
    for number, entry in entries:
        files.setdefault(file_name(number), []).append(entry)
    return model, list(files.items()), len(every) - len(entries)


def check_eval_results(
    folder: str | Path,
    run: RunFolder,
    dataset_namespace: str | None,
    model: str | None = None,
    source_url: str | None = None,
) -> tuple[str, list[tuple[str, list[EvalResultEntry]]], int]:
    """What :func:`write_eval_results` would write (its arguments), ``(model, [(file name,
    entries)], numbers on no benchmark)``, or what it would refuse, refused before anything is
    written.

    Raises:
        ConfigError: no dataset namespace.
        InputError: no reportable numbers, a model to name, or a folder or file xbias may not write.
    """
    plan = _planned(run, dataset_namespace, model, source_url)
    problem = eval_results_problem(folder, [name for name, _ in plan[1]])
    if problem is not None:
        raise InputError(
            f"cannot write the eval results into {folder}: {problem}; give another --eval-results"
        )
    return plan


def write_eval_results(
    folder: str | Path,
    run: RunFolder,
    dataset_namespace: str | None,
    model: str | None = None,
    source_url: str | None = None,
) -> EvalResultsWrite:
    """Write one ``.eval_results`` YAML file per benchmark dataset, holding the reported numbers of
    ``model`` on it (at most :data:`~.model_card.MAX_RESULTS`), into ``folder``.

    Args:
        folder: the ``.eval_results`` folder (of a local clone of the model repo, or any folder to
        upload).
        run: the run folder (:func:`~eval_harness.report.load_run`).
        dataset_namespace: the Hub user or organisation the datasets are pushed under
            (``dataset.id`` is ``ORG/eec``); required, since an entry's dataset must be a Hub
            dataset.
        model: which of the run's models; may be left out when the run has one.
        source_url: where the evaluation can be seen (a Space, a report, the details dataset);
            recorded as the entry's source.

    Raises:
        ConfigError: no dataset namespace.
        InputError: the run has no reportable numbers for the model, or several models and none was
            named, or the folder, or a file of a name it writes, is not xbias's to write
            (:func:`eval_results_problem`).
    """
    model, planned, not_benchmarks = check_eval_results(
        folder, run, dataset_namespace, model, source_url
    )
    target = Path(folder)
    paths = []
    for name, entries in planned:
        text = yaml.safe_dump(
            eval_result_entries_to_yaml(entries), sort_keys=False, allow_unicode=True
        )
        paths.append(atomic_write_text(target / name, text))  # a rename: never through a link
    stale = _stale_files(target, {name for name, _ in planned})
    for path in stale:
        path.unlink()
    return EvalResultsWrite(target, model, tuple(paths), not_benchmarks, tuple(stale))
