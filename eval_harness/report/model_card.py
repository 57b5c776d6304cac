"""Write a run's results into a model card's ``model-index`` (huggingface_hub's model-card utilities).

:func:`update_model_card` reads a model's ``README.md`` with :class:`huggingface_hub.ModelCard`,
merges one :class:`huggingface_hub.EvalResult` per reported number of one model into
``card.data.eval_results`` and writes the card back, offline:

* only the YAML front matter is rewritten; the Markdown body is kept byte for byte (a
  file without front matter gets one, in front of its unchanged content);
* a result is identified by (task, dataset, dataset config, split, metric type, metric
  config); writing the same run again replaces values in place and adds nothing, and
  results already there for other numbers are kept.

Per reported number the card gets the value, and for a test its p-value as a second
metric (``metric_config`` ending in ``/p_value``): EEC Beta-regression coefficients of the
bias terms, the regressors' Pearson r (test split), XWEAT effect sizes and the
gender-space measures. :func:`push_model_card` uploads the card when online.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from huggingface_hub import EvalResult, ModelCard

from ..errors import ConfigError, InputError, XBiasError
from .tables import BIAS_TERMS, EEC_METRIC, EEC_SUITE, GENDER_SPACE_SUITE, XWEAT_SUITE, natural_order

# (suite, metric) -> (task type, task name, metric type). Records of other (suite, metric) pairs stay out.
CARD_METRICS = {
    (EEC_SUITE, EEC_METRIC): ("text-classification", "Emotion-intensity bias (EEC Beta regression)", "eec_bias"),
    (EEC_SUITE, "pearson_r"): ("text-classification", "Emotion-intensity regression", "pearsonr"),
    (XWEAT_SUITE, "effect_size"): ("feature-extraction", "Word embedding association (XWEAT)", "weat"),
    (GENDER_SPACE_SUITE, "direct_bias"): ("feature-extraction", "Gender space", "gender_space"),
    (GENDER_SPACE_SUITE, "clustering_accuracy"): ("feature-extraction", "Gender space", "gender_space"),
    (GENDER_SPACE_SUITE, "classification_accuracy"): ("feature-extraction", "Gender space", "gender_space"),
    (GENDER_SPACE_SUITE, "knn_profession_r"): ("feature-extraction", "Gender space", "gender_space"),
}
DATASET_NAMES = {
    "eec": "Equity Evaluation Corpora",
    "xweat": "XWEAT word lists",
    "gender_lists": "Gender word lists",
    "semeval2018_affect": "SemEval-2018 Affect in Tweets",
}
METRIC_LABELS = {EEC_METRIC: "coefficient", "pearson_r": "Pearson r", "effect_size": "effect size"}
DIGITS = 6


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


def _card_rows(results: pd.DataFrame, model: str) -> pd.DataFrame:
    """The records of ``model`` that go into the card (see ``CARD_METRICS``)."""
    rows = results[(results["model"] == model) & results["value"].notna()]
    pairs = pd.Series(list(zip(rows["suite"], rows["metric"], strict=True)), index=rows.index, dtype=object)
    rows = rows[pairs.isin(list(CARD_METRICS))]
    rows = rows[~((rows["metric"] == EEC_METRIC) & ~rows["term"].isin(BIAS_TERMS))]
    if "split" in rows.columns:
        rows = rows[(rows["metric"] != "pearson_r") | (rows["split"] == "test") | rows["split"].isna()]
    if "seed" in rows.columns and rows["seed"].nunique() > 1:
        rows = rows[rows["seed"] == rows["seed"].min()]
    return rows


def _text(value) -> str | None:
    return None if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def eval_results(results: pd.DataFrame, model: str, dataset_ids: Mapping[str, str] | None = None) -> list[EvalResult]:
    """The card's results for ``model``: per record its value, and its p-value when it has one.

    ``dataset_ids`` maps the run's dataset names to their Hub ids (e.g. ``{"eec": "org/eec"}``)
    for the results' ``dataset.type``; by default the bare names.
    """
    rows = _card_rows(results, model)
    if rows.empty:
        raise InputError(
            f"the run has no model-card results for model {model!r} (models in the run: "
            f"{sorted(results['model'].dropna().unique())})"
        )
    cards = []
    for _, row in rows.iterrows():
        task_type, task_name, metric_type = CARD_METRICS[row["suite"], row["metric"]]
        # the gender-space measure ("knn") already names its statistic ("knn_profession_r")
        parts = [_text(row.get(key)) for key in ("emotion", "test", "term")]
        parts = [part for part in parts if part and not row["metric"].startswith(part)]
        what = "/".join(part for part in parts if part)
        metric_config = f"{what}/{row['metric']}" if what else row["metric"]
        label = " ".join([*filter(None, parts), METRIC_LABELS.get(row["metric"], row["metric"].replace("_", " "))])
        shared = dict(
            task_type=task_type,
            task_name=task_name,
            dataset_type=(dataset_ids or {}).get(row["dataset"], str(row["dataset"])),
            dataset_name=DATASET_NAMES.get(row["dataset"], str(row["dataset"])),
            dataset_config=_text(row["config"]),
            dataset_split=_text(row.get("split")) if "split" in row else None,
        )
        cards.append(
            EvalResult(
                metric_type=metric_type,
                metric_name=label,
                metric_config=metric_config,
                metric_value=round(float(row["value"]), DIGITS),
                **shared,
            )
        )
        if pd.notna(row["p_value"]) and row["metric"] != "pearson_r":
            cards.append(
                EvalResult(
                    metric_type=metric_type,
                    metric_name=f"{label} p-value",
                    metric_config=f"{metric_config}/p_value",
                    metric_value=float(f"{float(row['p_value']):.4g}"),
                    **shared,
                )
            )
    return sorted(
        cards,
        key=lambda card: (
            card.task_type,
            card.dataset_type,
            natural_order(card.dataset_config or ""),
            card.metric_config,
        ),
    )


def result_key(result: EvalResult) -> tuple:
    """What identifies a result across runs (its value is what an update changes)."""
    return (
        result.task_type,
        result.dataset_type,
        result.dataset_config,
        result.dataset_split,
        result.metric_type,
        result.metric_config,
    )


def _read_card(path: Path) -> tuple[ModelCard, str]:
    """The card and its raw text (newlines as in the file)."""
    with path.open(encoding="utf-8", newline="") as stream:
        raw = stream.read()
    try:
        return ModelCard(raw), raw
    except ValueError as error:
        raise InputError(f"{path}: the YAML front matter is not a valid model card ({error}); fix it first") from None


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
        dataset_ids: see :func:`eval_results`.
    """
    models = sorted(results["model"].dropna().unique())
    if model is None:
        if len(models) != 1:
            raise InputError(
                f"the run has {len(models)} models ({', '.join(models)}); say which one the card is for "
                "(model=NAME, or --card-model NAME on the command line)"
            )
        model = models[0]
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
