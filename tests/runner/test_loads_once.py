"""A run reads each dataset once: every SemEval-2018 split, every XWEAT word set and every EEC
corpus is loaded once per run, however many models, emotions, seeds and language pairs use it; a
warm rerun loads its encoder once (docs/scaling.md)."""

from collections import Counter

import pytest
from helpers.small_semeval import small_semeval
from helpers.tiny_models import build_tiny_bert

import eval_harness.data as data
import eval_harness.data.emotion_splits as emotion_splits
import eval_harness.suites.xweat.suite as xweat_suite
from eval_harness.data import SEMEVAL_DIMENSIONS, clean_tweet, load_semeval
from eval_harness.data.emotion_splits import SemEvalSplits
from eval_harness.runner import parse_config, run_sweep


def counting(monkeypatch, module, name: str, original=None) -> Counter:
    """Replace ``module.name`` by a wrapper of it (or of ``original``) that counts its calls by
    their positional arguments."""
    calls, original = Counter(), original or getattr(module, name)

    def counted(*args, **kwargs):
        calls[args] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_the_splits_are_read_once_and_equal_a_direct_read(monkeypatch):
    loads = counting(monkeypatch, emotion_splits, "load_semeval")
    semeval = SemEvalSplits()
    first = semeval.splits("en", "anger")
    again = semeval.splits("en", "anger", max_train=50, seed=3)
    raw = semeval.splits("en", "anger", preprocess=None)
    texts = semeval.language_texts("en", "tweet")
    assert loads == {("en", dimension): 1 for dimension in SEMEVAL_DIMENSIONS}
    assert semeval.loads == {("en", dimension): 1 for dimension in SEMEVAL_DIMENSIONS}
    direct = load_semeval("en", "anger")  # the dataset itself, cleaned here
    for name in ("train", "validation", "test"):
        assert first[name].texts == [clean_tweet(text) for text in direct[name]["text"]]
        assert first[name].intensity.tolist() == list(direct[name]["intensity"])
        assert raw[name].texts == list(direct[name]["text"])
    assert len(again["train"]) == 50 and set(again["train"].texts) <= set(first["train"].texts)
    assert again["validation"] is first["validation"]
    assert (
        texts[: len(first["train"])] == first["train"].texts
    )  # anger comes first: SEMEVAL_DIMENSIONS' order
    assert len(texts) == sum(
        len(split) for d in SEMEVAL_DIMENSIONS for split in semeval.splits("en", d).values()
    )


@pytest.mark.slow
def test_a_run_loads_each_semeval_split_each_word_set_and_each_eec_once(tmp_path, monkeypatch):
    """Two encoders and SVM-tfidf x two emotions x two seeds train on (a small stand-in for) English
    SemEval-2018, the probes reading the two emotions' texts alone, in one encoding; XWEAT runs en,
    de and both pairs for both encoders."""
    semeval = counting(monkeypatch, emotion_splits, "load_semeval", small_semeval)
    word_sets = counting(monkeypatch, xweat_suite, "load_word_sets")
    eec = counting(monkeypatch, data, "load_eec")
    bert = build_tiny_bert(tmp_path / "bert")
    probe = {"pooling": "mean", "head": "mlp", "head_options": {"max_epochs": 1}}
    config = {
        "seeds": [0, 1],
        "models": [
            {"name": "tiny", "path": str(bert), "type": "encoder", "options": probe},
            {
                "name": "tiny-cls",
                "path": str(bert),
                "type": "encoder",
                "options": {**probe, "pooling": "cls"},
            },
            {"name": "svm", "type": "svm_tfidf", "options": {"max_train": 20, "min_df": 1}},
        ],
        "suites": {
            "eec": {
                "languages": ["en"],
                "emotions": ["anger", "joy"],
                "configs": ["en_black_white"],
                "sample": 1,
            },
            "xweat": {
                "languages": ["en", "de"],
                "tests": ["T1"],
                "cross_lingual": True,
                "permutations": 99,
            },
        },
    }
    summary = run_sweep(parse_config(config), tmp_path / "run", progress=False)
    assert summary.computed == summary.planned == 3 * 2 * 4 + 2 * 2 * 4
    assert semeval == {("en", dimension): 1 for dimension in ("anger", "joy")}
    assert word_sets == {("en",): 1, ("de",): 1}
    assert eec == {("en_black_white",): 1}


@pytest.mark.slow
def test_a_warm_rerun_of_the_e5_arabic_eec_loads_the_model_once(tmp_path, monkeypatch):
    """The cold run trains the e5 probe and caches it; a rerun into a new folder with that cache (a
    new run: new resources) restores the probe and loads e5's weights once, not once more to restore
    it, and writes the same records."""
    import json

    import eval_harness.models.loading as loading

    loads = counting(monkeypatch, loading, "load_pretrained")
    options = {
        "pooling": "mean",
        "prefix": "query: ",
        "max_train": 100,
        "head": "mlp",
        "head_options": {"max_epochs": 3},
    }
    model = {
        "name": "e5",
        "path": "pypi:multilingual-e5-small",
        "type": "encoder",
        "options": options,
    }
    suite = {"languages": ["ar"], "emotions": ["anger"], "configs": ["ar_arab_anglo"], "sample": 1}
    config = parse_config({"models": [model], "suites": {"eec": suite}, "seeds": [0]})
    cold = run_sweep(config, tmp_path / "cold", cache_dir=tmp_path / "cache", progress=False)
    assert sum(loads.values()) == 1
    loads.clear()
    warm = run_sweep(config, tmp_path / "warm", cache_dir=tmp_path / "cache", progress=False)
    assert sum(loads.values()) == 1 and warm.computed == cold.computed > 0
    assert (tmp_path / "warm" / "results.jsonl").read_text() == (
        tmp_path / "cold" / "results.jsonl"
    ).read_text()
    restored = [
        json.loads(line) for line in (tmp_path / "warm" / "results.jsonl").read_text().splitlines()
    ]
    assert {record["language"] for record in restored} == {"ar"} and any(
        r["metric"] == "estimate" for r in restored
    )
