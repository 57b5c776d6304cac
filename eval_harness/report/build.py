"""Assemble the report of a run folder and write it as HTML, Markdown and CSV.

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
from . import findings, plots, tables
from .association import association_section
from .document import Bullets, Document, Image, Paragraph, Section, Table, render_html, render_markdown
from .findings import ALPHA, DEFAULT_FAMILY, FAMILY_WORDS, MIN_REGRESSOR_R, annotate, check_family
from .run_folder import RunFolder, load_run
from .sentences import MAX_P, effect_sentences

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


def findings_section(results: pd.DataFrame, alpha: float, family: str = DEFAULT_FAMILY) -> Section | None:
    n_findings = int(results["p_holm"].notna().sum())
    if not n_findings:
        return None
    n_holm, n_bh = int(results["survives_holm"].sum()), int(results["survives_bh"].sum())
    sizes = results["family"].value_counts(sort=False)
    families = (
        f"one family of {n_findings} tests"
        if len(sizes) == 1
        else f"{len(sizes)} families: " + ", ".join(f"{name} ({size})" for name, size in sizes.items())
    )
    blocks: list = [
        Paragraph(
            f"The run reports {n_findings} hypothesis tests (every p-value except the regressors' Pearson r, the "
            "Beta-regression intercepts and the WEAT statistic, which repeats its effect size's test; an EEC fit "
            "counts its three coefficients and its seven effects on the intensity scale). Multiple-testing family: "
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
    fragile = tables.findings_table(results, "clustering")
    if not fragile.empty:
        blocks.append(
            Paragraph(
                f"{len(fragile)} finding(s) with p ≤ {alpha} under the model-based standard errors lose significance "
                f"once the standard errors are clustered by template ({tables.CLUSTER_MARK}): the EEC's sentences "
                "share templates, and these differences are carried by some templates more than others.",
                warning=True,
            )
        )
        blocks.append(Table(fragile, f"Findings that lose significance under template clustering ({alpha})"))
    weat = tables.xweat_fragile(results)
    if weat:
        blocks.append(
            Paragraph(
                f"{len(weat)} WEAT test(s) have a permutation p ≤ {alpha} but a bootstrap interval of d that contains "
                f"0 ({tables.BOOTSTRAP_MARK}): the association is there, its size rests on a few words (see XWEAT).",
                warning=True,
            )
        )
    blocks.append(Paragraph(tables.significance_legend(alpha, family)))
    return Section("Findings after multiple-testing control", tuple(blocks))


def eec_section(results: pd.DataFrame, alpha: float = ALPHA, family: str = DEFAULT_FAMILY) -> Section | None:
    coefficient_tables = tables.eec_coefficient_tables(results)
    if not coefficient_tables:
        return None
    sentences = effect_sentences(results)
    effects = tables.eec_effect_tables(results)
    cell_means = tables.eec_cell_mean_tables(results)
    subsections = []
    for config, table in coefficient_tables.items():
        blocks: list = [Table(table, f"{config}: Beta-regression coefficients (logit scale)")]
        contrasts = tables.coefficient_contrasts(results, config)
        if contrasts:
            blocks.append(Paragraph("What each coefficient compares (each conditions on the reference levels):"))
            blocks.append(Bullets(tuple(contrasts)))
        png = plots.forest_plot(results, config, family)
        if png:
            blocks.append(
                Image(
                    f"forest_{config}",
                    png,
                    f"{config}: coefficients with 95 % intervals, one panel per emotion, models side by side "
                    "(filled: survives Holm; half-filled: Benjamini-Hochberg only; hollow: neither; faded: "
                    f"regressor with poor Pearson r; {tables.CLUSTER_MARK}: not significant clustered by template)",
                )
            )
        if config in effects:
            blocks.append(
                Table(
                    effects[config],
                    f"{config}: effects on the predicted intensity (each with its own delta-method test)",
                    collapsed=True,
                )
            )
        means = cell_means.get(config)
        if means is not None:
            blocks.append(Table(means, f"{config}: mean intensity per cell, observed (predicted)", collapsed=True))
        if sentences.get(config):
            blocks.append(
                Paragraph(
                    f"In plain words (differences of predicted intensity with p ≤ {MAX_P:.2f}, each with its own test):"
                )
            )
            blocks.append(Bullets(tuple(sentence.text for sentence in sentences[config])))
        else:
            blocks.append(Paragraph(f"No effect of this EEC reaches p ≤ {MAX_P:.2f}."))
        subsections.append(Section(config, tuple(blocks)))
    intro = [
        Paragraph(
            "For each EEC and emotion, the Beta regression logit(mean intensity) = intercept + group + gender + "
            "group × gender over the regressor's predictions. A coefficient conditions on the reference levels: "
            "group is the minority-reference difference among men, gender the women-men difference within the "
            "reference group, group × gender the difference of those differences (all on the logit scale). The "
            "sentences and the effects tables read the fit on the predicted-intensity scale: the group difference "
            "among men and among women, the gender difference within each group, their averages over the fitted "
            "sentences, and the interaction as a difference-in-differences. "
            + tables.significance_legend(alpha, family)
        )
    ]
    covariance = tables.covariance_description(results)
    if covariance:
        intro.append(Paragraph(covariance))
    seeds = _seeds_sentence(results)
    if seeds:
        intro.append(Paragraph(seeds))
    return Section("Equity Evaluation Corpora (EEC)", tuple(intro), tuple(subsections))


def _seeds_sentence(results: pd.DataFrame) -> str:
    if "n_seeds" not in results.columns or not results["pooling"].isin(["rubin", "mean"]).any():
        return ""
    n_seeds = int(results["n_seeds"].max())
    return (
        f"Pooled over {n_seeds} seeds: each number is the mean over the seeds' regressors, tested with Rubin's "
        "pooled standard error (within- plus between-seed variance); ± gives the between-seed SD, and the findings "
        "tables say how many seeds agree in sign and in significance."
    )


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
    validity = findings.judge_validity(results)
    unanswered = validity[validity["numeral_mass"] < findings.MIN_NUMERAL_MASS]
    if not unanswered.empty:
        names = sorted(
            f"{row.model} ({row.language}, {row.emotion}: {row.numeral_mass:.2f})" for row in unanswered.itertuples()
        )
        blocks.append(
            Paragraph(
                f"Zero-shot judges that put less than {findings.MIN_NUMERAL_MASS:.0%} of their answer on the scale's "
                f"numerals on the EEC sentences (the mean probability of a numeral): {', '.join(names)}. They were "
                f"not answering the question; their bias results are marked {tables.POOR_MARK} too.",
                warning=True,
            )
        )
    return Section("Regressor quality", tuple(blocks))


def xweat_section(results: pd.DataFrame, alpha: float = ALPHA, family: str = DEFAULT_FAMILY) -> Section | None:
    monolingual = tables.xweat_monolingual(results)
    coverage_rows = results[(results["suite"] == tables.XWEAT_SUITE) & (results["metric"] == "coverage")]
    if monolingual.empty and coverage_rows.empty:
        return None
    blocks: list = []
    png = plots.xweat_heatmap(results, family)
    if png:
        blocks.append(Image("xweat_heatmap", png, "XWEAT effect sizes per test and language, one panel per model"))
    subsections = []
    for model in _values(pd.concat([monolingual, coverage_rows]), "model"):
        model_blocks = []
        effects = tables.xweat_effect_table(results, model)
        if not effects.empty:
            model_blocks.append(Table(effects, f"{model}: effect sizes d [95 % bootstrap interval] (test x language)"))
        uncertainty = tables.xweat_uncertainty_table(results, model)
        if not uncertainty.empty:
            model_blocks.append(
                Table(
                    uncertainty,
                    f"{model}: how sure d is: bootstrap over the words of each set, and the words whose removal "
                    "moves d most (change of d without the word)",
                    collapsed=True,
                )
            )
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
    fragile = tables.xweat_fragile(results)
    if fragile:
        blocks.append(
            Paragraph(
                f"The permutation p asks whether there is any association; the bootstrap interval how precisely its "
                f"size is known. These tests have p ≤ {alpha} but an interval of d that contains 0 "
                f"({tables.BOOTSTRAP_MARK}), so their effect size, even its sign, depends on which words the lists "
                "hold (Ethayarajh et al. 2019; Antoniak & Mimno 2021):",
                warning=True,
            )
        )
        blocks.append(Bullets(tuple(fragile)))
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
    blocks.append(Paragraph(tables.significance_legend(alpha, family)))
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
    sections = [
        overview_section(run, results),
        findings_section(results, alpha, family),
        eec_section(results, alpha, family),
        regressor_section(results, min_regressor_r),
        xweat_section(results, alpha, family),
        association_section(results, alpha, family),
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
