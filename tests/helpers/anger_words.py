"""Tiny emotion data for training tests: texts of two to four words whose anger intensity is the
share of anger words in them, with noise, split into train / validation / test (seeded)."""

import numpy as np

from eval_harness.data import TextSplit

WORDS = [
    "angry",
    "furious",
    "mad",
    "calm",
    "glad",
    "happy",
    "sad",
    "afraid",
    "fine",
    "ok",
    "rage",
    "peace",
]
ANGER_WORDS = {"angry", "furious", "mad", "rage"}


def anger_splits(
    seed: int = 0, sizes: tuple[int, int, int] = (120, 40, 40)
) -> dict[str, TextSplit]:
    """``{"train", "validation", "test"}`` splits of ``sizes`` texts."""
    rng = np.random.default_rng(seed)

    def split(n):
        texts = [" ".join(rng.choice(WORDS, size=rng.integers(2, 5))) for _ in range(n)]
        intensity = [np.mean([word in ANGER_WORDS for word in text.split()]) for text in texts]
        return TextSplit(texts, np.clip(np.asarray(intensity) + rng.normal(0, 0.05, n), 0, 1))

    return dict(zip(("train", "validation", "test"), (split(n) for n in sizes), strict=True))
