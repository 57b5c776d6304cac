"""The seed estimands are declared once (stats/estimands.py): the records' pooling names, the
outputs' sentences, every default and the command line's choices are read from that declaration."""

import inspect

import pytest

from eval_harness.cli import main
from eval_harness.contract import seeds
from eval_harness.contract.records import ESTIMAND_SENTENCES, POOLING_OF_ESTIMAND, TESTED_POOLINGS
from eval_harness.report import annotate, write_report
from eval_harness.stats.estimands import DEFAULT_ESTIMAND, ESTIMANDS
from eval_harness.stats.pooling import pool_estimates

KEY = dict(model="m", suite="s", language="en", dataset="d", config="c", emotion="anger", test=None)


def test_every_default_is_the_declared_one():
    assert DEFAULT_ESTIMAND in ESTIMANDS
    defaults = {
        pool_estimates: "estimand",
        seeds.pool_seeds: "estimand",
        seeds.pool_group: "estimand",
        annotate: "seed_estimand",
        write_report: "seed_estimand",
    }
    for function, parameter in defaults.items():
        default = inspect.signature(function).parameters[parameter].default
        assert default == DEFAULT_ESTIMAND, function.__name__


@pytest.mark.parametrize("name", list(ESTIMANDS))
def test_a_pooled_record_and_its_summary_name_the_declared_estimand(name):
    records = [
        dict(KEY, term="t", metric="estimate", value=value, std_err=0.02, seed=seed)
        for seed, value in enumerate((0.10, 0.16, 0.04))
    ]
    (pooled,) = seeds.pool_seeds(records, estimand=name)
    assert pooled["pooling"] == ESTIMANDS[name].pooling == POOLING_OF_ESTIMAND[name]
    assert TESTED_POOLINGS[pooled["pooling"]] == name
    assert ESTIMAND_SENTENCES[name] == ESTIMANDS[name].sentence
    summary = pool_estimates([0.10, 0.16, 0.04], [0.02] * 3, estimand=name).summary()
    assert summary.startswith(f"{ESTIMANDS[name].words} 3 seeds: ")


def test_the_command_line_offers_the_declared_estimands(capsys):
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    choices = ",".join(name.replace("_", "-") for name in ESTIMANDS)
    assert f"--seed-estimand {{{choices}}}" in capsys.readouterr().out
