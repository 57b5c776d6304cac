"""The report's tables, built from a run's annotated results (see :func:`findings.annotate`).

Each builder takes the long-format results and returns flat :class:`pandas.DataFrame`
objects of display strings (the raw numbers go to the CSV). Significance is marked
the paper's way, from the record's ``stars`` when present, else from its p-value
(:func:`eval_harness.stats.significance.significance_stars`: ``***`` p <= 0.01, ``**`` p <= 0.05,
``*`` p <= 0.10); ``†`` marks a finding that survives Holm within its multiple-testing family
and ``‡`` one that survives only Benjamini-Hochberg; ``§`` one that is significant with
model-based standard errors but not once clustered by template; ``‖`` a WEAT effect size whose
bootstrap interval spans 0 although its permutation p is small. With several seeds a pooled
number is followed by ``±`` its between-seed SD.
"""

from __future__ import annotations

import math

import pandas as pd

from ..errors import InputError
from ..stats.significance import significance_stars
from .findings import ALPHA, DEFAULT_FAMILY, FAMILY_WORDS

EEC_SUITE = "eec"
EEC_METRIC = "estimate"
EFFECT_METRIC = "effect"
BIAS_TERMS = ("group", "gender", "group:gender")
XWEAT_SUITE = "xweat"
GENDER_SPACE_SUITE = "gender_space"
EXPLAINED_VARIANCE_METRICS = ("explained_variance_ratio", "baseline_explained_variance_ratio")
GENDER_SPACE_ROWS = ["model", "language", "config"]
HOLM_MARK = "†"
BH_ONLY_MARK = "‡"
CLUSTER_MARK = "§"
BOOTSTRAP_MARK = "‖"
POOR_MARK = "(poor r)"
PEOPLE = {"male": "men", "female": "women"}


def significance_legend(alpha: float = ALPHA, family: str = DEFAULT_FAMILY) -> str:
    """What the stars and marks of every table and figure mean."""
    return (
        "Stars: *** p ≤ 0.01, ** p ≤ 0.05, * p ≤ 0.10 (unadjusted). "
        f"{HOLM_MARK} survives Holm (family-wise error {alpha:g}) and {BH_ONLY_MARK} survives Benjamini-Hochberg "
        f"(false discovery rate {alpha:g}) but not Holm, the p-values adjusted {FAMILY_WORDS[family]}. "
        f"{CLUSTER_MARK} p ≤ {alpha:g} with model-based standard errors but not with template-clustered ones. "
        f"{BOOTSTRAP_MARK} permutation p ≤ {alpha:g} but the bootstrap 95 % interval of the effect size contains 0."
    )


def label_seeds(results: pd.DataFrame) -> pd.DataFrame:
    """When the run has several seeds, name the seed in the model label (``minilm (seed 1)``) of the rows
    still one per seed (those :func:`findings.pool_over_seeds` could not pool)."""
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
    """``†`` when the row survives Holm, ``‡`` when it survives only BH, then ``§`` when it loses significance
    under template clustering and ``‖`` when its bootstrap interval spans 0 (see the module docstring)."""
    mark = HOLM_MARK if bool(row.get("survives_holm", False)) else ""
    if not mark and bool(row.get("survives_bh", False)):
        mark = BH_ONLY_MARK
    if bool(row.get("loses_under_clustering", False)):
        mark += CLUSTER_MARK
    if bool(row.get("bootstrap_ci_spans_zero", False)):
        mark += BOOTSTRAP_MARK
    return mark


def seed_spread(row: pd.Series, digits: int = 3) -> str:
    """``" ±0.012"``: the between-seed SD of a number pooled over seeds; empty otherwise."""
    if row.get("pooling") not in ("rubin", "mean"):
        return ""
    return f" ±{row['between_seed_sd']:.{digits}f}"


def marked_value(row: pd.Series, digits: int = 3) -> str:
    """``-0.120***†``: the value with its stars and marks (``skipped`` for a skipped test), and the
    between-seed SD of a number pooled over seeds."""
    if pd.isna(row["value"]) and row.get("status") == "skipped":
        return "skipped"
    return f"{format_number(row['value'], digits)}{stars_of(row)}{survival_mark(row)}{seed_spread(row, digits)}"


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


def people(level: str) -> str:
    """``"men"`` for ``"male"``, ``"women"`` for ``"female"``, other levels as they are."""
    return PEOPLE.get(level, level)


def term_label(term: str, row: pd.Series) -> str:
    """A column header that says what the coefficient compares and conditions on, with the level names:
    ``African-American vs European, among men``, ``women vs men, within European``, ..."""
    reference_group, minority = group_levels(row)
    men, women = (people(level) for level in gender_levels(row))
    return {
        "group": f"{minority} vs {reference_group}, among {men}",
        "gender": f"{women} vs {men}, within {reference_group}",
        "group:gender": f"{minority} × {women} (interaction)",
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


def eec_effect_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The EEC effect records: differences of predicted intensity, each with its own delta-method test."""
    return results[(results["suite"] == EEC_SUITE) & (results["metric"] == EFFECT_METRIC)]


def eec_effect_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per EEC: rows emotion x model, a column per effect (headed by the record's contrast), each cell the
    effect on the predicted-intensity scale with its own stars and marks."""
    effects = eec_effect_rows(results)
    tables = {}
    for config, rows in effects.groupby("config", sort=True):
        names = list(dict.fromkeys(rows["term"]))
        headers = {name: str(rows.loc[rows["term"] == name, "contrast"].iloc[0]) for name in names}
        body = []
        for (emotion, model), cell_rows in rows.groupby(["emotion", "model"], sort=True):
            by_name = {row["term"]: row for _, row in cell_rows.iterrows()}
            line = {"emotion": emotion, "model": model}
            line.update({headers[name]: marked_value(by_name[name]) if name in by_name else "" for name in names})
            body.append(line)
        tables[config] = pd.DataFrame(body)
    return tables


def coefficient_contrasts(results: pd.DataFrame, config: str) -> list[str]:
    """``group: logit difference, Arab vs Anglo, among men (the reference gender)``, ...: what each bias
    coefficient of one EEC compares, in the records' own words."""
    rows = eec_rows(results)
    rows = rows[(rows["config"] == config) & rows["term"].isin(BIAS_TERMS)]
    if "contrast" not in rows.columns:
        return []
    contrasts = rows.dropna(subset=["contrast"]).drop_duplicates("term").set_index("term")["contrast"]
    return [f"{term_label(term, rows.iloc[0])}: {contrasts[term]}" for term in BIAS_TERMS if term in contrasts]


def covariance_description(results: pd.DataFrame) -> str:
    """Which covariance the EEC standard errors are, and which tests, in words (from the records'
    ``cov_type``, ``cluster_by``, ``statistic_kind`` and ``df``; pooled seeds named as such)."""
    rows = eec_rows(results)
    rows = rows[rows["term"].isin(BIAS_TERMS)]
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
        pooled = fits["pooling"].eq("rubin") if "pooling" in fits.columns else pd.Series(False, index=fits.index)
        dfs = sorted({int(df) for df in fits.loc[(kinds == "t") & ~pooled, "df"].dropna()})
        tests = []
        if ((kinds == "z") & ~pooled).any():
            tests.append("z tests")
        if dfs:
            tests.append(f"t tests with {', '.join(map(str, dfs))} degrees of freedom")
        if pooled.any():
            tests.append("(pooled over seeds) t tests with Rubin's degrees of freedom")
        n_fits = len(fits.drop_duplicates(["model", "config", "emotion"]))
        parts.append(f"{what} for {n_fits} fit{'s' if n_fits != 1 else ''}, with {' and '.join(tests)}")
    text = "Reported standard errors: " + "; ".join(parts) + "."
    if "clustered_p_value" in rows.columns and rows["clustered_p_value"].notna().any():
        text += (
            " Every coefficient and effect also carries its template-clustered test (clustered_std_err and "
            f"clustered_p_value in results.csv): {CLUSTER_MARK} marks what loses significance with it."
        )
    return text


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


def _has_interval(row: pd.Series) -> bool:
    low, high = row.get("ci_low"), row.get("ci_high")
    return low is not None and high is not None and not (pd.isna(low) or pd.isna(high))


def effect_size_cell(row: pd.Series) -> str:
    """``1.540***†‖ [-0.55, 1.87]``: a WEAT effect size, marked, with its bootstrap interval when there is one."""
    text = marked_value(row)
    return text + (f" [{row['ci_low']:.2f}, {row['ci_high']:.2f}]" if _has_interval(row) else "")


def xweat_effect_table(results: pd.DataFrame, model: str) -> pd.DataFrame:
    """One model's monolingual XWEAT effect sizes: rows test, columns language, significance marked, the
    bootstrap 95 % interval next to d."""
    rows = xweat_monolingual(results)
    rows = rows[rows["model"] == model]
    return _test_by_language(rows, effect_size_cell)


def influential_words(row: pd.Series) -> str:
    """``'rose' (X) -0.31; 'war' (A) +0.12``: the words whose removal moves d most, and by how much."""
    words = row.get("influential_words")
    if not isinstance(words, list):
        return ""
    return "; ".join(f"{word.get('word')!r} ({word.get('role')}) {word.get('change'):+.2f}" for word in words)


def xweat_uncertainty_table(results: pd.DataFrame, model: str) -> pd.DataFrame:
    """One model's WEAT tests (monolingual and cross-lingual), one row per test and language: d, its bootstrap
    interval and standard error, the permutation p and the words whose removal moves d most."""
    rows = results[(results["suite"] == XWEAT_SUITE) & (results["metric"] == "effect_size")]
    rows = rows[(rows["model"] == model) & rows["value"].notna()]
    if rows.empty or "ci_low" not in rows.columns:
        return pd.DataFrame()
    rows = rows.iloc[sorted(range(len(rows)), key=lambda i: (natural_order(rows["test"].iloc[i]), i))]
    table = pd.DataFrame(
        {
            "test": rows["test"].to_numpy(),
            "language": rows["language"].to_numpy(),
            "d": [marked_value(row) for _, row in rows.iterrows()],
            "95% bootstrap CI": [
                f"[{row['ci_low']:.2f}, {row['ci_high']:.2f}]" if _has_interval(row) else ""
                for _, row in rows.iterrows()
            ],
            "bootstrap SE": [format_number(row.get("bootstrap_std_err"), 3) for _, row in rows.iterrows()],
            "permutation p": rows["p_value"].map(format_p).to_numpy(),
            "words whose removal moves d most": [influential_words(row) for _, row in rows.iterrows()],
        }
    )
    return table.loc[:, [c for c in table.columns if (table[c] != "").any()]]


def xweat_fragile(results: pd.DataFrame) -> list[str]:
    """One line per WEAT test with a small permutation p whose bootstrap interval of d contains 0."""
    if "bootstrap_ci_spans_zero" not in results.columns:
        return []
    rows = results[results["bootstrap_ci_spans_zero"].fillna(False).astype(bool)]
    return [
        f"{row['model']}, {row['test']}, {row['language']}: d = {row['value']:.2f}, p = {format_p(row['p_value'])}, "
        f"95% bootstrap CI [{row['ci_low']:.2f}, {row['ci_high']:.2f}]"
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


def _flags(row: pd.Series) -> str:
    flags = [POOR_MARK] if bool(row.get("poor_regressor")) else []
    if bool(row.get("loses_under_clustering")):
        flags.append(f"{CLUSTER_MARK} not significant clustered by template")
    if bool(row.get("bootstrap_ci_spans_zero")):
        flags.append(f"{BOOTSTRAP_MARK} bootstrap CI of d contains 0")
    return "; ".join(flags)


def _share(value, n_seeds) -> str:
    if value is None or pd.isna(value) or n_seeds is None or pd.isna(n_seeds):
        return ""
    return f"{round(value * n_seeds)}/{int(n_seeds)}"


def findings_table(results: pd.DataFrame, which: str = "all") -> pd.DataFrame:
    """The findings (see :mod:`findings`) sorted by p-value, with raw, Holm and BH p-values, the
    template-clustered p-value, the flags, and (seeds pooled) how many seeds agree in sign and significance.

    ``which``: ``"all"`` findings, those that survive ``"holm"``, those that survive
    Benjamini-Hochberg but not Holm (``"bh_only"``), or those that lose significance under template
    clustering (``"clustering"``).
    """
    selections = {
        "all": results["p_holm"].notna(),
        "holm": results["survives_holm"],
        "bh_only": results["survives_bh"] & ~results["survives_holm"],
        "clustering": results.get("loses_under_clustering", pd.Series(False, index=results.index)).astype(bool),
    }
    if which not in selections:
        raise InputError(f"unknown findings selection {which!r}; choose from {list(selections)}")
    rows = results[selections[which]].sort_values("p_value", kind="stable")
    table = rows[FINDING_COLUMNS].astype(object).where(rows[FINDING_COLUMNS].notna(), "")
    clustered = rows["clustered_p_value"] if "clustered_p_value" in rows.columns else pd.Series(None, rows.index)
    table = table.assign(
        value=[marked_value(row) for _, row in rows.iterrows()],
        p=rows["p_value"].map(format_p),
        p_holm=rows["p_holm"].map(format_p),
        p_bh=rows["p_bh"].map(format_p),
        p_clustered=clustered.map(format_p),
        seeds_same_sign=[_share(row.get("share_same_sign"), row.get("n_seeds")) for _, row in rows.iterrows()],
        seeds_significant=[_share(row.get("share_significant"), row.get("n_seeds")) for _, row in rows.iterrows()],
        flag=[_flags(row) for _, row in rows.iterrows()],
    )
    # Drop columns empty for every shown row (e.g. `test` when only EEC findings survive).
    return table.loc[:, [c for c in table.columns if (table[c] != "").any()]].reset_index(drop=True)


# The suites' records; the report shows all but the EEC precision (log_phi) and the WEAT statistic
# (its effect size is shown), which stay in the CSV.
EEC_METRICS = (EEC_METRIC, EFFECT_METRIC, "cell_mean", "log_phi")
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
