"""The eec_crosslingual suite's section of the report: per translated EEC, every identity effect's
difference between the translation and its English original (a table per EEC with the marks of every
table, the effects in each language with the minimum detectable difference, a forest plot and plain
sentences), and the ``poor_regressor`` flag on the differences measured through a poor regressor of
either language.

It reads the records :data:`.records.CROSSLINGUAL_RECORDS` declares.
"""

from __future__ import annotations

import pandas as pd

from ...contract.records import ESTIMAND_SENTENCES, TESTED_POOLINGS
from ...report.kit.document import Bullets, Image, Paragraph, Section, Table
from ...report.kit.method_section import KnownSections, ReportSection, ReportSettings
from ...report.kit.tables import column, format_number, format_p, marked_value, significance_legend
from ...stats.estimands import DEFAULT_ESTIMAND, ESTIMANDS
from ..eec.measurement import finite_number, format_interval, format_mde, no_measurement_words
from ..eec.paired.plots import difference_plot
from ..eec.paired.sentences import difference_claim, effect_label
from ..eec.report import MIN_NUMERAL_MASS, MIN_R_OPTION, MIN_REGRESSOR_R
from ..eec.tables import marked_effects_table
from ..eec.wording import MAX_P, verdict
from .records import DIFFERENCE_METRIC

SUITE_NAME = "eec_crosslingual"
LANGUAGE_NAMES = {
    "en": "English",
    "es": "Spanish",
    "ar": "Arabic",
    "de": "German",
    "it": "Italian",
    "hr": "Croatian",
    "ru": "Russian",
    "tr": "Turkish",
}


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


def difference_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The suite's difference records that hold a number (a skipped unit's record holds none)."""
    rows = results[(results["suite"] == SUITE_NAME) & (results["metric"] == DIFFERENCE_METRIC)]
    return rows[rows["value"].notna()]


def _languages(row: pd.Series) -> tuple[str, str]:
    """The conditions of a row in words: ``("in Arabic", "in English")``."""
    return (
        f"in {language_name(row['other_language'])}",
        f"in {language_name(row['reference_language'])}",
    )


def difference_sentence(row: pd.Series) -> str:
    """One difference in plain words, with its own 95 % interval, p-value and multiple-testing
    verdict."""
    other, reference = _languages(row)
    caution = (
        " Caution: a regressor's Pearson r is poor." if bool(row.get("poor_regressor")) else ""
    )
    no_measurement = no_measurement_words(row)
    interval = "" if no_measurement else f"95% CI [{row['ci_low']:+.3g}, {row['ci_high']:+.3g}], "
    return (
        f"{row['model']}, {row['emotion']}: {difference_claim(row, other, reference)} "
        f"({interval}p = {format_p(row['p_value'])}, "
        f"{verdict(row)}{'; ' + no_measurement if no_measurement else ''}).{caution}"
    )


def summary_table(rows: pd.DataFrame, known: KnownSections) -> pd.DataFrame:
    """Rows emotion x model, a column per effect, each cell the difference with its stars and
    marks."""
    names = list(dict.fromkeys(rows["term"]))
    headers = {name: effect_label(rows[rows["term"] == name].iloc[0]) for name in names}
    return marked_effects_table(rows, headers, known)


def detail_table(rows: pd.DataFrame, known: KnownSections) -> pd.DataFrame:
    """Every difference with the effect in each language, its interval, p-value and minimum
    detectable difference."""
    first = rows.iloc[0]
    reference, other = (
        language_name(first[name]) for name in ("reference_language", "other_language")
    )
    return pd.DataFrame(
        [
            {
                "emotion": row["emotion"],
                "model": row["model"],
                "effect": effect_label(row),
                reference: format_number(row["reference_estimate"], 4),
                other: format_number(row["other_estimate"], 4),
                "difference": marked_value(row, known, 4),
                "95% CI": format_interval(row["ci_low"], row["ci_high"]),
                "p": format_p(row["p_value"]),
                "MDE (80% power)": format_mde(row["mde"], 4),
                "pairs": int(row["n_pairs"]),
            }
            for _, row in rows.sort_values(["emotion", "model"], kind="stable").iterrows()
        ]
    )


def covariance_words(row: pd.Series) -> str:
    """How a fit's standard errors were computed, in words (its tests' degrees of freedom aside)."""
    if row["cov_type"] != "cluster":
        return "model-based standard errors, z tests"
    counted = zip(row["cluster_by"], row["n_clusters"], strict=True)
    clusters = " and ".join(f"{name} ({n})" for name, n in counted)
    # finite_number, not isinstance(int | float): numpy's int64 (every row pooled) is no int
    seeds = finite_number(row.get("n_seeds"))
    pooled = f", pooled over {int(seeds)} seeds" if seeds is not None and seeds >= 2 else ""
    return f"standard errors clustered by {clusters}{pooled}"


def tests_words(rows: pd.DataFrame) -> str:
    """The t tests' degrees of freedom of ``rows`` (fits with one covariance), in words: one G - 1
    per fit, or pooled over seeds each difference's own df (the seed mean's Satterthwaite df,
    Rubin's Barnard-Rubin df), given as their range."""
    first = rows.iloc[0]
    if first["cov_type"] != "cluster":
        return ""
    seeds = finite_number(first.get("n_seeds"))
    pooled = seeds is not None and seeds >= 2
    low, high = (format_number(rows["df"].agg(end), 1 if pooled else 0) for end in ("min", "max"))
    span = low if low == high else f"{low} to {high}"
    if not pooled:
        return f", t tests with {span} df"
    poolings = set(column(rows, "pooling"))
    estimand = next(
        (estimand for estimand in ESTIMANDS.values() if estimand.pooling in poolings),
        ESTIMANDS[DEFAULT_ESTIMAND],
    )
    return f", t tests with {estimand.df_rule} df {span}"


def design_words(rows: pd.DataFrame) -> str:
    """How many sentences were paired and how the fits' standard errors were computed, in words."""
    fits = rows.drop_duplicates(["model", "emotion"])
    kinds = rows.apply(covariance_words, axis=1)
    errors = "; ".join(
        f"{words}{tests_words(rows[kinds == words])} ({n} fit{'s' if n != 1 else ''})"
        for words, n in kinds[fits.index].value_counts(sort=False).items()
    )
    first = fits.iloc[0]
    unpaired = (
        f"{int(first['n_english_only'])} English and "
        f"{int(first['n_translation_only'])} translated rows"
    )
    rules = [
        TESTED_POOLINGS[rule]
        for rule in column(rows, "pooling").dropna().unique()
        if rule in TESTED_POOLINGS
    ]
    estimand = "".join(f" Pooled over seeds: {ESTIMAND_SENTENCES[rule]}." for rule in rules)
    return (
        f"Up to {int(fits['n_pairs'].max())} aligned pairs per "
        f"emotion ({unpaired} have no partner); {errors}.{estimand}"
    )


def crosslingual_section(results: pd.DataFrame, settings: ReportSettings) -> Section | None:
    rows = difference_rows(results)
    skipped = results[(results["suite"] == SUITE_NAME) & (column(results, "status") == "skipped")]
    if rows.empty and skipped.empty:
        return None
    subsections = []
    for config, config_rows in rows.groupby("config", sort=True):
        first = config_rows.iloc[0]
        other, english = (
            language_name(first["other_language"]),
            language_name(first["reference_language"]),
        )
        title = f"{config} vs {first['english_config']}"
        blocks: list = [
            Paragraph(design_words(config_rows)),
            Table(
                summary_table(config_rows, settings.sections),
                f"{title}: differences of effects, {other} minus {english}",
            ),
        ]
        png = difference_plot(
            config_rows,
            "model",
            f"{title}: {other} minus {english}, 95 % intervals",
            f"difference of predicted intensity ({other} - {english})",
        )
        if png:
            blocks.append(
                Image(
                    f"crosslingual_{config}",
                    png,
                    f"{title}: each effect's difference between the languages with "
                    "its 95 % interval, one panel per emotion, models side by "
                    "side (filled: survives Holm; half-filled: Benjamini-Hochberg "
                    "only; hollow: neither; faded: a poor regressor)",
                )
            )
        blocks.append(
            Table(
                detail_table(config_rows, settings.sections),
                f"{title}: the effect in each language, the difference and "
                "the smallest difference the design detects with 80 % power",
                collapsed=True,
            )
        )
        shown = config_rows[config_rows["p_value"] <= MAX_P].sort_values("p_value", kind="stable")
        if shown.empty:
            blocks.append(
                Paragraph(f"No difference between the languages reaches p ≤ {MAX_P:.2f}.")
            )
        else:
            blocks.append(
                Paragraph(
                    f"In plain words (differences with p ≤ {MAX_P:.2f}, each with its own test):"
                )
            )
            blocks.append(Bullets(tuple(difference_sentence(row) for _, row in shown.iterrows())))
        subsections.append(Section(title, tuple(blocks)))
    intro: list = [
        Paragraph(
            "The same sentences in two languages: each translated EEC row names its English "
            "original, and the model's regressor of each language scores its own side. One "
            "Beta regression over both languages (group × gender × language, a precision "
            "per language) gives every effect of the EEC section in each language and its "
            "difference, translated minus English, with its own delta-method test; "
            "clustering by the aligned template makes the comparison paired. A difference "
            "says the model's bias changes with the language of the same sentences. "
            + significance_legend(settings.sections, settings.alpha, settings.family)
        )
    ]
    if not skipped.empty:
        notes = sorted(
            {f"{r.model} {r.config} {r.emotion}: {r.note}" for r in skipped.itertuples()}
        )
        intro += [
            Paragraph("Units without a joint fit:", warning=True),
            Bullets(tuple(notes), warning=True),
        ]
    return Section(
        "Cross-language EEC contrasts (aligned sentences)", tuple(intro), tuple(subsections)
    )


def flag_poor_regressors(
    results: pd.DataFrame, min_regressor_r: float = MIN_REGRESSOR_R
) -> pd.DataFrame:
    """``poor_regressor`` (the EEC section's flag) also on the differences measured through a
    regressor of either language whose test Pearson r is below ``min_regressor_r``, or a zero-shot
    judge that was not answering."""
    annotated = results.copy()
    mine = annotated["suite"] == SUITE_NAME
    poor = pd.Series(False, index=annotated.index)
    for name in ("reference_regressor_r", "other_regressor_r"):
        poor |= pd.to_numeric(column(annotated, name), errors="coerce") < min_regressor_r
    for name in ("reference_numeral_mass", "other_numeral_mass"):
        poor |= pd.to_numeric(column(annotated, name), errors="coerce") < MIN_NUMERAL_MASS
    flagged = column(annotated, "poor_regressor").astype(object).where(~mine, poor)
    annotated["poor_regressor"] = flagged.fillna(False).astype(bool)
    return annotated


class CrosslingualSection(ReportSection):
    """The eec_crosslingual suite's section (module docstring)."""

    suite = SUITE_NAME
    order = 15
    findings_counting = (
        "a translated EEC x emotion counts the difference of each of its effects between languages",
    )
    options = {MIN_R_OPTION: MIN_REGRESSOR_R}  # the EEC section's line: one value for both

    def annotate(self, results: pd.DataFrame, settings: ReportSettings) -> pd.DataFrame:
        return flag_poor_regressors(results, self.option(settings, MIN_R_OPTION))

    def sections(self, results: pd.DataFrame, settings: ReportSettings) -> list[Section]:
        section = crosslingual_section(results, settings)
        return [] if section is None else [section]


SECTION = CrosslingualSection()
