"""What the report claims and how sure it is (issue 12): sentences that cite one effect record each
and agree with it in sign and numbers, opposite-signed conditional effects said to be so, findings
that lose significance under template clustering flagged, seeds pooled, WEAT bootstrap intervals and
influential words, and the choice of multiple-testing family marked in tables and plots.

Built on the synthetic run folder (tests/helpers/synthetic_run.py): real Beta-regression fits of
simulated predictions, written by eval_harness.suites.eec.records.
"""

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from helpers.synthetic_run import (
    E5,
    FRAGILE_WEAT,
    MINILM,
    SVM,
    TEMPLATE_DRIVEN,
    write_synthetic_run,
)
from scipy import stats

from eval_harness.cli import build_parser, main
from eval_harness.errors import InputError
from eval_harness.report import annotate, load_run, write_report
from eval_harness.report.kit import plots as report_plots
from eval_harness.report.kit import tables as report_tables
from eval_harness.report.kit.families import FAMILIES, check_family
from eval_harness.report.kit.tables import format_p
from eval_harness.report.sections import report_sections
from eval_harness.suites.eec import plots as eec_plots
from eval_harness.suites.eec import tables as eec_tables
from eval_harness.suites.eec.report import flag_clustering
from eval_harness.suites.eec.sentences import effect_sentences
from eval_harness.suites.xweat import report as xweat_report

ARAB_ANGER = (MINILM, "en_arab_anglo", "anger")


def both_pages(folder) -> str:
    """The report's Markdown: the main page and the linked page of full tables."""
    return (folder / "report.md").read_text(encoding="utf-8") + (folder / "tables.md").read_text(
        encoding="utf-8"
    )


@pytest.fixture(scope="module")
def sentences(annotated):
    return effect_sentences(annotated)


def _record(records, model, config, emotion, term, metric="effect") -> dict:
    (found,) = [
        r
        for r in records
        if (r["model"], r["config"], r["emotion"], r["term"], r["metric"])
        == (model, config, emotion, term, metric)
    ]
    return found


# -- 1. sentences that cannot lie ------------------------------------------------------------------

SENTENCE = re.compile(
    r"^(?P<model>[^,]+), (?P<emotion>\w+): (?P<claim>.+?) \(95% "
    r"CI \[(?P<low>[^,]+), (?P<high>[^\]]+)\], p = (?P<p>[^,]+), "
)
HIGHER = ("angrier", "more afraid", "more joyful", "sadder", "higher")
LOWER = ("less angry", "less afraid", "less joyful", "less sad", "lower")
AMOUNT = re.compile(
    rf"(?:predicted|is) (?P<size>[0-9.e+-]+) (?P<direction>{'|'.join(HIGHER + LOWER)}) than"
)
PEOPLE = {"male": "men", "female": "women"}


def _named(record: dict) -> tuple[str, str]:
    """Who the sentence of an effect must compare, from the record's levels (written out per
    effect)."""
    reference, minority = record["group_levels"]
    men, women = (PEOPLE[level] for level in record["gender_levels"])
    return {
        "group_within_reference_gender": (f"about {minority} {men}", f"about {reference} {men}"),
        "group_within_other_gender": (f"about {minority} {women}", f"about {reference} {women}"),
        "gender_within_reference_group": (f"about {reference} {women}", f"about {reference} {men}"),
        "gender_within_other_group": (f"about {minority} {women}", f"about {minority} {men}"),
        "group_ame": (f"about {minority} people", f"about {reference} people"),
        "gender_ame": (f"about {women}", f"about {men}"),
        "group:gender_did": (
            f"of {minority} {women} minus {minority} {men}",
            f"of {reference} {women} minus",
        ),
    }[record["term"]]


def test_every_sentence_agrees_in_sign_and_numbers_with_the_one_record_it_cites(sentences, records):
    every = [sentence for config in sentences.values() for sentence in config]
    shown = [r for r in records if r["metric"] == "effect" and r["p_value"] <= 0.10]
    assert len(every) == len(shown) > 30  # one sentence per effect with p <= 0.10, and only those
    for sentence in every:
        cited = _record(records, sentence.model, sentence.config, sentence.emotion, sentence.effect)
        parsed = SENTENCE.match(sentence.text)
        assert parsed, sentence.text
        amount = AMOUNT.search(parsed["claim"])
        signed = float(amount["size"]) * (1 if amount["direction"] in HIGHER else -1)
        assert np.sign(signed) == np.sign(cited["value"]), sentence.text
        assert signed == pytest.approx(cited["value"], rel=5e-3), sentence.text
        assert float(parsed["low"]) == pytest.approx(cited["ci_low"], rel=5e-3, abs=1e-6)
        assert float(parsed["high"]) == pytest.approx(cited["ci_high"], rel=5e-3, abs=1e-6)
        assert parsed["p"] == format_p(
            cited["p_value"]
        )  # the effect's own test, never its coefficient's
        subject, other = _named(cited)
        assert subject in parsed["claim"] and other in parsed["claim"], sentence.text
        assert parsed["model"] == cited["model"] and parsed["emotion"] == cited["emotion"]


def test_opposite_signed_conditional_effects_are_said_to_be_so(sentences, records):
    among_men = _record(records, *ARAB_ANGER, "group_within_reference_gender")
    among_women = _record(records, *ARAB_ANGER, "group_within_other_gender")
    assert (
        among_men["value"] > 0 > among_women["value"]
    )  # as planted: Arab men angrier, Arab women less angry
    by_effect = {
        s.effect: s.text
        for s in sentences["en_arab_anglo"]
        if (s.model, s.emotion) == ARAB_ANGER[::2]
    }
    men, women = by_effect["group_within_reference_gender"], by_effect["group_within_other_gender"]
    assert "about Arab men are predicted" in men and "angrier than about Anglo men" in men
    assert "among women the estimated difference has the opposite sign" in men
    assert (
        "about Arab women are predicted" in women and "less angry than about Anglo women" in women
    )
    assert "among men the estimated difference has the opposite sign" in women
    # the same sign among men and women (MiniLM's planted African-American anger): nothing of the
    # kind
    black_white = [
        s.text for s in sentences["en_black_white"] if (s.model, s.emotion) == (MINILM, "anger")
    ]
    assert len(black_white) >= 3 and not any("opposite sign" in text for text in black_white)


def test_coefficient_tables_say_what_each_coefficient_conditions_on(annotated, records):
    table = eec_tables.eec_coefficient_tables(annotated, report_sections())["en_arab_anglo"]
    assert list(table.columns)[2:5] == [
        "Arab vs Anglo, among men",
        "women vs men, within Anglo",
        "Arab × women (interaction)",
    ]
    contrasts = eec_tables.coefficient_contrasts(annotated, "en_arab_anglo")
    for term, line in zip(("group", "gender", "group:gender"), contrasts, strict=True):
        assert line.endswith(_record(records, *ARAB_ANGER, term, "estimate")["contrast"])
    assert "among men (the reference gender)" in contrasts[0]
    effects = eec_tables.eec_effect_tables(annotated, report_sections())["en_arab_anglo"]
    assert "Arab vs Anglo, among women" in effects.columns
    cell = effects[(effects["emotion"] == "anger") & (effects["model"] == MINILM)][
        "Arab vs Anglo, among women"
    ]
    assert cell.item().startswith(
        f"{_record(records, *ARAB_ANGER, 'group_within_other_gender')['value']:.3f}***"
    )


# -- 2. template clustering ------------------------------------------------------------------------


def test_findings_that_lose_significance_under_template_clustering_are_flagged(
    annotated, records, run_dir, tmp_path
):
    expected = [
        r.get("cov_type") == "model"
        and r["term"] != "intercept"  # the reference cell's level: no finding
        and r["p_value"] is not None
        and r["p_value"] <= 0.05
        and r.get("clustered_p_value") is not None
        and r["clustered_p_value"] > 0.05
        for r in records
    ]
    assert annotated["loses_under_clustering"].tolist() == expected
    # an intercept (significant with model-based SEs, not clustered: e.g. SVM-tfidf's) is not a
    # finding to flag
    intercept = annotated["term"] == "intercept"
    moved = annotated.assign(
        clustered_p_value=annotated["clustered_p_value"].where(~intercept, 0.5)
    )
    assert annotated.loc[intercept, "p_value"].max() < 0.05
    assert not flag_clustering(moved).loc[intercept, "loses_under_clustering"].any()
    model, config, emotion = next(iter(TEMPLATE_DRIVEN))
    planted = _record(records, model, config, emotion, "group", "estimate")
    assert planted["p_value"] <= 0.01 and planted["clustered_p_value"] > 0.05  # as planted
    table = eec_tables.eec_coefficient_tables(annotated, report_sections())[config]
    cell = table[(table["emotion"] == emotion) & (table["model"] == model)].iloc[0]
    assert cell["Latino vs Anglo, among men"] == f"{planted['value']:.3f}***§"
    fragile = report_tables.findings_table(annotated, report_sections(), "loses_under_clustering")
    assert len(fragile) == sum(expected) and (fragile["flag"].str.contains("§")).all()

    report = write_report(run_dir, formats=("md",), out_dir=tmp_path / "report")
    markdown = both_pages(report.folder)
    assert "Findings that lose significance under template clustering" in markdown
    assert (
        "§ p ≤ 0.05 with model-based standard errors but not with template-clustered ones"
        in markdown
    )
    assert "Reported standard errors: model-based (inverse expected information" in markdown
    assert "for 40 fits, with z tests" in markdown


def test_with_clustered_standard_errors_reported_nothing_is_flagged_and_the_report_says_so(
    annotated,
):
    clustered = annotated.assign(
        cov_type="cluster", cluster_by=[["template_id"]] * len(annotated), statistic_kind="t", df=10
    )
    flagged = annotate(
        clustered.drop(columns=["loses_under_clustering", "family", "p_holm", "p_bh"])
    )
    assert not flagged["loses_under_clustering"].any()
    text = eec_tables.covariance_description(clustered)
    assert text.startswith(
        "Reported standard errors: cluster-robust (CR1 sandwich, clustered by template_id)"
    )
    assert "t tests with 10 degrees of freedom" in text


def test_an_interval_not_recorded_comes_from_the_records_own_reference_distribution():
    row = pd.Series({"value": 0.5, "std_err": 0.1, "statistic_kind": "t", "df": 10})
    low, high = report_plots.interval_95(row)
    assert high - 0.5 == pytest.approx(stats.t(10).ppf(0.975) * 0.1, rel=1e-12)
    low, high = report_plots.interval_95(row.drop(["statistic_kind", "df"]))
    assert high - 0.5 == pytest.approx(stats.norm.ppf(0.975) * 0.1, rel=1e-12)


# -- 3. seeds --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def three_seeds(tmp_path_factory):
    folder = write_synthetic_run(
        tmp_path_factory.mktemp("seeds") / "synthetic", suites=("eec", "xweat"), seeds=(0, 1, 2)
    )
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return folder, records, annotate(load_run(folder).results)


def test_seeds_are_pooled_per_coefficient_and_effect_as_the_mean_over_seeds(three_seeds):
    _, records, pooled = three_seeds
    eec = pooled[(pooled["suite"] == "eec") & pooled["metric"].isin(["estimate", "effect"])]
    assert len(eec) == 2 * 20 * 11 and eec["seed"].isna().all() and (eec["n_seeds"] == 3).all()
    for term, metric in (("group", "estimate"), ("group_within_other_gender", "effect")):
        seeds = [
            r
            for r in records
            if (r["model"], r["config"], r["emotion"], r["term"], r["metric"])
            == (MINILM, "en_black_white", "anger", term, metric)
        ]
        q, u = np.array([r["value"] for r in seeds]), np.array([r["std_err"] for r in seeds])
        row = eec[
            (eec["model"] == MINILM)
            & (eec["config"] == "en_black_white")
            & (eec["emotion"] == "anger")
            & (eec["term"] == term)
        ].iloc[0]
        assert row["value"] == pytest.approx(q.mean(), rel=1e-12)
        assert row["between_seed_sd"] == pytest.approx(q.std(ddof=1), rel=1e-12)
        total = (u**2).mean() + q.var(ddof=1) / 3  # the mean over 3 seeds: W + B/m
        assert row["std_err"] == pytest.approx(math.sqrt(total), rel=1e-12)
        assert row["between_seed_share"] == pytest.approx(q.var(ddof=1) / 3 / total, rel=1e-12)
        assert row["share_same_sign"] == np.mean(np.sign(q) == np.sign(q.mean()))
    pearson = pooled[(pooled["metric"] == "pearson_r") & (pooled["split"] == "test")]
    assert len(pearson) == 2 * 3 * 4 and (pearson["pooling"] == "mean").all()
    r = [
        x["value"]
        for x in records
        if x["metric"] == "pearson_r"
        and x["split"] == "test"
        and x["model"] == SVM
        and x["language"] == "ar"
        and x["emotion"] == "joy"
    ]
    row = pearson[
        (pearson["model"] == SVM) & (pearson["language"] == "ar") & (pearson["emotion"] == "joy")
    ]
    assert row["value"].item() == pytest.approx(np.mean(r)) and row[
        "between_seed_sd"
    ].item() == pytest.approx(np.std(r, ddof=1))
    weat = pooled[pooled["metric"] == "effect_size"]
    assert (
        len(weat) == 98 and (weat["pooling"] == "identical").all()
    )  # seed-independent: shown once


def test_the_report_uses_the_pooled_values_and_shows_the_spread(three_seeds, tmp_path):
    folder, _, pooled = three_seeds
    table = eec_tables.eec_coefficient_tables(pooled, report_sections())["en_black_white"]
    row = pooled[
        (pooled["model"] == MINILM)
        & (pooled["config"] == "en_black_white")
        & (pooled["emotion"] == "anger")
        & (pooled["term"] == "group")
        & (pooled["metric"] == "estimate")
    ].iloc[0]
    cell = table[(table["emotion"] == "anger") & (table["model"] == MINILM)].iloc[0]
    assert cell["African-American vs European, among men"] == (
        f"{row['value']:.3f}***† ±{row['between_seed_sd']:.3f}"
    )
    findings = report_tables.findings_table(pooled, report_sections(), "holm")
    assert {"seeds_same_sign", "seeds_significant"} <= set(findings.columns)
    # the standard errors, with the share of each that is between-seed variance
    errors = eec_tables.eec_standard_error_tables(pooled)["en_black_white"]
    cell = errors[(errors["emotion"] == "anger") & (errors["model"] == MINILM)].iloc[0]
    share = row["between_seed_share"]
    assert (
        cell["African-American vs European, among men"]
        == f"{row['std_err']:.3f} ({share:.0%} seeds)"
    )
    report = write_report(folder, formats=("md",), out_dir=tmp_path / "report")
    markdown = both_pages(report.folder)
    assert "Pooled over 3 seeds" in markdown and "(seed " not in markdown
    assert "pooled over 3 seeds, 3 of 3 with this sign" in markdown
    bias = pooled[
        (pooled["suite"] == "eec")
        & (pooled["metric"] == "estimate")
        & (pooled["term"] != "intercept")
    ]
    shares = bias["between_seed_share"]
    assert 0 < shares.min() < shares.max() < 1 and len(shares) == 2 * 20 * 3
    assert (
        f"Training noise is {shares.min():.0%} to {shares.max():.0%} "
        f"(median {shares.median():.0%}) of the squared standard "
        f"errors of the {len(shares)} bias coefficients" in markdown
    )
    assert (
        "Each number is the mean over the seeds' trained heads; its standard error is the mean's"
        in markdown
    )
    assert (
        "en_black_white: the coefficients' standard "
        "errors (pooled over seeds: the sampling variance" in markdown
    )


def test_with_one_seed_the_report_says_the_standard_errors_leave_out_the_training_variance(
    run_dir, tmp_path
):
    markdown = both_pages(
        write_report(run_dir, formats=("md",), out_dir=tmp_path / "report").folder
    )
    assert (
        "One seed per regressor" in markdown
        and "does not include the regressor's training variance" in markdown
    )
    assert "Training noise is" not in markdown and "% seeds)" not in markdown
    assert "standard errors (one seed: they leave out the regressors' training noise)" in markdown
    assert "pooled over seeds: the sampling variance" not in markdown


# -- 4. WEAT uncertainty ---------------------------------------------------------------------------


def test_weat_tests_with_a_small_p_and_a_bootstrap_interval_across_zero_are_flagged(
    annotated, records
):
    expected = [
        r["metric"] == "effect_size"
        and r.get("bootstrap_std_err") is not None
        and r["p_value"] <= 0.05
        and r["ci_low"] <= 0 <= r["ci_high"]
        for r in records
    ]
    assert annotated["bootstrap_ci_spans_zero"].tolist() == expected
    model, language, test = FRAGILE_WEAT
    lines = xweat_report.xweat_fragile(annotated)
    assert len(lines) == sum(expected)
    assert (
        f"{model}, {test}, {language}: d = 1.54, p = 2.00e-04, 95% bootstrap CI [-0.55, 1.87]"
        in "\n".join(lines)
    )
    cell = (
        xweat_report.xweat_effect_table(annotated, E5, report_sections())
        .set_index("test")
        .loc[test, language]
    )
    assert cell.startswith("1.540***") and cell.endswith("‖ [-0.55, 1.87]")


def test_the_words_whose_removal_moves_d_most_are_shown_per_test_and_language(annotated, records):
    table = xweat_report.xweat_uncertainty_table(annotated, E5, report_sections())
    assert len(table) == 7 * 7 - 1 + 6 * 7  # every test that ran, monolingual and cross-lingual
    record = next(
        r
        for r in records
        if r["metric"] == "effect_size"
        and r["model"] == E5
        and r["language"] == "hr"
        and r["test"] == "T2"
    )
    row = table[(table["test"] == "T2") & (table["language"] == "hr")].iloc[0]
    first = record["influential_words"][0]
    assert row["words whose removal moves d most"].startswith(
        f"{first['word']!r} ({first['role']}) {first['change']:+.2f}"
    )
    assert row["95% bootstrap CI"] == f"[{record['ci_low']:.2f}, {record['ci_high']:.2f}]"


# -- 5. the multiple-testing family ----------------------------------------------------------------


def _holm(p):
    m, order = len(p), np.argsort(p, kind="stable")
    adjusted, running = np.empty(m), 0.0
    for rank, i in enumerate(order, start=1):
        running = max(running, min(1.0, (m - rank + 1) * p[i]))
        adjusted[i] = running
    return adjusted


@pytest.mark.parametrize("family", ["run", "model-suite"])
def test_the_family_is_a_choice(run_dir, annotated, family):
    chosen = annotate(load_run(run_dir).results, family=family)
    findings = chosen[chosen["p_holm"].notna()]
    groups = (
        [findings]
        if family == "run"
        else [rows for _, rows in findings.groupby(["model", "suite"])]
    )
    # MiniLM x eec, xweat and gender space; SVM x eec; E5 x xweat; GloVe x gender space
    assert len(groups) == (1 if family == "run" else 6)
    for rows in groups:
        np.testing.assert_allclose(rows["p_holm"], _holm(rows["p_value"].to_numpy()), rtol=1e-12)
    # the whole run is a larger family than one model's: stricter for every test; one model x suite,
    # laxer
    if family == "run":
        assert (findings["p_holm"] >= annotated.loc[findings.index, "p_holm"] - 1e-15).all()
    else:
        assert (findings["p_holm"] <= annotated.loc[findings.index, "p_holm"] + 1e-15).all()


def test_an_unknown_family_is_refused_and_the_cli_offers_the_same_choices(run_dir):
    with pytest.raises(
        InputError,
        match="unknown multiple-testing family 'suite'; choose from model, model-suite, run",
    ):
        check_family("suite")
    with pytest.raises(InputError, match="unknown multiple-testing family"):
        write_report(run_dir, family="suite")
    report_parser = build_parser()._subparsers._group_actions[0].choices["report"]
    (family,) = [action for action in report_parser._actions if action.dest == "family"]
    assert tuple(family.choices) == tuple(FAMILIES) and family.default == "model"


def test_the_report_states_its_family(run_dir, tmp_path, capsys):
    assert (
        main(
            [
                "report",
                str(run_dir),
                "--out",
                str(tmp_path / "out"),
                "--format",
                "md",
                "--family",
                "run",
            ]
        )
        == 0
    )
    markdown = both_pages(tmp_path / "out")
    assert "Multiple-testing family: the whole run (one family of 499 tests)" in markdown
    assert "the p-values adjusted the whole run" in markdown


def test_holm_and_benjamini_hochberg_are_both_marked_in_the_forest_plot(annotated):
    config = "en_latino_anglo"
    figure = eec_plots.forest_figure(annotated, config)
    markers = [
        line for axis in figure.axes for line in axis.get_lines() if line.get_marker() == "o"
    ]
    coefficients = eec_tables.eec_rows(annotated)
    coefficients = coefficients[
        (coefficients["config"] == config)
        & coefficients["term"].isin(["group", "gender", "group:gender"])
    ]
    holm = int(coefficients["survives_holm"].sum())
    bh_only = int((coefficients["survives_bh"] & ~coefficients["survives_holm"]).sum())
    assert bh_only >= 1  # MiniLM's Latino-Anglo fear intersection survives BH, not Holm
    assert len(markers) == len(coefficients)
    assert sum(line.get_fillstyle() == "left" for line in markers) == bh_only
    filled = [
        line
        for line in markers
        if line.get_fillstyle() == "full" and line.get_markerfacecolor() != "white"
    ]
    assert len(filled) == holm
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "half: Benjamini-Hochberg only" in legend and "filled: survives Holm" in legend
