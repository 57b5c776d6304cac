"""The xweat suite's samples: every word of a unit's test with whether the model knows it and, for a
target word, its association ``s(w, A, B)``, one row per word (a unit is one test on one language or
language pair; its four sets in order X, Y, A, B, words in set order).

:data:`XWEAT_SAMPLES` declares the columns, what each holds and whether it may be null (the one list
of them: ``XWEAT_SAMPLES.describe()`` prints it);
:func:`xweat_samples` computes them from the unit's word vectors with the unit's similarity, the
same ``s(w, A, B)`` that :func:`eval_harness.stats.weat.weat` computes from them (the rows of X u Y
against A u B), so that WEAT's effect size is ``(mean_X s - mean_Y s) / std_{X u Y}(s)`` of the
file's ``association``.
"""

from collections.abc import Mapping

import numpy as np

from ...contract import WordEmbedder
from ...contract.samples import SampleColumn, SampleSchema
from ...stats.weat import word_associations
from .pipeline import SET_ROLES, WordSet

XWEAT_SAMPLES = SampleSchema(
    (
        SampleColumn("test", "string", "the WEAT test, T1 .. T10"),
        SampleColumn(
            "language",
            "string",
            "the unit's language, de, or language pair, en-de (English targets)",
        ),
        SampleColumn("role", "string", "X, Y (targets), A, B (attributes)"),
        SampleColumn("set_name", "string", "the word set's name"),
        SampleColumn("word_language", "string", "the language of the word's set"),
        SampleColumn("word", "string", "the word"),
        SampleColumn(
            "found",
            "bool",
            "whether the model has a vector for the word (the coverage rule counts these)",
            True,
        ),
        SampleColumn(
            "association",
            "float64",
            "s(w, A, B) = mean_a sim(w, a) - mean_b sim(w, b) over the found "
            "attribute words, with the unit's similarity (null for attribute "
            "words, for words not found, and when A or B has no word found); "
            "WEAT's effect size is (mean_X s - mean_Y s) / std_{X u Y}(s) of "
            "these (reported only when the test passes the coverage rule)",
            True,
        ),
        SampleColumn(
            "similarity", "string", "the similarity of s(w, A, B): cosine, euclidean or csls"
        ),
    )
)


def xweat_samples(
    test: str,
    language: str,
    sets: Mapping[str, WordSet],
    embedder: WordEmbedder | None,
    similarity: str,
) -> dict[str, list]:
    """The sample columns of one unit: ``sets`` its four word sets by role, ``embedder`` the unit's
    word vectors (``embed_words(words, language) -> (vectors, found)``), or None when the unit
    computed none (then ``found`` and ``association`` are null)."""
    ordered = [sets[role] for role in SET_ROLES]
    rows = [(word_set.role, word_set, word) for word_set in ordered for word in word_set.words]
    found: list[bool | None] = [None] * len(rows)
    association: list[float | None] = [None] * len(rows)
    if embedder is not None:
        kept, found = {}, []
        for word_set in ordered:
            vectors, known = embedder.embed_words(list(word_set.words), word_set.language)
            known = np.asarray(known, dtype=bool)
            kept[word_set.role] = np.asarray(vectors, dtype=np.float64)[
                known
            ]  # float64, as WEAT reads them
            found += known.tolist()
        if len(kept["A"]) and len(kept["B"]) and len(kept["X"]) + len(kept["Y"]):
            targets = np.vstack(
                [kept["X"], kept["Y"]]
            )  # X u Y, the rows WEAT scores (and CSLS's pool)
            scores = iter(word_associations(targets, kept["A"], kept["B"], similarity).tolist())
            association = [next(scores) if known and role in ("X", "Y") else None
                           for (role, _, _), known in zip(rows, found, strict=True)]  # fmt: skip
    return {
        "test": [test] * len(rows),
        "language": [language] * len(rows),
        "role": [role for role, _, _ in rows],
        "set_name": [word_set.name for _, word_set, _ in rows],
        "word_language": [word_set.language for _, word_set, _ in rows],
        "word": [word for _, _, word in rows],
        "found": found,
        "association": association,
        "similarity": [similarity] * len(rows),
    }
