"""The end-of-run summary table says why a cell has no value (n/a [k] and the reason in a
footnote)."""

from eval_harness.contract import Suite, UnitKey
from eval_harness.runner import parse_config, run_sweep
from eval_harness.suites import register_suite, unregister_suite


class CoverageSuite(Suite):
    name = "coverage_toy"
    languages = ("en",)
    options = {}

    def plan(self, model, language, options):
        return [UnitKey(dataset="words", test=test) for test in ("T1", "T2", "T3")]

    def evaluate(self, unit, prepared, ctx):
        if unit.test == "T2":
            return [
                {
                    "metric": "effect_size",
                    "value": None,
                    "note": "set X keeps 3 of 8 words, below the 80% rule",
                }
            ]
        return [{"metric": "effect_size", "value": 0.5, "p_value": 0.01}]


def test_a_missing_value_points_to_its_reason(tmp_path):
    register_suite(CoverageSuite(), replace=True)
    try:
        config = parse_config(
            {
                "models": [{"name": "m", "type": "svm_tfidf"}],
                "suites": ["coverage_toy"],
                "languages": ["en"],
            }
        )
        table = run_sweep(config, tmp_path / "run", progress=False).table
    finally:
        unregister_suite("coverage_toy")
    row = next(line for line in table.splitlines() if line.startswith("m "))
    assert "n/a[1]" in row and row.count("+0.500***") == 2
    assert "n/a [1]: set X keeps 3 of 8 words, below the 80% rule" in table.splitlines()
