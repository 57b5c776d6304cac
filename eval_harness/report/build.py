"""Assemble the report of a run folder and write it as HTML, Markdown and CSV.

The report is the run's overview, its findings after multiple-testing control, each method's section
(from the section its suite names, :mod:`.sections`, in their order) and the records no section
shows; it knows no method's records.

``write_report(run_dir)`` writes ``<run_dir>/report/``: ``report.html`` (self-contained) and
``report.md``, the page a person reads (the answer first: the verdict per model, the verdict table,
the findings' count), with the full per-EEC, per-test tables on the linked page
``tables.html``/``tables.md``, ``figures/*.png``, and ``results.csv`` (every record of the run,
pooled over seeds when there are several, with its multiple-testing family, Holm and
Benjamini-Hochberg adjusted p-values and the flags of :mod:`.findings`). The folder is written as
one set: staged beside it and swapped in whole, so it holds the old report or the new one, never a
mix; its marker (``.xbias-build.json``) says it is a report, and a folder that is not one is never
replaced (:func:`eval_harness.io.write_problem`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..io import OutputFolder, output_folder, write_output_folder
from ..stats.estimands import DEFAULT_ESTIMAND
from .findings import annotate
from .kit import tables
from .kit.document import (
    Bullets,
    Document,
    Link,
    Paragraph,
    Section,
    Table,
    csv_bytes,
    figure_file,
    render_html,
    render_markdown,
)
from .kit.families import ALPHA, DEFAULT_FAMILY, FAMILY_WORDS, check_family
from .kit.method_section import ReportSettings
from .run_folder import RunFolder, load_run
from .sections import report_options, report_settings

FORMATS = ("html", "md")
FIGURE_FOLDER = "figures"
CSV_FILE, HTML_FILE, MARKDOWN_FILE = "results.csv", "report.html", "report.md"
# The linked page of full tables (tables.html, tables.md): the main page holds the answer, this one
# every table.
TABLES_STEM = "tables"
TABLES_LINK_TEXT = (
    "Full tables: per EEC, per test, every finding (every record is also in results.csv)"
)
# What a report folder's marker says: a folder is replaced by a report only when it is an earlier
# report.
REPORT_OWNER = {"writer": "xbias report"}
REPORT_FOLDER = OutputFolder(REPORT_OWNER, "the report", "--out", "xbias report")


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote, and what the run folder lacked."""

    folder: Path
    csv: Path
    html: Path | None = None
    markdown: Path | None = None
    figures: tuple[Path, ...] = ()
    missing: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "folder": str(self.folder),
            "csv": str(self.csv),
            "html": str(self.html) if self.html else None,
            "markdown": str(self.markdown) if self.markdown else None,
            "figures": [str(path) for path in self.figures],
            "missing": list(self.missing),
        }

    def summary(self) -> str:
        written = [path for path in (self.html, self.markdown, self.csv) if path]
        lines = [f"report written: {', '.join(map(str, written))}"]
        lines += [f"warning: {item}" for item in self.missing]
        return "\n".join(lines)


def overview_section(run: RunFolder, results: pd.DataFrame) -> Section:
    blocks: list = [
        Paragraph(
            f"Run folder {run.path}: {len(results)} numbers from {len(run.unit_ids)} "
            f"finished units. Models: {', '.join(tables.distinct(results, 'model'))}. "
            f"Suites: {', '.join(tables.distinct(results, 'suite'))}. Languages: "
            f"{_languages(results)}."
        )
    ]
    if run.run_info:
        shown = {
            key: str(value)[:12] if key == "config_hash" else value
            for key, value in run.run_info.items()
            if value is not None and not isinstance(value, dict | list)
        }
        blocks.append(
            Paragraph("Run: " + "; ".join(f"{key} = {value}" for key, value in shown.items()) + ".")
        )
    if run.missing:
        blocks.append(
            Paragraph(
                "This run folder is incomplete; the report shows what is there.", warning=True
            )
        )
        blocks.append(Bullets(tuple(run.missing)))
    return Section("Overview", tuple(blocks))


def summary_section(run: RunFolder, results: pd.DataFrame, settings: ReportSettings) -> Section:
    """The answer first: what each method's section puts on top
    (:meth:`~.method_section.ReportSection.summary`: the EEC's verdict per model, its verdict table
    and figures), then what the run holds and how many findings survive, and where the full tables
    are (:data:`TABLES_STEM`, a linked page)."""
    n_tests = int(results["p_holm"].notna().sum()) if "p_holm" in results.columns else 0
    n_holm = int(results["survives_holm"].sum()) if "survives_holm" in results.columns else 0
    models = tables.distinct(results, "model")
    lead = (
        f"{len(models)} model(s) ({', '.join(models)}), {len(results)} "
        f"numbers from {len(run.unit_ids)} units; {n_holm} of {n_tests} tests "
        f"survive Holm at {settings.alpha} ({FAMILY_WORDS[settings.family]})."
    )
    blocks: list = []
    if run.missing:  # the answer's caveat goes with it; the Overview lists what is missing
        blocks.append(
            Paragraph(
                f"This run folder is incomplete ({len(run.missing)} part(s) missing or unfinished, "
                "listed under Overview): what follows covers its finished units only.",
                warning=True,
            )
        )
    for section in settings.sections.sections:
        blocks += section.summary(results, settings)
    blocks += [Paragraph(lead), Link(TABLES_LINK_TEXT, TABLES_STEM)]
    return Section("Summary", tuple(blocks))


def _languages(results: pd.DataFrame) -> str:
    """The run's languages, and its cross-lingual pairs (``en-de``) counted, not listed."""
    languages = tables.distinct(results, "language")
    single = [language for language in languages if "-" not in language]
    pairs = len(languages) - len(single)
    return ", ".join(single) + (f", and {pairs} cross-lingual pairs" if pairs else "")


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def findings_section(
    results: pd.DataFrame, settings: ReportSettings, with_tables: bool = True
) -> Section | None:
    """The run's findings after multiple-testing control, and (``with_tables``: on the tables page)
    their tables and what each method's section adds about its own."""
    alpha, family = settings.alpha, settings.family
    n_findings = int(results["p_holm"].notna().sum())
    if not n_findings:
        return None
    known = settings.sections.sections
    n_holm, n_bh = int(results["survives_holm"].sum()), int(results["survives_bh"].sum())
    sizes = results["family"].value_counts(sort=False)
    families = (
        f"one family of {n_findings} tests"
        if len(sizes) == 1
        else f"{len(sizes)} families: "
        + ", ".join(f"{name} ({size})" for name, size in sizes.items())
    )
    excluded = [words for section in known for words in section.findings_exclusions]
    counting = [words for section in known for words in section.findings_counting]
    scope = "every p-value" + (f" except {_listed(excluded)}" if excluded else "")
    scope += "".join(f"; {words}" for words in counting)
    blocks: list = [
        Paragraph(
            f"The run reports {n_findings} hypothesis tests ({scope}). Multiple-testing "
            f"family: {FAMILY_WORDS[family]} ({families}). Adjusted within each family "
            f"at level {alpha}, Holm (family-wise error rate) keeps {n_holm} of them "
            f"and Benjamini-Hochberg (false discovery rate) keeps {n_bh}. results.csv "
            "lists every test with both adjusted p-values and its family."
        )
    ]
    if not with_tables:
        return Section("Findings after multiple-testing control", tuple(blocks))
    if n_holm:
        blocks.append(
            Table(
                tables.findings_table(results, settings.sections, "holm"),
                f"Findings that survive Holm at {alpha}",
                collapsed=True,
            )
        )
    if n_bh > n_holm:
        blocks.append(
            Table(
                tables.findings_table(results, settings.sections, "bh_only"),
                f"Findings that survive Benjamini-Hochberg but not Holm at {alpha}",
                collapsed=True,
            )
        )
    for section in known:
        blocks += section.findings_notes(results, settings)
    blocks.append(Paragraph(tables.significance_legend(settings.sections, alpha, family)))
    return Section("Findings after multiple-testing control", tuple(blocks))


def other_section(results: pd.DataFrame, settings: ReportSettings) -> Section | None:
    table = tables.other_results_table(results, settings.sections)
    if table.empty:
        return None
    return Section("Other results", (Table(table, "Records no section above shows"),))


def build_document(
    run: RunFolder,
    results: pd.DataFrame,
    alpha: float = ALPHA,
    family: str = DEFAULT_FAMILY,
    options: Mapping[str, float] | None = None,
) -> Document:
    """The report of ``run`` as a :class:`Document`, the page a person reads: the answer (the
    summary, verdict first), what the run holds and the findings' count; sections without results
    are left out. The full tables are on the linked page (:func:`build_tables_document`).

    ``results`` is ``annotate(run.results, alpha, family, options=options)`` (see :mod:`.findings`).
    """
    results = tables.label_seeds(results)
    settings = report_settings(alpha, family, options)
    sections = [summary_section(run, results, settings), overview_section(run, results)]
    sections.append(findings_section(results, settings, with_tables=False))
    return Document(
        f"xbias report: {run.path.name}", tuple(section for section in sections if section)
    )


def build_tables_document(
    run: RunFolder,
    results: pd.DataFrame,
    alpha: float = ALPHA,
    family: str = DEFAULT_FAMILY,
    options: Mapping[str, float] | None = None,
) -> Document:
    """The report's linked page of full tables: the findings that survive, each method's section
    (per EEC, per test) and the records no section shows. ``results`` as for
    :func:`build_document`."""
    results = tables.label_seeds(results)
    settings = report_settings(alpha, family, options)
    sections = [findings_section(results, settings)]
    for section in settings.sections.sections:
        sections += section.sections(results, settings)
    sections.append(other_section(results, settings))
    return Document(
        f"xbias report: {run.path.name}: full tables",
        tuple(section for section in sections if section),
    )


def write_report(
    run_dir: str | Path | RunFolder,
    formats: tuple[str, ...] = FORMATS,
    out_dir: str | Path | None = None,
    alpha: float = ALPHA,
    family: str = DEFAULT_FAMILY,
    seed_estimand: str = DEFAULT_ESTIMAND,
    options: Mapping[str, float] | None = None,
) -> ReportFiles:
    """Write the report of the run folder ``run_dir`` (a path, or one :func:`load_run` has read)
    into ``out_dir`` (default ``<run_dir>/report``), whole: the files are written into a staging
    folder beside it and put in its place in one step (:func:`~eval_harness.io.replace_folder`), so
    the folder holds the old report or the new one, never a mix, whatever stops the writing (a
    signal, a full disk). What is checked first, before any work: the formats, the family, and that
    ``out_dir`` can be written and holds nothing but a report (it is replaced whole).

    ``family``: over which tests the p-values are adjusted together (:data:`~.families.FAMILIES`:
    ``"model"``, ``"model-suite"`` or ``"run"``). ``seed_estimand``: what a number pooled over seeds
    estimates (:mod:`eval_harness.contract.seeds`): ``"seed_mean"``, or ``"one_head"`` (Rubin's
    rules). ``options``: the methods' sections' report options, name -> value (the EEC's
    ``{"min_regressor_r": 0.4}``).

    Raises:
        InputError: an unknown format, family or report option, a run folder without results, an
            ``out_dir`` that is a file, not writable or holds other files, or a write that failed (a
            full disk): one line each.
    """
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise InputError(
            f"unknown report formats {unknown or list(formats)}; choose from {list(FORMATS)}"
        )
    check_family(family)
    report_options(options)
    folder = report_folder(run_dir.path if isinstance(run_dir, RunFolder) else run_dir, out_dir)
    run = run_dir if isinstance(run_dir, RunFolder) else load_run(run_dir)
    results = annotate(run.results, alpha, family, seed_estimand, options)
    document = build_document(run, results, alpha, family, options)
    contents = report_contents(
        document, results, formats, build_tables_document(run, results, alpha, family, options)
    )
    write_output_folder(folder, contents, REPORT_FOLDER)
    paths = {name: folder / name for name in contents}
    return ReportFiles(
        folder,
        paths[CSV_FILE],
        paths.get(HTML_FILE),
        paths.get(MARKDOWN_FILE),
        tuple(path for name, path in paths.items() if name.startswith(f"{FIGURE_FOLDER}/")),
        run.missing,
    )


def report_contents(
    document: Document,
    results: pd.DataFrame,
    formats: tuple[str, ...],
    full_tables: Document | None = None,
) -> dict[str, bytes]:
    """The report's files, path in the report folder -> bytes: ``results.csv``, then ``report.html``
    and ``report.md`` with its ``figures/*.png`` as ``formats`` ask, and the same of ``full_tables``
    (the linked page, ``tables.html``/``tables.md``)."""
    contents = {CSV_FILE: csv_bytes(results)}
    pages = [(document, HTML_FILE, MARKDOWN_FILE)]
    if full_tables is not None:
        pages.append((full_tables, f"{TABLES_STEM}.html", f"{TABLES_STEM}.md"))
    for page, html_file, markdown_file in pages:
        if "html" in formats:
            contents[html_file] = render_html(page).encode("utf-8")
        if "md" in formats:
            for image in page.images():
                contents[f"{FIGURE_FOLDER}/{figure_file(image.name)}"] = image.png
            contents[markdown_file] = render_markdown(page, FIGURE_FOLDER).encode("utf-8")
    return contents


def report_folder(run_dir: str | Path, out_dir: str | Path | None = None) -> Path:
    """The report folder of the run folder ``run_dir`` (``out_dir``, default ``<run_dir>/report``),
    as an absolute path, once it is known to be one a report may be written into: refused, before
    any work, when it cannot be written or replaced whole, or is not new, empty or an earlier report
    holding only its own files (the write rule, :func:`~eval_harness.io.write_problem`: replacing it
    would lose what else is there).

    Raises:
        InputError: one line naming the folder, the cause and the fix.
    """
    return output_folder(out_dir if out_dir else Path(run_dir) / "report", REPORT_FOLDER)
