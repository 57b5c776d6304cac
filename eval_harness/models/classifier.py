"""Emotion/sentiment classifiers used as they are (``AutoModelForSequenceClassification``).

The score of a dimension is the probability of the label mapped to it: softmax over the labels
for a single-label model, a sigmoid per label for a multi-label one (``problem_type =
"multi_label_classification"``); a regression head (one output, ``problem_type="regression"``)
gives its raw output, unclipped. Labels are mapped case-insensitively from the model's
``id2label`` through :data:`LABEL_SYNONYMS` (``anger`` -> "anger", "angry"...), or through
``label_map={"anger": "LABEL_3"}`` (a label name or an index). Nothing is trained: ``fit``
resolves the label and scores the model on the SemEval validation and test splits.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from eval_harness.errors import InputError
from eval_harness.models.hf_model import HuggingFaceModel
from eval_harness.models.regressors import EmotionRegressor

LABEL_SYNONYMS = {
    "anger": ("anger", "angry", "rage", "annoyance"),
    "fear": ("fear", "afraid", "scared", "fearful", "nervousness"),
    "joy": ("joy", "happy", "happiness", "joyful"),
    "sadness": ("sadness", "sad", "grief"),
    "valence": ("positive", "pos", "valence"),
}


def resolve_label(
    id2label: Mapping[int, str],
    dimension: str,
    label_map: Mapping[str, Any] | None = None,
    model_name: str = "the classifier",
) -> int:
    """Index of the output that scores ``dimension`` (see the module docstring), else an InputError
    listing labels."""
    labels = {int(index): str(label) for index, label in id2label.items()}
    override = (label_map or {}).get(dimension)
    if isinstance(override, int) and not isinstance(override, bool):
        if override in labels:
            return override
        candidates = (str(override),)
    elif override is not None:
        candidates = (str(override),)
    else:
        candidates = LABEL_SYNONYMS.get(dimension, (dimension,))
    by_name = {label.lower(): index for index, label in labels.items()}
    for candidate in candidates:
        if candidate.lower() in by_name:
            return by_name[candidate.lower()]
    raise InputError(
        f"{model_name} has labels {[labels[index] for index in sorted(labels)]}; none "
        f"maps to {dimension!r} (tried {list(candidates)}, case-insensitively). Pass "
        f"options={{'label_map': {{'{dimension}': '<one of those labels or its index>'}}}}"
    )


class ClassifierScorer(HuggingFaceModel, EmotionRegressor):
    """An ``AutoModelForSequenceClassification`` scoring texts with the probability of one label."""

    model_type = "classifier"
    heavy_predict = True

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any,
        *,
        label_map: Mapping[str, Any] | None = None,
        preprocess: str | None = "tweet",
        **settings: Any,
    ):
        """``settings``: :class:`~eval_harness.models.hf_model.HuggingFaceModel`'s (name, folder,
        device, batch_size, max_length, precision, progress)."""
        EmotionRegressor.__init__(self, preprocess=preprocess)
        HuggingFaceModel.__init__(self, model, tokenizer, **settings)
        self.label_map = dict(label_map or {})
        self.label_index: int | None = None
        self.fingerprint = self.content_fingerprint(max_length=self.max_length)

    @property
    def is_regression(self) -> bool:
        """One raw output (a regression head) rather than class probabilities."""
        config = self.model.config
        return config.problem_type == "regression" or config.num_labels == 1

    @property
    def clip_output(self) -> bool:
        return not self.is_regression

    def source_name(self) -> str:
        return self.name

    def source_fingerprint(self) -> str:
        return self.fingerprint

    @classmethod
    def build(cls, source, options, resources) -> "ClassifierScorer":
        """A scorer over the (shared) classifier ``source`` of ``resources``."""
        model, tokenizer, folder = resources.classifier_model(source)
        options = {"device": resources.device, "progress": resources.progress, **options}
        return cls(model, tokenizer, name=str(source), folder=folder, **options)

    def select_label(self, dimension: str) -> int:
        """Resolve (and remember) the output index that scores ``dimension``; no SemEval data
        needed."""
        if self.is_regression and self.model.config.num_labels == 1:
            self.label_index = 0
        else:
            self.label_index = resolve_label(
                self.model.config.id2label, dimension, self.label_map, repr(self.name)
            )
        self.dimension = dimension
        return self.label_index

    def _fit(self, splits) -> dict:
        index = self.select_label(self.dimension)
        return {
            "label": self.model.config.id2label.get(index, str(index)),
            "label_index": index,
            "output": "raw" if self.is_regression else "probability",
        }

    def _raw_predict(self, texts: list[str]) -> np.ndarray:
        sequences = self.tokenizer(
            texts,
            truncation=True,
            max_length=self.max_length,
            return_attention_mask=False,
            return_token_type_ids=False,
        )["input_ids"]
        multi_label = self.model.config.problem_type == "multi_label_classification"
        scores = np.zeros(len(texts), dtype=np.float64)

        def step(input_ids, attention_mask, rows):
            logits = self.model(input_ids=input_ids, attention_mask=attention_mask).logits.float()
            if not self.is_regression:
                logits = torch.sigmoid(logits) if multi_label else torch.softmax(logits, dim=-1)
            return logits[:, self.label_index].cpu().numpy()

        for rows, batch_scores in self.batches(sequences, step, description="classifying"):
            scores[rows] = batch_scores
        return scores

    def _restore_state(self, directory: Path) -> None:
        self.select_label(self.dimension)
