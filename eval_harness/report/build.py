"""Assemble the report of a run folder and write it as HTML, Markdown and CSV.

The report is the run's overview, its findings after multiple-testing control, each method's section (from the
section its suite names, :mod:`.sections`, in their order) and the records no section shows; it knows no
method's records.

``write_report(run_dir)`` writes ``<run_dir>/report/``: ``report.html`` (self-contained),
``report.md`` with ``figures/*.png``, and ``results.csv`` (every record of the run, pooled over
seeds when there are several, with its multiple-testing family, Holm and Benjamini-Hochberg
adjusted p-values and the flags of :mod:`.findings`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError
from . import tables
from .document import Bullets, Document, Paragraph, Section, Table, render_html, render_markdown
from .findings import ALPHA, DEFAULT_FAMILY, FAMILY_WORDS, MIN_REGRESSOR_R, annotate, check_family
from .run_folder import RunFolder, load_run
from .sections import ReportSettings, report_sections

FORMATS = ("html", "md")
FIGURE_FOLDER = "figures"


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
            f"Run folder {run.path}: {len(results)} numbers from {len(run.unit_ids)} finished units. "
            f"Models: {', '.join(tables.distinct(results, 'model'))}. "
            f"Suites: {', '.join(tables.distinct(results, 'suite'))}. "
            f"Languages: {', '.join(tables.distinct(results, 'language'))}."
        )
    ]
    if run.run_info:
        shown = {
            key: str(value)[:12] if key == "config_hash" else value
            for key, value in run.run_info.items()
            if value is not None and not isinstance(value, dict | list)
        }
        blocks.append(Paragraph("Run: " + "; ".join(f"{key} = {value}" for key, value in shown.items()) + "."))
    if run.missing:
        blocks.append(Paragraph("This run folder is incomplete; the report shows what is there.", warning=True))
        blocks.append(Bullets(tuple(run.missing)))
    return Section("Overview", tuple(blocks))


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def findings_section(results: pd.DataFrame, settings: ReportSettings) -> Section | None:
    """The run's findings after multiple-testing control, and what each method's section adds about its own."""
    alpha, family = settings.alpha, settings.family
    n_findings = int(results["p_holm"].notna().sum())
    if not n_findings:
        return None
    known = report_sections().sections
    n_holm, n_bh = int(results["survives_holm"].sum()), int(results["survives_bh"].sum())
    sizes = results["family"].value_counts(sort=False)
    families = (
        f"one family of {n_findings} tests"
        if len(sizes) == 1
        else f"{len(sizes)} families: " + ", ".join(f"{name} ({size})" for name, size in sizes.items())
    )
    excluded = [words for section in known for words in section.findings_exclusions]
    counting = [words for section in known for words in section.findings_counting]
    scope = "every p-value" + (f" except {_listed(excluded)}" if excluded else "")
    scope += "".join(f"; {words}" for words in counting)
    blocks: list = [
        Paragraph(
            f"The run reports {n_findings} hypothesis tests ({scope}). Multiple-testing family: "
            f"{FAMILY_WORDS[family]} ({families}). Adjusted within each family at level {alpha}, Holm (family-wise "
            f"error rate) keeps {n_holm} of them and Benjamini-Hochberg (false discovery rate) keeps {n_bh}. "
            "results.csv lists every test with both adjusted p-values and its family."
        )
    ]
    if n_holm:
        blocks.append(Table(tables.findings_table(results, "holm"), f"Findings that survive Holm at {alpha}"))
    if n_bh > n_holm:
        blocks.append(
            Table(
                tables.findings_table(results, "bh_only"),
                f"Findings that survive Benjamini-Hochberg but not Holm at {alpha}",
                collapsed=True,
            )
        )
    for section in known:
        blocks += section.findings_notes(results, settings)
    blocks.append(Paragraph(tables.significance_legend(alpha, family)))
    return Section("Findings after multiple-testing control", tuple(blocks))


def other_section(results: pd.DataFrame) -> Section | None:
    table = tables.other_results_table(results)
    if table.empty:
        return None
    return Section("Other results", (Table(table, "Records no section above shows"),))


def build_document(
    run: RunFolder,
    results: pd.DataFrame,
    alpha: float = ALPHA,
    min_regressor_r: float = MIN_REGRESSOR_R,
    family: str = DEFAULT_FAMILY,
) -> Document:
    """The report of ``run`` as a :class:`Document`; sections without results are left out.

    ``results`` is ``annotate(run.results, alpha, min_regressor_r, family)`` (see :mod:`findings`).
    """
    results = tables.label_seeds(results)
    settings = ReportSettings(alpha, min_regressor_r, family)
    sections = [overview_section(run, results), findings_section(results, settings)]
    for section in report_sections().sections:
        sections += section.sections(results, settings)
    sections.append(other_section(results))
    return Document(f"xbias report: {run.path.name}", tuple(section for section in sections if section))


def write_report(
    run_dir: str | Path,
    formats: tuple[str, ...] = FORMATS,
    out_dir: str | Path | None = None,
    alpha: float = ALPHA,
    min_regressor_r: float = MIN_REGRESSOR_R,
    family: str = DEFAULT_FAMILY,
) -> ReportFiles:
    """Write the report of the run folder ``run_dir`` into ``out_dir`` (default ``<run_dir>/report``).

    ``family``: over which tests the p-values are adjusted together (:data:`~.findings.FAMILIES`:
    ``"model"``, ``"model-suite"`` or ``"run"``).
    """
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise InputError(f"unknown report formats {unknown or list(formats)}; choose from {list(FORMATS)}")
    check_family(family)
    run = load_run(run_dir)
    folder = Path(out_dir) if out_dir else run.path / "report"
    folder.mkdir(parents=True, exist_ok=True)
    results = annotate(run.results, alpha, min_regressor_r, family)
    document = build_document(run, results, alpha, min_regressor_r, family)

    csv = folder / "results.csv"
    results.to_csv(csv, index=False)
    html_path = markdown_path = None
    figures: list[Path] = []
    if "html" in formats:
        html_path = folder / "report.html"
        html_path.write_text(render_html(document), encoding="utf-8")
    if "md" in formats:
        (folder / FIGURE_FOLDER).mkdir(exist_ok=True)
        for image in document.images():
            path = folder / FIGURE_FOLDER / f"{image.name}.png"
            path.write_bytes(image.png)
            figures.append(path)
        markdown_path = folder / "report.md"
        markdown_path.write_text(render_markdown(document, FIGURE_FOLDER), encoding="utf-8")
    return ReportFiles(folder, csv, html_path, markdown_path, tuple(figures), run.missing)
