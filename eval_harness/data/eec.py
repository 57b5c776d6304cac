"""Equity Evaluation Corpora (EECs): the five shipped configs and a generator for new ones.

An EEC (Kiritchenko & Mohammad 2018) fills eleven sentence templates with person
terms (names that carry a gender and a race/ethnicity group, and gendered noun
phrases) and emotion words: 7 emotional templates x 4 emotions x 5 words, plus 4
neutral templates. Câmara et al. (2022) made Latino/Anglo (English, Spanish) and
Arab/Anglo (English, Arabic) versions. Every config is normalised to
:data:`EEC_FEATURES`.

``template_id`` follows the original paper's numbering in every language: the
four emotional-state templates (slot ``<emotion word>``/``<eA>``) are 1-4, the
three emotional-situation templates (``<emotional situation word>``/``<eB>``) are
5-7, the four neutral ones 8-11; within each kind, in order of first appearance
in the source file (the sources list templates in the paper's order; ``en.csv``
only moves the neutral block before the situation block).
"""

from __future__ import annotations

import ast
import csv
import os
import re
import warnings
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import datasets
import pyarrow as pa
import yaml

from ..errors import InputError, SourceDataError, unreadable_file
from ..io import load_yaml, read_text
from .catalog import EEC_REFERENCE_GROUP

# config -> (source file, language)
EEC_SOURCES = {
    "en_black_white": ("eec/en.csv", "en"),
    "en_latino_anglo": ("eec/en_es.csv", "en"),
    "es_latino_anglo": ("eec/es.csv", "es"),
    "en_arab_anglo": ("eec/en_ar.csv", "en"),
    "ar_arab_anglo": ("eec/ar.csv", "ar"),
}

EEC_FEATURES = datasets.Features(
    {
        "sentence": datasets.Value("string"),
        "template": datasets.Value("string"),
        "template_id": datasets.Value("int64"),
        "person": datasets.Value("string"),
        "person_kind": datasets.Value("string"),
        "gender": datasets.Value("string"),
        "group": datasets.Value("string"),
        "minority": datasets.Value("bool"),
        "emotion": datasets.Value("string"),
        "emotion_word": datasets.Value("string"),
        "language": datasets.Value("string"),
        "sentence_en": datasets.Value("string"),
    }
)
_SITUATION_SLOTS = ("<eB>", "<emotional situation word>")
# es.csv spells the pronoun "él" (he) as "el" in all but one template.
_PERSON_SPELLING = {"es": {"el": "él"}}
# The slots of a generator template (generate_eec); anything else in braces is a mistake.
EEC_SLOTS = ("person", "emotion_word")
_SLOT = re.compile(r"\{([^{}]*)\}")


def eec_tables(paths: Mapping[str, Path]) -> dict[str, pa.Table]:
    """config -> table in :data:`EEC_FEATURES`, from the verified source CSVs (``paths`` by relative
    path)."""
    return {
        config: pa.Table.from_pylist(
            _normalise_rows(config, paths[source], language), schema=EEC_FEATURES.arrow_schema
        )
        for config, (source, language) in EEC_SOURCES.items()
    }


def _read_source_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, encoding="utf-8", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    return header, rows


def _normalise_rows(config: str, path: Path, language: str) -> list[dict]:
    """One source CSV -> rows of the normalised schema.

    Columns are taken by name (``es.csv`` has an unnamed index column and two
    unnamed note columns; ``ar.csv`` names its English sentence ``sentence``
    again): the English counterpart is the ``sentence_en`` column, else the
    second ``sentence`` column, else (English corpora) the sentence itself.
    """
    header, rows = _read_source_rows(path)
    column = {}
    for index, name in enumerate(header):
        column.setdefault(name, index)
    required = ["sentence", "template", "person", "gender", "race", "emotion", "emotion word"]
    absent = [name for name in required if name not in column]
    if absent:
        raise SourceDataError(f"EEC source {path} lacks the columns {absent} (found {header})")
    english_column = column.get("sentence_en")
    if english_column is None and header.count("sentence") == 2:
        english_column = len(header) - 1 - header[::-1].index("sentence")
    reference = EEC_REFERENCE_GROUP[config]
    spelling = _PERSON_SPELLING.get(language, {})
    template_ids = _template_ids(header, rows, column)
    normalised = []
    for row in rows:
        gender = row[column["gender"]]
        group = row[column["race"]] or None
        emotion = row[column["emotion"]] or None
        sentence = row[column["sentence"]]
        normalised.append(
            {
                "sentence": sentence,
                "template": _resolve_template(row[column["template"]], gender),
                "template_id": template_ids[row[column["template"]]],
                "person": spelling.get(row[column["person"]], row[column["person"]]),
                "person_kind": "noun_phrase" if group is None else "name",
                "gender": gender,
                "group": group,
                "minority": None if group is None else group != reference,
                "emotion": emotion,
                "emotion_word": row[column["emotion word"]] if emotion else None,
                "language": language,
                "sentence_en": sentence if english_column is None else row[english_column],
            }
        )
    return normalised


def _template_ids(
    header: list[str], rows: list[list[str]], column: dict[str, int]
) -> dict[str, int]:
    """Source template string -> 1-11: state templates, then situation, then neutral; first
    appearance within each."""
    kinds: dict[str, int] = {}
    for row in rows:
        template = row[column["template"]]
        if template not in kinds:
            if not row[column["emotion"]]:
                kinds[template] = 2
            else:
                kinds[template] = 1 if any(slot in template for slot in _SITUATION_SLOTS) else 0
    ordered = sorted(
        kinds, key=lambda template: kinds[template]
    )  # stable: keeps first appearance within a kind
    counts = [list(kinds.values()).count(kind) for kind in (0, 1, 2)]
    if counts != [4, 3, 4]:
        raise SourceDataError(
            f"EEC source with columns {header} has {counts} "
            "state/situation/neutral templates, expected [4, 3, 4]"
        )
    return {template: index for index, template in enumerate(ordered, start=1)}


def _resolve_template(template: str, gender: str) -> str:
    """The template text for this row: ``ar.csv`` stores ``{'m': ..., 'f': ...}``; pick the row's
    gender."""
    if not template.startswith("{"):
        return template
    variants = ast.literal_eval(template)
    return variants["f" if gender == "female" else "m"]


# --- the generator --------------------------------------------------------------------------------


def generate_eec(spec: Mapping | str | os.PathLike) -> datasets.Dataset:
    """Build an EEC from a spec (a dict, or the path of a YAML file) into :data:`EEC_FEATURES`.

    Spec keys:

    - ``language`` (required): the language code written to every row.
    - ``templates`` (required): a list; each item is a template string, or a
      mapping with ``text`` (a string, or a mapping gender -> string for gendered
      variants, with an optional ``default``) and an optional ``word_set``.
      Slots are ``{person}`` and ``{emotion_word}``; a template without
      ``{emotion_word}`` is neutral (``emotion`` is null). ``template_id`` is the
      1-based position in this list. Any other ``{...}`` (a misspelt slot such as
      ``{emotion}``) or a lone brace is an error naming the template.
    - ``persons`` (required): a list of mappings ``term``, ``gender`` and optional
      ``group`` (null for noun phrases) and ``kind`` (default ``name`` when a
      group is given, else ``noun_phrase``).
    - ``emotion_words`` (required when a template has ``{emotion_word}``):
      emotion -> list of words, or word set -> emotion -> list (templates pick a
      set with ``word_set``; the EEC uses one set for emotional states and one
      for emotional situations). A word is a string or a mapping gender -> form
      (for languages with gendered adjectives).
    - ``reference_group`` (optional): the non-minority group; ``minority`` is
      ``group != reference_group`` for names, null without it.
    - ``english`` (optional): true when the EEC is in English, to copy
      ``sentence`` into ``sentence_en`` (else null).

    Rows are ordered template, person, emotion, word. A person term, or an emotion word
    within one word set, listed twice gives a warning (its sentences would count twice).

    How large to make it (templates, persons per cell, seeds): ``xbias power RUN`` on a run of a
    corpus you have gives the smallest design whose MDE reaches a target, from that run's variance
    components; its model and assumptions are in docs/conventions.md ("Equivalence tests and the
    power planner").
    """
    spec = _load_spec(spec)
    for key in ("language", "templates", "persons"):
        if key not in spec:
            raise InputError(
                f"EEC spec lacks '{key}': it needs language, templates, persons (and emotion_words)"
            )
    for key in ("templates", "persons"):
        if not isinstance(spec[key], list) or not spec[key]:
            raise InputError(f"EEC spec '{key}' must be a non-empty list; got {spec[key]!r:.100}")
    word_sets = _word_sets(spec.get("emotion_words"))
    persons = [_person(entry) for entry in spec["persons"]]
    _warn_about_duplicates(persons, word_sets)
    reference = spec.get("reference_group")
    rows = []
    for template_id, entry in enumerate(spec["templates"], start=1):
        text, word_set = _template_entry(entry, template_id)
        _check_slots(text, template_id)
        for person in persons:
            template = _variant(text, person["gender"], template_id)
            if "{person}" not in template:
                raise InputError(
                    f"EEC spec template {template_id} ({template!r}) has no {{person}} slot"
                )
            base = {
                "template": template,
                "template_id": template_id,
                "person": person["term"],
                "person_kind": person["kind"],
                "gender": person["gender"],
                "group": person["group"],
                "minority": None
                if person["group"] is None or reference is None
                else person["group"] != reference,
                "language": spec["language"],
            }
            for emotion, word in _fillers(template, word_sets, word_set, template_id):
                form = None if word is None else _variant(word, person["gender"], template_id)
                sentence = template.replace("{person}", person["term"]).replace(
                    "{emotion_word}", form or ""
                )
                rows.append(
                    base
                    | {
                        "sentence": sentence,
                        "emotion": emotion,
                        "emotion_word": form,
                        "sentence_en": sentence if spec.get("english") else None,
                    }
                )
    return datasets.Dataset.from_list(rows, features=EEC_FEATURES)


def _check_slots(text: str | Mapping, template_id: int) -> None:
    """Every ``{...}`` of every variant of a template is a known slot, and no brace is left
    unpaired."""
    for variant in [text] if isinstance(text, str) else list(text.values()):
        if not isinstance(variant, str):
            raise InputError(
                f"EEC spec template {template_id}: a text must be a string; got {variant!r:.100}"
            )
        unknown = [slot for slot in _SLOT.findall(variant) if slot not in EEC_SLOTS]
        if unknown:
            raise InputError(
                f"EEC spec template {template_id} ({variant!r}) has "
                f"the unknown slot {{{unknown[0]}}}; the slots are "
                f"{', '.join('{' + slot + '}' for slot in EEC_SLOTS)}"
            )
        if "{" in _SLOT.sub("", variant) or "}" in _SLOT.sub("", variant):
            raise InputError(
                f"EEC spec template {template_id} ({variant!r}) has an unpaired brace; "
                f"write slots as {', '.join('{' + slot + '}' for slot in EEC_SLOTS)}"
            )


def _warn_about_duplicates(persons: list[dict], word_sets: dict[str, dict[str, list]]) -> None:
    """Warn about person terms, and words within one word set, listed more than once."""
    repeated = [
        term for term, count in Counter(person["term"] for person in persons).items() if count > 1
    ]
    if repeated:
        warnings.warn(
            f"EEC spec lists the person(s) {repeated} more "
            "than once; their sentences will be repeated",
            UserWarning,
            stacklevel=3,
        )
    for name, emotions in word_sets.items():
        listed = Counter(_hashable(word) for words in emotions.values() for word in words)
        repeated = [word for word, count in listed.items() if count > 1]
        if repeated:
            warnings.warn(
                f"EEC spec word set {name!r} lists the emotion word(s) {repeated} more "
                "than once (within or across emotions); their sentences will be repeated",
                UserWarning,
                stacklevel=3,
            )


def _hashable(word):
    """A word (a string, or a mapping gender -> form) as something a Counter can count."""
    return tuple(sorted(word.items())) if isinstance(word, Mapping) else word


def _load_spec(spec: Mapping | str | os.PathLike) -> Mapping:
    if isinstance(spec, Mapping):
        return spec
    path = Path(spec)
    if not path.is_file():
        raise InputError(f"EEC spec {path} is not a file: give a dict or the path of a YAML spec")
    try:
        loaded = load_yaml(read_text(path))
    except (OSError, ValueError, yaml.YAMLError) as error:
        raise InputError(unreadable_file(path, error, "EEC spec")) from None
    if not isinstance(loaded, Mapping):
        raise InputError(f"EEC spec {path} does not hold a mapping (found {type(loaded).__name__})")
    return loaded


def _word_sets(emotion_words) -> dict[str, dict[str, list]]:
    """``emotion_words`` as word set -> emotion -> words (a flat mapping is the set ``default``)."""
    if emotion_words is None:
        return {}
    if not isinstance(emotion_words, Mapping) or not emotion_words:
        raise InputError(
            "EEC spec 'emotion_words' must map emotion -> words, or word set -> emotion -> words"
        )
    if all(isinstance(words, list) for words in emotion_words.values()):
        word_sets = {"default": dict(emotion_words)}
    elif all(isinstance(words, Mapping) for words in emotion_words.values()):
        word_sets = {name: dict(words) for name, words in emotion_words.items()}
    else:
        raise InputError(
            "EEC spec 'emotion_words' mixes lists and word sets: "
            "use emotion -> list, or set -> emotion -> list"
        )
    for name, emotions in word_sets.items():
        for emotion, words in emotions.items():
            if not isinstance(words, list) or not words:
                raise InputError(
                    f"EEC spec 'emotion_words': emotion {emotion!r} of word set "
                    f"{name!r} needs a non-empty list of words; got {words!r:.100}"
                )
    return word_sets


def _person(entry) -> dict:
    if not isinstance(entry, Mapping) or "term" not in entry or "gender" not in entry:
        raise InputError(
            f"EEC spec person {entry!r} needs 'term' and 'gender' (and optionally 'group', 'kind')"
        )
    group = entry.get("group")
    return {
        "term": entry["term"],
        "gender": entry["gender"],
        "group": group,
        "kind": entry.get("kind", "noun_phrase" if group is None else "name"),
    }


def _template_entry(entry, template_id: int) -> tuple[str | Mapping, str | None]:
    if isinstance(entry, str):
        return entry, None
    if isinstance(entry, Mapping) and "text" in entry:
        return entry["text"], entry.get("word_set")
    raise InputError(
        f"EEC spec template {template_id} must be a string "
        f"or a mapping with 'text' (found {entry!r})"
    )


def _variant(text: str | Mapping, gender: str, template_id: int) -> str:
    """A gendered text's form for ``gender`` (its ``default`` when there is none); a string is
    itself."""
    if isinstance(text, str):
        return text
    if gender in text:
        return text[gender]
    if "default" in text:
        return text["default"]
    raise InputError(
        f"EEC spec template {template_id}: no form for gender "
        f"{gender!r} in {dict(text)} (add it or a 'default')"
    )


def _fillers(template: str, word_sets: dict, word_set: str | None, template_id: int) -> list[tuple]:
    """(emotion, word) pairs for a template: every word of its set, or one ``(None, None)`` for a
    neutral template."""
    if "{emotion_word}" not in template:
        return [(None, None)]
    name = word_set or ("default" if "default" in word_sets else None)
    if name not in word_sets:
        raise InputError(
            f"EEC spec template {template_id} needs emotion words "
            f"from set {name!r}; the spec has {sorted(word_sets)}"
        )
    return [(emotion, word) for emotion, words in word_sets[name].items() for word in words]
