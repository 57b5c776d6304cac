"""Write a run's results into a model card's ``model-index`` (huggingface_hub's model-card utilities).

:func:`update_model_card` reads a model's ``README.md`` with :class:`huggingface_hub.ModelCard`,
merges one :class:`huggingface_hub.EvalResult` per reported number of one model into
``card.data.eval_results`` and writes the card back, offline:

* only the YAML front matter is rewritten; the Markdown body is kept byte for byte (a
  file without front matter gets one, in front of its unchanged content);
* a result is identified by (task, dataset, dataset config, split, metric type, metric
  name); writing the same run again replaces values in place and adds nothing, and
  results already there for other numbers are kept.

What each field means follows the Hub's model-index spec (docs/model_card.md has the table):
``dataset.type`` is a Hub dataset id (``ORG/eec`` with ``dataset_namespace="ORG"``),
``dataset.config`` and ``dataset.split`` are what ``load_dataset(id, config, split=split)``
takes (the SemEval regressor score of English anger is config ``en_anger``, split ``test``;
a measure that reads several configs, such as the gender-space lists or a cross-lingual
XWEAT pair, names none), ``metric.type`` is the evaluate module that computes the number,
``metric.name`` says which number it is, ``metric.args`` the module's ``compute()``
arguments, and a test's p-value is a metric of its own type ``p_value``. Which numbers are reported,
and where each was measured, each method's report section says (:class:`~.sections.CardMetric`): the EEC
Beta-regression coefficients of the bias terms, the regressors' Pearson r (test split), XWEAT effect sizes
and the gender-space measures. :func:`push_model_card` uploads the card
when online; :mod:`.eval_results` writes the same numbers as ``.eval_results/*.yaml`` files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from huggingface_hub import EvalResult, ModelCard

from ..errors import ConfigError, InputError, XBiasError
from .sections import CardMetric, ReportSection, report_sections
from .tables import natural_order

P_VALUE_TYPE = "p_value"
DIGITS = 6


def dataset_titles() -> dict[str, str]:
    """Every dataset a method's card numbers come from, with its title (the methods' sections name them)."""
    return {name: title for section in report_sections().sections for name, title in section.dataset_titles.items()}


@dataclass(frozen=True)
class ModelCardUpdate:
    """What :func:`update_model_card` did: results added, updated (value changed) and kept as they were."""

    path: Path
    model: str
    added: int
    updated: int
    unchanged: int
    total: int

    def to_dict(self) -> dict:
        return {
            "path": str(self.path),
            "model": self.model,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "total": self.total,
        }

    def summary(self) -> str:
        return (
            f"model card {self.path} ({self.model}): {self.added} results added, {self.updated} updated, "
            f"{self.unchanged} unchanged; {self.total} in model-index"
        )


@dataclass(frozen=True)
class ReportedNumber:
    """One number of a run as the Hub's result formats describe it (see the module docstring)."""

    task_type: str
    task_name: str
    dataset_id: str
    dataset_name: str
    dataset_config: str | None
    dataset_split: str | None
    task_id: str  # what distinguishes this number within its dataset (the .eval_results task id)
    metric_type: str
    metric_name: str
    metric_args: Mapping | None
    value: float
    p_value: float | None
    std_err: float | None

    def eval_results(self) -> list[EvalResult]:
        """The model-index results: the value, and the p-value as a metric of type ``p_value``."""
        shared = dict(
            task_type=self.task_type,
            task_name=self.task_name,
            dataset_type=self.dataset_id,
            dataset_name=self.dataset_name,
            dataset_config=self.dataset_config,
            dataset_split=self.dataset_split,
            metric_args=dict(self.metric_args) if self.metric_args else None,
        )
        results = [
            EvalResult(metric_type=self.metric_type, metric_name=self.metric_name, metric_value=self.value, **shared)
        ]
        if self.p_value is not None:
            results.append(
                EvalResult(
                    metric_type=P_VALUE_TYPE,
                    metric_name=f"{self.metric_name} p-value",
                    metric_value=self.p_value,
                    **shared,
                )
            )
        return results


def dataset_ids_in(namespace: str | None) -> dict[str, str]:
    """The Hub ids of the project's datasets pushed under ``namespace`` (``{"eec": "ORG/eec", ...}``); none without."""
    if namespace is None:
        return {}
    if not namespace or "/" in namespace:
        raise ConfigError(f"dataset namespace {namespace!r} must be a Hub user or organisation name, e.g. my-org")
    return {name: f"{namespace}/{name}" for name in dataset_titles()}


def _card_rows(results: pd.DataFrame, model: str) -> list[tuple[pd.Series, ReportSection, CardMetric]]:
    """The records of ``model`` that go into the card, each with its method's section and card metric (the
    first seed's when the run has several)."""
    rows = results[(results["model"] == model) & results["value"].notna()]
    sections = report_sections().by_suite
    chosen = pd.concat(
        [
            section.card_rows(rows[(rows["suite"] == name) & rows["metric"].isin(section.card_metrics)])
            for name, section in sections.items()
        ]
        or [rows.iloc[:0]]
    ).sort_index()
    if "seed" in chosen.columns and chosen["seed"].nunique() > 1:
        chosen = chosen[chosen["seed"] == chosen["seed"].min()]
    return [
        (row, sections[row["suite"]], sections[row["suite"]].card_metrics[row["metric"]])
        for _, row in chosen.iterrows()
    ]


def _number(value) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def reported_numbers(
    results: pd.DataFrame, model: str, dataset_ids: Mapping[str, str] | None = None
) -> list[ReportedNumber]:
    """The numbers of ``model`` that go to the Hub, in a stable order.

    ``dataset_ids`` maps the run's dataset names to their Hub ids (see :func:`dataset_ids_in`);
    by default the bare local names.
    """
    rows = _card_rows(results, model)
    if not rows:
        raise InputError(
            f"the run has no model-card results for model {model!r} (models in the run: "
            f"{sorted(results['model'].dropna().unique())})"
        )
    titles = dataset_titles()
    numbers = []
    for row, section, card in rows:
        config, split, task_id, metric_name = section.card_where(row, card.label)
        p_value = _number(row.get("p_value")) if card.with_p_value else None
        numbers.append(
            ReportedNumber(
                task_type=card.task_type,
                task_name=card.task_name,
                dataset_id=(dataset_ids or {}).get(row["dataset"], str(row["dataset"])),
                dataset_name=titles.get(row["dataset"], str(row["dataset"])),
                dataset_config=config,
                dataset_split=split,
                task_id=task_id,
                metric_type=card.metric_type,
                metric_name=metric_name,
                metric_args=section.card_arguments(row),
                value=round(float(row["value"]), DIGITS),
                p_value=None if p_value is None else float(f"{p_value:.4g}"),
                std_err=_number(row.get("std_err")),
            )
        )
    return sorted(
        numbers,
        key=lambda n: (n.task_type, n.dataset_id, natural_order(n.dataset_config or ""), natural_order(n.task_id)),
    )


def eval_results(results: pd.DataFrame, model: str, dataset_ids: Mapping[str, str] | None = None) -> list[EvalResult]:
    """The card's results for ``model``: per reported number its value, and its p-value when it has one."""
    return [result for number in reported_numbers(results, model, dataset_ids) for result in number.eval_results()]


def result_key(result: EvalResult) -> tuple:
    """What identifies a result across runs (its value is what an update changes)."""
    return (
        result.task_type,
        result.dataset_type,
        result.dataset_config,
        result.dataset_split,
        result.metric_type,
        result.metric_name,
    )


def _read_card(path: Path) -> tuple[ModelCard, str]:
    """The card and its raw text (newlines as in the file)."""
    with path.open(encoding="utf-8", newline="") as stream:
        raw = stream.read()
    try:
        return ModelCard(raw), raw
    except ValueError as error:
        raise InputError(f"{path}: the YAML front matter is not a valid model card ({error}); fix it first") from None


def card_model(results: pd.DataFrame, model: str | None) -> str:
    """The model the results are written for: ``model``, or the run's only model."""
    if model is not None:
        return model
    models = sorted(results["model"].dropna().unique())
    if len(models) != 1:
        raise InputError(
            f"the run has {len(models)} models ({', '.join(models)}); say which one the card is for "
            "(model=NAME, or --card-model NAME on the command line)"
        )
    return models[0]


def update_model_card(
    path: str | Path,
    results: pd.DataFrame,
    model: str | None = None,
    model_name: str | None = None,
    dataset_ids: Mapping[str, str] | None = None,
) -> ModelCardUpdate:
    """Add or update ``model``'s results in the ``model-index`` of the model card at ``path``.

    Args:
        path: the model's README.md (created when missing).
        results: a run's records (``RunFolder.results``).
        model: which of the run's models the card describes; may be left out when the run has one.
        model_name: ``model-index`` name for a card that has none (default: ``model``).
        dataset_ids: the Hub id of each dataset (:func:`dataset_ids_in`); default the bare local names.
    """
    model = card_model(results, model)
    new_results = eval_results(results, model, dataset_ids)
    card_path = Path(path)
    if card_path.is_file():
        card, _ = _read_card(card_path)
    else:
        card = ModelCard(f"---\n{{}}\n---\n# {model}\n\nBias evaluation by xbias: see the `model-index` metadata.\n")
    existing = list(card.data.eval_results or [])
    index = {result_key(result): i for i, result in enumerate(existing)}
    added = updated = unchanged = 0
    for result in new_results:
        position = index.get(result_key(result))
        if position is None:
            index[result_key(result)] = len(existing)
            existing.append(result)
            added += 1
        elif existing[position] != result:
            existing[position] = result
            updated += 1
        else:
            unchanged += 1
    card.data.eval_results = existing
    card.data.model_name = card.data.model_name or model_name or model
    card_path.parent.mkdir(parents=True, exist_ok=True)
    card.save(card_path)
    return ModelCardUpdate(card_path, model, added, updated, unchanged, len(existing))


def push_model_card(path: str | Path, repo_id: str, token: str | None = None) -> str:
    """Upload the model card at ``path`` as the README of the Hub model ``repo_id``; returns the commit URL."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        raise ConfigError(f"cannot push the model card to {repo_id}: HF_HUB_OFFLINE is set (unset it to push)")
    card, _ = _read_card(Path(path))
    try:
        return str(card.push_to_hub(repo_id, token=token))
    except Exception as error:  # the Hub client raises many types (HTTP, auth, validation)
        raise XBiasError(f"pushing the model card to {repo_id} failed ({type(error).__name__}: {error})") from None
