"""The EEC method's section of the report: the paper's coefficient tables per EEC (Tables 3-5), the
effects on the intensity scale, cell means, plain sentences (:mod:`.sentences`) and forest plots
(:mod:`.plots`); the regressors' quality (Table 2) and the zero-shot judges' validity; the flags
``poor_regressor`` and ``loses_under_clustering``; and the numbers an EEC run puts on a model card.

It reads the records :data:`.records.EEC_RECORDS` declares and reaches the report only through its
building blocks, the kit (:mod:`eval_harness.report.kit.document`, ``tables``, ``plots``,
``families``, ``method_section``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...contract.records import ESTIMAND_SENTENCES, TESTED_POOLINGS
from ...contract.seed_defaults import default_seeds_words
from ...data.eec_benchmark import (
    EEC_BENCHMARK_DESCRIPTION,
    EEC_BENCHMARK_NAME,
    eec_eval_yaml_data,
    eec_task_id,
    inspect_task_ids,
)
from ...errors import InputError
from ...report.kit.document import Bullets, Image, Paragraph, Section, Table
from ...report.kit.families import ALPHA, is_finding
from ...report.kit.method_section import (
    SINGLE_SPLIT,
    Benchmark,
    BenchmarkTask,
    CardMetric,
    Flag,
    ReportSection,
    ReportSettings,
)
from ...report.kit.tables import column, findings_table, significance_legend
from .planner import equivalence_paragraph, power_table
from .plots import forest_plot
from .report_stability import (
    FRAGILE_COLUMN,
    FRAGILE_LEGEND,
    FRAGILE_MARK,
    FRAGILE_SHARE,
    findings_stability_column,
    flag_fragile,
    fragile_notes,
    stability_paragraph,
    stability_table,
)
from .sentences import MAX_P, effect_sentences, undetected_sentences
from .suite import QUALITY_DATASET
from .summary import SUMMARY_EFFECTS, eec_summary, method_sentences
from .tables import (
    CLUSTER_MARK,
    EEC_METRIC,
    EEC_SUITE,
    EFFECT_METRIC,
    POOR_MARK,
    QUALITY_METRIC,
    bias_terms,
    coefficient_contrasts,
    covariance_description,
    eec_cell_mean_tables,
    eec_coefficient_tables,
    eec_effect_tables,
    eec_rows,
    eec_standard_error_tables,
    regressor_quality_table,
)
from .verdicts import (
    effect_name,
    effect_verdict,
    model_sentences,
    verdict_table,
    with_verdicts,
)

# A zero-shot judge's validity: the mean probability its answer starts with a numeral of the scale.
VALIDITY_METRIC = "numeral_mass"
MIN_NUMERAL_MASS = 0.5
# Below this test-split Pearson r an emotion regressor tracks intensity too loosely for its bias
# coefficients to speak about the model (the paper's weakest methods sit near 0.4-0.5). A reader
# sets it with the section's report option (write_report(options={MIN_R_OPTION: 0.5})); the
# cross-lingual section reads the same option.
MIN_REGRESSOR_R = 0.4
MIN_R_OPTION = "min_regressor_r"
REGRESSOR_KEYS = ["model", "language", "emotion"]
# The metrics the section shows; the others (a judge's numeral mass) go to "Other results".
SHOWN_METRICS = (EEC_METRIC, EFFECT_METRIC, "cell_mean", "log_phi", QUALITY_METRIC)


def regressor_quality(results: pd.DataFrame) -> pd.DataFrame:
    """Pearson r per (model, language, emotion): the test split's when the records name splits."""
    quality = results[results["metric"] == QUALITY_METRIC]
    if "split" in quality.columns and (quality["split"] == "test").any():
        quality = quality[quality["split"] == "test"]
    return (
        quality.groupby(REGRESSOR_KEYS, dropna=False, as_index=False)["value"]
        .mean()
        .rename(columns={"value": "regressor_r"})
    )


def judge_validity(results: pd.DataFrame) -> pd.DataFrame:
    """The smallest mean numeral mass of a zero-shot judge per (model, language, emotion), over its
    EEC units (``metric="numeral_mass"`` records); empty when the run has no judge."""
    validity = results[results["metric"] == VALIDITY_METRIC]
    return (
        validity.groupby(REGRESSOR_KEYS, dropna=False, as_index=False)["value"]
        .min()
        .rename(columns={"value": "numeral_mass"})
    )


def flag_poor_regressors(
    results: pd.DataFrame,
    min_regressor_r: float = MIN_REGRESSOR_R,
    min_numeral_mass: float = MIN_NUMERAL_MASS,
) -> pd.DataFrame:
    """A copy of ``results`` with ``regressor_r`` and ``poor_regressor`` on the rows measured
    through a regressor.

    A row is measured through a regressor when a Pearson r exists for its (model,
    language, emotion) and it is not that r itself. ``poor_regressor`` is True when that
    r is below ``min_regressor_r``, or when the regressor is a zero-shot judge that put less than
    ``min_numeral_mass`` of its answer on the scale's numerals (it was not answering the question).
    """
    quality = regressor_quality(results).merge(
        judge_validity(results), on=REGRESSOR_KEYS, how="left"
    )
    annotated = results.merge(quality, on=REGRESSOR_KEYS, how="left")
    own = (annotated["metric"].isin((QUALITY_METRIC, VALIDITY_METRIC))) | annotated[
        "emotion"
    ].isna()
    annotated.loc[own, ["regressor_r", "numeral_mass"]] = np.nan
    annotated["poor_regressor"] = (annotated["regressor_r"] < min_regressor_r) | (
        annotated["numeral_mass"] < min_numeral_mass
    )
    return annotated.drop(columns="numeral_mass")


def eec_section(results: pd.DataFrame, settings: ReportSettings) -> Section | None:
    alpha, family, known = settings.alpha, settings.family, settings.sections
    coefficient_tables = eec_coefficient_tables(results, known)
    if not coefficient_tables:
        return None
    sentences = effect_sentences(results, alpha=alpha)
    undetected = undetected_sentences(results, alpha)
    effects = eec_effect_tables(results, known)
    cell_means = eec_cell_mean_tables(results)
    standard_errors = eec_standard_error_tables(results)
    subsections = []
    for config, table in coefficient_tables.items():
        blocks: list = [Table(table, f"{config}: Beta-regression coefficients (logit scale)")]
        caption = standard_errors_caption(results, config)
        blocks.append(Table(standard_errors[config], f"{config}: {caption}", collapsed=True))
        contrasts = coefficient_contrasts(results, config)
        if contrasts:
            blocks.append(
                Paragraph(
                    "What each coefficient compares (each conditions on the reference levels):"
                )
            )
            blocks.append(Bullets(tuple(contrasts)))
        png = forest_plot(results, config, family)
        if png:
            blocks.append(
                Image(
                    f"forest_{config}",
                    png,
                    f"{config}: coefficients with 95 % intervals, one panel per emotion, "
                    "models side by side (filled: survives Holm; half-filled: "
                    "Benjamini-Hochberg only; hollow: neither; faded: regressor with poor "
                    f"Pearson r; {CLUSTER_MARK}: not significant clustered by template)",
                )
            )
        if config in effects:
            blocks.append(
                Table(
                    effects[config],
                    f"{config}: effects on the predicted intensity "
                    "(each with its own delta-method test)",
                    collapsed=True,
                )
            )
        means = cell_means.get(config)
        if means is not None:
            blocks.append(
                Table(
                    means,
                    f"{config}: mean intensity per cell, observed (predicted)",
                    collapsed=True,
                )
            )
        if sentences.get(config):
            blocks.append(
                Paragraph(
                    "In plain words (differences of predicted intensity "
                    f"with p ≤ {MAX_P:.2f}, each with its own test):"
                )
            )
            blocks.append(Bullets(tuple(sentence.text for sentence in sentences[config])))
        else:
            blocks.append(Paragraph(f"No effect of this EEC reaches p ≤ {MAX_P:.2f}."))
        if undetected.get(config):
            blocks.append(
                Paragraph(
                    f"Not significant at {alpha:g}, and the smallest difference "
                    "each fit could have detected (80% power, template-clustered): "
                    "no evidence of no bias, only of none this large."
                )
            )
            blocks.append(Bullets(tuple(undetected[config])))
        stability = stability_table(results, config, known)
        if not stability.empty:
            blocks.append(
                Table(
                    stability,
                    f"{config}: how stable each finding is under other templates, "
                    f"names, prompts and seeds ({FRAGILE_MARK} fragile: sign or "
                    f"significance changes in ≥ {FRAGILE_SHARE:.0%} of the resamples)",
                    collapsed=True,
                )
            )
        plan = power_table(results[results["config"] == config], alpha=alpha)
        if not plan.empty:
            blocks.append(
                Table(
                    plan.drop(columns="config"),
                    f"{config}: equivalence (TOST at each effect's margin "
                    "±δ) and the power planner (the MDE now, and the design "
                    "whose MDE is δ, each with its 80% interval in brackets)",
                    collapsed=True,
                )
            )
        subsections.append(Section(config, tuple(blocks)))
    intro = [
        Paragraph(design_description(results) + " " + significance_legend(known, alpha, family))
    ]
    covariance = covariance_description(results)
    if covariance:
        intro.append(Paragraph(covariance))
    seeds = _seeds_sentence(results)
    if seeds:
        intro.append(Paragraph(seeds))
    stability = stability_paragraph(results, alpha)
    if stability:
        intro.append(Paragraph(stability))
    margins = equivalence_paragraph(results, alpha)
    if margins:
        intro.append(Paragraph(margins))
    return Section("Equity Evaluation Corpora (EEC)", tuple(intro), tuple(subsections))


def standard_errors_caption(results: pd.DataFrame, config: str) -> str:
    """The caption of ``config``'s standard-error table: pooled over seeds (with the between-seed
    shares), or one seed's, which leave the regressors' training noise out."""
    rows = eec_rows(results)
    rows = rows[rows["config"] == config]
    if column(rows, "pooling").isin([*TESTED_POOLINGS, "identical"]).any():
        return (
            "the coefficients' standard errors (pooled over seeds: the sampling "
            "variance plus the training noise left in the mean over seeds), and "
            "the share of each squared standard error that is training noise"
        )
    return (
        "the coefficients' standard errors (one seed: "
        "they leave out the regressors' training noise)"
    )


def design_description(results: pd.DataFrame) -> str:
    """What the EEC fits are, in words: the paper's 2 x 2 model, and (when the run has them) the
    factorial fits of EECs with other designs, naming their factors, levels and references."""
    rows = eec_rows(results)
    levels = column(rows, "factor_levels")
    factorial = rows[levels.map(lambda value: isinstance(value, dict))]
    paper = rows[~rows.index.isin(factorial.index)]
    parts = []
    if not paper.empty:
        parts.append(
            "For each EEC and emotion, the Beta regression logit(mean intensity) = "
            "intercept + group + gender + group × gender over the regressor's predictions. "
            "A coefficient conditions on the reference levels: group is the "
            "minority-reference difference among men, gender the women-men difference "
            "within the reference group, group × gender the difference of those "
            "differences (all on the logit scale). The sentences and the effects tables "
            "read the fit on the predicted-intensity scale: the group difference among men "
            "and among women, the gender difference within each group, their averages over "
            "the fitted sentences, and the interaction as a difference-in-differences."
        )
    for config, fits in factorial.groupby("config", sort=True):
        first = fits.iloc[0]
        design = "; ".join(
            f"{factor}: {', '.join(found[1:])} against {found[0]}"
            for factor, found in first["factor_levels"].items()
        )
        order = int(first["order"])
        what = (
            "every interaction"
            if order >= len(first["factor_levels"])
            else f"interactions up to order {order}"
        )
        parts.append(
            f"{config} has "
            f"{' × '.join(str(len(found)) for found in first['factor_levels'].values())}"
            f" identity cells ({design}): its Beta regression has every main effect "
            f"and {what} (logit scale; a main effect holds the factors it interacts "
            "with at their reference level). Its effects on the predicted-intensity "
            "scale are every level's difference from the reference within each "
            "level of the other factors, their averages over the fitted sentences, "
            "and the interactions as differences of differences."
        )
    return " ".join(parts)


def _seeds_sentence(results: pd.DataFrame) -> str:
    """What the standard errors include of the regressors' training noise: with several seeds, how
    much of each bias coefficient's squared standard error is between-seed variance (its range and
    median); with one seed, that they include none of it."""
    coefficients = eec_rows(results)
    coefficients = coefficients[coefficients["term"].isin(bias_terms(coefficients))]
    if coefficients.empty:
        return ""
    pooled = coefficients[column(coefficients, "pooling").isin([*TESTED_POOLINGS, "identical"])]
    if pooled.empty:
        return (
            "One seed per regressor: each standard error treats the trained "
            "regressor as fixed, so it does not include the regressor's training "
            "variance (another training seed can move a coefficient by more than "
            "its standard error suggests). Several seeds put it in: a config "
            f"without `seeds:` runs {default_seeds_words()}, and pools them."
        )
    n_seeds = int(pooled["n_seeds"].max())
    shares = pd.to_numeric(pooled["between_seed_share"], errors="coerce").dropna()
    rules = [
        TESTED_POOLINGS[rule]
        for rule in column(pooled, "pooling").dropna().unique()
        if rule in TESTED_POOLINGS
    ]
    estimand = " ".join(
        ESTIMAND_SENTENCES[rule][0].upper() + ESTIMAND_SENTENCES[rule][1:] + "." for rule in rules
    )
    return (
        f"Pooled over {n_seeds} seeds of the regressors' training: {estimand} ± gives the "
        "between-seed SD, and the findings tables say how many seeds agree in sign and in "
        f"significance. Training noise is {shares.min():.0%} to {shares.max():.0%} (median "
        f"{shares.median():.0%}) of the squared standard errors of the {len(shares)} bias "
        "coefficients; each coefficient's share is in the standard-error table of its EEC."
    )


def regressor_section(
    results: pd.DataFrame, min_regressor_r: float = MIN_REGRESSOR_R
) -> Section | None:
    table = regressor_quality_table(results)
    if table.empty:
        return None
    poor = results[results["metric"] == "pearson_r"]
    poor = poor[poor["value"] < min_regressor_r]
    blocks: list = [Table(table, "Pearson r of the emotion-intensity regressors on the test split")]
    if not poor.empty:
        names = sorted(
            {f"{row.model} ({row.language}, {row.emotion})" for row in poor.itertuples()}
        )
        blocks.append(
            Paragraph(
                f"Pearson r below {min_regressor_r} for: {', '.join(names)}. Bias "
                f"results measured through these regressors are marked {POOR_MARK}: "
                "they say more about the regressor than about the model.",
                warning=True,
            )
        )
    validity = judge_validity(results)
    unanswered = validity[validity["numeral_mass"] < MIN_NUMERAL_MASS]
    if not unanswered.empty:
        names = sorted(
            f"{row.model} ({row.language}, {row.emotion}: {row.numeral_mass:.2f})"
            for row in unanswered.itertuples()
        )
        blocks.append(
            Paragraph(
                f"Zero-shot judges that put less than {MIN_NUMERAL_MASS:.0%} of their "
                "answer on the scale's numerals on the EEC sentences (the mean "
                f"probability of a numeral): {', '.join(names)}. They were not "
                f"answering the question; their bias results are marked {POOR_MARK} too.",
                warning=True,
            )
        )
    return Section("Regressor quality", tuple(blocks))


def flag_clustering(results: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """A copy of ``results`` with ``loses_under_clustering``: a finding significant at ``alpha``
    with model-based standard errors but not with the template-clustered ones the EEC records carry
    beside them (``clustered_p_value``): EEC rows are templates crossed with persons, not
    independent sentences."""
    annotated = results.copy()
    p_value = annotated["p_value"].where(
        is_finding(annotated)
    )  # an intercept is no finding to flag
    clustered_p = pd.to_numeric(column(annotated, "clustered_p_value"), errors="coerce")
    model_based = column(annotated, "cov_type").fillna("model") == "model"
    annotated["loses_under_clustering"] = model_based & (p_value <= alpha) & (clustered_p > alpha)
    return annotated


def clustering_notes(results: pd.DataFrame, settings: ReportSettings) -> list:
    """The findings section's warning and table of the findings that lose significance under
    clustering."""
    alpha, fragile = (
        settings.alpha,
        findings_table(results, settings.sections, "loses_under_clustering"),
    )
    if fragile.empty:
        return []
    return [
        Paragraph(
            f"{len(fragile)} finding(s) with p ≤ {alpha} under the model-based "
            "standard errors lose significance once the standard errors are clustered "
            f"by template ({CLUSTER_MARK}): the EEC's sentences share templates, and "
            "these differences are carried by some templates more than others.",
            warning=True,
        ),
        Table(fragile, f"Findings that lose significance under template clustering ({alpha})"),
    ]


def headline_effects(rows: pd.DataFrame) -> pd.DataFrame:
    """The EEC effects a model card carries, a bounded number: of each EEC's three headline effects
    (the group difference among the reference gender, the gender difference within the reference
    group, the interaction as a difference-in-differences: :data:`.summary.SUMMARY_EFFECTS`), the
    emotion where it is largest, so an EEC gives three results whatever the number of emotions (the
    rest stay in the report and results.csv)."""
    effects = rows[(rows["metric"] == EFFECT_METRIC) & rows["term"].isin(list(SUMMARY_EFFECTS))]
    effects = effects[effects["value"].notna()]
    if effects.empty:
        return effects
    size = effects["value"].astype(float).abs()
    return effects.loc[size.groupby([effects["config"], effects["term"]]).idxmax().sort_values()]


EEC_BENCHMARK = Benchmark(
    dataset="eec",
    name=EEC_BENCHMARK_NAME,
    description=EEC_BENCHMARK_DESCRIPTION,
    # The Inspect pack's tasks (one per config and emotion): the EEC's eval.yaml is an inspect-ai
    # benchmark, and a headline effect is an entry on its config and emotion's task, named in the
    # entry's notes.
    tasks=tuple(BenchmarkTask(task, config) for task, (_, config, _) in inspect_task_ids().items()),
    eval_yaml_data=eec_eval_yaml_data(),
)


def card_where(row: pd.Series, label: str) -> tuple[str | None, str | None, str, str]:
    """Where an EEC number is measured, as ``load_dataset`` sees it: a regressor's Pearson r on the
    SemEval config of its language and emotion (``load_dataset(id, "en_anger")``), a coefficient on
    its EEC config, as the task of :data:`EEC_BENCHMARK` that it is."""
    config, emotion, term = (
        None if pd.isna(row.get(key)) else str(row.get(key))
        for key in ("config", "emotion", "term")
    )
    if row["metric"] == QUALITY_METRIC:
        config = f"{config}_{emotion}"
        return config, _text(row.get("split")), config, label
    if config is None or emotion is None or term is None:
        raise InputError(
            f"an EEC {row['metric']} record lacks its "
            "config, emotion or term: not one of this run's"
        )
    return config, SINGLE_SPLIT, eec_task_id(config, emotion), effect_name(row)


def _text(value) -> str | None:
    return None if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def card_arguments(row: pd.Series) -> dict | None:
    """``eec_bias``'s ``compute()`` arguments behind an effect: the reference levels the record
    names."""
    if row["metric"] != EFFECT_METRIC:
        return None
    group_levels, gender_levels = row.get("group_levels"), row.get("gender_levels")
    if not isinstance(group_levels, list | tuple) or not isinstance(gender_levels, list | tuple):
        return None
    return {
        "reference_group": group_levels[0],
        "reference_gender": gender_levels[0],
        "use_t": row.get("statistic_kind") == "t",
    }


def card_verdict_notes(row: pd.Series, rows: pd.DataFrame) -> str:
    """What a card number's notes add: an effect's verdict at its margin (the one rule,
    :mod:`.verdicts`)."""
    if row.get("metric") != EFFECT_METRIC:
        return ""
    return f"verdict: {effect_verdict(row).words()}"


def card_body(results: pd.DataFrame, model: str, min_regressor_r: float) -> list:
    """The EEC's part of a model card's "Bias evaluation" section for ``model``: the report's
    sentence on it (the answer first), its verdict table (per language and identity dimension), the
    method in three sentences with the margin, and what was not measured."""
    own = results[results["model"] == model]
    table = verdict_table(own)
    if table.empty:
        return []
    poor = own[(own["metric"] == EFFECT_METRIC) & (own["verdict"] == "not measured")]
    unmeasured = sorted({f"{row.language} {row.emotion}" for row in poor.itertuples()})
    return [
        *[Paragraph(sentence) for sentence in model_sentences(own)],
        Table(
            table.drop(columns="model"),
            f"{model}: verdict per language: EEC effects on the 0-1 intensity scale counted "
            "as beyond / within / undecided per identity dimension at the margin ±δ "
            "(beyond: the 95% CI lies wholly outside ±δ; within: two one-sided tests at ±δ)",
        ),
        Paragraph(method_sentences(min_regressor_r)),
        Paragraph(
            "Not measured: " + ", ".join(unmeasured) + "."
            if unmeasured
            else "Every EEC effect of this model was measured (no "
            "poor regressor, no judge that was not answering)."
        ),
    ]


class EECSection(ReportSection):
    """The EEC method's section (module docstring)."""

    suite = EEC_SUITE
    order = 10
    flags = (
        Flag("poor_regressor", POOR_MARK),
        Flag(
            "loses_under_clustering",
            f"{CLUSTER_MARK} not significant clustered by template",
            mark=CLUSTER_MARK,
            legend="{mark} p ≤ {alpha:g} with model-based standard "
            "errors but not with template-clustered ones.",
        ),
        Flag(
            FRAGILE_COLUMN,
            f"{FRAGILE_MARK} fragile under other templates, names, prompts or seeds",
            mark=FRAGILE_MARK,
            legend=FRAGILE_LEGEND,
        ),
    )
    shown_metrics = SHOWN_METRICS
    findings_exclusions = ("the regressors' Pearson r", "the Beta-regression intercepts")
    findings_counting = (
        "an EEC fit counts its three coefficients and its seven "
        "effects on the intensity scale (a fit of another design, "
        "every coefficient but the intercept and every effect)",
    )
    findings_p_values = {"p_clustered": "clustered_p_value"}
    card_metrics = {
        EFFECT_METRIC: CardMetric(
            "text-classification",
            "Emotion-intensity bias (EEC, effect on the 0-1 intensity scale)",
            "eec_bias",
            "effect",
        ),
        QUALITY_METRIC: CardMetric(
            "text-classification",
            "Emotion-intensity regression",
            "pearsonr",
            "Pearson r",
            with_p_value=False,
        ),
    }
    dataset_titles = {
        "eec": "Equity Evaluation Corpora",
        QUALITY_DATASET: "SemEval-2018 Affect in Tweets",
    }
    options = {MIN_R_OPTION: MIN_REGRESSOR_R}

    def shows(self, results: pd.DataFrame) -> pd.Series:
        # A Pearson r is shown as a regressor's quality whichever suite wrote it.
        return super().shows(results) | (results["metric"] == QUALITY_METRIC)

    def not_a_finding(self, rows: pd.DataFrame) -> pd.Series:
        return (rows["metric"] == QUALITY_METRIC) | (rows["term"] == "intercept")

    def annotate(self, results: pd.DataFrame, settings: ReportSettings) -> pd.DataFrame:
        annotated = flag_clustering(
            flag_poor_regressors(results, self.option(settings, MIN_R_OPTION)), settings.alpha
        )
        return with_verdicts(flag_fragile(annotated, settings.alpha), settings.alpha)

    def findings_notes(self, results: pd.DataFrame, settings: ReportSettings) -> list:
        return clustering_notes(results, settings) + fragile_notes(results, settings)

    def findings_columns(self, rows: pd.DataFrame) -> dict[str, pd.Series]:
        return findings_stability_column(rows)

    def sections(self, results: pd.DataFrame, settings: ReportSettings) -> list[Section]:
        found = [
            eec_section(results, settings),
            regressor_section(results, self.option(settings, MIN_R_OPTION)),
        ]
        return [section for section in found if section is not None]

    def card_rows(self, rows: pd.DataFrame) -> pd.DataFrame:
        quality = rows[rows["metric"] == QUALITY_METRIC]
        if "split" in quality.columns:
            quality = quality[(quality["split"] == "test") | quality["split"].isna()]
        return pd.concat([headline_effects(rows), quality])

    def card_body(self, results: pd.DataFrame, model: str) -> list:
        return card_body(results, model, self.options[MIN_R_OPTION])

    card_where = staticmethod(card_where)
    card_arguments = staticmethod(card_arguments)
    card_notes = staticmethod(card_verdict_notes)

    def summary(self, results: pd.DataFrame, settings: ReportSettings) -> list:
        quality, validity = regressor_quality(results), judge_validity(results)
        min_r = self.option(settings, MIN_R_OPTION)
        return eec_summary(
            results, min_r, quality, validity, MIN_NUMERAL_MASS, settings.sections, settings.alpha
        )

    def benchmarks(self) -> tuple[Benchmark, ...]:
        return (EEC_BENCHMARK,)


SECTION = EECSection()
