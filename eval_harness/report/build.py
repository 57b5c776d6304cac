"""Assemble the report of a run folder and write it as HTML, Markdown and CSV.

``write_report(run_dir)`` writes ``<run_dir>/report/``: ``report.html`` (self-contained),
``report.md`` with ``figures/*.png``, and ``results.csv`` (every record of the run with
its Holm and Benjamini-Hochberg adjusted p-values and the poor-regressor flag).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError
from . import plots, tables
from .association import association_section
from .document import Bullets, Document, Image, Paragraph, Section, Table, render_html, render_markdown
from .findings import ALPHA, MIN_REGRESSOR_R, annotate
from .run_folder import RunFolder, load_run

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


def _values(frame: pd.DataFrame, column: str) -> list[str]:
    return [str(value) for value in dict.fromkeys(frame[column].dropna())]


def overview_section(run: RunFolder, results: pd.DataFrame) -> Section:
    blocks: list = [
        Paragraph(
            f"Run folder {run.path}: {len(results)} numbers from {len(run.unit_ids)} finished units. "
            f"Models: {', '.join(_values(results, 'model'))}. Suites: {', '.join(_values(results, 'suite'))}. "
            f"Languages: {', '.join(_values(results, 'language'))}."
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


def findings_section(results: pd.DataFrame, alpha: float) -> Section | None:
    n_findings = int(results["p_holm"].notna().sum())
    if not n_findings:
        return None
    n_holm, n_bh = int(results["survives_holm"].sum()), int(results["survives_bh"].sum())
    blocks: list = [
        Paragraph(
            f"The run reports {n_findings} hypothesis tests (every p-value except the regressors' Pearson r, the "
            "Beta-regression intercepts and the WEAT statistic, which repeats its effect size's test). Adjusted "
            f"together over the whole run at level {alpha}, Holm (family-wise error rate) keeps {n_holm} of them "
            f"and Benjamini-Hochberg (false discovery rate) keeps {n_bh}. "
            "results.csv lists every test with both adjusted p-values."
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
    blocks.append(Paragraph(tables.SIGNIFICANCE_LEGEND))
    return Section("Findings after multiple-testing control", tuple(blocks))


def eec_section(results: pd.DataFrame) -> Section | None:
    coefficient_tables = tables.eec_coefficient_tables(results)
    if not coefficient_tables:
        return None
    sentences = tables.marginal_effect_sentences(results)
    cell_means = tables.eec_cell_mean_tables(results)
    subsections = []
    for config, table in coefficient_tables.items():
        blocks: list = [Table(table, f"{config}: Beta-regression coefficients (logit scale)")]
        png = plots.forest_plot(results, config)
        if png:
            blocks.append(
                Image(
                    f"forest_{config}",
                    png,
                    f"{config}: coefficients with 95 % intervals, one panel per emotion, models side by side "
                    "(filled: survives Holm; faded: regressor with poor Pearson r)",
                )
            )
        means = cell_means.get(config)
        if means is not None:
            blocks.append(Table(means, f"{config}: mean intensity per cell, observed (predicted)", collapsed=True))
        if sentences.get(config):
            blocks.append(Paragraph("In plain words (average change in predicted intensity, p ≤ 0.10):"))
            blocks.append(Bullets(tuple(sentences[config])))
        else:
            blocks.append(Paragraph("No bias coefficient of this EEC reaches p ≤ 0.10."))
        subsections.append(Section(config, tuple(blocks)))
    intro = Paragraph(
        "For each EEC and emotion, the Beta regression logit(mean intensity) = intercept + group + gender + "
        "group × gender over the regressor's predictions. Negative coefficients mean lower predicted intensity "
        "for the minority group, for women, or for their intersection beyond the two. " + tables.SIGNIFICANCE_LEGEND
    )
    return Section("Equity Evaluation Corpora (EEC)", (intro,), tuple(subsections))


def regressor_section(results: pd.DataFrame, min_regressor_r: float) -> Section | None:
    table = tables.regressor_quality_table(results)
    if table.empty:
        return None
    poor = results[results["metric"] == "pearson_r"]
    poor = poor[poor["value"] < min_regressor_r]
    blocks: list = [Table(table, "Pearson r of the emotion-intensity regressors on the test split")]
    if not poor.empty:
        names = sorted({f"{row.model} ({row.language}, {row.emotion})" for row in poor.itertuples()})
        blocks.append(
            Paragraph(
                f"Pearson r below {min_regressor_r} for: {', '.join(names)}. Bias results measured through these "
                f"regressors are marked {tables.POOR_MARK}: they say more about the regressor than about the model.",
                warning=True,
            )
        )
    return Section("Regressor quality", tuple(blocks))


def xweat_section(results: pd.DataFrame) -> Section | None:
    monolingual = tables.xweat_monolingual(results)
    coverage_rows = results[(results["suite"] == tables.XWEAT_SUITE) & (results["metric"] == "coverage")]
    if monolingual.empty and coverage_rows.empty:
        return None
    blocks: list = []
    png = plots.xweat_heatmap(results)
    if png:
        blocks.append(Image("xweat_heatmap", png, "XWEAT effect sizes per test and language, one panel per model"))
    subsections = []
    for model in _values(pd.concat([monolingual, coverage_rows]), "model"):
        model_blocks = []
        effects = tables.xweat_effect_table(results, model)
        if not effects.empty:
            model_blocks.append(Table(effects, f"{model}: effect sizes (test x language)"))
        coverage = tables.xweat_coverage_table(results, model)
        if not coverage.empty:
            model_blocks.append(Table(coverage, f"{model}: share of each test's words in the vocabulary"))
        subsections.append(Section(f"XWEAT: {model}", tuple(model_blocks)))
    matrices = tables.xweat_cross_lingual_matrices(results)
    if matrices:
        intro = Paragraph(
            "Each table: the test's target words in the row's language against its attribute words in the "
            "column's language, in the model's shared space; the diagonal is the monolingual test."
        )
        subsections.append(
            Section(
                "XWEAT cross-lingual",
                (intro,) + tuple(Table(matrix, f"{model}, {test}") for (model, test), matrix in matrices.items()),
            )
        )
    skipped = tables.xweat_skipped(results)
    if skipped:
        blocks.append(
            Paragraph(
                "Tests skipped by the coverage rule (a word set with less than the required share "
                "of its words in the model's vocabulary):",
                warning=True,
            )
        )
        blocks.append(Bullets(tuple(skipped)))
    blocks.append(Paragraph(tables.SIGNIFICANCE_LEGEND))
    return Section("XWEAT", tuple(blocks), tuple(subsections))


def gender_space_section(results: pd.DataFrame) -> Section | None:
    measures = tables.gender_space_table(results)
    variance = tables.explained_variance_table(results)
    if measures.empty and variance.empty:
        return None
    blocks: list = []
    png = plots.explained_variance_plot(results)
    if png:
        blocks.append(
            Image(
                "gender_space_explained_variance",
                png,
                "Explained variance per principal component: definitional pairs vs random pairs",
            )
        )
    if not variance.empty:
        blocks.append(Table(variance, "Explained variance ratio per component"))
    if not measures.empty:
        blocks.append(Table(measures, "Gender-space measures"))
    return Section("Gender space", tuple(blocks))


def other_section(results: pd.DataFrame) -> Section | None:
    table = tables.other_results_table(results)
    if table.empty:
        return None
    return Section("Other results", (Table(table, "Records no section above shows"),))


def build_document(
    run: RunFolder, results: pd.DataFrame, alpha: float = ALPHA, min_regressor_r: float = MIN_REGRESSOR_R
) -> Document:
    """The report of ``run`` as a :class:`Document`; sections without results are left out.

    ``results`` is ``annotate(run.results, alpha, min_regressor_r)`` (see :mod:`findings`).
    """
    results = tables.label_seeds(results)
    sections = [
        overview_section(run, results),
        findings_section(results, alpha),
        eec_section(results),
        regressor_section(results, min_regressor_r),
        xweat_section(results),
        association_section(results),
        gender_space_section(results),
        other_section(results),
    ]
    return Document(f"xbias report: {run.path.name}", tuple(section for section in sections if section))


def write_report(
    run_dir: str | Path,
    formats: tuple[str, ...] = FORMATS,
    out_dir: str | Path | None = None,
    alpha: float = ALPHA,
    min_regressor_r: float = MIN_REGRESSOR_R,
) -> ReportFiles:
    """Write the report of the run folder ``run_dir`` into ``out_dir`` (default ``<run_dir>/report``)."""
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise InputError(f"unknown report formats {unknown or list(formats)}; choose from {list(FORMATS)}")
    run = load_run(run_dir)
    folder = Path(out_dir) if out_dir else run.path / "report"
    folder.mkdir(parents=True, exist_ok=True)
    results = annotate(run.results, alpha, min_regressor_r)
    document = build_document(run, results, alpha, min_regressor_r)

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
