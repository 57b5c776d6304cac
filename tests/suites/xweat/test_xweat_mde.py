"""Every WEAT test's effect-size record carries its minimum detectable effect at 80 % power
(declared in the schema), and the report shows it as a column: a test with p > 0.05 reads "could not
have detected less than"."""

import numpy as np
import pandas as pd
import pytest

from eval_harness.models.static import StaticVectors
from eval_harness.report.sections import report_sections
from eval_harness.stats.weat_power import weat_minimum_detectable_effect
from eval_harness.suites.xweat import WordSet, run_xweat, xweat_records
from eval_harness.suites.xweat.records import XWEAT_RECORDS
from eval_harness.suites.xweat.report import (
    detectable_cell,
    xweat_not_detected,
    xweat_uncertainty_table,
)


def effect_record(lean: float, n_x: int = 8, seed: int = 0) -> dict:
    """One WEAT test on random vectors whose X words lean ``lean`` towards A (and Y words as far
    towards B)."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=12)
    direction /= np.linalg.norm(direction)
    sizes, leans = {"X": n_x, "Y": 8, "A": 8, "B": 8}, {"X": lean, "Y": -lean, "A": 2.0, "B": -2.0}
    names = {role: [f"{role.lower()}{i}" for i in range(size)] for role, size in sizes.items()}
    rows = [rng.normal(size=12) + leans[role] * direction for role in names for _ in names[role]]
    vectors = StaticVectors([word for listed in names.values() for word in listed], np.array(rows))
    sets = {
        "en": {
            "T1": {role: WordSet(role, f"set {role}", "en", tuple(names[role])) for role in "XYAB"}
        }
    }
    (result,) = run_xweat(vectors, [("en", "en")], word_sets=sets, seed=0, n_bootstrap=200)
    effect = xweat_records(result)[0]
    assert effect["metric"] == "effect_size"
    return effect


@pytest.mark.parametrize("n_x", [8, 12])
def test_the_effect_size_record_carries_its_mde_and_the_schema_declares_it(n_x):
    record = effect_record(0.8, n_x)
    assert record["mde"] == weat_minimum_detectable_effect(n_x, 8, "greater", 0.05, 0.8)
    assert (record["mde_power"], record["mde_alpha"]) == (0.8, 0.05)
    assert XWEAT_RECORDS.problem(record) is None


def test_the_report_column_reads_a_not_significant_test_as_what_it_could_not_have_detected():
    significant, null = effect_record(1.5), effect_record(0.0, seed=3)
    assert significant["p_value"] <= 0.05 < null["p_value"]
    assert detectable_cell(pd.Series(significant)) == f"d = {significant['mde']:.2f}"
    assert (
        detectable_cell(pd.Series(null)) == "p > 0.05: could not have detected less than d = 1.09"
    )
    assert detectable_cell(pd.Series({**null, "alternative": "two-sided"})).endswith(
        "less than |d| = 1.09"
    )
    results = pd.DataFrame(
        [{**record, "suite": "xweat", "model": "m", "language": "en", "test": test}
         for test, record in (("T1", significant), ("T2", null))]
    )  # fmt: skip
    table = xweat_uncertainty_table(results, "m", report_sections())
    assert table["MDE (80 % power)"].tolist() == [
        "d = 1.09",
        "p > 0.05: could not have detected less than d = 1.09",
    ]
    assert xweat_not_detected(results) == (
        "1 WEAT test(s) have p > 0.05. That is not evidence of no bias: with their "
        "set sizes, their permutation tests could not have detected less than d = "
        "1.09 at 80 % power (the MDE column); smaller effects may be there."
    )
    assert xweat_not_detected(results[results["test"] == "T1"]) is None
    older = results.drop(columns=["mde", "mde_power", "mde_alpha"])
    table = xweat_uncertainty_table(older, "m", report_sections())
    assert "MDE (80 % power)" not in table.columns  # runs from before the MDE
    assert xweat_not_detected(older) is None
    # without a bootstrap the table still shows the MDE
    unbootstrapped = results.drop(columns=["ci_low", "ci_high", "bootstrap_std_err", "n_bootstrap"])
    assert (
        "MDE (80 % power)"
        in xweat_uncertainty_table(unbootstrapped, "m", report_sections()).columns
    )
