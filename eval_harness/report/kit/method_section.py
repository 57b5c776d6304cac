"""A method's section of the report, as the method writes it: a building block
(docs/architecture.md), which knows no method and nothing of the report's assembly.

Each method owns its section, in its own folder (``suites/<method>/report.py``): a
:class:`ReportSection` that reads the records its suite's
:class:`~eval_harness.contract.records.RecordSchema` declares and gives the report what only the
method knows: its top-level sections (headline tables, sentences, plots), the columns it adds to the
annotated results and how the report marks them (:class:`Flag`), which of its p-values are not
findings, what the findings section should add about them, which records it shows, the numbers it
puts on a model card (:class:`CardMetric`) and the report options it reads
(:attr:`ReportSection.options`).

Which sections there are is the assembly's business
(:func:`eval_harness.report.sections.report_sections`, from the registries). What every known
section declares is read by the building blocks too (a flag's mark appears in every table, whichever
method's table it is): the assembly hands it over as an argument, :class:`KnownSections` in
:attr:`ReportSettings.sections`, which a section passes on to the kit's tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from .document import Block, Section

# The model card's split of a dataset with a single split (datasets' name for it).
SINGLE_SPLIT = "train"
# The findings tables' column of how stable a finding is (every method's numbers in the one column).
STABILITY_COLUMN = "stability (sign/verdict kept)"


@dataclass(frozen=True)
class ReportSettings:
    """What the reader chose, and what the report knows.

    The significance level, the multiple-testing family (:data:`~.families.FAMILIES`), the methods'
    report options (name -> a number, a section's threshold; a section reads the ones it declares
    with :meth:`ReportSection.option`, the EEC's ``min_regressor_r``), those not given at their
    sections' defaults, and every section the report knows (:class:`KnownSections`, whose flags mark
    the tables; none by default)."""

    alpha: float
    family: str
    options: Mapping[str, float] = field(default_factory=dict)
    sections: KnownSections = field(default_factory=lambda: KnownSections())


@dataclass(frozen=True)
class Flag:
    """A boolean column a section adds to the annotated results: True marks a finding to read with
    care.

    Attributes:
        column: the column (and results.csv's).
        note: what the findings table's ``flag`` column says of a flagged row.
        mark: appended to a flagged row's value wherever it is shown (``"§"``); empty for none.
        legend: the significance legend's sentence for the mark, a format string with ``{mark}`` and
            ``{alpha}``; empty for none.
    """

    column: str
    note: str
    mark: str = ""
    legend: str = ""


@dataclass(frozen=True)
class CardMetric:
    """How a metric of the section's records goes on a model card (the Hub's model-index and
    .eval_results): its task's type and name, the evaluate module that computes it
    (``metric_type``), how the card names the number (``label``) and whether its p-value goes with
    it."""

    task_type: str
    task_name: str
    metric_type: str
    label: str
    with_p_value: bool = True


@dataclass(frozen=True)
class BenchmarkTask:
    """One task of a benchmark dataset (one leaderboard of the Hub): the id a result's ``task_id``
    names, and the dataset config and split it is measured on (``config`` None: a measure over
    several configs)."""

    id: str
    config: str | None
    split: str = SINGLE_SPLIT


@dataclass(frozen=True)
class Benchmark:
    """What a dataset's ``eval.yaml`` says of it as a Hub benchmark: its display name, what its
    tasks measure (and which way is better) and the tasks, whose ids the model cards'
    ``.eval_results`` name."""

    dataset: str
    name: str
    description: str
    tasks: tuple[BenchmarkTask, ...]
    # The whole eval.yaml when the benchmark runs on another framework whose tasks say more than an
    # id, a config and a split (the EEC's: an inspect-ai benchmark); None: xbias's own, made from
    # the fields above.
    eval_yaml_data: Mapping | None = None


class ReportSection:
    """A method's section of the report (module docstring). Subclasses set the attributes and
    override the methods that apply; the defaults add nothing.

    Attributes:
        suite: the suite whose records it shows: the name it is registered under (set when it is
        found).
        order: where its sections stand among the methods' (smaller first; the built-in ones 10, 20,
        30).
        flags: the columns :meth:`annotate` adds, in the order the marks are shown.
        shown_metrics: the metrics of the suite's records some part of the section shows (or
            knowingly leaves to results.csv); None: all of them. The others go to "Other results".
        findings_exclusions: the findings paragraph's words for the p-values :meth:`not_a_finding`
        excludes.
        findings_counting: the findings paragraph's words for how its tests are counted.
        findings_p_values: further p-value columns of the findings tables: column -> the record
        field.
        card_metrics: metric -> how it goes on a model card; metrics not named stay off the card.
        dataset_titles: dataset name -> its title, for the datasets its card numbers come from.
        options: the report options the section reads (:attr:`ReportSettings.options`), name ->
            default; two sections that declare one name read the reader's one value.

    Its card numbers on a dataset the section declares a :class:`Benchmark` for (:meth:`benchmarks`)
    carry that benchmark's task ids (:meth:`card_where`), so that they link to its leaderboards.
    """

    suite: str = ""
    order: int = 100
    flags: tuple[Flag, ...] = ()
    shown_metrics: tuple[str, ...] | None = None
    findings_exclusions: tuple[str, ...] = ()
    findings_counting: tuple[str, ...] = ()
    findings_p_values: Mapping[str, str] = {}
    card_metrics: Mapping[str, CardMetric] = {}
    dataset_titles: Mapping[str, str] = {}
    options: Mapping[str, float] = {}

    def option(self, settings: ReportSettings, name: str) -> float:
        """The value of the report option ``name`` (one of :attr:`options`): the reader's, else the
        default."""
        return settings.options.get(name, self.options[name])

    def rows(self, results: pd.DataFrame) -> pd.DataFrame:
        """The records of the section's suite."""
        return results[results["suite"] == self.suite]

    def not_a_finding(self, rows: pd.DataFrame) -> pd.Series:
        """True for the suite's records with a p-value that is no hypothesis test of its own (a
        quality check, an intercept, a statistic whose test another record carries). ``rows``: the
        suite's records."""
        return pd.Series(False, index=rows.index)

    def annotate(self, results: pd.DataFrame, settings: ReportSettings) -> pd.DataFrame:
        """``results`` (seeds pooled, p-values adjusted: a finding is a row with a ``family``) with
        the section's :attr:`flags` columns added."""
        return results

    def findings_notes(self, results: pd.DataFrame, settings: ReportSettings) -> list[Block]:
        """What the findings section adds about the section's findings (warnings, a table of flagged
        ones)."""
        return []

    def sections(self, results: pd.DataFrame, settings: ReportSettings) -> list[Section]:
        """The section's top-level sections of the report, empty when the run has nothing for
        them."""
        return []

    def findings_columns(self, rows: pd.DataFrame) -> Mapping[str, pd.Series]:
        """Further columns of the findings tables (a finding's stability): column -> display strings
        indexed like ``rows`` (the section's findings among a table's rows); empty for none."""
        return {}

    def shows(self, results: pd.DataFrame) -> pd.Series:
        """True for the records the section shows (see :attr:`shown_metrics`)."""
        mine = results["suite"] == self.suite
        return (
            mine
            if self.shown_metrics is None
            else mine & results["metric"].isin(self.shown_metrics)
        )

    def card_rows(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Of the suite's records of :attr:`card_metrics`, those that go on a card."""
        return rows

    def card_where(self, row: pd.Series, label: str) -> tuple[str | None, str | None, str, str]:
        """``(dataset config, split, task id, metric name)`` of a card number, as ``load_dataset``
        and a reader see them. Default: a measure over several configs of its dataset, named by the
        record's config."""
        config = row.get("config")
        return None, SINGLE_SPLIT, f"{config}/{row['metric']}", f"{label} ({config})"

    def card_arguments(self, row: pd.Series) -> dict | None:
        """The metric's ``compute()`` arguments behind a card number, where the record carries
        them."""
        return None

    def card_notes(self, row: pd.Series, rows: pd.DataFrame) -> str:
        """Further words for a card number's notes (the ``.eval_results`` entry), from the suite's
        records of the same model (``rows``): what the number alone cannot say, such as an
        equivalence verdict; none by default."""
        return ""

    def card_body(self, results: pd.DataFrame, model: str) -> list[Block]:
        """The section's blocks of a model card's "Bias evaluation" body section for ``model``
        (``results`` annotated as the report's: :func:`~eval_harness.report.findings.annotate`);
        none by default."""
        return []

    def summary(self, results: pd.DataFrame, settings: ReportSettings) -> list[Block]:
        """The section's blocks of the report's one-screen summary, on top (a figure, a few
        sentences, a small
        table: what fits 1400 px across); none by default."""
        return []

    def benchmarks(self) -> tuple[Benchmark, ...]:
        """The benchmarks (a dataset's ``eval.yaml``) whose tasks are the section's card numbers;
        none by default."""
        return ()


@dataclass(frozen=True)
class KnownSections:
    """Every section the report knows, in :attr:`ReportSection.order`, and by the suite whose
    records it shows."""

    sections: tuple[ReportSection, ...] = ()
    by_suite: Mapping[str, ReportSection] = field(default_factory=dict)

    def flags(self) -> list[Flag]:
        return [flag for section in self.sections for flag in section.flags]
