"""What the context-mode methods share: a word's contextual vectors in given sentences, request by
request."""

from collections.abc import Sequence

import numpy as np

from ..contract import ContextEmbedder


def embed_in_contexts(
    encoder: ContextEmbedder, requests: Sequence[tuple[str, str]]
) -> tuple[np.ndarray, np.ndarray]:
    """Contextual vectors for ``(word, sentence)`` requests, in request order, and a ``found``
    mask: False where the encoder could not locate the word (e.g. cut off by truncation).

    ``encoder`` has ``embed_words_in_contexts(words, sentences_per_word, on_missing)`` (the context
    mode of :class:`~eval_harness.models.encoder.TransformerEncoder`). When no request is found the
    vectors have no column (the dimension is unknown).
    """
    sentences_per_word: dict[str, list[str]] = {}
    slots = []
    for word, sentence in requests:
        bucket = sentences_per_word.setdefault(word, [])
        slots.append((word, len(bucket)))
        bucket.append(sentence)
    # Unlocated words are reported by the caller, per list, so the encoder need not warn.
    result = encoder.embed_words_in_contexts(
        list(sentences_per_word), sentences_per_word, on_missing="ignore"
    )
    positions = getattr(result, "sentence_indices", None)
    row_of = {
        word: {
            int(p): row
            for row, p in enumerate(positions[word] if positions else range(len(result[word])))
        }
        for word in sentences_per_word
    }
    dim = next((np.asarray(v).shape[-1] for v in result.values() if len(v)), 0)
    vectors = np.zeros((len(requests), dim))
    found = np.zeros(len(requests), dtype=bool)
    for i, (word, position) in enumerate(slots):
        row = row_of[word].get(position)
        if row is not None:
            vectors[i] = np.asarray(result[word])[row]
            found[i] = True
    return vectors, found
