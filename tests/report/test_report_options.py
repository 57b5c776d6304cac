"""A method's thresholds are its section's report options, not fields of the generic report
(docs/architecture.md): the EEC section's ``min_regressor_r`` is set with ``options=``, the
cross-lingual section reads the same value, an option no section reads is refused in one line; and
what every section declares reaches the report's building blocks (the kit) from the assembly, so
that a registered section's flag marks the kit's tables."""

import re

import pandas as pd
import pytest

from eval_harness.errors import InputError
from eval_harness.report import annotate, load_run, register_section, unregister_section
from eval_harness.report.kit import tables as report_tables
from eval_harness.report.kit.method_section import Flag, ReportSection, ReportSettings
from eval_harness.report.sections import report_sections
from eval_harness.suites.eec.report import MIN_REGRESSOR_R
from eval_harness.suites.eec_crosslingual.report import SECTION as CROSSLINGUAL

QUALITY = ("pearson_r", "numeral_mass")


def test_the_eec_line_of_a_poor_regressor_is_the_readers_report_option(run_dir, records):
    results = load_run(run_dir).results
    test_r = {
        (x["model"], x["language"], x["emotion"]): x["value"]
        for x in records
        if x["metric"] == "pearson_r" and x.get("split") == "test"
    }
    for line, options in ((MIN_REGRESSOR_R, None), (0.6, {"min_regressor_r": 0.6})):
        annotated = annotate(results, options=options)
        measured = annotated[
            (annotated["suite"] == "eec")
            & ~annotated["metric"].isin(QUALITY)
            & annotated["emotion"].notna()
        ]
        keys = measured[["model", "language", "emotion"]].itertuples(index=False, name=None)
        expected = [test_r.get(key, float("nan")) < line for key in keys]  # no r: nothing to flag
        assert measured["poor_regressor"].astype(bool).tolist() == expected
        assert 0 < sum(expected) < len(expected)  # the line splits the synthetic regressors
    assert MIN_REGRESSOR_R < 0.6


def test_the_crosslingual_section_reads_the_eec_option():
    differences = pd.DataFrame(
        {
            "suite": ["eec_crosslingual"] * 2,
            "metric": ["language_difference"] * 2,
            "reference_regressor_r": [0.5, 0.7],
            "other_regressor_r": [0.7, 0.7],
        }
    )
    for options, expected in (({}, [False, False]), ({"min_regressor_r": 0.6}, [True, False])):
        flagged = CROSSLINGUAL.annotate(differences, ReportSettings(0.05, "model", options))
        assert flagged["poor_regressor"].tolist() == expected


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"min_regresor_r": 0.5},
            "unknown report option 'min_regresor_r'; the report's sections read: min_regressor_r",
        ),
        (
            {"min_regressor_r": "high"},
            "report option 'min_regressor_r' takes a finite number (default 0.4); got 'high'",
        ),
        ({"min_regressor_r": True}, "takes a finite number"),
        ({"min_regressor_r": float("nan")}, "takes a finite number"),
    ],
)
def test_an_option_no_section_reads_or_of_another_type_is_one_line(
    run_dir, tmp_path, options, message
):
    from eval_harness.report import write_report

    with pytest.raises(InputError, match=re.escape(message)) as raised:
        write_report(run_dir, out_dir=tmp_path / "report", options=options)
    assert "\n" not in str(raised.value) and not (tmp_path / "report").exists()


def test_a_whole_number_is_a_number_option(run_dir):
    annotated = annotate(load_run(run_dir).results, options={"min_regressor_r": 1})
    measured = annotated[(annotated["suite"] == "eec") & (annotated["metric"] == "estimate")]
    assert measured["poor_regressor"].all()  # every Pearson r is below 1


class _FlaggingSection(ReportSection):
    flags = (Flag("kit_probe_flag", "¤ probed", mark="¤", legend="{mark} probed at {alpha:g}."),)


def test_a_registered_sections_flag_marks_the_kits_tables_and_legend_until_unregistered():
    row = pd.Series({"value": 0.5, "p_value": 0.2, "kit_probe_flag": True})
    assert report_tables.marked_value(row, report_sections()) == "0.500"
    register_section(_FlaggingSection(), "kit_probe")
    try:
        assert report_tables.marked_value(row, report_sections()) == "0.500¤"
        assert report_tables.significance_legend(report_sections(), 0.01).endswith(
            "¤ probed at 0.01."
        )
    finally:
        unregister_section("kit_probe")
    assert report_tables.marked_value(row, report_sections()) == "0.500"
    assert "¤" not in report_tables.significance_legend(report_sections())
