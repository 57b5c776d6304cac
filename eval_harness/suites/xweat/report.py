"""The XWEAT method's section of the report: WEAT effect sizes per test and language (a heatmap, a
table per model with bootstrap intervals, the minimum detectable effect of each test, the words
whose removal moves d most, coverage), the cross-lingual matrices (the paper's Table 6), the flag
``bootstrap_ci_spans_zero``, the association measures' section (:mod:`.report_measures`), and the
numbers an XWEAT run puts on a model card.

It reads the records :data:`.records.XWEAT_RECORDS` declares and reaches the report only through its
building blocks, the kit (:mod:`eval_harness.report.kit.document`, ``tables``, ``plots``,
``families``, ``method_section``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ...data.catalog import XWEAT_LANGUAGES
from ...report.kit.document import Bullets, Image, Paragraph, Section, Table
from ...report.kit.families import ALPHA, DEFAULT_FAMILY, FAMILY_WORDS, is_finding
from ...report.kit.method_section import (
    SINGLE_SPLIT,
    STABILITY_COLUMN,
    Benchmark,
    BenchmarkTask,
    CardMetric,
    Flag,
    KnownSections,
    ReportSection,
    ReportSettings,
)
from ...report.kit.plots import to_png
from ...report.kit.tables import (
    BH_ONLY_MARK,
    HOLM_MARK,
    column,
    distinct,
    format_number,
    format_p,
    has_interval,
    marked_value,
    natural_order,
    significance_legend,
)
from .pipeline import XWEAT_TESTS, language_pairs
from .report_measures import association_section

XWEAT_SUITE = "xweat"
BOOTSTRAP_MARK = "‖"


def _is_cross_lingual(rows: pd.DataFrame) -> pd.Series:
    """True where a record's targets and attributes languages are both given and differ."""
    if not {"targets_language", "attributes_language"} <= set(rows.columns):
        return pd.Series(False, index=rows.index)
    return (
        rows["targets_language"].notna()
        & rows["attributes_language"].notna()
        & (rows["targets_language"] != rows["attributes_language"])
    )


def xweat_monolingual(results: pd.DataFrame) -> pd.DataFrame:
    """XWEAT effect-size rows of single-language tests (targets and attributes in one language)."""
    rows = results[(results["suite"] == XWEAT_SUITE) & (results["metric"] == "effect_size")]
    return rows[~_is_cross_lingual(rows)]


def effect_size_cell(row: pd.Series, known: KnownSections) -> str:
    """``1.540***†‖ [-0.55, 1.87]``: a WEAT effect size, marked (the ``known`` sections' flags too),
    with its bootstrap interval when there is one."""
    text = marked_value(row, known)
    return text + (f" [{row['ci_low']:.2f}, {row['ci_high']:.2f}]" if has_interval(row) else "")


def xweat_effect_table(results: pd.DataFrame, model: str, known: KnownSections) -> pd.DataFrame:
    """One model's monolingual XWEAT effect sizes: rows test, columns language, significance marked,
    the bootstrap 95 % interval next to d."""
    rows = xweat_monolingual(results)
    rows = rows[rows["model"] == model]
    return _test_by_language(rows, lambda row: effect_size_cell(row, known))


def influential_words(row: pd.Series) -> str:
    """``'rose' (X) -0.31; 'war' (A) +0.12``: the words whose removal moves d most, and by how
    much."""
    words = row.get("influential_words")
    if not isinstance(words, list):
        return ""
    return "; ".join(
        f"{word.get('word')!r} ({word.get('role')}) {word.get('change'):+.2f}" for word in words
    )


def detectable_cell(row: pd.Series) -> str:
    """The test's minimum detectable effect (at ``mde_power``); for a test whose p is above the
    MDE's level ``mde_alpha``, the reading of its "not significant": ``could not have detected less
    than d = 1.09``. Empty without an MDE (a run from before the MDE was recorded)."""
    mde = row.get("mde")
    if mde is None or pd.isna(mde):
        return ""
    size = f"|d| = {mde:.2f}" if row.get("alternative") == "two-sided" else f"d = {mde:.2f}"
    alpha = row["mde_alpha"]
    if pd.notna(row.get("p_value")) and row["p_value"] > alpha:
        return f"p > {alpha:g}: could not have detected less than {size}"
    return size


def xweat_uncertainty_table(
    results: pd.DataFrame, model: str, known: KnownSections
) -> pd.DataFrame:
    """One model's WEAT tests (monolingual and cross-lingual), one row per test and language: d, its
    bootstrap interval and standard error, the permutation p, the minimum detectable effect at 80 %
    power (which a "not significant" test reads as "could not have detected less than") and the
    words whose removal moves d most."""
    rows = results[(results["suite"] == XWEAT_SUITE) & (results["metric"] == "effect_size")]
    rows = rows[(rows["model"] == model) & rows["value"].notna()]
    if rows.empty or not {"ci_low", "mde"} & set(rows.columns):
        return pd.DataFrame()
    rows = rows.iloc[
        sorted(range(len(rows)), key=lambda i: (natural_order(rows["test"].iloc[i]), i))
    ]
    table = pd.DataFrame(
        {
            "test": rows["test"].to_numpy(),
            "language": rows["language"].to_numpy(),
            "d": [marked_value(row, known) for _, row in rows.iterrows()],
            "95% bootstrap CI": [
                f"[{row['ci_low']:.2f}, {row['ci_high']:.2f}]" if has_interval(row) else ""
                for _, row in rows.iterrows()
            ],
            "bootstrap SE": [
                format_number(row.get("bootstrap_std_err"), 3) for _, row in rows.iterrows()
            ],
            "permutation p": rows["p_value"].map(format_p).to_numpy(),
            "MDE (80 % power)": [detectable_cell(row) for _, row in rows.iterrows()],
            "words whose removal moves d most": [
                influential_words(row) for _, row in rows.iterrows()
            ],
        }
    )
    return table.loc[:, [c for c in table.columns if (table[c] != "").any()]]


def xweat_not_detected(results: pd.DataFrame) -> str | None:
    """The plain reading of the WEAT tests whose p is above their MDE's level: what they could not
    have detected, not "no bias" (None when every test with an MDE is significant)."""
    rows = results[(results["suite"] == XWEAT_SUITE) & (results["metric"] == "effect_size")]
    if not {"mde", "mde_alpha"} <= set(
        rows.columns
    ):  # (an EEC record's mde alone makes the column exist)
        return None
    rows = rows[rows["mde"].notna() & (rows["p_value"] > rows["mde_alpha"])]
    if rows.empty:
        return None
    low, high = rows["mde"].min(), rows["mde"].max()
    sizes = f"d = {low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"d = {low:.2f} to {high:.2f}"
    return (
        f"{len(rows)} WEAT test(s) have p > {rows['mde_alpha'].iloc[0]:g}. "
        "That is not evidence of no bias: with their set sizes, their "
        f"permutation tests could not have detected less than {sizes} at "
        "80 % power (the MDE column); smaller effects may be there."
    )


def xweat_fragile(results: pd.DataFrame) -> list[str]:
    """One line per WEAT test with a small permutation p whose bootstrap interval of d contains
    0."""
    if "bootstrap_ci_spans_zero" not in results.columns:
        return []
    rows = results[results["bootstrap_ci_spans_zero"].fillna(False).astype(bool)]
    return [
        f"{row['model']}, {row['test']}, {row['language']}: d = "
        f"{row['value']:.2f}, p = {format_p(row['p_value'])}, 95% "
        f"bootstrap CI [{row['ci_low']:.2f}, {row['ci_high']:.2f}]"
        + (f"; most influential: {influential_words(row)}" if influential_words(row) else "")
        for _, row in rows.iterrows()
    ]


def xweat_skipped(results: pd.DataFrame) -> list[str]:
    """One line per XWEAT test the coverage rule skipped, with its reason."""
    if "status" not in results.columns:
        return []
    rows = xweat_monolingual(results)
    rows = pd.concat(
        [
            rows,
            results[
                (results["suite"] == XWEAT_SUITE)
                & (results["metric"] == "effect_size")
                & _is_cross_lingual(results)
            ],
        ]
    )
    rows = rows[rows["status"] == "skipped"]
    return [
        f"{row['model']}, {row['test']}, {row['language']}: {row.get('note') or 'skipped'}"
        for _, row in rows.iterrows()
    ]


def xweat_coverage_table(results: pd.DataFrame, model: str) -> pd.DataFrame:
    """Per test and language, the share of words the model knows in the test's worst-covered set.

    The worst set, because XWEAT's coverage rule skips a test when any of its four sets
    falls short (the harness records that smallest fraction).
    """
    rows = results[
        (results["suite"] == XWEAT_SUITE)
        & (results["metric"] == "coverage")
        & (results["model"] == model)
    ]
    return _test_by_language(rows[~_is_cross_lingual(rows)], lambda row: f"{row['value']:.0%}")


def _test_by_language(rows: pd.DataFrame, cell) -> pd.DataFrame:
    if rows.empty:
        return pd.DataFrame()
    cells = rows.assign(cell=[cell(row) for _, row in rows.iterrows()])
    table = cells.pivot_table(
        index="test", columns="language", values="cell", aggfunc="first", sort=False
    )
    table.columns.name = None
    table = table.reindex(sorted(table.index, key=natural_order))
    return table.fillna("").reset_index()


def xweat_cross_lingual_matrices(
    results: pd.DataFrame, known: KnownSections
) -> dict[tuple[str, str], pd.DataFrame]:
    """Per (model, test): the paper's Table 6, rows targets language, columns attributes language.

    The diagonal holds the monolingual test of the same model; models without
    cross-lingual results are left out.
    """
    rows = results[(results["suite"] == XWEAT_SUITE) & (results["metric"] == "effect_size")]
    cross = rows[_is_cross_lingual(rows)]
    monolingual = xweat_monolingual(rows)
    language = monolingual["language"]
    monolingual = monolingual.assign(targets_language=language, attributes_language=language)
    matrices = {}
    for (model, test), cross_rows in cross.groupby(["model", "test"], sort=False):
        languages = sorted(
            set(cross_rows["targets_language"]) | set(cross_rows["attributes_language"])
        )
        diagonal = monolingual[
            (monolingual["model"] == model)
            & (monolingual["test"] == test)
            & monolingual["language"].isin(languages)
        ]
        cells = pd.concat([cross_rows, diagonal])
        cells = cells.assign(cell=[marked_value(row, known) for _, row in cells.iterrows()])
        table = cells.pivot_table(
            index="targets_language", columns="attributes_language", values="cell", aggfunc="first"
        ).reindex(index=languages, columns=languages)
        table.index.name = "targets \\ attributes"
        table.columns.name = None
        matrices[model, test] = table.fillna("").reset_index()
    return dict(sorted(matrices.items(), key=lambda item: (item[0][0], natural_order(item[0][1]))))


def xweat_heatmap(
    results: pd.DataFrame, known: KnownSections, family: str = DEFAULT_FAMILY
) -> bytes | None:
    """Monolingual XWEAT effect sizes, test x language, one panel per model, significance stars in
    the cells."""
    rows = xweat_monolingual(results)
    if rows.empty:
        return None
    models = sorted(rows["model"].unique())
    tests = sorted(rows["test"].dropna().unique(), key=natural_order)
    languages = list(dict.fromkeys(rows["language"]))
    widths = [max(2, len(rows[rows["model"] == model]["language"].unique())) for model in models]
    figure = Figure(figsize=(0.75 * sum(widths) + 2.5, 0.45 * len(tests) + 1.8))
    axes = figure.subplots(1, len(models), squeeze=False, gridspec_kw={"width_ratios": widths})[0]
    for axis, model in zip(axes, models, strict=True):
        model_rows = rows[rows["model"] == model]
        model_languages = [
            language for language in languages if language in set(model_rows["language"])
        ]
        grid = np.full((len(tests), len(model_languages)), np.nan)
        for _, row in model_rows.iterrows():
            i, j = tests.index(row["test"]), model_languages.index(row["language"])
            grid[i, j] = row["value"]
            axis.text(
                j,
                i,
                marked_value(row, known, 2),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if abs(row["value"]) > 1.3 else "black",
            )
        image = axis.imshow(
            np.ma.masked_invalid(grid), cmap="RdBu_r", vmin=-2, vmax=2, aspect="auto"
        )
        axis.set_xticks(range(len(model_languages)), model_languages)
        axis.set_yticks(range(len(tests)), tests)
        axis.set_title(model, fontsize=10)
        axis.set_facecolor("0.85")
    figure.colorbar(image, ax=list(axes), label="effect size d", shrink=0.9)
    figure.suptitle(
        "XWEAT effect sizes (*** p ≤ 0.01, ** p ≤ 0.05, * p ≤ 0.10; "
        f"{HOLM_MARK} Holm, {BH_ONLY_MARK} BH only, adjusted "
        f"{FAMILY_WORDS[family]}; {BOOTSTRAP_MARK} bootstrap CI contains 0)"
    )
    return to_png(figure)


def xweat_section(results: pd.DataFrame, settings: ReportSettings) -> Section | None:
    alpha, family, known = settings.alpha, settings.family, settings.sections
    monolingual = xweat_monolingual(results)
    coverage_rows = results[(results["suite"] == XWEAT_SUITE) & (results["metric"] == "coverage")]
    if monolingual.empty and coverage_rows.empty:
        return None
    blocks: list = []
    png = xweat_heatmap(results, known, family)
    if png:
        blocks.append(
            Image(
                "xweat_heatmap",
                png,
                "XWEAT effect sizes per test and language, one panel per model",
            )
        )
    subsections = []
    for model in distinct(pd.concat([monolingual, coverage_rows]), "model"):
        model_blocks = []
        effects = xweat_effect_table(results, model, known)
        if not effects.empty:
            model_blocks.append(
                Table(
                    effects, f"{model}: effect sizes d [95 % bootstrap interval] (test x language)"
                )
            )
        uncertainty = xweat_uncertainty_table(results, model, known)
        if not uncertainty.empty:
            model_blocks.append(
                Table(
                    uncertainty,
                    f"{model}: how sure d is: bootstrap over the words of each "
                    "set, the smallest d the permutation test of these set sizes "
                    "detects with 80 % power at level 0.05 (MDE), and the words "
                    "whose removal moves d most (change of d without the word)",
                    collapsed=True,
                )
            )
        coverage = xweat_coverage_table(results, model)
        if not coverage.empty:
            model_blocks.append(
                Table(coverage, f"{model}: share of each test's words in the vocabulary")
            )
        subsections.append(Section(f"XWEAT: {model}", tuple(model_blocks)))
    matrices = xweat_cross_lingual_matrices(results, known)
    if matrices:
        intro = Paragraph(
            "Each table: the test's target words in the row's language "
            "against its attribute words in the column's language, in the "
            "model's shared space; the diagonal is the monolingual test."
        )
        subsections.append(
            Section(
                "XWEAT cross-lingual",
                (intro,)
                + tuple(
                    Table(matrix, f"{model}, {test}") for (model, test), matrix in matrices.items()
                ),
            )
        )
    not_detected = xweat_not_detected(results)
    if not_detected:
        blocks.append(Paragraph(not_detected))
    fragile = xweat_fragile(results)
    if fragile:
        blocks.append(
            Paragraph(
                "The permutation p asks whether there is any association; the "
                "bootstrap interval how precisely its size is known. These tests have "
                f"p ≤ {alpha} but an interval of d that contains 0 ({BOOTSTRAP_MARK}), "
                "so their effect size, even its sign, depends on which words the "
                "lists hold (Ethayarajh et al. 2019; Antoniak & Mimno 2021):",
                warning=True,
            )
        )
        blocks.append(Bullets(tuple(fragile)))
    skipped = xweat_skipped(results)
    if skipped:
        blocks.append(
            Paragraph(
                "Tests skipped by the coverage rule (a word set with less than the required share "
                "of its words in the model's vocabulary):",
                warning=True,
            )
        )
        blocks.append(Bullets(tuple(skipped)))
    blocks.append(Paragraph(significance_legend(known, alpha, family)))
    return Section("XWEAT", tuple(blocks), tuple(subsections))


def flag_bootstrap(results: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """A copy of ``results`` with ``bootstrap_ci_spans_zero``: a WEAT effect size whose permutation
    p is at most ``alpha`` while its bootstrap interval (resampling the words of each set) contains
    0: there is an association, but its size, even its sign, rests on a few words."""
    annotated = results.copy()
    p_value = annotated["p_value"].where(is_finding(annotated))
    low = pd.to_numeric(column(annotated, "ci_low"), errors="coerce")
    high = pd.to_numeric(column(annotated, "ci_high"), errors="coerce")
    bootstrapped = column(annotated, "bootstrap_std_err").notna()
    annotated["bootstrap_ci_spans_zero"] = (
        bootstrapped & (p_value <= alpha) & (low <= 0) & (high >= 0)
    )
    return annotated


def xweat_task_id(config: str, test: str) -> str:
    """The benchmark task of one WEAT effect size: ``de-T1`` (language, test), ``en-de-T1`` for a
    cross-lingual pair (targets in English, attributes in German)."""
    return f"{config}-{test}"


XWEAT_BENCHMARK = Benchmark(
    dataset="xweat",
    name="XWEAT: word embedding association tests in seven languages",
    description=(
        "WEAT effect sizes (Caliskan et al. 2017; Cohen's d of the differential association "
        "of the target sets with the attribute sets) on the XWEAT word lists (Lauscher & "
        "Glavaš 2019): one task per language and test T1-T10, and per ordered language pair "
        "(targets in the first language, attributes in the second). d lies in [-2, 2]; 0 is "
        "no association, so a leaderboard is read by distance from 0. Each result's notes "
        "carry its permutation p-value and, where computed, the bootstrap 95% interval of d."
    ),
    tasks=tuple(
        BenchmarkTask(
            xweat_task_id(targets if targets == attributes else f"{targets}-{attributes}", test),
            targets,
        )
        for targets, attributes in language_pairs(XWEAT_LANGUAGES, cross_lingual=True)
        for test in XWEAT_TESTS
    ),
)


def card_where(row: pd.Series, label: str) -> tuple[str | None, str | None, str, str]:
    """Where a WEAT effect size is measured: its language's config, or (a cross-lingual pair
    ``en-de``) no one config, targets in one language's and attributes in another's; its task is
    :data:`XWEAT_BENCHMARK`'s."""
    config, test = row.get("config"), row.get("test")
    if isinstance(config, str) and "-" in config:
        targets, attributes = config.split("-", 1)
        return (
            None,
            SINGLE_SPLIT,
            xweat_task_id(config, test),
            f"{test} {label} (targets {targets}, attributes {attributes})",
        )
    return config, SINGLE_SPLIT, xweat_task_id(config, test), f"{test} {label}"


def word_stability_cell(row: pd.Series) -> str:
    """``words 97% · one word left out 100%``: the shares of the word bootstrap's replicates and of
    the leave-one-word-out effect sizes that keep d's sign (a WEAT verdict is not re-tested: sign
    only)."""
    parts = []
    for field, label in (
        ("stability_words_sign", "words"),
        ("stability_words_loo_sign", "one word left out"),
    ):
        value = row.get(field)
        if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
            parts.append(f"{label} {value:.0%}")
    return " · ".join(parts)


class XWEATSection(ReportSection):
    """The XWEAT method's section (module docstring)."""

    suite = XWEAT_SUITE
    order = 20
    flags = (
        Flag(
            "bootstrap_ci_spans_zero",
            f"{BOOTSTRAP_MARK} bootstrap CI of d contains 0",
            mark=BOOTSTRAP_MARK,
            legend="{mark} permutation p ≤ {alpha:g} but the bootstrap "
            "95 % interval of the effect size contains 0.",
        ),
    )
    # Every metric of its records (WEAT's statistic, whose test its effect size's record carries,
    # stays in the CSV).
    shown_metrics = None
    findings_exclusions = ("the WEAT statistic, which repeats its effect size's test",)
    card_metrics = {
        "effect_size": CardMetric(
            "feature-extraction", "Word embedding association (XWEAT)", "weat", "effect size"
        )
    }
    dataset_titles = {"xweat": "XWEAT word lists"}

    def not_a_finding(self, rows: pd.DataFrame) -> pd.Series:
        return rows["metric"] == "statistic"

    def annotate(self, results: pd.DataFrame, settings: ReportSettings) -> pd.DataFrame:
        return flag_bootstrap(results, settings.alpha)

    def findings_columns(self, rows: pd.DataFrame) -> dict[str, pd.Series]:
        cells = pd.Series(
            [word_stability_cell(row) for _, row in rows.iterrows()], index=rows.index, dtype=object
        )
        return {STABILITY_COLUMN: cells} if (cells != "").any() else {}

    def findings_notes(self, results: pd.DataFrame, settings: ReportSettings) -> list:
        weat = xweat_fragile(results)
        if not weat:
            return []
        return [
            Paragraph(
                f"{len(weat)} WEAT test(s) have a permutation p ≤ {settings.alpha} "
                f"but a bootstrap interval of d that contains 0 ({BOOTSTRAP_MARK}): "
                "the association is there, its size rests on a few words (see XWEAT).",
                warning=True,
            )
        ]

    def sections(self, results: pd.DataFrame, settings: ReportSettings) -> list[Section]:
        found = [
            xweat_section(results, settings),
            association_section(results, settings),
        ]
        return [section for section in found if section is not None]

    card_where = staticmethod(card_where)

    def benchmarks(self) -> tuple[Benchmark, ...]:
        return (XWEAT_BENCHMARK,)


SECTION = XWEATSection()
