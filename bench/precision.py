"""What bf16 autocast on a CPU changes: speed, the vectors and scores, Pearson r and the EEC
estimates.

1. Speed, in one process, each pair interleaved ``--repeats`` times (fastest kept):
   - e5 (``pypi:multilingual-e5-small``, mean pooling, ``"query: "``): the ceiling (pre-tokenised
     length-sorted batches of the EEC sentences straight into the model) in fp32 and under bf16
     autocast; xbias's encoder in both precisions, with the largest difference and the smallest
     cosine between their vectors;
   - the SmolLM2 judge (``pypi:smollm2-135m-instruct``) on EEC sentences in both precisions:
     tokens/s and the largest difference between the scores (expected values in [0, 1]) and numeral
     masses.
2. Numbers, per emotion: the e5 probe (:class:`~eval_harness.models.ProbeRegressor`, head
   ``--head``) trained on SemEval-2018 in fp32 with seed 0, in bf16 with seed 0, and in fp32 with
   seed 1 (on the fp32 vectors, from an embedding cache: only the head's training differs). Pearson
   r on the test split; then each probe scores a stratified EEC sample (the eec suite's ``sample``
   per template x group x gender cell) and the Beta regression is fitted on it
   (``fit_intersectional``, model-based and template-clustered): for the coefficients and effects,
   the largest |bf16 - fp32| next to the largest |seed 1 - seed 0| (the MLP probe's training noise,
   zero for a deterministic head such as SVR), in units of the fp32 standard error.

Runs under the thread policy of ``xbias run`` (:mod:`eval_harness.thread_policy`). The speed part
runs once per CPU kind of ``--capabilities`` in a child process with ``ATEN_CPU_CAPABILITY`` and
``ONEDNN_MAX_CPU_ISA`` set (``native``: nothing forced), which also prints whether bf16 matrix units
are detected and what ``auto`` runs as. Prints; asserts nothing.
Run: ``.venv/bin/python bench/precision.py [--language en] [--eec-config en_black_white] [--sample
4] [--emotions anger,fear,joy,sadness] [--head mlp] [--max-train 0] [--max-eval 0] [--sentences 480]
[--repeats 3] [--capabilities native,avx512,avx2,default] [--no-records] [--quick]`` (0: every
text). The full size encodes every SemEval text of each emotion twice (hours on 2 loaded cores);
``--quick --head svr`` (anger only, 300 training and 150 validation and test tweets, one sentence
per EEC cell, 120 timed sentences, 2 repeats, four CPU kinds) took 25 minutes at load average 10-19
on the 2-core AMX Xeon (docs/models.md has its numbers).
"""

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

from eval_harness.thread_policy import apply_thread_policy, thread_policy_summary

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import numpy as np
import torch

from eval_harness.data import load_eec
from eval_harness.data.catalog import EEC_REFERENCE_GROUP
from eval_harness.data.emotion_splits import TextSplit, semeval_splits
from eval_harness.models import EmbeddingCache, ProbeRegressor, TransformerEncoder
from eval_harness.models.causal_lm import load_causal_lm
from eval_harness.models.packaged import resolve_source
from eval_harness.models.prompt_judge import PromptJudge
from eval_harness.stats.betareg import fit_intersectional
from eval_harness.suites.eec.suite import stratified_sample

E5 = "pypi:multilingual-e5-small"
JUDGE = "pypi:smollm2-135m-instruct"


def autocast(bf16: bool):
    return torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()


def fastest(methods: dict, repeats: int) -> dict:
    """``{name: (result, fastest seconds)}``, the methods run in turn ``repeats`` times."""
    best: dict = {}
    for _ in range(repeats):
        for name, method in methods.items():
            started = time.perf_counter()
            result = method()
            seconds = time.perf_counter() - started
            if name not in best or seconds < best[name][1]:
                best[name] = (result, seconds)
    return best


def e5_speed(sentences: list[str], repeats: int) -> None:
    folder = resolve_source(E5)
    encoders = {
        precision: TransformerEncoder.from_pretrained(
            folder,
            pooling="mean",
            prefix="query: ",
            precision=precision,
            batch_size=64,
            progress=False,
        )
        for precision in ("fp32", "bf16")
    }
    model, tokenizer = encoders["fp32"].model, encoders["fp32"].tokenizer
    sequences = tokenizer(["query: " + sentence for sentence in sentences], truncation=True)[
        "input_ids"
    ]
    order = sorted(range(len(sequences)), key=lambda index: -len(sequences[index]))
    batches = []
    for start in range(0, len(order), 64):
        rows = [sequences[index] for index in order[start : start + 64]]
        longest = max(map(len, rows))
        ids = torch.tensor([row + [tokenizer.pad_token_id] * (longest - len(row)) for row in rows])
        batches.append((ids, (ids != tokenizer.pad_token_id).long()))

    def ceiling(bf16: bool):
        with torch.inference_mode(), autocast(bf16):
            for input_ids, attention_mask in batches:
                model(input_ids=input_ids, attention_mask=attention_mask)

    timings = fastest(
        {
            "ceiling fp32": lambda: ceiling(False),
            "ceiling bf16": lambda: ceiling(True),
            "xbias fp32": lambda: encoders["fp32"].encode(sentences),
            "xbias bf16": lambda: encoders["bf16"].encode(sentences),
        },
        repeats,
    )
    for name, (_, seconds) in timings.items():
        print(f"  e5 {name:<14} {len(sentences) / seconds:8.1f} texts/s")
    single, half = timings["xbias fp32"][0], timings["xbias bf16"][0]
    cosine = (single * half).sum(1) / np.linalg.norm(single, axis=1) / np.linalg.norm(half, axis=1)
    print(
        "  e5 bf16 / fp32 speed: ceiling "
        f"{timings['ceiling fp32'][1] / timings['ceiling bf16'][1]:.2f}x, xbias encoder "
        f"{timings['xbias fp32'][1] / timings['xbias bf16'][1]:.2f}x; vectors: largest |bf16 "
        f"- fp32| {np.abs(single - half).max():.2e}, smallest cosine {cosine.min():.5f}"
    )


def judge_speed(sentences: list[str], emotions: list[str], repeats: int) -> None:
    judges = {}
    for precision in ("fp32", "bf16"):
        lm = load_causal_lm(JUDGE, batch_size=32, precision=precision, device="cpu", progress=False)
        judges[precision] = {}
        for emotion in sorted(set(emotions)):
            judge = judges[precision][emotion] = PromptJudge(lm, preprocess=None)
            judge.language, judge.dimension = "en", emotion

    def score(precision: str):
        lm = next(iter(judges[precision].values())).lm
        lm.clear_prefix_cache()
        tokens_before = lm.tokens_computed()
        expected, mass = np.zeros(len(sentences)), np.zeros(len(sentences))
        for emotion, judge in judges[precision].items():
            rows = [index for index, value in enumerate(emotions) if value == emotion]
            scores = judge.score([sentences[index] for index in rows])
            expected[rows], mass[rows] = scores.expected, scores.numeral_mass
        return expected, mass, lm.tokens_computed() - tokens_before

    timings = fastest(
        {precision: lambda precision=precision: score(precision) for precision in judges}, repeats
    )
    for precision, ((_, _, tokens), seconds) in timings.items():
        print(
            f"  judge {precision}  {tokens / seconds:8.1f} tokens/s "
            f"({1000 * seconds / len(sentences):.1f} ms/sentence)"
        )
    (single, single_mass, _), (half, half_mass, _) = timings["fp32"][0], timings["bf16"][0]
    print(
        f"  judge bf16 / fp32 speed {timings['fp32'][1] / timings['bf16'][1]:.2f}x; "
        f"largest |bf16 - fp32|: score {np.abs(single - half).max():.2e} (mean "
        f"{np.abs(single - half).mean():.2e}), numeral mass "
        f"{np.abs(single_mass - half_mass).max():.2e}; Pearson r(bf16, fp32 scores) "
        f"{np.corrcoef(single, half)[0, 1]:.5f}"
    )


def subsample(split: TextSplit, size: int, seed: int) -> TextSplit:
    """``size`` texts of ``split`` drawn without replacement (all of them for 0 or a larger size),
    in order."""
    if not size or size >= len(split):
        return split
    keep = np.sort(np.random.default_rng(seed).choice(len(split), size, replace=False))
    return TextSplit([split.texts[index] for index in keep], split.intensity[keep])


def probe_numbers(
    encoder,
    head: str,
    seed: int,
    language: str,
    emotion: str,
    splits: dict,
    eec,
    reference_group: str,
) -> dict:
    """Pearson r (test) of an e5 probe (``head``) trained with ``seed``, and the Beta regression of
    its EEC scores."""
    probe = ProbeRegressor(encoder, head=head, seed=seed, share_dimensions=False)
    scores = probe.fit_splits(splits, language, emotion)
    y = probe.predict(eec["sentence"].tolist())
    fits = {}
    for cov_type in ("model", "cluster"):
        clusters = {"template_id": eec["template_id"].tolist()} if cov_type == "cluster" else None
        result = fit_intersectional(
            y,
            eec["group"].tolist(),
            eec["gender"].tolist(),
            reference_group=reference_group,
            reference_gender="male",
            cov_type=cov_type,
            clusters=clusters,
        )
        fits[cov_type] = {f"coefficient {item.name}": item for item in result.coefficients} | {
            f"effect {item.name}": item for item in result.effects
        }
    return {"r": scores.pearson_test, "fits": fits}


def shift_in_standard_errors(numbers: dict, other: dict, cov_type: str) -> tuple[float, float]:
    """The largest ``|other - numbers|`` of the coefficients and effects: absolute and in
    ``numbers``' SEs."""
    pairs = [
        (item, other["fits"][cov_type][name]) for name, item in numbers["fits"][cov_type].items()
    ]
    absolute = max(abs(moved.estimate - item.estimate) for item, moved in pairs)
    relative = max(
        abs(moved.estimate - item.estimate) / item.std_err
        for item, moved in pairs
        if item.std_err > 0
    )
    return absolute, relative


def eec_numbers(args, emotions: list[str]) -> None:
    folder = resolve_source(E5)
    cache = EmbeddingCache(tempfile.mkdtemp(prefix="xbias-bench-precision-"))
    encoders = {
        precision: TransformerEncoder.from_pretrained(
            folder,
            pooling="mean",
            prefix="query: ",
            precision=precision,
            cache=cache,
            progress=False,
        )
        for precision in ("fp32", "bf16")
    }
    corpus = load_eec(args.eec_config).to_pandas()
    print(f"  the probe's head: {args.head}")
    print(
        f"  {'emotion':<10} {'n train/val/test':>17} {'EEC rows':>9} {'r fp32':>8} "
        f"{'r bf16':>8} {'r seed 1':>9}   largest |bf16 - fp32| vs |seed 1 - seed "
        "0| over coefficients and effects (in fp32 SEs: model / clustered)"
    )
    for emotion in emotions:
        splits = semeval_splits(args.language, emotion, max_train=args.max_train or None, seed=0)
        for name in ("validation", "test"):
            splits[name] = subsample(splits[name], args.max_eval, seed=1)
        rows = corpus[corpus["emotion"] == emotion]
        eec = stratified_sample(rows, args.sample, seed=0) if args.sample else rows
        runs = {
            (precision, seed): probe_numbers(
                encoders[precision],
                args.head,
                seed,
                args.language,
                emotion,
                splits,
                eec,
                EEC_REFERENCE_GROUP[args.eec_config],
            )
            for precision, seed in (("fp32", 0), ("bf16", 0), ("fp32", 1))
        }
        reference = runs["fp32", 0]
        precision_shifts = [
            shift_in_standard_errors(reference, runs["bf16", 0], cov)
            for cov in ("model", "cluster")
        ]
        seed_shifts = [
            shift_in_standard_errors(reference, runs["fp32", 1], cov)
            for cov in ("model", "cluster")
        ]
        sizes = "/".join(str(len(splits[name])) for name in ("train", "validation", "test"))
        print(
            f"  {emotion:<10} {sizes:>17} {len(eec):>9} {reference['r']:>8.4f} "
            f"{runs['bf16', 0]['r']:>8.4f} {runs['fp32', 1]['r']:>9.4f}   bf16: "
            f"{precision_shifts[0][0]:.2e} = {precision_shifts[0][1]:.3f} / "
            f"{precision_shifts[1][1]:.3f} SE; seed: {seed_shifts[0][0]:.2e} = "
            f"{seed_shifts[0][1]:.3f} / {seed_shifts[1][1]:.3f} SE"
        )


# The CPU kinds the speed part is timed as: ATEN_CPU_CAPABILITY (PyTorch's own kernels) and
# ONEDNN_MAX_CPU_ISA (oneDNN's matrix products), set before torch loads in a child process.
# "native": nothing forced (AMX where the CPU has it); "avx512": AVX-512 without AMX or bf16 dot
# products; "avx2", "default": older CPUs.
CAPABILITIES = {
    "native": {},
    "avx512": {"ATEN_CPU_CAPABILITY": "avx512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
    "default": {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41"},
}


def timed_sample(args):
    eec = load_eec(args.eec_config).to_pandas()
    eec = eec[eec["emotion"].notna()]
    return eec.iloc[
        np.sort(np.random.default_rng(0).choice(len(eec), args.sentences, replace=False))
    ]


def speed(args) -> None:
    """The speed part in this process (its capability set by the parent)."""
    from eval_harness.models.batching import cpu_has_bf16_matrix_units, precision_name

    sample = timed_sample(args)
    print(
        f"capability {torch.backends.cpu.get_cpu_capability()} ("
        + ", ".join(
            f"{name}={os.environ.get(name, 'unset')}"
            for name in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA")
        )
        + f"): bf16 matrix units {cpu_has_bf16_matrix_units()}, auto runs as "
        f"{precision_name('auto', 'cpu')}; load average {os.getloadavg()[0]:.1f}"
    )
    e5_speed(sample["sentence"].tolist(), args.repeats)
    judged = sample.iloc[: args.sentences // 4]
    judge_speed(judged["sentence"].tolist(), judged["emotion"].tolist(), args.repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--language", default="en")
    parser.add_argument("--eec-config", default="en_black_white")
    parser.add_argument(
        "--sample",
        type=int,
        default=4,
        help="EEC sentences per template x group x gender cell (0: all)",
    )
    parser.add_argument("--emotions", default="anger,fear,joy,sadness")
    parser.add_argument(
        "--head", default="mlp", help="the probe's head (a name of models.registry.HEADS)"
    )
    parser.add_argument("--max-train", type=int, default=0, help="SemEval training tweets (0: all)")
    parser.add_argument(
        "--max-eval", type=int, default=0, help="SemEval validation and test tweets each (0: all)"
    )
    parser.add_argument(
        "--sentences",
        type=int,
        default=480,
        help="EEC sentences timed (e5); a quarter for the judge",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--capabilities",
        default=",".join(CAPABILITIES),
        help=f"CPU kinds timed, of {', '.join(CAPABILITIES)}",
    )
    parser.add_argument(
        "--no-records", action="store_true", help="time only (no probe, no EEC fits)"
    )
    parser.add_argument(
        "--speed-only", action="store_true", help=argparse.SUPPRESS
    )  # a child, capability set
    parser.add_argument(
        "--quick", action="store_true", help="anger, 300/150/150 tweets, 1 per EEC cell, 120 timed"
    )
    args = parser.parse_args()
    if args.quick:
        args.emotions, args.max_train, args.max_eval, args.sample = "anger", 300, 150, 1
        args.sentences, args.repeats = 120, 2
    if args.speed_only:
        speed(args)
        return

    print(
        f"bf16 autocast vs fp32 on CPU: {torch.get_num_threads()} threads, "
        f"{os.cpu_count()} CPU cores, {thread_policy_summary()}, load average "
        f"{os.getloadavg()[0]:.1f}; {args.sentences} {args.eec_config} "
        f"sentences for e5, {args.sentences // 4} for the judge"
    )
    passed = [
        "--eec-config",
        args.eec_config,
        "--sentences",
        str(args.sentences),
        "--repeats",
        str(args.repeats),
    ]
    for name in args.capabilities.split(","):
        print(f"\n[{name}]", flush=True)
        environment = {**os.environ, **CAPABILITIES[name]}
        subprocess.run(
            [sys.executable, __file__, *passed, "--speed-only"], env=environment, check=True
        )
    if args.no_records:
        return
    print(
        f"\nload average {os.getloadavg()[0]:.1f}; the e5 "
        "probe in fp32 (seed 0), bf16 (seed 0), fp32 (seed 1):"
    )
    eec_numbers(args, args.emotions.split(","))
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
