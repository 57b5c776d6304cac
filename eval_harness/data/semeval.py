"""SemEval-2018 Task 1 "Affect in Tweets": emotion-intensity (EI-reg) and valence (V-reg)
regression.

One config per language and dimension, ``<lang>_<dimension>``, with splits
``train``, ``validation`` (the task's ``dev``) and ``test`` (``test-gold``), and
columns ``id``, ``text``, ``intensity``. The files are tab-separated with a
header row and CRLF line endings (the English test files start with a UTF-8
byte-order mark); the score is parsed with Python's ``float`` from the file's
decimal string, i.e. to the nearest double, with no rounding or truncation.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa

from ..errors import SourceDataError
from .catalog import SEMEVAL_DIMENSIONS, SEMEVAL_LANGUAGES

SEMEVAL_SPLITS = {"train": "train", "validation": "dev", "test": "test-gold"}
_HEADER = ["ID", "Tweet", "Affect Dimension", "Intensity Score"]
SEMEVAL_SCHEMA = pa.schema(
    [("id", pa.string()), ("text", pa.string()), ("intensity", pa.float64())]
)


def semeval_config(language: str, dimension: str) -> str:
    return f"{language}_{dimension}"


def semeval_file(language: str, dimension: str, split: str) -> str:
    """Relative source path of one language/dimension/split (``split`` is ours:
    train/validation/test)."""
    task = "Valence-reg" if dimension == "valence" else "EI-reg"
    middle = "" if dimension == "valence" else f"-{dimension}"
    return f"semeval2018/2018-{task}-{language.capitalize()}{middle}-{SEMEVAL_SPLITS[split]}.txt"


SEMEVAL_SOURCES = [
    semeval_file(language, dimension, split)
    for language in SEMEVAL_LANGUAGES
    for dimension in SEMEVAL_DIMENSIONS
    for split in SEMEVAL_SPLITS
]


def read_semeval_file(path: Path, dimension: str) -> pa.Table:
    """One task file -> table (id, text, intensity); every row's dimension must be ``dimension``."""
    lines = path.read_bytes().decode("utf-8-sig").split("\r\n")
    if lines[0].split("\t") != _HEADER:
        raise SourceDataError(f"SemEval file {path} does not start with the header {_HEADER}")
    ids, texts, intensities = [], [], []
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != 4 or fields[2] != dimension:
            raise SourceDataError(
                f"SemEval file {path} line {number} is not "
                f"'id, tweet, {dimension}, score': {line!r}"
            )
        intensity = float(fields[3])
        if not 0.0 <= intensity <= 1.0:
            raise SourceDataError(
                f"SemEval file {path} line {number} has intensity {fields[3]} outside [0, 1]"
            )
        ids.append(fields[0])
        texts.append(fields[1])
        intensities.append(intensity)
    return pa.table({"id": ids, "text": texts, "intensity": intensities}, schema=SEMEVAL_SCHEMA)


def semeval_tables(paths: Mapping[str, Path]) -> dict[str, dict[str, pa.Table]]:
    """config -> split -> table, from the verified source files (``paths`` by relative path)."""
    return {
        semeval_config(language, dimension): {
            split: read_semeval_file(paths[semeval_file(language, dimension, split)], dimension)
            for split in SEMEVAL_SPLITS
        }
        for language in SEMEVAL_LANGUAGES
        for dimension in SEMEVAL_DIMENSIONS
    }
