"""Adding a method is one folder: ``tests/toy_method/`` (its suite, record schema and report
section) lives only in the tests, is registered by one line, and runs through ``xbias run`` and
``xbias report`` like a built-in method, its own section in the report — or is found as an installed
plug-in through the ``xbias.suites`` entry-point group. A record its schema does not describe stops
the run with one line."""

import json

import toy_method
import yaml

from eval_harness.cli import main
from eval_harness.suites import get_suite, register_suite, suite_names, unregister_suite


def test_a_method_folder_registered_by_one_line_runs_and_reports(tmp_path):
    register_suite("toy_method:SUITE")  # the one line: the suite is called "toy_method" in configs
    try:
        config = tmp_path / "toy.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "models": [{"name": "m1", "type": "svm_tfidf"}],
                    "suites": {"toy_method": {"languages": ["en"]}},
                }
            )
        )
        out = tmp_path / "run"
        assert main(["run", "--config", str(config), "--out", str(out), "--no-progress"]) == 0
        assert main(["report", str(out), "--format", "html,md"]) == 0
    finally:
        unregister_suite("toy_method")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    n_units = 2 * len(toy_method.EMOTIONS)  # n_configs x emotions
    assert {record["suite"] for record in records} == {"toy_method"}
    assert len(records) == 2 * n_units and len(list((out / "units").iterdir())) == n_units
    report = (
        out / "report" / "tables.md"
    ).read_text()  # the full tables page: each method's section
    # The method's own section, with its headline table, its sentences and its figure; nothing left
    # to "Other".
    assert (
        "## Toy method" in report
        and "| model | language | config | anger | fear | joy | sadness |" in report
    )
    estimates = [r for r in records if r["metric"] == "estimate"]
    first = next(r for r in estimates if (r["config"], r["emotion"]) == ("en_c0", "anger"))
    row = next(line for line in report.splitlines() if line.startswith("| m1 | en | en_c0 |"))
    assert row.split(" | ")[3].startswith(f"{first['value']:.3f}")
    strongest = min(
        (r for r in estimates if r["p_value"] <= 0.10), key=lambda r: r["p_value"], default=None
    )
    if strongest is not None:
        assert (
            f"{strongest['config']}, {strongest['emotion']}: "
            f"the toy estimate is {strongest['value']:+.3f}" in report
        )
    assert (
        "figures/toy_estimates.png" in report
        and (out / "report" / "figures" / "toy_estimates.png").is_file()
    )
    assert "Other results" not in report


def test_an_installed_plugin_is_found_through_its_entry_point(tmp_path, monkeypatch):
    # What `pip install` of a plug-in distribution leaves behind: its metadata with the entry point.
    info = tmp_path / "xbias_toy_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xbias-toy-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[xbias.suites]\ntoy_plugin = toy_method:SUITE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "toy_plugin" in suite_names()
    try:
        assert get_suite("toy_plugin") is toy_method.SUITE
    finally:
        unregister_suite("toy_plugin")


class UndeclaredField(toy_method.ToySuite):
    def evaluate(self, unit, prepared, ctx):
        return [{**record, "surprise": 1} for record in super().evaluate(unit, prepared, ctx)]


def test_a_record_its_schema_does_not_declare_stops_the_run_with_one_line(tmp_path, capsys):
    register_suite(UndeclaredField(), name="toy_undeclared")
    try:
        config = tmp_path / "toy.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "models": [{"name": "m1", "type": "svm_tfidf"}],
                    "suites": {"toy_undeclared": {"languages": ["en"]}},
                }
            )
        )
        assert (
            main(["run", "--config", str(config), "--out", str(tmp_path / "run"), "--no-progress"])
            == 2
        )
    finally:
        unregister_suite("toy_undeclared")
    error = capsys.readouterr().err
    assert (
        error.count("\n") == 1
        and "field 'surprise' is not declared in the suite's record schema" in error
    )
