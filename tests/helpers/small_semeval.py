"""A stand-in for SemEval-2018 in tests that train on every dimension of a language."""

import numpy as np


def small_semeval(language, dimension):
    """A stand-in for ``load_semeval``: 24 texts per split and dimension, some shared between
    dimensions (as tweets are), so that the test runs in a second and still sees every dimension's
    texts."""
    rng = np.random.default_rng(sum(map(ord, dimension)))
    words = [
        "angry",
        "happy",
        "sad",
        "afraid",
        "calm",
        "doctor",
        "nurse",
        "she",
        "he",
        "the",
        "is",
        "very",
    ]

    def texts(split):
        own = [" ".join(rng.choice(words, size=5)) + f" {dimension} {split} {i}" for i in range(20)]
        return own + [f"a tweet every dimension shares {i}" for i in range(4)]

    return {
        split: {"text": texts(split), "intensity": rng.uniform(size=24)}
        for split in ("train", "validation", "test")
    }
