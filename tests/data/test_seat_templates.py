"""SEAT templates: the packaged English ones as May et al. give them, user templates, and clear
errors."""

import json

import pytest

from eval_harness.data.seat import load_seat_templates, seat_languages
from eval_harness.errors import ConfigError, InputError


def test_english_templates_place_words_as_may_et_al_do():
    english = load_seat_templates("en")
    assert seat_languages() == ("en",)
    assert english.sentences("Katie")[:2] == ("This is Katie.", "That is Katie.")  # a name
    assert len(
        english.sentences("Katie")
    ) == 8 and "The person's name is Katie." in english.sentences("Katie")
    flower = english.sentences("aster")  # a singular noun: article chosen by the first letter
    assert flower[:2] == ("This is an aster.", "That is an aster.")
    assert "The aster is here." in flower and "An aster is a thing." in flower
    assert english.sentences("rose")[0] == "This is a rose."
    assert english.sentences("caress", kind="mass_noun") == (
        "This is caress.",
        "That is caress.",
        "There is caress.",
        "It is caress.",
    )
    assert (
        english.sentences("she", kind="subject_pronoun")[0] == "She is here."
    )  # first letter capitalised
    assert english.sentences("NASA") == english.sentences(
        "NASA", kind="singular_noun"
    )  # all capitals: not a name


def test_user_templates_for_another_language(tmp_path):
    german = load_seat_templates("de", templates=["Das ist {word}.", "{word} ist hier."])
    assert german.sentences("Blume") == ("Das ist Blume.", "Blume ist hier.")
    kinds = load_seat_templates(
        "de", templates={"name": ["Das ist {word}."], "noun": ["Hier ist {word}."]}
    )
    assert kinds.sentences("Anna") == ("Das ist Anna.",) and kinds.sentences("blume") == (
        "Hier ist blume.",
    )
    assert kinds.sentences("Blume", kind="noun") == ("Hier ist Blume.",)
    path = tmp_path / "seat_de.json"
    path.write_text(
        json.dumps(
            {"languages": {"de": {"default_kind": "noun", "templates": {"noun": ["{word}."]}}}}
        )
    )
    assert load_seat_templates("de", templates=path).sentences("blume") == ("blume.",)


def test_a_language_without_templates_is_a_clear_error():
    with pytest.raises(ConfigError, match="never machine-translated.*templates="):
        load_seat_templates("de")
    with pytest.raises(InputError, match="exactly once"):
        load_seat_templates("de", templates=["Das ist ein Satz."])
    with pytest.raises(InputError, match="no article rule"):
        load_seat_templates("de", templates=["Das ist {a} {word}."])
    with pytest.raises(InputError, match="kind 'verb'"):
        load_seat_templates("de", templates=["{word}."]).sentences("x", kind="verb")
    with pytest.raises(ConfigError, match="does not exist"):
        load_seat_templates("de", templates="/nonexistent/seat.yaml")
