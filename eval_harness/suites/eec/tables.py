"""The EEC method's tables for the report, from a run's annotated results: the paper's coefficient
tables per EEC (Tables 3-5), the effects on the intensity scale, the cell means, what each
coefficient compares, the covariance in words, and the regressors' Pearson r (Table 2). Cells are
display strings, marked as every table of the report is
(:func:`eval_harness.report.kit.tables.marked_value`). An EEC of another design than the paper's 2 x
2 (more groups or genders, more factors: :func:`~.records.beta_regression_records`) has a column per
coefficient, headed by what it compares (:func:`term_label`, the one labeller of both designs)."""

from __future__ import annotations

import re

import pandas as pd

from ...contract.records import TESTED_POOLINGS
from ...report.kit.method_section import KnownSections
from ...report.kit.tables import format_number, marked_value
from ...stats.estimands import ESTIMANDS
from .wording import gender_people

EEC_SUITE = "eec"
EEC_METRIC = "estimate"
EFFECT_METRIC = "effect"
QUALITY_METRIC = "pearson_r"
BIAS_TERMS = (
    "group",
    "gender",
    "group:gender",
)  # the 2 x 2 design's; bias_terms() gives any design's
INTERCEPT = "intercept"
CLUSTER_MARK = "§"
POOR_MARK = "(poor r)"
# A factorial coefficient's parts, factor[level] (stats.factorial's names:
# group[Arab]:gender[non-binary]).
LEVELLED = re.compile(r"([^:\[\]]+)\[([^\]]*)\]")


def _levels(row: pd.Series, column: str, default: tuple[str, str]) -> tuple[str, str]:
    """``(reference, other)`` levels recorded on the row, else ``default``."""
    levels = row.get(column)
    if isinstance(levels, list | tuple) and len(levels) == 2:
        return str(levels[0]), str(levels[1])
    return default


def group_levels(row: pd.Series) -> tuple[str, str]:
    return _levels(row, "group_levels", ("reference group", "minority group"))


def gender_levels(row: pd.Series) -> tuple[str, str]:
    return _levels(row, "gender_levels", ("male", "female"))


def factor_levels(row: pd.Series) -> dict[str, list[str]]:
    """A factorial record's ``factor_levels`` (factor -> levels, reference first), or ``{}`` for a 2
    x 2 one."""
    levels = row.get("factor_levels")
    return dict(levels) if isinstance(levels, dict) else {}


def bias_terms(rows: pd.DataFrame) -> list[str]:
    """The coefficient terms of ``rows`` but the intercept, in record order (the 2 x 2 design's
    ``BIAS_TERMS``)."""
    return [
        term for term in dict.fromkeys(rows["term"]) if isinstance(term, str) and term != INTERCEPT
    ]


def term_label(term: str, row: pd.Series) -> str:
    """A column header that says what the coefficient compares and conditions on, with the level
    names: ``Arab vs Anglo, among men`` (a main effect holds the factors it interacts with at their
    reference), ``women vs men, within Anglo``, ``non-binary people vs men, within Anglo``, ``Arab ×
    women (interaction)``.

    ``term`` is a factorial coefficient's name (``group[Arab]:gender[female]``), whose levels are
    its own, or one of the paper's 2 x 2 terms (``group``, ``gender``, ``group:gender``), which
    contrast the row's ``group_levels`` and ``gender_levels`` (coded-1 level against the reference);
    another term (the intercept) is its own label.
    """
    levels = factor_levels(row) or {
        "group": list(group_levels(row)),
        "gender": list(gender_levels(row)),
    }
    parts = LEVELLED.findall(term)
    if not parts:
        if not all(factor in levels for factor in term.split(":")):
            return term
        parts = [(factor, levels[factor][1]) for factor in term.split(":")]
    if len(parts) > 1:
        return (
            " × ".join(gender_people(level) if f == "gender" else level for f, level in parts)
            + " (interaction)"
        )
    ((factor, level),) = parts
    reference = levels.get(factor, ["the reference"])[0]
    if factor == "gender":
        level, reference = gender_people(level), gender_people(reference)
    order = row.get("order")
    saturated = (
        len(levels) if order is None or pd.isna(order) else int(order)
    )  # the paper's 2 x 2 is saturated
    held = [name for name in levels if name != factor] if saturated > 1 else []
    where = [level_words(name, levels[name][0]) for name in held]
    return f"{level} vs {reference}" + (f", {', '.join(where)}" if where else "")


def level_words(factor: str, level: str) -> str:
    """A factor held at a level, in words: ``among men``, ``among non-binary people``, ``within
    Anglo``, ``age young``."""
    if factor == "gender":
        return f"among {gender_people(level)}"
    if factor == "group":
        return f"within {level}"
    return f"{factor} {level}"


def eec_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The Beta-regression coefficient rows of the EEC suite (intercept included)."""
    return results[(results["suite"] == EEC_SUITE) & (results["metric"] == EEC_METRIC)]


def _term_lines(coefficients: pd.DataFrame, cell) -> dict[str, list[tuple[dict, pd.DataFrame]]]:
    """Per EEC: one line per emotion x model, a column per bias term (headed by :func:`term_label`)
    holding ``cell(row)`` of that term's coefficient row; each line with its coefficient rows."""
    lines: dict[str, list[tuple[dict, pd.DataFrame]]] = {}
    for config, rows in coefficients.groupby("config", sort=True):
        first, terms, lines[config] = rows.iloc[0], bias_terms(rows), []
        for (emotion, model), cell_rows in rows.groupby(["emotion", "model"], sort=True):
            by_term = {row["term"]: row for _, row in cell_rows.iterrows()}
            line = {"emotion": emotion, "model": model}
            for term in terms:
                line[term_label(term, first)] = cell(by_term[term]) if term in by_term else ""
            lines[config].append((line, cell_rows))
    return lines


def eec_coefficient_tables(results: pd.DataFrame, known: KnownSections) -> dict[str, pd.DataFrame]:
    """One table per EEC (the paper's Tables 3-5): rows emotion x model, columns the three bias
    terms.

    Cells are the logit-scale coefficients with stars and multiple-testing marks (the ``known``
    sections'); the ``regressor r`` column carries the regressor's test Pearson r, marked when poor.
    """
    tables = {}
    for config, lines in _term_lines(
        eec_rows(results), lambda row: marked_value(row, known)
    ).items():
        body = []
        for line, cell_rows in lines:
            any_row = cell_rows.iloc[0]
            r = any_row.get("regressor_r")
            line["regressor r"] = (
                ""
                if r is None or pd.isna(r)
                else (f"{r:.2f}" + (f" {POOR_MARK}" if bool(any_row.get("poor_regressor")) else ""))
            )
            body.append(line)
        tables[config] = pd.DataFrame(body)
    return tables


def standard_error_cell(row: pd.Series) -> str:
    """``0.041 (23% seeds)``: a coefficient's standard error and, pooled over seeds, the share of
    its square that is between-seed variance (``between_seed_share``: training noise); the standard
    error alone with one seed."""
    std_err = row.get("std_err")
    if std_err is None or pd.isna(std_err):
        return ""
    share = row.get("between_seed_share")
    return format_number(std_err) + (
        "" if share is None or pd.isna(share) else f" ({share:.0%} seeds)"
    )


def eec_standard_error_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per EEC: rows emotion x model, a column per bias term, each cell :func:`standard_error_cell`
    (the reported standard error, and how much of it the training seeds contribute)."""
    return {
        config: pd.DataFrame([line for line, _ in lines])
        for config, lines in _term_lines(eec_rows(results), standard_error_cell).items()
    }


def eec_cell_mean_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per EEC: the observed mean intensity of each group x gender cell (the regression's prediction
    in brackets)."""
    rows = results[(results["suite"] == EEC_SUITE) & (results["metric"] == "cell_mean")]
    if rows.empty:
        return {}
    predicted = (
        rows["predicted_mean"]
        if "predicted_mean" in rows.columns
        else pd.Series(float("nan"), rows.index)
    )
    cells = rows.assign(
        cell=[
            format_number(value) + (f" ({format_number(fitted)})" if pd.notna(fitted) else "")
            for value, fitted in zip(rows["value"], predicted, strict=True)
        ]
    )
    tables = {}
    for config, group in cells.groupby("config", sort=True):
        table = group.pivot_table(
            index=["emotion", "model"], columns="term", values="cell", aggfunc="first", sort=False
        )
        table.columns.name = None
        tables[config] = table.fillna("").reset_index()
    return tables


def eec_effect_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The EEC effect records: differences of predicted intensity, each with its own delta-method
    test."""
    return results[(results["suite"] == EEC_SUITE) & (results["metric"] == EFFECT_METRIC)]


def eec_effect_tables(results: pd.DataFrame, known: KnownSections) -> dict[str, pd.DataFrame]:
    """Per EEC: rows emotion x model, a column per effect (headed by the record's contrast), each
    cell the effect on the predicted-intensity scale with its own stars and marks."""
    effects = eec_effect_rows(results)
    tables = {}
    for config, rows in effects.groupby("config", sort=True):
        names = list(dict.fromkeys(rows["term"]))
        headers = {name: str(rows.loc[rows["term"] == name, "contrast"].iloc[0]) for name in names}
        tables[config] = marked_effects_table(rows, headers, known)
    return tables


def marked_effects_table(
    rows: pd.DataFrame, headers: dict[str, str], known: KnownSections
) -> pd.DataFrame:
    """Rows emotion x model, a column per effect (``headers``: term -> column title, in order), each
    cell the record's value with its stars and marks (the ``known`` sections'; empty where the model
    has no such record)."""
    body = []
    for (emotion, model), cell_rows in rows.groupby(["emotion", "model"], sort=True):
        by_name = {row["term"]: row for _, row in cell_rows.iterrows()}
        line = {"emotion": emotion, "model": model}
        line.update(
            {
                title: marked_value(by_name[name], known) if name in by_name else ""
                for name, title in headers.items()
            }
        )
        body.append(line)
    return pd.DataFrame(body)


def coefficient_contrasts(results: pd.DataFrame, config: str) -> list[str]:
    """``group: logit difference, Arab vs Anglo, among men (the reference gender)``, ...: what each
    bias coefficient of one EEC compares, in the records' own words."""
    rows = eec_rows(results)
    rows = rows[(rows["config"] == config) & (rows["term"] != INTERCEPT)]
    if "contrast" not in rows.columns:
        return []
    contrasts = (
        rows.dropna(subset=["contrast"]).drop_duplicates("term").set_index("term")["contrast"]
    )
    return [
        f"{term_label(term, rows.iloc[0])}: {contrasts[term]}"
        for term in bias_terms(rows)
        if term in contrasts
    ]


def covariance_description(results: pd.DataFrame) -> str:
    """Which covariance the EEC standard errors are, and which tests, in words (from the records'
    ``cov_type``, ``cluster_by``, ``statistic_kind`` and ``df``; pooled seeds named as such)."""
    rows = eec_rows(results)
    rows = rows[rows["term"] != INTERCEPT]
    if rows.empty or "cov_type" not in rows.columns:
        return ""
    parts = []
    for cov_type, fits in rows.groupby(rows["cov_type"].fillna("model"), sort=True):
        if cov_type == "cluster":
            by = fits["cluster_by"].dropna().map(lambda names: " and ".join(names)).unique()
            what = f"cluster-robust (CR1 sandwich, clustered by {', '.join(by) or 'template'})"
        else:
            what = "model-based (inverse expected information, as in the paper and R betareg)"
        kinds = fits.get("statistic_kind", pd.Series("z", index=fits.index)).fillna("z")
        pooling = (
            fits["pooling"]
            if "pooling" in fits.columns
            else pd.Series(None, index=fits.index, dtype=object)
        )
        pooled = pooling.isin(list(TESTED_POOLINGS))
        dfs = sorted({int(df) for df in fits.loc[(kinds == "t") & ~pooled, "df"].dropna()})
        tests = []
        if ((kinds == "z") & ~pooled).any():
            tests.append("z tests")
        if dfs:
            tests.append(f"t tests with {', '.join(map(str, dfs))} degrees of freedom")
        tests += [
            f"({estimand.label}) t tests with {estimand.df_rule} degrees of freedom"
            for estimand in ESTIMANDS.values()
            if pooling.eq(estimand.pooling).any()
        ]
        n_fits = len(fits.drop_duplicates(["model", "config", "emotion"]))
        parts.append(
            f"{what} for {n_fits} fit{'s' if n_fits != 1 else ''}, with {' and '.join(tests)}"
        )
    text = "Reported standard errors: " + "; ".join(parts) + "."
    if "clustered_p_value" in rows.columns and rows["clustered_p_value"].notna().any():
        text += (
            " Every coefficient and effect also carries its template-clustered "
            "test (clustered_std_err and clustered_p_value in results.csv): "
            f"{CLUSTER_MARK} marks what loses significance with it."
        )
    return text


def regressor_quality_table(results: pd.DataFrame) -> pd.DataFrame:
    """Pearson r of each emotion regressor (the paper's Table 2): rows model, with its head, and
    columns language: emotion."""
    quality = results[results["metric"] == "pearson_r"]
    if "split" in quality.columns and (quality["split"] == "test").any():
        quality = quality[quality["split"] == "test"]
    if quality.empty:
        return pd.DataFrame()
    table = quality.pivot_table(
        index="model", columns=["language", "emotion"], values="value", aggfunc="mean"
    )
    language_order = list(dict.fromkeys(quality["language"]))
    table = table[
        sorted(table.columns, key=lambda column: (language_order.index(column[0]), column[1]))
    ]
    table.columns = [f"{language}: {emotion}" for language, emotion in table.columns]
    table = table.map(lambda r: format_number(r, 2)).reset_index()
    heads = [model_head(quality[quality["model"] == model]) for model in table["model"]]
    table.insert(1, "head", heads)
    return table


def model_head(quality: pd.DataFrame) -> str:
    """The regression head a model's regressors fitted, as their Pearson r records name it
    (``selected``); empty for a model that fits none (a classifier, a zero-shot judge)."""
    selected = quality["selected"] if "selected" in quality.columns else []
    heads = {chosen["head"] for chosen in selected if isinstance(chosen, dict) and "head" in chosen}
    return ", ".join(sorted(heads))
