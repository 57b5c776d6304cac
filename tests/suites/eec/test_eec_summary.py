"""The EEC part of the report's summary, checked against the run's records read straight from
results.jsonl: the heatmap's cells are the three effects of each fit, the strongest sentences are
the largest robust effects (surviving Holm, not fragile, through a good regressor) ranked by size,
never by p, the verdict table counts each model x language's verdicts, and the quality table's
numbers are the regressors' test Pearson r."""

import json

import numpy as np
import pytest
from helpers.synthetic_run import write_synthetic_run

from eval_harness.report import annotate, load_run
from eval_harness.report.sections import report_sections
from eval_harness.suites.eec.report import judge_validity, regressor_quality
from eval_harness.suites.eec.summary import (
    SUMMARY_EFFECTS,
    eec_summary,
    effect_grid,
    quality_table,
    strongest_sentences,
    summary_effect_rows,
)
from eval_harness.suites.eec.verdicts import (
    few_df_note,
    model_sentences,
    verdict_table,
    with_verdicts,
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("summary") / "run", suites=("eec",))


@pytest.fixture(scope="module")
def annotated(run_dir):
    return annotate(load_run(run_dir).results)


@pytest.fixture(scope="module")
def records(run_dir):
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_the_heatmap_cells_are_the_three_effects_of_each_fit(annotated, records):
    rows = summary_effect_rows(annotated)
    model = sorted(rows["model"].unique())[0]
    configs, columns, values, _ = effect_grid(rows, model)
    expected = {
        (r["config"], r["emotion"], r["term"]): r["value"]
        for r in records
        if r["model"] == model and r["metric"] == "effect" and r["term"] in SUMMARY_EFFECTS
    }
    assert len(expected) == values.size and not np.isnan(values).any()
    for i, config in enumerate(configs):
        for j, (emotion, effect) in enumerate(columns):
            assert values[i, j] == expected[config, emotion, effect]


def test_the_strongest_sentences_are_the_largest_robust_effects_by_size(annotated):
    sentences = strongest_sentences(annotated, n=3)
    effects = annotated[
        (annotated["metric"] == "effect")
        & annotated["survives_holm"]
        & ~annotated["poor_regressor"]
        & ~annotated["fragile"].fillna(False).astype(bool)
    ]
    effects = (
        effects.assign(size=effects["value"].abs()).sort_values("size", ascending=False).head(3)
    )
    assert len(sentences) == 3
    for sentence, (_, row) in zip(sentences, effects.iterrows(), strict=True):
        assert sentence.startswith(f"{row['config']}: {row['model']}, {row['emotion']}: ")
        assert f"{abs(row['value']):.3g}" in sentence and "survives Holm" in sentence


def test_the_verdict_table_counts_each_model_and_languages_verdicts(annotated, records):
    """Counted from results.jsonl with the rule written out (the synthetic run has no margin: the
    suite's 0.01)."""
    from scipy import stats

    table = verdict_table(annotated).set_index(["model", "lang."])
    effects = annotated[annotated["metric"] == "effect"]
    poor = set(
        map(
            tuple,
            effects.loc[
                effects["poor_regressor"].astype(bool), ["model", "language", "emotion"]
            ].values,
        )
    )
    for (model, language), line in table.iterrows():
        counts = {"race/ethnicity": [0, 0, 0], "gender": [0, 0, 0], "intersection": [0, 0, 0]}
        unmeasured = 0
        for r in records:
            if (r["model"], r["language"], r["metric"]) != (model, language, "effect"):
                continue
            if (
                model,
                language,
                r["emotion"],
            ) in poor:  # the poor-regressor flag is tested on its own
                unmeasured += 1
                continue
            dimension = (
                "intersection"
                if ":" in r["term"]
                else "race/ethnicity"
                if r["term"][:5] == "group"
                else "gender"
            )
            half = stats.norm.ppf(0.975) * r["std_err"]
            p_tost = max(
                stats.norm.sf((r["value"] + 0.01) / r["std_err"]),
                stats.norm.cdf((r["value"] - 0.01) / r["std_err"]),
            )
            beyond = r["value"] - half > 0.01 or r["value"] + half < -0.01
            counts[dimension][0 if beyond else 1 if p_tost <= 0.05 else 2] += 1
        for dimension, (beyond, within, undecided) in counts.items():
            assert line[dimension] == f"{beyond} / {within} / {undecided}", (
                model,
                language,
                dimension,
            )
        assert line["not measured"] == unmeasured


def test_the_quality_table_gives_each_models_test_pearson_r(annotated, records):
    table = quality_table(regressor_quality(annotated), judge_validity(annotated), 0.4).set_index(
        "model"
    )
    for model in table.index:
        r = [
            x["value"]
            for x in records
            if x["model"] == model and x["metric"] == "pearson_r" and x.get("split") == "test"
        ]
        assert table.loc[model, "regressors"] == len(r)
        assert (
            table.loc[model, "lowest r"] == f"{min(r):.2f}"
            and table.loc[model, "median r"] == f"{np.median(r):.2f}"
        )
        assert table.loc[model, "r < 0.4"] == sum(value < 0.4 for value in r)


def test_a_run_without_eec_effects_has_no_eec_summary(annotated):
    quality = regressor_quality(annotated), judge_validity(annotated), 0.5
    assert [
        type(block).__name__ for block in eec_summary(annotated, 0.4, *quality, report_sections())
    ] == [
        "Bullets",  # the verdict per model, first
        "Table",  # the verdict table
        "Paragraph",  # the method
        "Image",
        "Paragraph",
        "Bullets",
        "Table",
    ]
    assert (
        eec_summary(annotated[annotated["metric"] != "effect"], 0.4, *quality, report_sections())
        == []
    )


def test_verdicts_on_few_df_are_said_to_be_so(annotated):
    effects = annotated[annotated["metric"] == "effect"]
    assert few_df_note(annotated) == ""  # the synthetic run's effects are z tests
    few = annotated.copy()
    few.loc[effects.index[:3], ["statistic_kind", "df"]] = ["t", 2.4]
    note = few_df_note(few)
    assert note.startswith("3 verdict(s) rest on fewer than 5 df") and "upper 75% limit" in note


def test_a_model_none_of_whose_effects_is_measured_gets_no_verdict_not_zero_counts(annotated):
    """A judge that was not answering: its sentence says no verdict and why, not '0 beyond'."""
    model = sorted(annotated["model"].dropna().unique())[0]
    unmeasured = annotated.copy()
    unmeasured.loc[unmeasured["model"] == model, "poor_regressor"] = True
    unmeasured = with_verdicts(unmeasured)
    (said,) = [line for line in model_sentences(unmeasured) if line.startswith(f"{model}:")]
    assert "none of its" in said and "no verdict" in said and "judge not answering" in said
    assert "are beyond" not in said
