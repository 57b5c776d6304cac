"""A new user's first run: `xbias run --model pypi:multilingual-e5-small` with no options runs the
model as the demo config's entry for it does (mean pooling, the "query: " prefix), encodes only the
emotion it is asked for, and a second run into a new folder takes every feature from the user's
feature cache. The probes train on a small stand-in for SemEval-2018 (helpers.small_semeval), so
that the test encodes about 150 texts, not 3,000."""

import json
import math

import pytest
import yaml
from helpers.small_semeval import small_semeval

from eval_harness.cli import main
from eval_harness.data import emotion_splits
from eval_harness.data.emotion_splits import SemEvalSplits
from eval_harness.runner import parse_config, read_config
from eval_harness.runner.plan import plan_units
from eval_harness.suites import get_suite

PICK = [
    "--languages",
    "en",
    "--eec-configs",
    "en_arab_anglo",
    "--emotions",
    "anger",
    "--limit",
    "2",
]


def records(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def assert_records_equal(first, second, tolerance=1e-9):
    assert len(first) == len(second) and first
    for one, other in zip(first, second, strict=True):
        assert one.keys() == other.keys()
        for key, value in one.items():
            if isinstance(value, float) and isinstance(other[key], float):
                assert math.isclose(value, other[key], rel_tol=0, abs_tol=tolerance), (
                    key,
                    value,
                    other[key],
                )
            else:
                assert value == other[key], key


@pytest.mark.slow
def test_e5_without_options_is_the_demo_configs_e5_and_reuses_its_features(
    multilingual_e5, tmp_path, monkeypatch
):
    monkeypatch.setenv("XBIAS_FEATURE_CACHE", str(tmp_path / "features"))
    monkeypatch.setattr(emotion_splits, "load_semeval", small_semeval)
    demo, _ = read_config("demo")
    (entry,) = [
        model for model in demo["models"] if model.get("path") == "pypi:multilingual-e5-small"
    ]
    assert entry["options"] == {"pooling": "mean", "prefix": "query: "}
    config_file = tmp_path / "demo-e5.yaml"
    config_file.write_text(
        yaml.safe_dump({"models": [entry], "suites": {"eec": {"languages": ["en"]}}})
    )
    with_config, with_model = tmp_path / "demo-e5", tmp_path / "e5"
    pick = [flag for flag in PICK if flag not in ("--languages", "en")]
    assert main(["run", "-q", "--config", str(config_file), *pick, "--out", str(with_config)]) == 0
    assert main(["run", "-q", "--model", "pypi:multilingual-e5-small", "--suite", "eec", *PICK,
                 "--out", str(with_model)]) == 0  # fmt: skip

    assert_records_equal(records(with_model), records(with_config))
    info = json.loads((with_model / "run.json").read_text())
    assert info["provenance"]["models"]["multilingual-e5-small"]["options"] == {
        "pooling": "mean",
        "prefix": "query: ",
    }
    assert {(r["encoder_pooling"], r["encoder_prefix"]) for r in records(with_model)} == {
        ("mean", "query: ")
    }

    # the first run encoded the anger tweets and the sampled sentences, each once, and nothing else
    cli_config = parse_config(
        {"models": ["pypi:multilingual-e5-small"], "languages": ["en"],
         "suites": {"eec": {"configs": ["en_arab_anglo"], "emotions": ["anger"], "sample": 2}}}
    )  # fmt: skip
    (task,) = plan_units(cli_config).tasks
    anger = set(SemEvalSplits(["anger"]).language_texts("en", "tweet"))
    every_dimension = set(SemEvalSplits().language_texts("en", "tweet"))
    needed = anger | set(get_suite("eec").texts_to_score(task))
    first = json.loads((with_config / "run.json").read_text())["features"]["multilingual-e5-small"]
    assert first["computed_texts"] == len(needed) < len(every_dimension)
    # the second run, another folder, computed nothing: its settings are the same, so are its
    # features' keys
    assert info["features"]["multilingual-e5-small"]["computed_texts"] == 0
    assert info["features"]["multilingual-e5-small"]["reused_texts"] >= len(needed)
