"""SemEval-2018 emotion-intensity splits as (cleaned texts, gold intensities), for training emotion models.

Tweets are cleaned as the authors' code does before training and prediction
(:func:`clean_tweet`: @mentions removed, HTML entities such as ``&amp;`` unescaped, white
space collapsed).
"""

import html
import re
from dataclasses import dataclass

import numpy as np

from .catalog import SEMEVAL_DIMENSIONS
from .loaders import load_semeval

SPLITS = ("train", "validation", "test")
PREPROCESSORS = ("tweet", None)
_MENTION = re.compile(r"@\w+")


def clean_tweet(text: str) -> str:
    """The authors' tweet cleaning: drop @mentions, unescape HTML entities (``&amp;``), collapse white space."""
    return re.sub(r"\s+", " ", html.unescape(_MENTION.sub(" ", text))).strip()


def preprocess_text(text: str, preprocess: str | None) -> str:
    """``text`` cleaned by the named preprocessor (``"tweet"``: :func:`clean_tweet`; None: unchanged)."""
    return clean_tweet(text) if preprocess == "tweet" else text


@dataclass(frozen=True)
class TextSplit:
    """Texts and their gold intensities."""

    texts: list[str]
    intensity: np.ndarray

    def __len__(self) -> int:
        return len(self.texts)


def semeval_splits(
    language: str, dimension: str, *, preprocess: str | None = "tweet", max_train: int | None = None, seed: int = 0
) -> dict[str, TextSplit]:
    """train/validation/test of SemEval-2018 for ``(language, dimension)``, cleaned; ``max_train`` subsamples train."""
    splits = load_semeval(language, dimension)
    result = {}
    for name in SPLITS:
        texts = [preprocess_text(text, preprocess) for text in splits[name]["text"]]
        result[name] = TextSplit(texts, np.asarray(splits[name]["intensity"], dtype=np.float64))
    if max_train is not None and max_train < len(result["train"]):
        keep = np.sort(np.random.default_rng(seed).choice(len(result["train"]), size=max_train, replace=False))
        train = result["train"]
        result["train"] = TextSplit([train.texts[index] for index in keep], train.intensity[keep])
    return result


def language_texts(language: str, preprocess: str | None) -> list[str]:
    """Every SemEval-2018 text of ``language`` over all dimensions and splits (cleaned), with repeats."""
    texts = []
    for dimension in SEMEVAL_DIMENSIONS:
        for split in semeval_splits(language, dimension, preprocess=preprocess).values():
            texts.extend(split.texts)
    return texts
