"""Sentence corpora for context-mode measures (words in the sentences of a corpus)."""

from pathlib import Path

import numpy as np

from ..errors import InputError, unreadable_file
from .catalog import SEMEVAL_DIMENSIONS
from .loaders import load_semeval

CORPUS_SUFFIXES = {".csv": "csv", ".json": "json", ".jsonl": "json", ".parquet": "parquet"}


def load_corpus(
    source: str,
    column: str = "text",
    max_sentences: int = 0,
    seed: int = 0,
    language: str = "en",
) -> list[str]:
    """The sentences of a corpus for context mode.

    Args:
        source: ``"semeval2018"`` (every SemEval-2018 affect tweet of ``language``, all
            dimensions and splits, de-duplicated), a text file (one sentence per line), or a
            ``.csv``/``.json``/``.jsonl``/``.parquet`` file with a ``column`` of sentences.
        column: the text column of a data file.
        max_sentences: keep a random sample of this many sentences (0: all).
        seed: seed of that sample.
        language: the language of the SemEval tweets.

    Raises:
        InputError: the file is missing, lacks the column, or holds no sentence.
    """
    if source == "semeval2018":
        texts = {
            text
            for dimension in SEMEVAL_DIMENSIONS
            for split in load_semeval(language, dimension).values()
            for text in split["text"]
        }
        sentences = sorted(texts)
    else:
        path = Path(source).expanduser()
        if not path.is_file():
            raise InputError(
                f"corpus {source!r} is not a file; give a text file (one sentence per line), a "
                f"{'/'.join(CORPUS_SUFFIXES)} file with a {column!r} column, or 'semeval2018'"
            )
        if path.suffix.lower() in CORPUS_SUFFIXES:
            import datasets

            table = datasets.load_dataset(
                CORPUS_SUFFIXES[path.suffix.lower()], data_files=str(path), split="train"
            )
            if column not in table.column_names:
                # the columns are counted, not named: a csv's header is its first line
                raise InputError(
                    f"corpus {source!r} has no column {column!r} (it "
                    f"has {len(table.column_names)} columns); name "
                    "the column of sentences with corpus_column"
                )
            sentences = [str(text) for text in table[column] if text is not None]
        else:
            try:
                sentences = path.read_text(encoding="utf-8").splitlines()
            except (OSError, ValueError) as error:
                raise InputError(unreadable_file(repr(source), error, "corpus")) from None
    sentences = [sentence.strip() for sentence in sentences if sentence.strip()]
    if not sentences:
        raise InputError(f"corpus {source!r} has no sentences")
    if max_sentences and len(sentences) > max_sentences:
        chosen = np.sort(
            np.random.default_rng(seed).choice(len(sentences), size=max_sentences, replace=False)
        )
        sentences = [sentences[i] for i in chosen]
    return sentences
