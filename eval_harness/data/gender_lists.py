"""Gender word lists: Bolukbasi et al. (2016, debiaswe) and Zhao et al. (2018, as used by Gonen &
Goldberg 2019).

Configs and columns:

- ``definitional_pairs``: ``female``, ``male`` (every source pair is female first);
- ``equalize_pairs``: ``word_a``, ``word_b`` in the source's order, which is not
  consistently male/female (equalisation is symmetric in the pair);
- ``gender_specific_seed``, ``gender_specific_full``: ``word``;
- ``professions``: ``word``, ``definitional``, ``stereotypical`` (the two scores
  of Bolukbasi et al., in [-1, 1], negative = female);
- ``male_words``, ``female_words``: ``word``, ``counterpart`` (the word on the same
  line of the other file: the two files are line-aligned pairs), one row per
  line; a word can repeat because it pairs with several counterparts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa

GENDER_LIST_SOURCES = [
    "gender_lists/definitional_pairs.json",
    "gender_lists/equalize_pairs.json",
    "gender_lists/gender_specific_seed.json",
    "gender_lists/gender_specific_full.json",
    "gender_lists/professions.json",
    "gender_lists/male_word_file.txt",
    "gender_lists/female_word_file.txt",
    "gender_lists/LICENSE.debiaswe",
]
_STRING = pa.string()


def _json(paths: Mapping[str, Path], name: str):
    return json.loads(paths[f"gender_lists/{name}.json"].read_text(encoding="utf-8"))


def _lines(paths: Mapping[str, Path], name: str) -> list[str]:
    return [
        line.strip()
        for line in paths[f"gender_lists/{name}.txt"].read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def gender_list_tables(paths: Mapping[str, Path]) -> dict[str, pa.Table]:
    """config -> table, from the verified source files (``paths`` by relative path)."""
    definitional = _json(paths, "definitional_pairs")
    equalize = _json(paths, "equalize_pairs")
    professions = _json(paths, "professions")
    male, female = _lines(paths, "male_word_file"), _lines(paths, "female_word_file")
    return {
        "definitional_pairs": pa.table(
            {
                "female": [pair[0] for pair in definitional],
                "male": [pair[1] for pair in definitional],
            }
        ),
        "equalize_pairs": pa.table(
            {"word_a": [pair[0] for pair in equalize], "word_b": [pair[1] for pair in equalize]}
        ),
        "gender_specific_seed": pa.table(
            {"word": pa.array(_json(paths, "gender_specific_seed"), _STRING)}
        ),
        "gender_specific_full": pa.table(
            {"word": pa.array(_json(paths, "gender_specific_full"), _STRING)}
        ),
        "professions": pa.table(
            {
                "word": pa.array([entry[0] for entry in professions], _STRING),
                "definitional": pa.array([entry[1] for entry in professions], pa.float64()),
                "stereotypical": pa.array([entry[2] for entry in professions], pa.float64()),
            }
        ),
        "male_words": pa.table(
            {"word": pa.array(male, _STRING), "counterpart": pa.array(female, _STRING)}
        ),
        "female_words": pa.table(
            {"word": pa.array(female, _STRING), "counterpart": pa.array(male, _STRING)}
        ),
    }
