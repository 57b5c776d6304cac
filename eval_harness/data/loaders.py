"""One loader per dataset: build on first use (into the xbias cache), then
``datasets.load_dataset(folder, config)``."""

from __future__ import annotations

import datasets

from ..errors import ConfigError
from .builders import check_config, dataset_folder
from .catalog import XWEAT_LANGUAGES
from .semeval import semeval_config


def load_config(name: str, config: str, split: str | None = "train"):
    """Config ``config`` of dataset ``name`` (a ``Dataset`` for one split, a ``DatasetDict`` for
    ``split=None``)."""
    check_config(name, config)
    return datasets.load_dataset(str(dataset_folder(name)), config, split=split)


def load_eec(config: str) -> datasets.Dataset:
    """EEC config (``EEC_CONFIGS``): sentence, template, template_id, person, person_kind, gender,
    group, minority, emotion, emotion_word, language, sentence_en."""
    return load_config("eec", config)


def load_xweat(language: str) -> datasets.Dataset:
    """The ten WEAT tests in ``language`` (``XWEAT_LANGUAGES``): test, role, set_name, words."""
    if language not in XWEAT_LANGUAGES:
        raise ConfigError(
            f"unknown XWEAT language {language!r}: valid languages are {', '.join(XWEAT_LANGUAGES)}"
        )
    return load_config("xweat", language)


def load_xweat_translations(language: str) -> datasets.Dataset:
    """The XWEAT dictionary English -> ``language`` (not ``en``): english, language, forms."""
    if language not in XWEAT_LANGUAGES[1:]:
        raise ConfigError(
            f"no XWEAT translations for {language!r}: valid "
            f"languages are {', '.join(XWEAT_LANGUAGES[1:])}"
        )
    return load_config("xweat", "translations").filter(
        lambda row_language: row_language == language, input_columns="language"
    )


def load_gender_lists(config: str) -> datasets.Dataset:
    """A gender word list (``GENDER_LIST_CONFIGS``); columns per config, see
    :mod:`eval_harness.data.gender_lists`."""
    return load_config("gender_lists", config)


def load_semeval(language: str, dimension: str) -> datasets.DatasetDict:
    """SemEval-2018 affect regression for ``language`` and ``dimension``: splits
    train/validation/test, columns id, text, intensity (float in [0, 1])."""
    return load_config("semeval2018_affect", semeval_config(language, dimension), split=None)
