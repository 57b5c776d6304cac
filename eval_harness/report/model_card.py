"""Write a run's results into a model card's ``model-index`` (huggingface_hub's model-card
utilities).

:func:`update_model_card` reads a model's ``README.md`` with :class:`huggingface_hub.ModelCard`,
merges one :class:`huggingface_hub.EvalResult` per reported number of one model into
``card.data.eval_results`` and writes the card back, offline:

* only the YAML front matter is rewritten; the Markdown body is kept byte for byte (a
  file without front matter gets one, in front of its unchanged content);
* a result is identified by (task, dataset name without its namespace, dataset config, split,
  metric type, metric name): writing the same run again replaces values in place and adds
  nothing, a run written under another ``dataset_namespace`` replaces the entries xbias wrote
  before (``eec`` becomes ``my-org/eec``, never both), and results already there for other
  numbers are kept. Entries of the earlier format, a p-value as a metric of type ``p_value``,
  are removed.

What each field means follows the Hub's model-index spec (docs/model_card.md has the table):
``dataset.type`` is a Hub dataset id (``ORG/eec`` with ``dataset_namespace="ORG"``),
``dataset.config`` and ``dataset.split`` are what ``load_dataset(id, config, split=split)``
takes (the SemEval regressor score of English anger is config ``en_anger``, split ``test``;
a measure that reads several configs, such as the gender-space lists or a cross-lingual XWEAT pair,
names none), ``metric.type`` is the evaluate module that computes the number, ``metric.name`` says
which number it is, ``metric.args`` the module's ``compute()`` arguments and, beside them, the
number's uncertainty (:data:`UNCERTAINTY_FIELDS`: ``std_err``, ``ci_low``/``ci_high`` of the 95 %
interval, ``p_value``, and the further p-values a method's section declares, such as the EEC's
template-clustered ``p_clustered``): a p-value is no metric of its own, since a metric type names an
evaluate module. ``dataset.revision`` is the dataset's fingerprint (the tag ``xbias datasets build
--push-to-hub`` gives the pushed commit). Which numbers are reported, and where each was measured,
each method's report section says (:class:`~.method_section.CardMetric`): the EEC Beta-regression
coefficients of the bias terms, the regressors' Pearson r (test split), XWEAT effect sizes and the
gender-space measures. :func:`push_model_card` uploads the card
when online; :mod:`.eval_results` writes the same numbers as ``.eval_results/*.yaml`` files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml
from huggingface_hub import EvalResult, ModelCard
from huggingface_hub.repocard import REGEX_YAML_BLOCK

from ..errors import ConfigError, InputError, XBiasError, unreadable_file
from ..io import folder_problem, load_yaml, read_bytes, write_problem
from .kit.document import markdown_blocks
from .kit.method_section import CardMetric, ReportSection
from .kit.tables import natural_order
from .sections import report_sections

# The metric type the earlier format gave a p-value; xbias writes none now and removes those it
# wrote.
LEGACY_P_VALUE_TYPE = "p_value"
DIGITS = 6
# The most results a card's model-index (and .eval_results) carries for one model: the headline, not
# every number.
MAX_RESULTS = 60
# The card body's section xbias writes and replaces (between its markers); the rest of the body is
# kept byte for byte.
BODY_TITLE = "Bias evaluation"
BODY_START, BODY_END = "<!-- xbias: bias evaluation -->", "<!-- /xbias: bias evaluation -->"
# A record's uncertainty fields, as metric.args (model-index) and the notes (.eval_results) name
# them.
UNCERTAINTY_FIELDS = ("std_err", "ci_low", "ci_high", "p_value")


def dataset_titles() -> dict[str, str]:
    """Every dataset a method's card numbers come from, with its title (the methods' sections name
    them)."""
    return {
        name: title
        for section in report_sections().sections
        for name, title in section.dataset_titles.items()
    }


@dataclass(frozen=True)
class ModelCardUpdate:
    """What :func:`update_model_card` did: results added, updated (value changed) and kept as they
    were."""

    path: Path
    model: str
    added: int
    updated: int
    unchanged: int
    total: int
    removed: int = 0

    def to_dict(self) -> dict:
        return {
            "path": str(self.path),
            "model": self.model,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "total": self.total,
        }

    def summary(self) -> str:
        removed = (
            f", {self.removed} earlier xbias entries replaced or dropped" if self.removed else ""
        )
        return (
            f"model card {self.path} ({self.model}): {self.added} "
            f"results added, {self.updated} updated, {self.unchanged} "
            f"unchanged{removed}; {self.total} in model-index"
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
    dataset_revision: str | None = None  # the dataset's fingerprint
    uncertainty: Mapping[str, float] = field(
        default_factory=dict
    )  # UNCERTAINTY_FIELDS and declared p-values
    notes: str = ""  # what the section adds to the .eval_results notes (ReportSection.card_notes)

    def eval_result(self) -> EvalResult:
        """The model-index result: the value and the metric's compute() arguments as its args (the
        spec has no field for an uncertainty: the card's "Bias evaluation" section and the
        .eval_results notes carry it)."""
        arguments = self.metric_args
        return EvalResult(
            task_type=self.task_type,
            task_name=self.task_name,
            dataset_type=self.dataset_id,
            dataset_name=self.dataset_name,
            dataset_config=self.dataset_config,
            dataset_split=self.dataset_split,
            dataset_revision=self.dataset_revision,
            metric_type=self.metric_type,
            metric_name=self.metric_name,
            metric_value=self.value,
            metric_args=arguments or None,
        )


def dataset_ids_in(namespace: str | None) -> dict[str, str]:
    """The Hub ids of the project's datasets pushed under ``namespace`` (``{"eec": "ORG/eec",
    ...}``); none without."""
    if namespace is None:
        return {}
    if not namespace or "/" in namespace:
        raise ConfigError(
            f"dataset namespace {namespace!r} must be a Hub user or organisation name, e.g. my-org"
        )
    return {name: f"{namespace}/{name}" for name in dataset_titles()}


def _card_rows(
    results: pd.DataFrame, model: str
) -> list[tuple[pd.Series, ReportSection, CardMetric]]:
    """The records of ``model`` that go into the card, each with its method's section and card
    metric, in the sections' order (``results`` annotated: pooled over seeds when the run has
    several)."""
    rows = results[(results["model"] == model) & results["value"].notna()]
    sections = report_sections().by_suite
    chosen = pd.concat(
        [
            section.card_rows(
                rows[(rows["suite"] == name) & rows["metric"].isin(section.card_metrics)]
            )
            for name, section in sorted(sections.items(), key=lambda item: item[1].order)
        ]
        or [rows.iloc[:0]]
    )
    return [
        (row, sections[row["suite"]], sections[row["suite"]].card_metrics[row["metric"]])
        for _, row in chosen.iterrows()
    ]


def _number(value) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _text(value) -> str | None:
    return None if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _uncertainty(row: pd.Series, section: ReportSection, card: CardMetric) -> dict[str, float]:
    """The record's uncertainty, 4 significant digits: :data:`UNCERTAINTY_FIELDS` (no p-value for a
    number that is no test, ``with_p_value`` False) and the further p-values the section declares
    (``findings_p_values``)."""
    fields = {name: name for name in UNCERTAINTY_FIELDS if card.with_p_value or name != "p_value"}
    if card.with_p_value:
        fields.update(section.findings_p_values)
    found = {label: _number(row.get(source)) for label, source in fields.items()}
    return {label: float(f"{value:.4g}") for label, value in found.items() if value is not None}


def card_results(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` as the report reads them (:func:`~.findings.annotate`: seeds pooled, flags,
    verdicts), so that the card says what the report says; ``results`` itself when already
    annotated."""
    from .findings import annotate

    return results if "survives_holm" in results.columns else annotate(results)


def reported_numbers(
    results: pd.DataFrame, model: str, dataset_ids: Mapping[str, str] | None = None
) -> list[ReportedNumber]:
    """The numbers of ``model`` that go to the Hub, at most :data:`MAX_RESULTS`, in a stable order:
    each section's card rows (the EEC's headline effects on the intensity scale first), in the
    sections' order, then cut at the bound (the rest stay in the report and results.csv).

    ``dataset_ids`` maps the run's dataset names to their Hub ids (see :func:`dataset_ids_in`);
    by default the bare local names.
    """
    results = card_results(results)
    rows = _card_rows(results, model)[:MAX_RESULTS]
    if not rows:
        raise InputError(
            f"the run has no model-card results for model {model!r} (models in the run: "
            f"{sorted(results['model'].dropna().unique())})"
        )
    titles = dataset_titles()
    mine = results[results["model"] == model]
    numbers = []
    for row, section, card in rows:
        config, split, task_id, metric_name = section.card_where(row, card.label)
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
                dataset_revision=_text(row.get("dataset_fingerprint")),
                uncertainty=_uncertainty(row, section, card),
                notes=section.card_notes(row, mine[mine["suite"] == row["suite"]]),
            )
        )
    return sorted(
        numbers,
        key=lambda n: (
            n.task_type,
            n.dataset_id,
            natural_order(n.dataset_config or ""),
            natural_order(n.task_id),
        ),
    )


def eval_results(
    results: pd.DataFrame, model: str, dataset_ids: Mapping[str, str] | None = None
) -> list[EvalResult]:
    """The card's results for ``model``: one per reported number, its uncertainty in its args."""
    return [number.eval_result() for number in reported_numbers(results, model, dataset_ids)]


def result_key(result: EvalResult) -> tuple:
    """What identifies a result across runs (its value is what an update changes): the dataset by
    its name without the namespace, so that the same number written under another
    ``dataset_namespace`` is the same result."""
    return (
        result.task_type,
        str(result.dataset_type).split("/")[-1],
        result.dataset_config,
        result.dataset_split,
        result.metric_type,
        result.metric_name,
    )


def written_by_xbias(result: EvalResult) -> bool:
    """Whether xbias wrote this result: one of its datasets (under any namespace) with one of the
    metric types its sections put on a card, or the earlier format's p-value type."""
    types = {
        card.metric_type
        for section in report_sections().sections
        for card in section.card_metrics.values()
    }
    ours = str(result.dataset_type).split("/")[-1] in dataset_titles()
    return ours and result.metric_type in types | {LEGACY_P_VALUE_TYPE}


def merged_results(
    existing: list[EvalResult], new: list[EvalResult]
) -> tuple[list[EvalResult], dict[str, int]]:
    """``existing`` with ``new`` merged in, and the counts: each new result replaces the one xbias
    wrote for the same number (:func:`result_key`), in its place, and is added otherwise; every
    other entry xbias wrote for that number (under another namespace) and every p-value entry of the
    earlier format goes; other results stay."""
    new_by_key = {result_key(result): result for result in new}
    merged, placed = [], set()
    counts = dict(added=0, updated=0, unchanged=0, removed=0)
    for result in existing:
        key = result_key(result)
        if not written_by_xbias(result) or (
            key not in new_by_key and result.metric_type != LEGACY_P_VALUE_TYPE
        ):
            merged.append(result)
        elif key in new_by_key and key not in placed:
            merged.append(new_by_key[key])
            placed.add(key)
            counts["unchanged" if result == new_by_key[key] else "updated"] += 1
        else:
            counts["removed"] += 1
    for key, result in new_by_key.items():
        if key not in placed:
            merged.append(result)
            counts["added"] += 1
    return merged, counts


# The largest model card read (a README.md is some KiB).
MAX_CARD_BYTES = 16 << 20


def _read_card(path: Path) -> tuple[ModelCard, str]:
    """The card and its raw text (newlines as in the file). Its front matter is read first by
    :func:`~eval_harness.io.load_yaml` (safe_load's refusals, plus no alias bomb and no key twice),
    so that a damaged card is one line naming the file and where, never a traceback.

    Raises:
        InputError: not a regular file of at most 16 MiB, not UTF-8, or front matter that is not
        YAML or no mapping.
    """
    try:
        raw = read_bytes(path, MAX_CARD_BYTES).decode("utf-8")
        front = REGEX_YAML_BLOCK.search(raw)
        if front is not None:
            load_yaml(front.group(2))
        return ModelCard(raw), raw
    except (OSError, ValueError, yaml.YAMLError) as error:
        why = unreadable_file(
            path, error, "model card"
        )  # "not valid YAML (line 2, column 7)"; never the content
        raise InputError(f"{why}; fix it first, or give another --model-card") from None


def card_model(results: pd.DataFrame, model: str | None) -> str:
    """The model the results are written for: ``model``, or the run's only model."""
    models = sorted(results["model"].dropna().unique())
    if model is not None:
        if model not in models:
            raise InputError(
                f"--card-model {model!r} is no model of the run; its models: {', '.join(models)}"
            )
        return model
    if len(models) != 1:
        raise InputError(
            f"the run has {len(models)} models ({', '.join(models)}); say which one "
            "the card is for (model=NAME, or --card-model NAME on the command line)"
        )
    return models[0]


def check_model_card(path: str | Path) -> Path:
    """``path``, once a model card may be written there (the write rule,
    :func:`eval_harness.io.write_problem`): a Markdown file (``README.md``), new or a plain file
    that reads as a card, never a symbolic link, a folder or another kind of file (a run's
    ``run.json`` is no model card).

    Raises:
        InputError: one line naming the path, the cause and the fix.
    """
    card_path = Path(path)
    if card_path.is_dir():
        raise InputError(
            f"the model card {card_path} is a folder: give "
            f"the card's file, e.g. {card_path / 'README.md'}"
        )
    if card_path.exists() and not card_path.is_symlink() and not card_path.is_file():
        raise InputError(
            f"cannot write the model card {card_path}: it "
            "is not a regular file (a FIFO, a device...)"
        )
    if card_path.suffix.lower() != ".md":
        raise InputError(
            f"cannot write the model card {card_path}: a model card is a Markdown file (README.md)"
        )
    folder = card_path.parent
    problem = folder_problem(folder) or write_problem(
        folder, lambda entry: entry.is_file(), [card_path.name]
    )
    if problem is not None:
        raise InputError(
            f"cannot write the model card {card_path}: {problem}; give another --model-card"
        )
    if card_path.is_file():
        _read_card(
            card_path
        )  # a card too large or damaged is refused now, before the report is written
    return card_path


def check_repo_id(repo_id: str | None) -> str | None:
    """``repo_id`` once it reads as a Hub model id (``NAME`` or ``ORG/NAME``: letters, digits,
    ``-``, ``_``, ``.``), or None.

    Raises:
        InputError: one line naming the id and the form it should have.
    """
    if repo_id is not None and not re.fullmatch(
        r"([A-Za-z0-9][\w.-]{0,95}/)?[A-Za-z0-9][\w.-]{0,95}", repo_id
    ):
        raise InputError(
            f"--repo-id {repo_id!r} is no Hub model id: give ORG/NAME (letters, digits, - _ .)"
        )
    return repo_id


def body_section(results: pd.DataFrame, model: str) -> str:
    """The card body's "Bias evaluation" section for ``model`` in Markdown, between its markers:
    what each method's section puts there (:meth:`~.method_section.ReportSection.card_body`: the
    EEC's verdict table, margin, method and what was not measured); empty when no section has
    anything."""
    blocks = [
        block
        for section in report_sections().sections
        for block in section.card_body(results, model)
    ]
    if not blocks:
        return ""
    text = markdown_blocks(blocks, "figures")
    return f"{BODY_START}\n## {BODY_TITLE}\n\nMeasured with xbias.\n\n{text}\n{BODY_END}\n"


def with_body_section(content: str, section: str) -> str:
    """The card body ``content`` with its xbias section replaced by ``section`` (added at the end
    when it has none); the rest byte for byte (the section in the body's own newlines)."""
    newline = "\r\n" if "\r\n" in content else "\n"
    section = section.replace("\n", newline)
    start, end = content.find(BODY_START), content.find(BODY_END)
    if start >= 0 and end > start:
        return content[:start] + section + content[end + len(BODY_END) :].removeprefix(newline)
    if not section:
        return content
    return (
        content + ("" if not content or content.endswith(newline) else newline) + newline + section
    )


def update_model_card(
    path: str | Path,
    results: pd.DataFrame,
    model: str | None = None,
    model_name: str | None = None,
    dataset_ids: Mapping[str, str] | None = None,
) -> ModelCardUpdate:
    """Add or update ``model``'s results in the ``model-index`` of the model card at ``path``, and
    its "Bias evaluation" section in the card's body (:func:`body_section`; the rest of the body is
    kept byte for byte).

    Args:
        path: the model's README.md (created when missing; :func:`check_model_card`).
        results: a run's records (``RunFolder.results``).
        model: which of the run's models the card describes; may be left out when the run has one.
        model_name: the ``model-index`` name, the Hub repo id (``ORG/NAME``, :func:`check_repo_id`);
            default the card's own, else ``model``.
        dataset_ids: the Hub id of each dataset (:func:`dataset_ids_in`); default the bare local
        names.
    """
    card_path = check_model_card(path)
    check_repo_id(model_name)
    model = card_model(results, model)
    results = card_results(results)
    new_results = eval_results(results, model, dataset_ids)
    if card_path.is_file():
        card, _ = _read_card(card_path)
    else:
        card = ModelCard(f"---\n{{}}\n---\n# {model_name or model}\n")
    card.text = with_body_section(card.text, body_section(results, model))
    existing, counts = merged_results(list(card.data.eval_results or []), new_results)
    card.data.eval_results = existing
    card.data.model_name = model_name or card.data.model_name or model
    card_path.parent.mkdir(parents=True, exist_ok=True)
    card.save(card_path)
    return ModelCardUpdate(card_path, model, total=len(existing), **counts)


def push_model_card(path: str | Path, repo_id: str, token: str | None = None) -> str:
    """Upload the model card at ``path`` as the README of the Hub model ``repo_id``; returns the
    commit URL."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        raise ConfigError(
            f"cannot push the model card to {repo_id}: HF_HUB_OFFLINE is set (unset it to push)"
        )
    card, _ = _read_card(Path(path))
    try:
        return str(card.push_to_hub(repo_id, token=token))
    except Exception as error:  # the Hub client raises many types (HTTP, auth, validation)
        raise XBiasError(
            f"pushing the model card to {repo_id} failed ({type(error).__name__}: {error})"
        ) from None
