"""The report of a run folder: loading (complete, partial, empty), multiple testing within each
model, the paper's tables, figures, HTML / Markdown / CSV, and `xbias report`. The plain-words
sentences, the clustering and bootstrap flags, seeds and the choice of family:
test_report_uncertainty.py.

Built on a synthetic run folder in the harness's format (tests/helpers/synthetic_run.py).
"""

import base64
import hashlib
import io
import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from helpers.browser import static_check
from helpers.synthetic_run import (
    E5,
    MINILM,
    PLANTED,
    POOR_REGRESSOR,
    SKIPPED,
    SKIPPED_COVERAGE,
    SVM,
    TEMPLATE_DRIVEN,
)
from PIL import Image

from eval_harness.cli import main
from eval_harness.errors import InputError
from eval_harness.report import load_run, write_report
from eval_harness.report.kit import tables as report_tables
from eval_harness.report.sections import report_sections
from eval_harness.suites.eec import tables as eec_report_tables
from eval_harness.suites.gender_space import report as gender_space_report
from eval_harness.suites.xweat import report as xweat_report


@pytest.fixture(scope="module")
def report(run_dir, tmp_path_factory):
    return write_report(run_dir, out_dir=tmp_path_factory.mktemp("report"))


def _copy(run_dir, tmp_path):
    return shutil.copytree(run_dir, tmp_path / "copy")


# -- loading ---------------------------------------------------------------------------------------


def test_load_run_reads_every_record_and_the_context(run_dir, records):
    run = load_run(run_dir)
    # EEC 48 Pearson r + 40 units x (4 coefficients + 7 effects + log phi + 4 cells); XWEAT (7 +
    # 49 + 42) tests x 3; gender space 2 x 24
    assert len(run.results) == len(records) == 48 + 40 * 16 + 294 + 48
    assert run.missing == ()
    assert list(run.config["suites"]) == ["eec", "xweat", "gender_space"]
    assert run.run_info["config_hash"] == "synthetic0001"
    assert len(run.unit_ids) == len(list((run_dir / "units").glob("*.json")))
    assert set(run.results["suite"]) == {"eec", "xweat", "gender_space"}


def test_missing_or_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_run(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as error:
        load_run(tmp_path / "empty")
    message = str(error.value)
    for missing in (
        "results.jsonl is missing",
        "units/ is missing",
        "config.yaml is missing",
        "run.json is missing",
    ):
        assert missing in message
    assert "xbias run" in message


def test_empty_folder_via_cli_exits_2_naming_what_is_missing(tmp_path, capsys):
    (tmp_path / "units").mkdir()
    (tmp_path / "config.yaml").write_text("suites: [eec]\n")
    assert main(["report", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("xbias: error:") and error.count("\n") == 1
    assert (
        "holds no results" in error
        and "results.jsonl is missing" in error
        and "config.yaml, units" in error
    )


def test_partial_run_reports_what_is_there_and_names_what_is_missing(
    run_dir, records, tmp_path, capsys
):
    """A run killed mid-way (no run.json, gender-space units not finished, results.jsonl cut short):
    the report shows the verified units and names what is missing; the unverified results.jsonl is
    not read."""
    partial = _copy(run_dir, tmp_path)
    (partial / "run.json").unlink()
    for unit in (partial / "units").glob("gender_space-*.json"):
        unit.unlink()
    kept = [record for record in records if record["suite"] != "gender_space"]
    lines = [json.dumps(record) for record in records]
    # a run killed while appending: the last line is cut short (and the file holds records of no
    # unit file)
    (partial / "results.jsonl").write_text("\n".join(lines) + "\n" + lines[0][:40] + "\n")

    run = load_run(partial)
    assert len(run.results) == len(kept)
    joined = " | ".join(run.missing)
    assert "run.json is missing" in joined
    assert "suite 'gender_space' is in config.yaml but has no results yet" in joined

    assert main(["report", str(partial), "--format", "html"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("xbias: warning:") == 2
    html = (partial / "report" / "report.html").read_text()
    assert "This run folder is incomplete" in html and "run.json is missing" in html
    # the caveat comes with the answer, before the verdict, not only below it under Overview
    caveat = html.index("covers its finished units only")
    assert caveat < html.index("Verdict per model") < html.index("run.json is missing")
    tables = (partial / "report" / "tables.html").read_text()  # the linked page of full tables
    assert "Equity Evaluation Corpora" in tables and "XWEAT" in tables
    assert 'id="gender-space"' not in html + tables
    assert not (partial / "report" / "report.md").exists()


def test_interrupted_run_is_named_as_such(run_dir, tmp_path):
    partial = _copy(run_dir, tmp_path)
    info = json.loads((partial / "run.json").read_text())
    (partial / "run.json").write_text(
        json.dumps({**info, "status": "interrupted", "units_planned": 999})
    )
    finished = len(list((partial / "units").glob("*.json")))
    assert load_run(partial).missing == (
        "run.json says the run is 'interrupted', not 'complete'",
        f"{finished} of 999 planned units are finished; "
        "re-run the same `xbias run` to resume the rest",
    )


def test_records_are_rebuilt_from_unit_files_when_results_jsonl_is_missing(
    run_dir, records, tmp_path
):
    partial = _copy(run_dir, tmp_path)
    (partial / "results.jsonl").unlink()
    (partial / "units" / "broken.json").write_text('{"records": [')
    run = load_run(partial)
    assert len(run.results) == len(records)
    assert any("rebuilt from" in item for item in run.missing)
    assert any("units/broken.json is not valid JSON" in item for item in run.missing)


def test_records_without_required_columns_are_refused(tmp_path):
    results = (json.dumps({"model": "m", "value": 1.0}) + "\n").encode()
    (tmp_path / "results.jsonl").write_bytes(results)
    with pytest.raises(
        InputError, match=r"results.jsonl is not read: run.json records no sha256 that it matches"
    ):
        load_run(tmp_path)
    verified = {
        "results": {
            "file": "results.jsonl",
            "records": 1,
            "sha256": hashlib.sha256(results).hexdigest(),
        }
    }
    (tmp_path / "run.json").write_text(json.dumps(verified))
    with pytest.raises(InputError, match=r"lack the columns \['suite', 'metric'\]"):
        load_run(tmp_path)


# -- multiple testing over the whole run -----------------------------------------------------------


def _holm_by_hand(p):
    """Holm (1979) step-down, written out: adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))."""
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order, start=1):
        running = max(running, min(1.0, (m - rank + 1) * p[i]))
        adjusted[i] = running
    return adjusted


def _bh_by_hand(p):
    """Benjamini-Hochberg step-up, written out: adj_(i) = min_{j >= i} min(1, m p_(j) / j)."""
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, min(1.0, m * p[i] / rank))
        adjusted[i] = running
    return adjusted


def test_holm_and_bh_adjust_within_each_model(records, annotated):
    family = [
        i
        for i, record in enumerate(records)
        if record["p_value"] is not None
        and record["metric"] not in ("pearson_r", "statistic")
        and record["term"] != "intercept"
    ]
    # 2 models x 5 EECs x 4 emotions x (3 coefficients + 7 effects) + XWEAT effect sizes (7 + 7 x 7
    # monolingual, one skipped, + 6 x 7 cross-lingual; the WEAT statistic's record repeats the same
    # test) + 2 kNN tests
    assert len(family) == 400 + 97 + 2 == int(annotated["p_holm"].notna().sum())
    for model in {records[i]["model"] for i in family}:
        members = [i for i in family if records[i]["model"] == model]
        p = [records[i]["p_value"] for i in members]
        np.testing.assert_allclose(
            annotated["p_holm"].to_numpy()[members], _holm_by_hand(p), rtol=1e-12
        )
        np.testing.assert_allclose(
            annotated["p_bh"].to_numpy()[members], _bh_by_hand(p), rtol=1e-12
        )
        assert set(annotated["family"].iloc[members]) == {model}
    outside = np.setdiff1d(np.arange(len(records)), family)
    assert (
        annotated["p_holm"].iloc[outside].isna().all()
        and not annotated["survives_bh"].iloc[outside].any()
    )


def test_planted_effects_survive_holm_and_chance_ones_do_not(annotated):
    eec = annotated[annotated["suite"] == "eec"]
    holm = {(r.model, r.config, r.emotion) for r in eec[eec["survives_holm"]].itertuples()}
    # every planted bias is found, and nothing else but the template-driven one (which clustering
    # then flags)
    assert set(PLANTED) <= holm <= set(PLANTED) | set(TEMPLATE_DRIVEN)
    for (model, config, emotion), coefficients in PLANTED.items():
        for term in coefficients:
            row = eec[
                (eec["model"] == model)
                & (eec["config"] == config)
                & (eec["emotion"] == emotion)
                & (eec["term"] == term)
                & (eec["metric"] == "estimate")
            ]
            assert row["survives_holm"].item(), (model, config, emotion, term)
    chance = eec[(eec["p_value"] < 0.05) & ~eec["survives_bh"]]
    assert len(chance) > 0  # raw p < 0.05 that multiple-testing control rejects


def test_poor_regressors_flag_their_bias_results(annotated):
    bias = annotated[(annotated["metric"] == "estimate")]
    expected = (bias["model"] == POOR_REGRESSOR[0]) & (bias["language"] == POOR_REGRESSOR[1])
    assert expected.sum() == 4 * 4  # one EEC x 4 emotions x 4 terms
    assert (bias["poor_regressor"] == expected).all()
    quality = annotated[annotated["metric"] == "pearson_r"]
    assert quality["regressor_r"].isna().all() and not quality["poor_regressor"].any()
    # the flag reads the test split's r, not the validation split's
    row = bias[
        (bias["model"] == MINILM)
        & (bias["config"] == "en_black_white")
        & (bias["emotion"] == "anger")
    ].iloc[0]
    test_r = annotated[
        (annotated["metric"] == "pearson_r")
        & (annotated["model"] == MINILM)
        & (annotated["language"] == "en")
        & (annotated["emotion"] == "anger")
        & (annotated["split"] == "test")
    ]["value"].item()
    assert row["regressor_r"] == test_r


# -- tables ----------------------------------------------------------------------------------------


def test_eec_tables_one_per_eec_in_the_papers_layout(annotated, records):
    eec_tables = eec_report_tables.eec_coefficient_tables(annotated, report_sections())
    assert list(eec_tables) == sorted(
        ["en_black_white", "en_latino_anglo", "en_arab_anglo", "es_latino_anglo", "ar_arab_anglo"]
    )
    table = eec_tables["en_black_white"]
    assert list(table.columns) == [
        "emotion",
        "model",
        "African-American vs European, among men",
        "women vs men, within European",
        "African-American × women (interaction)",
        "regressor r",
    ]
    assert len(table) == 4 * 2
    planted = next(
        r
        for r in records
        if (r["model"], r["config"], r["emotion"], r["term"], r["metric"])
        == (MINILM, "en_black_white", "anger", "group", "estimate")
    )
    cell = table[(table["emotion"] == "anger") & (table["model"] == MINILM)].iloc[0]
    assert cell["African-American vs European, among men"] == f"{planted['value']:.3f}***†"
    arabic = eec_tables["ar_arab_anglo"]
    assert arabic.loc[arabic["model"] == SVM, "regressor r"].str.endswith("(poor r)").all()
    assert not arabic.loc[arabic["model"] == MINILM, "regressor r"].str.contains("poor").any()


def test_regressor_table_is_the_test_split_per_language_and_emotion(annotated, records):
    table = eec_report_tables.regressor_quality_table(annotated)
    assert list(table["model"]) == [MINILM, SVM]
    assert list(table["head"]) == ["", ""]  # the synthetic records select no head
    assert list(table.columns[2:6]) == ["en: anger", "en: fear", "en: joy", "en: sadness"]
    assert len(table.columns) == 2 + 3 * 4
    r = next(
        x["value"]
        for x in records
        if x["metric"] == "pearson_r"
        and x["model"] == SVM
        and x["language"] == "ar"
        and x["emotion"] == "joy"
        and x["split"] == "test"
    )
    assert table.loc[table["model"] == SVM, "ar: joy"].item() == f"{r:.2f}"


def test_xweat_tables_heatmap_cross_lingual_and_coverage(annotated, records):
    effects = xweat_report.xweat_effect_table(annotated, E5, report_sections())
    assert list(effects.columns) == ["test", "en", "de", "es", "it", "hr", "ru", "tr"]
    assert list(effects["test"]) == ["T1", "T2", "T6", "T7", "T8", "T9", "T10"]
    matrices = xweat_report.xweat_cross_lingual_matrices(annotated, report_sections())
    assert len(matrices) == 7 and all(model == E5 for model, _ in matrices)
    t2 = matrices[E5, "T2"].set_index("targets \\ attributes")
    monolingual_de = next(
        r
        for r in records
        if r["metric"] == "effect_size"
        and r["model"] == E5
        and r["test"] == "T2"
        and r["language"] == "de"
    )
    assert t2.loc["de", "de"].startswith(f"{monolingual_de['value']:.3f}")
    en_es = next(
        r
        for r in records
        if r["metric"] == "effect_size"
        and r["targets_language"] == "en"
        and r["attributes_language"] == "es"
        and r["test"] == "T2"
    )
    assert t2.loc["en", "es"].startswith(f"{en_es['value']:.3f}")
    coverage = xweat_report.xweat_coverage_table(annotated, E5).set_index("test")
    worst = next(
        r["value"]
        for r in records
        if r["metric"] == "coverage"
        and r["model"] == E5
        and r["test"] == "T7"
        and r["language"] == "tr"
    )
    assert coverage.loc["T7", "tr"] == f"{worst:.0%}"
    # the coverage rule's skip: a cell that says so, the reason listed, nothing counted as a finding
    model, language, test = SKIPPED
    assert coverage.loc[test, language] == f"{SKIPPED_COVERAGE:.0%}"
    assert effects.set_index("test").loc[test, language] == "skipped"
    (reason,) = xweat_report.xweat_skipped(annotated)
    assert reason.startswith(f"{model}, {test}, {language}: set A keeps 62%")


def test_gender_space_tables(annotated):
    measures = gender_space_report.gender_space_table(annotated, report_sections())
    assert list(measures.columns) == [
        "model",
        "language",
        "mode",
        "classification_accuracy",
        "clustering_accuracy",
        "direct_bias",
        "knn_profession_r",
    ]
    assert list(measures["mode"]) == ["static", "static"]
    assert measures["knn_profession_r"].str.endswith("***†").all()
    curve = gender_space_report.explained_variance_table(annotated)
    assert list(curve.columns) == [
        "model",
        "language",
        "mode",
        "metric",
        *(f"pc{k}" for k in range(1, 11)),
    ]


def test_numbers_that_cannot_be_pooled_keep_their_seed_in_the_label(annotated):
    two_seeds = pd.concat([annotated, annotated.assign(seed=1)])
    labelled = report_tables.label_seeds(two_seeds)
    assert f"{MINILM} (seed 1)" in set(labelled["model"]) and f"{MINILM} (seed 0)" in set(
        labelled["model"]
    )
    assert report_tables.label_seeds(annotated) is annotated


# -- files -----------------------------------------------------------------------------------------


def _png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        return image.size


def test_html_is_self_contained_with_decodable_figures(report):
    main = report.html.read_text(encoding="utf-8")
    assert static_check(main) == (1, [], [])  # the summary's heatmap
    assert ">Summary</h2>" in main and ">Findings after multiple-testing control</h2>" in main
    html = (report.folder / "tables.html").read_text(
        encoding="utf-8"
    )  # the linked page of full tables
    n_images, broken, network = static_check(html)
    assert (n_images, broken, network) == (7, [], [])  # the sections' seven figures
    assert "<script" not in html + main
    sources = re.findall(r'<img src="data:image/png;base64,([^"]+)"', html)
    sizes = [_png_size(base64.b64decode(source)) for source in sources]
    assert all(width >= 400 and height >= 200 for width, height in sizes)
    for heading in (
        "Findings after multiple-testing control",
        "Equity Evaluation Corpora (EEC)",
        "Regressor quality",
        "XWEAT",
        "Gender space",
    ):
        assert f">{heading}</h2>" in html


def test_markdown_links_every_figure_and_csv_has_every_record(report, records):
    markdown = report.markdown.read_text(encoding="utf-8") + (
        report.folder / "tables.md"
    ).read_text(encoding="utf-8")
    links = re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.png)\)", markdown)
    assert len(links) == 8 and sorted(report.folder / link for link in links) == sorted(
        report.figures
    )
    assert all(_png_size(path.read_bytes()) for path in report.figures)
    assert "| emotion | model | African-American vs European, among men |" in markdown
    csv = pd.read_csv(report.csv)
    assert len(csv) == len(records)
    assert {
        "family",
        "p_holm",
        "p_bh",
        "survives_holm",
        "survives_bh",
        "poor_regressor",
        "loses_under_clustering",
        "bootstrap_ci_spans_zero",
    } <= set(csv.columns)


def test_unknown_format_is_refused(run_dir):
    with pytest.raises(InputError, match=r"unknown report formats \['pdf'\]"):
        write_report(run_dir, formats=("html", "pdf"))


def test_cli_report_writes_the_files(run_dir, tmp_path, capsys):
    assert main(["report", str(run_dir), "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"html: {tmp_path / 'out' / 'report.html'}",
        f"markdown: {tmp_path / 'out' / 'report.md'}",
        f"csv: {tmp_path / 'out' / 'results.csv'}",
    ]
