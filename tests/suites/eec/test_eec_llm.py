"""The llm model type in the harness (tiny random causal LM built in the test): the zero-shot
judge's EEC records with their validity, its SemEval r, the probe on its hidden states, and its word
vectors in xweat."""

import json

import numpy as np
import pytest
from helpers.tiny_causal_lm import build_tiny_causal_lm

from eval_harness.data import load_eec
from eval_harness.errors import ConfigError
from eval_harness.models import ModelResources, build_emotion_model
from eval_harness.runner import parse_config, run_sweep
from eval_harness.suites.eec.suite import stratified_sample


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    return build_tiny_causal_lm(tmp_path_factory.mktemp("lm") / "llama")


def config(tiny_lm, options, suites=None):
    return parse_config(
        {
            "seeds": [0],  # one seed: these tests are about the llm type, not seed pooling
            "models": [
                {"name": "tiny-llm", "path": str(tiny_lm), "type": "llm", "options": options}
            ],
            "suites": suites
            or {
                "eec": {
                    "languages": ["en"],
                    "emotions": ["anger"],
                    "configs": ["en_black_white"],
                    "sample": 2,
                }
            },
        }
    )


def records(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def test_the_judge_writes_eec_records_with_its_validity_and_its_semeval_r(tiny_lm, tmp_path):
    run_sweep(config(tiny_lm, {"fit_sample": 20}), tmp_path / "run", progress=False)
    written = records(tmp_path / "run")
    quality = [r for r in written if r["metric"] == "pearson_r"]
    assert [r["split"] for r in quality] == ["validation", "test"] and quality[0][
        "model_type"
    ] == "llm"
    assert 0 <= quality[1]["selected"]["numeral_mass_test"] <= 1 and quality[1]["n"] == 20
    (validity,) = [r for r in written if r["metric"] == "numeral_mass"]
    # the same judge on the same (sampled) sentences, outside the harness
    judge = build_emotion_model(
        {"type": "llm", "path": str(tiny_lm), "options": {"fit_sample": 20}},
        ModelResources(device="cpu"),
    )
    judge.fit("en", "anger")
    anger = load_eec("en_black_white").to_pandas().query("emotion == 'anger'")
    sentences = stratified_sample(anger, 2, seed=0)["sentence"].tolist()
    direct = judge.score(sentences)
    assert validity["value"] == pytest.approx(direct.validity()["numeral_mass_mean"], rel=1e-6)
    assert validity["n"] == len(sentences)
    estimates = {r["term"]: r for r in written if r["metric"] == "estimate"}
    assert set(estimates) == {"intercept", "group", "gender", "group:gender"}
    assert all(np.isfinite(r["value"]) for r in estimates.values())
    # the prompt spread: the same sentences scored with each shipped paraphrase, one fit per
    # paraphrase
    names = judge.prompt_names()
    assert names == ("default", "expert", "rate", "conveys")
    masses = {
        name: float(judge.with_prompt(name).score(sentences).numeral_mass.mean()) for name in names
    }
    assert validity["prompt_numeral_mass"] == pytest.approx(masses, rel=1e-6)
    (group_ame,) = [r for r in written if r["metric"] == "effect" and r["term"] == "group_ame"]
    assert list(group_ame["stability_prompt_estimates"]) == list(names)
    assert 0 <= group_ame["stability_prompt_sign"] <= 1 and group_ame["stability_resamples"] > 0


def test_the_probe_mode_trains_on_hidden_states_and_word_vectors_serve_xweat(tiny_lm, tmp_path):
    probe = {"mode": "probe", "max_train": 40, "head": "mlp", "head_options": {"max_epochs": 2}}
    run_sweep(config(tiny_lm, probe), tmp_path / "probe", progress=False)
    written = records(tmp_path / "probe")
    (test_r,) = [r for r in written if r["metric"] == "pearson_r" and r["split"] == "test"]
    assert (
        test_r["model_type"] == "encoder" and -1 <= test_r["value"] <= 1
    )  # an encoder probe on the LM
    assert not [r for r in written if r["metric"] == "numeral_mass"]

    xweat = {"xweat": {"languages": ["en"], "tests": ["T1"], "n_bootstrap": 0}}
    run_sweep(config(tiny_lm, {}, suites=xweat), tmp_path / "xweat", progress=False)
    (effect,) = [r for r in records(tmp_path / "xweat") if r["metric"] == "effect_size"]
    assert effect["status"] == "ok" and np.isfinite(effect["value"])


def test_options_of_the_other_mode_are_refused_before_anything_runs(tiny_lm, tmp_path):
    with pytest.raises(ConfigError, match="'pooling' belong to mode probe"):
        config(tiny_lm, {"pooling": "last"})
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_two_cpu_ranks_give_the_judges_results_of_one_process(tiny_lm, tmp_path):
    """The judge's predictions are shared out over the ranks in fixed chunks: the records equal one
    process's."""
    import yaml
    from helpers.accelerate_ranks import run_in_one_and_two_ranks

    path = tmp_path / "llm.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "models": [
                    {
                        "name": "tiny-llm",
                        "path": str(tiny_lm),
                        "type": "llm",
                        "options": {"fit_sample": 20},
                    }
                ],
                "suites": {
                    "eec": {
                        "languages": ["en"],
                        "emotions": ["anger"],
                        "configs": ["en_black_white"],
                        "sample": 3,
                    }
                },
            }
        )
    )
    run_in_one_and_two_ranks(path, tmp_path)
    assert json.loads((tmp_path / "two" / "run.json").read_text())["num_processes"] == 2
    one, two = records(tmp_path / "one"), records(tmp_path / "two")
    assert any(r["metric"] == "numeral_mass" for r in one)
    for left, right in zip(one, two, strict=True):
        assert left.keys() == right.keys() and left["metric"] == right["metric"]
        for key, value in left.items():
            if isinstance(value, float):
                assert right[key] == pytest.approx(value, rel=1e-6, abs=1e-9), key
            else:
                assert right[key] == value, key
