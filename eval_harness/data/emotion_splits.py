"""SemEval-2018 emotion-intensity splits as (cleaned texts, gold intensities), for training emotion
models.

Tweets are cleaned as the authors' code does before training and prediction
(:func:`clean_tweet`: @mentions removed, HTML entities such as ``&amp;`` unescaped, white
space collapsed).
"""

import html
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .catalog import SEMEVAL_DIMENSIONS
from .loaders import load_semeval

SPLITS = ("train", "validation", "test")
PREPROCESSORS = ("tweet", None)
_MENTION = re.compile(r"@\w+")


def clean_tweet(text: str) -> str:
    """The authors' tweet cleaning: drop @mentions, unescape HTML entities (``&amp;``), collapse
    white space."""
    return re.sub(r"\s+", " ", html.unescape(_MENTION.sub(" ", text))).strip()


def preprocess_text(text: str, preprocess: str | None) -> str:
    """``text`` cleaned by the named preprocessor (``"tweet"``: :func:`clean_tweet`; None:
    unchanged)."""
    return clean_tweet(text) if preprocess == "tweet" else text


@dataclass(frozen=True)
class TextSplit:
    """Texts and their gold intensities."""

    texts: list[str]
    intensity: np.ndarray

    def __len__(self) -> int:
        return len(self.texts)


class SemEvalSplits:
    """SemEval-2018's splits as one run reads them: each ``(language, dimension)`` loaded once and
    cleaned once per preprocessor, however many models, emotions and seeds train on it (a run's
    models share one; see ``ModelResources.semeval``). ``loads`` counts the dataset loads by
    ``(language, dimension)``: each is one ``load_semeval`` of its three splits.

    ``dimensions``: the dimensions a run's models will fit (a run with one emotion: that one); what
    :meth:`language_texts` gathers for a probe that encodes them in one pass. None: all of them.

    The texts and arrays handed out are shared between callers: read them, never change them.
    """

    def __init__(self, dimensions: Iterable[str] | None = None):
        self.dimensions = tuple(SEMEVAL_DIMENSIONS if dimensions is None else dimensions)
        self._cleaned: dict[tuple[str, str, str | None], dict[str, TextSplit]] = {}
        self._raw: dict[tuple[str, str], dict[str, tuple[list[str], np.ndarray]]] = {}
        self.loads: Counter[tuple[str, str]] = Counter()

    def splits(
        self,
        language: str,
        dimension: str,
        *,
        preprocess: str | None = "tweet",
        max_train: int | None = None,
        seed: int = 0,
    ) -> dict[str, TextSplit]:
        """train/validation/test for ``(language, dimension)``, cleaned; ``max_train`` subsamples
        train (drawn with ``seed``)."""
        key = (language, dimension, preprocess)
        if key not in self._cleaned:
            self._cleaned[key] = {
                name: TextSplit([preprocess_text(text, preprocess) for text in texts], intensity)
                for name, (texts, intensity) in self._loaded(language, dimension).items()
            }
        result = dict(self._cleaned[key])
        if max_train is not None and max_train < len(result["train"]):
            keep = np.sort(
                np.random.default_rng(seed).choice(
                    len(result["train"]), size=max_train, replace=False
                )
            )
            train = result["train"]
            result["train"] = TextSplit(
                [train.texts[index] for index in keep], train.intensity[keep]
            )
        return result

    def language_texts(self, language: str, preprocess: str | None) -> list[str]:
        """Every SemEval-2018 text of ``language`` over :attr:`dimensions` (all five unless the run
        said fewer) and splits (cleaned), with repeats."""
        return [
            text
            for dimension in self.dimensions
            for split in self.splits(language, dimension, preprocess=preprocess).values()
            for text in split.texts
        ]

    def _loaded(self, language: str, dimension: str) -> dict[str, tuple[list[str], np.ndarray]]:
        key = (language, dimension)
        if key not in self._raw:
            splits = load_semeval(language, dimension)
            self.loads[key] += 1
            self._raw[key] = {
                name: (
                    list(splits[name]["text"]),
                    np.asarray(splits[name]["intensity"], dtype=np.float64),
                )
                for name in SPLITS
            }
        return self._raw[key]


def semeval_splits(
    language: str,
    dimension: str,
    *,
    preprocess: str | None = "tweet",
    max_train: int | None = None,
    seed: int = 0,
) -> dict[str, TextSplit]:
    """train/validation/test of SemEval-2018 for ``(language, dimension)``, cleaned; ``max_train``
    subsamples train (one read: :class:`SemEvalSplits` reads each once for many)."""
    return SemEvalSplits().splits(
        language, dimension, preprocess=preprocess, max_train=max_train, seed=seed
    )


def language_texts(language: str, preprocess: str | None) -> list[str]:
    """Every SemEval-2018 text of ``language`` over all dimensions and splits (cleaned), with
    repeats."""
    return SemEvalSplits().language_texts(language, preprocess)
