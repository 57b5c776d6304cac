"""XWEAT word lists: the ten WEAT tests in English and translated into six languages.

English lists are ``weat_tests_en.json`` (Caliskan et al. 2017, as XWEAT uses
them). A translation dictionary ``vocab_en_<lang>.csv`` maps each lowercase
English word to a masculine (or only) form and an optional feminine form;
``vocab_en_ru.csv`` has a fourth column: where its last two columns are filled
they are the two gendered forms and replace the second column. Translating a
list follows XWEAT's ``translate`` with three deliberate differences:

- the order is deterministic (English order, masculine form before feminine,
  duplicates dropped at their later occurrences) where XWEAT returns
  ``list(set(...))``;
- a capitalised word (a name) is kept as it is without looking it up, which is
  what XWEAT's dictionary parser achieves by skipping capitalised entries;
- an entry whose forms are all empty (Russian ``rose`` and ``home``) drops the
  word, where XWEAT would insert an empty string.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path

import datasets
import pyarrow as pa

from .catalog import XWEAT_LANGUAGES

XWEAT_ROLES = ("target_x", "target_y", "attribute_a", "attribute_b")
XWEAT_TESTS_FILE = "xweat/weat_tests_en.json"


def dictionary_file(language: str) -> str:
    """Relative source path of the English -> ``language`` dictionary."""
    return f"xweat/vocab_en_{language}.csv"


XWEAT_FEATURES = datasets.Features(
    {
        "test": datasets.Value("string"),
        "role": datasets.Value("string"),
        "set_name": datasets.Value("string"),
        "words": datasets.List(datasets.Value("string")),
    }
)
TRANSLATION_FEATURES = datasets.Features(
    {
        "english": datasets.Value("string"),
        "language": datasets.Value("string"),
        "forms": datasets.List(datasets.Value("string")),
    }
)


def unique(words) -> list[str]:
    """``words`` without repeats, each kept at its first occurrence."""
    return list(dict.fromkeys(words))


def read_dictionary(path: Path) -> dict[str, list[str]]:
    """English word -> its forms (masculine or only form first), for the lowercase entries XWEAT
    uses."""
    translations = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle):
            if not row or not row[0] or row[0][0].isupper():
                continue
            gendered = row[2:4] if len(row) >= 4 and row[2].strip() and row[3].strip() else row[1:3]
            translations[row[0]] = unique(form.strip() for form in gendered if form.strip())
    return translations


def translate(words: list[str], translations: Mapping[str, list[str]]) -> list[str]:
    """The translated list: every form of every word, names kept, order deterministic, no
    duplicates."""
    # As XWEAT: a word without an entry stays English (never the case for the shipped dictionaries).
    return unique(
        form
        for word in words
        for form in ([word] if word[0].isupper() else translations.get(word, [word]))
    )


def xweat_tables(paths: Mapping[str, Path]) -> dict[str, pa.Table]:
    """config -> table: one config per language (rows test x role) and ``translations``."""
    tests = json.loads(paths[XWEAT_TESTS_FILE].read_text(encoding="utf-8"))["tests"]
    dictionaries = {
        language: read_dictionary(paths[dictionary_file(language)])
        for language in XWEAT_LANGUAGES[1:]
    }
    tables = {}
    for language in XWEAT_LANGUAGES:
        rows = []
        for test in tests:
            sets = [*test["targets"].items(), *test["attributes"].items()]
            for role, (set_name, words) in zip(XWEAT_ROLES, sets, strict=True):
                translated = (
                    unique(words) if language == "en" else translate(words, dictionaries[language])
                )
                rows.append(
                    {"test": test["test"], "role": role, "set_name": set_name, "words": translated}
                )
        tables[language] = pa.Table.from_pylist(rows, schema=XWEAT_FEATURES.arrow_schema)
    tables["translations"] = pa.Table.from_pylist(
        [
            {"english": english, "language": language, "forms": forms}
            for language, translations in dictionaries.items()
            for english, forms in translations.items()
        ],
        schema=TRANSLATION_FEATURES.arrow_schema,
    )
    return tables


def shared_words(table: pa.Table) -> list[tuple[str, str, list[str]]]:
    """(test, ``targets``/``attributes``, words) where a translation put the same word in both sets
    of a pair."""
    rows = {(row["test"], row["role"]): row["words"] for row in table.to_pylist()}
    found = []
    for test in unique(test for test, _ in rows):
        for kind, (first, second) in (
            ("targets", XWEAT_ROLES[:2]),
            ("attributes", XWEAT_ROLES[2:]),
        ):
            both = [word for word in rows[test, first] if word in set(rows[test, second])]
            if both:
                found.append((test, kind, both))
    return found
