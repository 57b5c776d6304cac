"""The report's tables, built from a run's annotated results (see :func:`findings.annotate`).

Each builder takes the long-format results and returns flat :class:`pandas.DataFrame`
objects of display strings (the raw numbers go to the CSV). Significance is marked
the paper's way, from the record's ``stars`` when present, else from its p-value
(:func:`eval_harness.stats.betareg.significance_stars`: ``***`` p <= 0.01, ``**`` p <= 0.05,
``*`` p <= 0.10); ``†`` marks a finding that survives Holm over the whole run and ``‡``
one that survives only Benjamini-Hochberg.
"""

from __future__ import annotations

import math

import pandas as pd

from ..errors import InputError
from ..stats.betareg import significance_stars

EEC_SUITE = "eec"
EEC_METRIC = "estimate"
BIAS_TERMS = ("group", "gender", "group:gender")
XWEAT_SUITE = "xweat"
GENDER_SPACE_SUITE = "gender_space"
EXPLAINED_VARIANCE_METRICS = ("explained_variance_ratio", "baseline_explained_variance_ratio")
GENDER_SPACE_ROWS = ["model", "language", "config"]
HOLM_MARK = "†"
BH_ONLY_MARK = "‡"
POOR_MARK = "(poor r)"
SIGNIFICANCE_LEGEND = (
    "Stars: *** p ≤ 0.01, ** p ≤ 0.05, * p ≤ 0.10 (unadjusted). "
    f"{HOLM_MARK} survives Holm (family-wise error 0.05) over every test of the run; "
    f"{BH_ONLY_MARK} survives Benjamini-Hochberg (false discovery rate 0.05) but not Holm."
)


def label_seeds(results: pd.DataFrame) -> pd.DataFrame:
    """When the run has several seeds, name each model's seed in its label (``minilm (seed 1)``)."""
    if "seed" not in results.columns or results["seed"].nunique() < 2:
        return results
    labels = [
        model if pd.isna(seed) else f"{model} (seed {int(seed)})"
        for model, seed in zip(results["model"], results["seed"], strict=True)
    ]
    return results.assign(model=labels)


def format_number(value, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; an empty string for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.{digits}f}"


def format_p(p_value) -> str:
    """A p-value: 3 significant digits, scientific below 0.001, empty when missing."""
    if p_value is None or (isinstance(p_value, float) and math.isnan(p_value)):
        return ""
    return f"{p_value:.2e}" if p_value < 0.001 else f"{p_value:.3f}"


def stars_of(row: pd.Series) -> str:
    """The row's significance stars (recorded, else from its p-value)."""
    stars = row.get("stars")
    if isinstance(stars, str):
        return stars
    p_value = row.get("p_value")
    return "" if p_value is None or pd.isna(p_value) else significance_stars(float(p_value))


def survival_mark(row: pd.Series) -> str:
    """``†`` when the row survives Holm, ``‡`` when it survives only BH, else ``""``."""
    if bool(row.get("survives_holm", False)):
        return HOLM_MARK
    return BH_ONLY_MARK if bool(row.get("survives_bh", False)) else ""


def marked_value(row: pd.Series, digits: int = 3) -> str:
    """``-0.120***†``: the value with its stars and multiple-testing mark (``skipped`` for a skipped test)."""
    if pd.isna(row["value"]) and row.get("status") == "skipped":
        return "skipped"
    return f"{format_number(row['value'], digits)}{stars_of(row)}{survival_mark(row)}"


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


def term_label(term: str, row: pd.Series) -> str:
    """A column header naming the levels: ``African-American (vs European)``, ``female (vs male)``, ..."""
    reference_group, minority = group_levels(row)
    reference_gender, other_gender = gender_levels(row)
    return {
        "group": f"{minority} (vs {reference_group})",
        "gender": f"{other_gender} (vs {reference_gender})",
        "group:gender": f"{minority} × {other_gender}",
    }.get(term, term)


def eec_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The Beta-regression coefficient rows of the EEC suite (intercept included)."""
    return results[(results["suite"] == EEC_SUITE) & (results["metric"] == EEC_METRIC)]


def eec_coefficient_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One table per EEC (the paper's Tables 3-5): rows emotion x model, columns the three bias terms.

    Cells are the logit-scale coefficients with stars and multiple-testing marks; the
    ``regressor r`` column carries the regressor's test Pearson r, marked when poor.
    """
    coefficients = eec_rows(results)
    tables = {}
    for config, rows in coefficients.groupby("config", sort=True):
        first = rows.iloc[0]
        body = []
        for (emotion, model), cell_rows in rows.groupby(["emotion", "model"], sort=True):
            by_term = {row["term"]: row for _, row in cell_rows.iterrows()}
            line = {"emotion": emotion, "model": model}
            for term in BIAS_TERMS:
                line[term_label(term, first)] = marked_value(by_term[term]) if term in by_term else ""
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


def eec_cell_mean_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per EEC: the observed mean intensity of each group x gender cell (the regression's prediction in brackets)."""
    rows = results[(results["suite"] == EEC_SUITE) & (results["metric"] == "cell_mean")]
    if rows.empty:
        return {}
    predicted = rows["predicted_mean"] if "predicted_mean" in rows.columns else pd.Series(float("nan"), rows.index)
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


EMOTION_ADJECTIVES = {"anger": "angry", "fear": "afraid", "joy": "joyful", "sadness": "sad", "valence": "positive"}


def _people(level: str, gender_term: bool) -> str:
    if gender_term:
        return {"female": "women", "male": "men"}.get(level, level)
    return f"{level} people"


def marginal_effect_sentence(row: pd.Series) -> str:
    """One bias coefficient in plain words, on the predicted-intensity scale.

    ``group``/``gender``: the average change in predicted intensity when the person is
    of the minority group / the other gender, all else equal. ``group:gender``: the
    difference-in-differences -- how far the minority-women cell departs from what the
    group and gender differences add up to.
    """
    effect = float(row["marginal_effect"])
    adjective = EMOTION_ADJECTIVES.get(row["emotion"], f"high in {row['emotion']}")
    direction = "more" if effect > 0 else "less"
    amount = f"{abs(effect):.3f} {direction} {adjective}"
    reference_group, minority = group_levels(row)
    reference_gender, other_gender = gender_levels(row)
    term = row["term"]
    if term == "group":
        claim = f"sentences about {_people(minority, False)} are predicted {amount} than about {reference_group} people"
    elif term == "gender":
        claim = (
            f"sentences about {_people(other_gender, True)} are predicted {amount} "
            f"than about {_people(reference_gender, True)}"
        )
    else:
        claim = (
            f"sentences about {minority} {_people(other_gender, True)} are predicted {amount} "
            "than the group and gender differences add up to"
        )
    verdict = (
        "survives Holm"
        if bool(row.get("survives_holm"))
        else "survives Benjamini-Hochberg only"
        if bool(row.get("survives_bh"))
        else "does not survive multiple-testing control"
    )
    caution = " Caution: the regressor's Pearson r is poor." if bool(row.get("poor_regressor")) else ""
    return f"{row['model']}, {row['emotion']}: {claim} (p = {format_p(row['p_value'])}, {verdict}).{caution}"


def marginal_effect_sentences(results: pd.DataFrame, max_p: float = 0.10) -> dict[str, list[str]]:
    """Per EEC, the plain-words sentences of the bias terms with p <= ``max_p``, strongest first."""
    rows = eec_rows(results)
    rows = rows[rows["term"].isin(BIAS_TERMS) & (rows["p_value"] <= max_p)]
    if "marginal_effect" not in rows.columns:
        return {}
    rows = rows[rows["marginal_effect"].notna()].sort_values("p_value")
    return {
        config: [marginal_effect_sentence(row) for _, row in group.iterrows()]
        for config, group in rows.groupby("config", sort=True)
    }


def regressor_quality_table(results: pd.DataFrame) -> pd.DataFrame:
    """Pearson r of each emotion regressor (the paper's Table 2): rows model, columns language: emotion."""
    quality = results[results["metric"] == "pearson_r"]
    if "split" in quality.columns and (quality["split"] == "test").any():
        quality = quality[quality["split"] == "test"]
    if quality.empty:
        return pd.DataFrame()
    table = quality.pivot_table(index="model", columns=["language", "emotion"], values="value", aggfunc="mean")
    language_order = list(dict.fromkeys(quality["language"]))
    table = table[sorted(table.columns, key=lambda column: (language_order.index(column[0]), column[1]))]
    table.columns = [f"{language}: {emotion}" for language, emotion in table.columns]
    return table.map(lambda r: format_number(r, 2)).reset_index()


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


def xweat_effect_table(results: pd.DataFrame, model: str) -> pd.DataFrame:
    """One model's monolingual XWEAT effect sizes: rows test, columns language, significance marked."""
    rows = xweat_monolingual(results)
    rows = rows[rows["model"] == model]
    return _test_by_language(rows, marked_value)


def xweat_skipped(results: pd.DataFrame) -> list[str]:
    """One line per XWEAT test the coverage rule skipped, with its reason."""
    if "status" not in results.columns:
        return []
    rows = xweat_monolingual(results)
    rows = pd.concat(
        [
            rows,
            results[
                (results["suite"] == XWEAT_SUITE) & (results["metric"] == "effect_size") & _is_cross_lingual(results)
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
    rows = results[(results["suite"] == XWEAT_SUITE) & (results["metric"] == "coverage") & (results["model"] == model)]
    return _test_by_language(rows[~_is_cross_lingual(rows)], lambda row: f"{row['value']:.0%}")


def _test_by_language(rows: pd.DataFrame, cell) -> pd.DataFrame:
    if rows.empty:
        return pd.DataFrame()
    cells = rows.assign(cell=[cell(row) for _, row in rows.iterrows()])
    table = cells.pivot_table(index="test", columns="language", values="cell", aggfunc="first", sort=False)
    table.columns.name = None
    table = table.reindex(sorted(table.index, key=natural_order))
    return table.fillna("").reset_index()


def natural_order(label: str) -> tuple:
    """Sort key that puts ``T2`` before ``T10`` and ``pc2`` before ``pc10``."""
    digits = "".join(ch for ch in str(label) if ch.isdigit())
    return (int(digits) if digits else math.inf, str(label))


def xweat_cross_lingual_matrices(results: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
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
        languages = sorted(set(cross_rows["targets_language"]) | set(cross_rows["attributes_language"]))
        diagonal = monolingual[
            (monolingual["model"] == model) & (monolingual["test"] == test) & monolingual["language"].isin(languages)
        ]
        cells = pd.concat([cross_rows, diagonal])
        cells = cells.assign(cell=[marked_value(row) for _, row in cells.iterrows()])
        table = cells.pivot_table(
            index="targets_language", columns="attributes_language", values="cell", aggfunc="first"
        ).reindex(index=languages, columns=languages)
        table.index.name = "targets \\ attributes"
        table.columns.name = None
        matrices[model, test] = table.fillna("").reset_index()
    return dict(sorted(matrices.items(), key=lambda item: (item[0][0], natural_order(item[0][1]))))


def gender_space_table(results: pd.DataFrame) -> pd.DataFrame:
    """The gender-space measures other than the explained-variance curve: rows model x language x mode
    (the dataset config: static or contextual vectors)."""
    rows = results[(results["suite"] == GENDER_SPACE_SUITE) & ~results["metric"].isin(EXPLAINED_VARIANCE_METRICS)]
    if rows.empty:
        return pd.DataFrame()
    cells = rows.assign(cell=[marked_value(row) for _, row in rows.iterrows()])
    table = cells.pivot_table(index=GENDER_SPACE_ROWS, columns="metric", values="cell", aggfunc="first")
    table.columns.name = None
    return table.fillna("").reset_index().rename(columns={"config": "mode"})


def explained_variance_table(results: pd.DataFrame) -> pd.DataFrame:
    """Share of variance of the definitional-pair differences along the first components, vs random pairs."""
    rows = results[(results["suite"] == GENDER_SPACE_SUITE) & results["metric"].isin(EXPLAINED_VARIANCE_METRICS)]
    if rows.empty:
        return pd.DataFrame()
    table = rows.pivot_table(index=[*GENDER_SPACE_ROWS, "metric"], columns="term", values="value", aggfunc="first")
    table = table[sorted(table.columns, key=natural_order)]
    table.columns.name = None
    return table.map(lambda v: format_number(v, 3)).reset_index().rename(columns={"config": "mode"})


FINDING_COLUMNS = ["model", "suite", "language", "config", "emotion", "test", "term", "metric"]


def findings_table(results: pd.DataFrame, which: str = "all") -> pd.DataFrame:
    """The findings (see :mod:`findings`) sorted by p-value, with raw, Holm and BH p-values.

    ``which``: ``"all"`` findings, those that survive ``"holm"``, or those that survive
    Benjamini-Hochberg but not Holm (``"bh_only"``).
    """
    selections = {
        "all": results["p_holm"].notna(),
        "holm": results["survives_holm"],
        "bh_only": results["survives_bh"] & ~results["survives_holm"],
    }
    if which not in selections:
        raise InputError(f"unknown findings selection {which!r}; choose from {list(selections)}")
    rows = results[selections[which]].sort_values("p_value", kind="stable")
    table = rows[FINDING_COLUMNS].astype(object).where(rows[FINDING_COLUMNS].notna(), "")
    table = table.assign(
        value=[marked_value(row) for _, row in rows.iterrows()],
        p=rows["p_value"].map(format_p),
        p_holm=rows["p_holm"].map(format_p),
        p_bh=rows["p_bh"].map(format_p),
        flag=[POOR_MARK if bool(flag) else "" for flag in rows.get("poor_regressor", pd.Series(False, rows.index))],
    )
    # Drop columns empty for every shown row (e.g. `test` when only EEC findings survive).
    return table.loc[:, [c for c in table.columns if (table[c] != "").any()]].reset_index(drop=True)


# The suites' records; the report shows all but the EEC precision (log_phi) and the WEAT statistic
# (its effect size is shown), which stay in the CSV.
EEC_METRICS = (EEC_METRIC, "cell_mean", "log_phi")
# The xweat suite's other association measures, shown by report/association.py.
ASSOCIATION_METRICS = ("rnd", "mac", "ect", "ripa", "rnsb", "seat", "ceat")
XWEAT_METRICS = ("effect_size", "statistic", "coverage", *ASSOCIATION_METRICS)


def covered_mask(results: pd.DataFrame) -> pd.Series:
    """True for the records some section of the report shows (or knowingly leaves to the CSV)."""
    return (
        ((results["suite"] == EEC_SUITE) & results["metric"].isin(EEC_METRICS))
        | (results["metric"] == "pearson_r")
        | ((results["suite"] == XWEAT_SUITE) & results["metric"].isin(XWEAT_METRICS))
        | (results["suite"] == GENDER_SPACE_SUITE)
    )


def other_results_table(results: pd.DataFrame) -> pd.DataFrame:
    """Records no section shows (a new suite or metric), as a plain long table."""
    rows = results[~covered_mask(results)]
    if rows.empty:
        return pd.DataFrame()
    columns = [c for c in (*FINDING_COLUMNS, "value", "std_err", "p_value") if rows[c].notna().any()]
    return rows[columns].astype(object).where(rows[columns].notna(), "").reset_index(drop=True)
