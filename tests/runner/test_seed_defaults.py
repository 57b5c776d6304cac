"""Training noise belongs in the uncertainty: a config without `seeds:` runs five seeds where a
suite trains its model with a seed (an MLP head, a max_train sample), one where the training is
deterministic (ridge, the SVR) and one elsewhere; a list or a mapping says otherwise; the EEC sample
is the same rows for every seed."""

import json

import pytest

from eval_harness.errors import ConfigError
from eval_harness.report import annotate, load_run
from eval_harness.runner import parse_config, plan_units, run_sweep
from eval_harness.runner.config import DEFAULT_SEEDS

MODELS = [
    {"name": "probe", "path": "/tmp", "type": "encoder"},
    {"name": "probe-mlp", "path": "/tmp", "type": "encoder", "options": {"head": "mlp"}},
    {"name": "svm-sampled", "type": "svm_tfidf", "options": {"max_train": 500}},
    {"name": "judge", "path": "/tmp", "type": "llm", "options": {"mode": "prompt"}},
    {"name": "llm-probe", "path": "/tmp", "type": "llm", "options": {"mode": "probe"}},
    {"name": "svm", "type": "svm_tfidf"},
    {"name": "classifier", "path": "/tmp", "type": "classifier"},
    {"name": "glove", "path": "glove", "type": "static_mlp"},
]
SUITES = {
    "eec": {"languages": ["en"], "emotions": ["anger"]},
    "xweat": {"languages": ["en"], "tests": ["T1"]},
}


def seeds_by_task(config: dict) -> dict[tuple[str, str], set[int]]:
    found: dict[tuple[str, str], set[int]] = {}
    for unit in plan_units(parse_config(config)).units:
        found.setdefault((unit.model, unit.suite), set()).add(unit.seed)
    return found


def test_by_default_five_seeds_where_a_regressor_is_trained_with_a_seed_and_one_elsewhere():
    found = seeds_by_task({"models": MODELS, "suites": SUITES})
    seeded = {("probe-mlp", "eec"), ("svm-sampled", "eec"), ("glove", "eec")}
    assert {task for task, seeds in found.items() if seeds == {0, 1, 2, 3, 4}} == seeded
    # ridge (the probes' default head) and the SVR train the same model whatever the seed: once; the
    # zero-shot judge and the classifier train nothing, nor does XWEAT: another seed would repeat
    # their numbers
    assert all(seeds == {0} for task, seeds in found.items() if task not in seeded)
    assert {("probe", "eec"), ("llm-probe", "eec"), ("svm", "eec")} <= set(found)
    assert {("judge", "eec"), ("classifier", "eec"), ("probe", "xweat"), ("glove", "xweat")} <= set(
        found
    )
    assert DEFAULT_SEEDS == {"trained": (0, 1, 2, 3, 4), "other": (0,)}


def test_a_list_is_every_tasks_seeds_and_a_mapping_sets_each_kind():
    listed = seeds_by_task({"models": MODELS, "suites": SUITES, "seeds": [4, 7]})
    deterministic = {
        ("probe", "eec"),
        ("llm-probe", "eec"),
        ("svm", "eec"),
    }  # trained once, with the first seed
    assert {
        task: seeds for task, seeds in listed.items() if task in deterministic
    } == dict.fromkeys(deterministic, {4})
    assert all(seeds == {4, 7} for task, seeds in listed.items() if task not in deterministic)
    mapped = seeds_by_task(
        {"models": MODELS, "suites": SUITES, "seeds": {"trained": [1, 2], "other": [5]}}
    )
    assert mapped[("probe-mlp", "eec")] == {1, 2} and mapped[("judge", "eec")] == mapped[
        ("probe", "xweat")
    ] == {5}
    assert mapped[("probe", "eec")] == {
        5
    }  # a deterministic training takes the first of the other seeds
    partial = seeds_by_task(
        {"models": MODELS, "suites": SUITES, "seeds": {"trained": [3, 4, 5, 6]}}
    )
    assert partial[("svm-sampled", "eec")] == {3, 4, 5, 6} and partial[("glove", "xweat")] == {0}
    assert partial[("svm", "eec")] == {0}


def test_the_normalised_config_spells_the_seeds_out_and_they_are_part_of_the_runs_identity():
    default = parse_config({"models": MODELS, "suites": SUITES})
    assert default.to_dict()["seeds"] == {"trained": [0, 1, 2, 3, 4], "other": [0]}
    assert parse_config(default.to_dict()).config_hash() == default.config_hash()
    same_for_all = parse_config({"models": MODELS, "suites": SUITES, "seeds": [0, 1, 2]})
    assert same_for_all.to_dict()["seeds"] == [0, 1, 2]  # XWEAT three times too: another run
    assert same_for_all.config_hash() != default.config_hash()
    assert parse_config(
        {"models": MODELS, "suites": SUITES, "seeds": {"trained": [0], "other": [0]}}
    ).to_dict()["seeds"] == [0]


@pytest.mark.parametrize(
    ("seeds", "message"),
    [
        (
            {"trained": [0], "others": [0]},
            r"seeds: unknown key 'others'; allowed keys: trained, other",
        ),
        ({"trained": []}, r"seeds.trained must be a non-empty list of integers >= 0"),
        ({"other": [1, 1]}, r"seeds.other has duplicates: \[1, 1\]"),
        ("0,1", r"seeds must be a non-empty list of integers >= 0 \(or, for seeds, a mapping"),
    ],
)
def test_bad_seeds_are_config_errors_that_name_the_key(seeds, message):
    with pytest.raises(ConfigError, match=message):
        parse_config({"models": MODELS, "suites": SUITES, "seeds": seeds})


def test_a_deterministic_regressor_is_trained_once_and_its_records_have_one_seed(tmp_path):
    """SVM-tfidf's training is deterministic: asked for three seeds, the run trains it once (seed
    0), so its records are one seed's, not three copies pooled as identical."""
    config = {
        "models": [{"name": "svm", "type": "svm_tfidf"}],
        "suites": {
            "eec": {
                "languages": ["en"],
                "emotions": ["anger"],
                "configs": ["en_black_white"],
                "sample": 2,
            }
        },
        "seeds": [0, 1, 2],
    }
    run_sweep(parse_config(config), tmp_path / "run", progress=False)
    records = [
        json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    ]
    assert records and {record["seed"] for record in records} == {0}
    pooled = annotate(load_run(tmp_path / "run").results)
    coefficients = pooled[(pooled["metric"] == "estimate") & (pooled["term"] != "intercept")]
    assert len(coefficients) == 3 and (
        "pooling" not in coefficients or coefficients["pooling"].isna().all()
    )
