"""The EECs a run scores: the five shipped configs, and corpora generated from a spec in the config.

A generated corpus is the suite option ``generated: {NAME: SPEC}``: ``SPEC`` holds the keys of
:func:`eval_harness.data.generate_eec` (``language``, ``templates``, ``persons``, ``emotion_words``,
``reference_group``, ``english``) written inline in the sweep config (so the config's hash covers
the corpus), and two keys of the suite's own:

- ``reference_gender`` (default ``male``): the gender level the fit compares the others with;
- ``factors`` (default none): further identity factors, ``{factor: its reference level}``; every
  person with a group names its level of each (``{term: Alex, gender: non-binary, group: Latino,
  age: young}``).

The fit's factors are ``group`` and ``gender`` and then those, in that order; rows without a group
(noun phrases) are left out of it, as in the shipped EECs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...data.catalog import EEC_CONFIGS, EEC_CONFIGS_BY_LANGUAGE, EEC_REFERENCE_GROUP
from ...errors import ConfigError, InputError

SUITE_KEYS = ("reference_gender", "factors")
DEFAULT_REFERENCE_GENDER = "male"
IDENTITY_COLUMNS = ("group", "gender")  # the corpus columns every EEC's fit reads, in this order
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def generated_specs(options: Mapping[str, Any]) -> Mapping[str, Mapping]:
    return options.get("generated") or {}


def check_generated(generated: Any, languages: tuple[str, ...]) -> None:
    """Refuse a ``generated`` option that is not ``{name: spec}`` with file-safe names other than
    the shipped configs', a language the suite runs, a reference group, factors every grouped person
    names, and a spec :func:`~eval_harness.data.generate_eec` builds.

    Raises:
        ConfigError: naming the corpus and what is wrong.
    """
    if not isinstance(generated, Mapping):
        raise ConfigError(f"generated must map a corpus name to its spec, got {generated!r:.100}")
    for name, spec in generated.items():
        where = f"generated corpus {name!r}"
        if not isinstance(name, str) or not _NAME.match(name) or "__" in name:
            raise ConfigError(
                f"{where}: a name is letters, digits, '.', '-' and single '_' (it names unit files)"
            )
        if name in EEC_CONFIGS:
            raise ConfigError(f"{where} has the name of a shipped EEC config; give it another")
        if not isinstance(spec, Mapping):
            raise ConfigError(
                f"{where}: its spec must be a mapping (generate_eec's keys), got {spec!r:.100}"
            )
        if spec.get("language") not in languages:
            raise ConfigError(
                f"{where}: language must be one the suite runs ({', '.join(languages)}: "
                f"it needs a SemEval regressor), got {spec.get('language')!r}"
            )
        if not isinstance(spec.get("reference_group"), str):
            raise ConfigError(
                f"{where} needs reference_group: the group level the fit compares the others with"
            )
        if not isinstance(spec.get("reference_gender", DEFAULT_REFERENCE_GENDER), str):
            raise ConfigError(
                f"{where}: reference_gender must be a gender "
                f"level, got {spec['reference_gender']!r}"
            )
        factors = spec.get("factors") or {}
        if not isinstance(factors, Mapping) or not all(
            isinstance(v, str) for v in factors.values()
        ):
            raise ConfigError(
                f"{where}: factors must map a factor name to its reference level, got {factors!r}"
            )
        clash = [
            factor for factor in factors if factor in (*IDENTITY_COLUMNS, "template_id", "person")
        ]
        if clash:
            raise ConfigError(
                f"{where}: factors {clash} would shadow a column of the corpus; name them otherwise"
            )
        persons = spec.get("persons")
        for person in persons if isinstance(persons, list) else []:
            absent = [
                f
                for f in factors
                if isinstance(person, Mapping) and person.get("group") and f not in person
            ]
            if absent:
                raise ConfigError(
                    f"{where}: person {person.get('term')!r} has a group but no {', '.join(absent)}"
                )
        try:
            generated_corpus(spec)
        except InputError as error:
            raise ConfigError(f"{where}: {error}") from None


def generated_corpus(spec: Mapping):
    """The rows of a generated corpus (a pandas DataFrame in the EEC's columns, positions as index),
    with a column per further factor of the spec (each person's level; None for a person without a
    group)."""
    from ...data import generate_eec  # here: `datasets` is slow to import (xbias list)

    rows = generate_eec(
        {key: value for key, value in spec.items() if key not in SUITE_KEYS}
    ).to_pandas()
    for factor in spec.get("factors") or {}:
        levels = {
            (person["term"], person["gender"], person.get("group")): person.get(factor)
            for person in spec["persons"]
        }
        rows[factor] = [
            levels.get((term, gender, group)) if group is not None else None
            for term, gender, group in zip(
                rows["person"], rows["gender"], rows["group"], strict=True
            )
        ]
    return rows


def load_corpus(name: str, options: Mapping[str, Any]):
    """The rows of EEC ``name``: a shipped config (:func:`~eval_harness.data.load_eec`) or a
    generated corpus."""
    generated = generated_specs(options)
    if name in generated:
        return generated_corpus(generated[name])
    from ...data import load_eec  # here: `datasets` is slow to import (xbias list)

    return load_eec(name).to_pandas()


def corpus_names(language: str, options: Mapping[str, Any]) -> list[str]:
    """Every EEC of ``language``: its shipped configs, then the generated corpora in that
    language."""
    generated = [
        name for name, spec in generated_specs(options).items() if spec["language"] == language
    ]
    return [*EEC_CONFIGS_BY_LANGUAGE[language], *generated]


def identity_factors(name: str, options: Mapping[str, Any]) -> dict[str, str]:
    """The fit's factors of EEC ``name`` and their reference levels: group and gender, then a
    generated corpus's further factors (module docstring)."""
    spec = generated_specs(options).get(name)
    if spec is None:
        return {"group": EEC_REFERENCE_GROUP[name], "gender": DEFAULT_REFERENCE_GENDER}
    return {
        "group": spec["reference_group"],
        "gender": spec.get("reference_gender", DEFAULT_REFERENCE_GENDER),
        **dict(spec.get("factors") or {}),
    }
