"""The GPU numbers docs/scaling.md lists as unmeasured, in one call on a machine with a CUDA device.

1. The device: name, memory, bf16 support, and what ``precision: auto`` runs as there
   (``precision_name``).
2. e5 (``pypi:multilingual-e5-small``, mean pooling, ``"query: "``) on ``--sentences`` EEC
   sentences: texts/s on the GPU in fp32, in bf16 and under ``auto``, and the largest difference of
   each from the CPU's fp32 vectors (the tolerance between a CPU and a GPU run).
3. The SmolLM2 judge (``pypi:smollm2-135m-instruct``) on a quarter of them: tokens/s on the GPU in
   fp32 and bf16, and the largest difference of its scores (expected values in [0, 1]) from the
   CPU's fp32 scores.

Each GPU timing is the fastest of ``--repeats`` (after one warm-up call); the CPU runs once, for the
reference numbers only. Prints; asserts nothing. Refuses to start without CUDA (one line). Run, in
one device call: ``.venv/bin/python bench/gpu.py [--sentences 2000] [--repeats 3]`` (a few minutes
on one GPU, most of it the CPU
reference: lower ``--sentences`` where time is short). ``--dry-run`` runs every step on the CPU in
its place with 8 sentences and one repeat: a check, on a machine without a GPU, that the script
still runs against the code.
"""

import argparse
import os
import sys
import time

from eval_harness.thread_policy import apply_thread_policy, thread_policy_summary

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import numpy as np
import torch

from eval_harness.data import load_eec
from eval_harness.models import TransformerEncoder
from eval_harness.models.batching import precision_name
from eval_harness.models.causal_lm import load_causal_lm
from eval_harness.models.packaged import resolve_source
from eval_harness.models.prompt_judge import PromptJudge

E5 = "pypi:multilingual-e5-small"
JUDGE = "pypi:smollm2-135m-instruct"
GPU_PRECISIONS = ("fp32", "bf16", "auto")


def fastest_seconds(call, repeats: int, device: str):
    """``(result, fastest seconds)`` of ``repeats`` calls after a warm-up call (CUDA synchronised
    around each)."""
    synchronize = torch.cuda.synchronize if device == "cuda" else lambda: None
    result, best = call(), float("inf")
    for _ in range(repeats):
        synchronize()
        started = time.perf_counter()
        result = call()
        synchronize()
        best = min(best, time.perf_counter() - started)
    return result, best


def e5_numbers(sentences: list[str], repeats: int, device: str) -> None:
    folder = resolve_source(E5)

    def encoder(device: str, precision: str) -> TransformerEncoder:
        return TransformerEncoder.from_pretrained(
            folder,
            pooling="mean",
            prefix="query: ",
            device=device,
            precision=precision,
            batch_size=64,
            progress=False,
        )

    reference = encoder("cpu", "fp32").encode(sentences)
    for precision in GPU_PRECISIONS:
        model = encoder(device, precision)
        vectors, seconds = fastest_seconds(
            lambda model=model: model.encode(sentences), repeats, device
        )
        print(
            f"  e5 {device} {precision:<5} ({precision_name(precision, device)}) "
            f"{len(sentences) / seconds:9.1f} texts/s; "
            f"largest |{device} - cpu fp32| {np.abs(vectors - reference).max():.2e}"
        )


def judge_scores(lm, sentences: list[str], emotions: list[str]) -> np.ndarray:
    """The judge's expected scores of ``sentences``, each under its emotion's prompt (no prefix kept
    from before)."""
    lm.clear_prefix_cache()
    expected = np.zeros(len(sentences))
    for emotion in sorted(set(emotions)):
        judge = PromptJudge(lm, preprocess=None)
        judge.language, judge.dimension = "en", emotion
        rows = [index for index, value in enumerate(emotions) if value == emotion]
        expected[rows] = judge.score([sentences[index] for index in rows]).expected
    return expected


def judge_numbers(sentences: list[str], emotions: list[str], repeats: int, device: str) -> None:
    def load(device: str, precision: str):
        return load_causal_lm(
            JUDGE, batch_size=32, precision=precision, device=device, progress=False
        )

    reference = judge_scores(load("cpu", "fp32"), sentences, emotions)
    for precision in ("fp32", "bf16"):
        lm = load(device, precision)
        before = lm.tokens_computed()
        expected, seconds = fastest_seconds(
            lambda lm=lm: judge_scores(lm, sentences, emotions), repeats, device
        )
        tokens = (lm.tokens_computed() - before) / (repeats + 1)
        print(
            f"  judge {device} {precision:<5} {tokens / seconds:9.1f} tokens/s; largest "
            f"|{device} - cpu fp32| score {np.abs(expected - reference).max():.2e}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sentences", type=int, default=2000, help="EEC sentences for e5; a quarter for the judge"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--dry-run", action="store_true", help="every step on the CPU, 8 sentences, one repeat"
    )
    args = parser.parse_args()
    if args.dry_run:
        device, args.sentences, args.repeats = "cpu", 8, 1
        print(f"dry run on the CPU: torch {torch.__version__}; {thread_policy_summary()}")
    elif not torch.cuda.is_available():
        sys.exit(
            "bench/gpu.py needs a CUDA device; torch sees "
            "none (--dry-run checks the script on the CPU)"
        )
    else:
        device, properties = "cuda", torch.cuda.get_device_properties(0)
        print(
            f"{properties.name}, {properties.total_memory / 2**30:.0f} GiB, bf16 "
            f"{torch.cuda.is_bf16_supported()}, precision auto runs as "
            f"{precision_name('auto', 'cuda')}; torch {torch.__version__}, CUDA "
            f"{torch.version.cuda}; {os.cpu_count()} CPU cores, {thread_policy_summary()}"
        )
    eec = load_eec("en_black_white").to_pandas()
    eec = eec[eec["emotion"].notna()]
    sample = eec.iloc[
        np.sort(
            np.random.default_rng(0).choice(len(eec), min(args.sentences, len(eec)), replace=False)
        )
    ]
    e5_numbers(sample["sentence"].tolist(), args.repeats, device)
    judged = sample.iloc[: max(len(sample) // 4, 2)]
    judge_numbers(judged["sentence"].tolist(), judged["emotion"].tolist(), args.repeats, device)


if __name__ == "__main__":
    main()
