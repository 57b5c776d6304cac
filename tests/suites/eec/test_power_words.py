"""What `xbias power` prints answers first and never contradicts itself (issue 40): one summary line
on top, no design count for a target the run already reaches, no MDE and no 'cannot tell' for an
effect without a usable standard error, and '1 sentence', never '1 sentences'."""

import math

import pandas as pd
import pytest

from eval_harness.stats.design_power import VarianceComponents, current_design, design_mde
from eval_harness.suites.eec.planner import (
    counted,
    no_plan_reason,
    plan_words,
    power_summary,
    power_table,
)

PLANNER = {
    "planner_template_var": 4e-6,
    "planner_within_var": 2e-3,
    "planner_weight_square_sum": 4.0,
    "planner_templates": 7,
    "planner_per_cell": 10.0,
}


def _row(**fields) -> dict:
    base = {
        "suite": "eec",
        "metric": "effect",
        "model": "m",
        "config": "en_black_white",
        "emotion": "anger",
        "term": "group_within_reference_gender",
        "value": 0.004,
        "std_err": 0.003,
        "p_value": 0.18,
        "statistic_kind": "z",
        "mde": 0.0084,
        "equivalence_margin": 0.01,
        **PLANNER,
    }
    return base | fields


def _mde_now(row) -> float:
    components = VarianceComponents(
        row["planner_template_var"],
        row["planner_within_var"],
        row["planner_weight_square_sum"],
        templates=row["planner_templates"],
        per_cell=row["planner_per_cell"],
    )
    return design_mde(components, current_design(components))


@pytest.mark.parametrize(
    ("n", "unit", "words"),
    [
        (1, "sentences per template × cell", "1 sentence per template × cell"),
        (1, "templates", "1 template"),
        (1, "seeds", "1 seed"),
        (3, "templates", "3 templates"),
    ],
)
def test_a_count_of_one_takes_the_singular(n, unit, words):
    assert counted(n, unit) == words


def test_a_target_the_run_already_reaches_gets_no_design_count():
    row = _row()
    now = _mde_now(row)
    target = 2 * now  # computed from the components: this design already reaches it
    words = plan_words(row, target)
    assert (
        "is reached with this run's design" in words
        and "needs" not in words
        and "template" not in words
    )
    assert "needs about" in plan_words(row, now / 2)  # a target it does not reach gets its design


@pytest.mark.parametrize("std_err", [0.0, math.nan])
def test_an_effect_without_a_usable_standard_error_has_no_mde_and_is_not_measured(std_err):
    row = _row(value=0.0, std_err=std_err, p_value=1.0, mde=1.3e-15)
    table = power_table(pd.DataFrame([row]))
    assert table.loc[0, "MDE (80%)"] == "" and table.loc[0, "planner"] == ""
    assert table.loc[0, "verdict"] == "not measured (no usable standard error)"
    assert "cannot tell" not in " ".join(table.loc[0].astype(str))


def test_the_summary_line_counts_the_effects_that_reach_the_target_and_names_the_worst():
    easy = _row()
    hard = _row(term="group:gender_did", planner_template_var=4e-4, planner_within_var=2e-2)
    results = pd.DataFrame([easy, hard])
    target = (_mde_now(easy) + _mde_now(hard)) / 2  # between the two: exactly one reaches it
    line = power_summary(results, target)
    assert line.startswith(
        f"1 of 2 effects reach an MDE of {target:g} now; "
        "the worst, en_black_white anger m group:gender_did"
    )
    assert f"has an MDE of {_mde_now(hard):.2g}" in line
    assert (
        power_summary(results, 10 * _mde_now(hard))
        == f"2 of 2 effects reach an MDE of {10 * _mde_now(hard):g} now."
    )


@pytest.mark.parametrize(
    ("row", "target", "said"),
    [
        (_row(), None, ""),  # a plan: nothing to explain
        (_row(equivalence_margin=None), None, "no --target and no equivalence_margin"),
        (_row(equivalence_margin=None), 0.02, ""),
        # the run has its margin but nothing to plan from: never "no equivalence_margin in the run"
        (_row(std_err=0.0), None, "no effect of this run has the planner's fields"),
        (
            {k: v for k, v in _row().items() if not k.startswith("planner_")},
            None,
            "no effect of this run has",
        ),
    ],
    ids=["planned", "no-margin", "target-given", "margin-no-se", "margin-no-planner-fields"],
)
def test_an_empty_planner_column_is_explained_by_its_real_cause(row, target, said):
    results = pd.DataFrame([row])
    reason = no_plan_reason(results, power_table(results, target), target)
    assert reason.startswith(said) if said else reason == ""
