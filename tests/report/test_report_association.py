"""The report's association-measures section, from a real run of the xweat suite with every measure
(tiny BERT, English and German, cross-lingual, SEAT with German templates, CEAT on a small corpus)
and a static model."""

import pandas as pd
import pytest
from helpers.association_run import (
    DE_TEMPLATES,
    encoder_model,
    run_records,
    static_model,
    write_corpus,
    write_static_vectors,
    xweat_config,
)
from helpers.tiny_models import build_tiny_bert

from eval_harness.report import write_report
from eval_harness.report.findings import annotate
from eval_harness.report.kit.families import ALPHA, DEFAULT_FAMILY
from eval_harness.report.kit.tables import format_number, other_results_table
from eval_harness.report.run_folder import load_run
from eval_harness.report.sections import report_sections, report_settings
from eval_harness.suites.xweat import measure_names
from eval_harness.suites.xweat.report_measures import (
    association_section,
    ceat_table,
    measures_table,
)

COLUMNS = [
    "WEAT d",
    "SEAT d",
    "CEAT d",
    "RND (A)",
    "RND (B)",
    "MAC",
    "ECT (A)",
    "ECT (B)",
    "RIPA (X)",
    "RIPA (Y)",
]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("association")
    bert = build_tiny_bert(folder / "bert")
    corpus = write_corpus(folder / "corpus.txt", languages=("en", "de"))
    encoder_run = xweat_config(
        [encoder_model(bert)],
        languages=["en", "de"],
        cross_lingual=True,
        measures=list(measure_names()),
        seat_templates={"de": DE_TEMPLATES},
        corpus=str(corpus),
    )
    run_records(encoder_run, folder / "run")
    # The static model cannot run SEAT (nor CEAT): a second run, reported on its own.
    vectors = write_static_vectors(folder / "vectors.txt")
    run_records(
        xweat_config([static_model(vectors)], tests=["T7"], measures=["weat", "seat", "rnd"]),
        folder / "static",
    )
    return folder


@pytest.fixture(scope="module")
def results(run_dir):
    return annotate(load_run(run_dir / "run").results)


def test_measures_table_puts_every_measure_next_to_weat_per_test_and_language(results):
    table = measures_table(results, "tiny", report_sections())
    assert list(table.columns) == ["test", "language", *COLUMNS, "RNSB"]
    assert list(zip(table["test"], table["language"], strict=True)) == [
        (test, language) for test in ("T1", "T7") for language in ("de", "en", "de-en", "en-de")
    ]
    # each cell is its record's value (with the significance marks of the three tests)
    for metric, term, column in (
        ("rnd", "A", "RND (A)"),
        ("mac", None, "MAC"),
        ("ripa", "Y", "RIPA (Y)"),
    ):
        for _, row in table.iterrows():
            records = results[
                (results["metric"] == metric)
                & (results["test"] == row["test"])
                & (results["language"] == row["language"])
                & (results["term"].isna() if term is None else results["term"] == term)
            ]
            (value,) = records["value"]
            assert row[column] == ("skipped" if pd.isna(value) else format_number(value))
    effect = results[
        (results["metric"] == "effect_size")
        & (results["test"] == "T7")
        & (results["language"] == "en")
    ]
    cell = table[(table["test"] == "T7") & (table["language"] == "en")]["WEAT d"].item()
    assert cell.startswith(format_number(effect["value"].item()))


def test_ceat_table_shows_the_combined_effect_with_its_interval_and_heterogeneity(results):
    table = ceat_table(results, "tiny", report_sections())
    assert list(table.columns)[:4] == ["test", "language", "CEAT d", "95% CI"]
    assert {"tau^2", "Q (df)", "I^2", "SE", "p", "samples"} <= set(table.columns)
    record = results[
        (results["metric"] == "ceat") & (results["test"] == "T7") & (results["language"] == "en-de")
    ]
    row = table[(table["test"] == "T7") & (table["language"] == "en-de")].iloc[0]
    assert (
        row["95% CI"]
        == f"[{format_number(record['ci_low'].item())}, {format_number(record['ci_high'].item())}]"
    )
    assert row["Q (df)"] == f"{record['q'].item():.1f} (199)" and row["samples"] == "200"


def test_no_association_record_falls_to_other_results_and_skipped_measures_are_named(
    results, run_dir
):
    assert other_results_table(results, report_sections()).empty
    static = annotate(load_run(run_dir / "static").results)
    section = association_section(static, report_settings(ALPHA, DEFAULT_FAMILY))
    notes = [block for block in section.blocks if hasattr(block, "items")]
    assert (
        notes
        and "static, T7, en, seat: model 'static' (static_mlp) gives no sentence vectors"
        in notes[0].items[0]
    )
    assert list(measures_table(static, "static", report_sections()).columns) == [
        "test",
        "language",
        "WEAT d",
        "SEAT d",
        "RND (A)",
        "RND (B)",
    ]


def test_the_report_files_carry_the_section(run_dir):
    files = write_report(run_dir / "run")
    markdown = files.markdown.read_text() + (files.folder / "tables.md").read_text()
    assert (
        "## Association measures (XWEAT tests)" in markdown
        and "### Association measures: tiny" in markdown
    )
    assert "**tiny: CEAT, random-effects combination" in markdown
    assert "## Other results" not in markdown
    assert "Association measures (XWEAT tests)" in (files.folder / "tables.html").read_text()
