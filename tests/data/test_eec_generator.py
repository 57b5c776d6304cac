"""generate_eec: an EEC from a small spec, here one with a non-binary identity, gendered variants
and two word sets."""

import warnings

import pytest
import yaml

from eval_harness.data import EEC_FEATURES, generate_eec
from eval_harness.errors import InputError

SPEC = {
    "language": "en",
    "english": True,
    "reference_group": "Anglo",
    "templates": [
        "{person} feels {emotion_word}.",
        {
            "text": {
                "female": "{person} found herself in a {emotion_word} situation.",
                "male": "{person} found himself in a {emotion_word} situation.",
                "default": "{person} found themself in a {emotion_word} situation.",
            },
            "word_set": "situation",
        },
        {
            "text": {
                "non-binary": "{person} have two children.",
                "default": "{person} has two children.",
            }
        },
    ],
    "persons": [
        {"term": "Maria", "gender": "female", "group": "Latino"},
        {"term": "Jacob", "gender": "male", "group": "Anglo"},
        {"term": "Alex", "gender": "non-binary", "group": "Latino"},
        {"term": "they", "gender": "non-binary"},
        {"term": "my mother", "gender": "female"},
    ],
    "emotion_words": {
        "default": {"anger": ["angry", "furious"], "joy": ["happy"]},
        "situation": {"anger": ["annoying"], "joy": ["wonderful", "funny"]},
    },
}


def test_counts_follow_templates_times_persons_times_words():
    eec = generate_eec(SPEC)
    assert eec.features == EEC_FEATURES
    # template 1: 5 persons x 3 default words; template 2: 5 x 3 situation words; template 3
    # (neutral): 5 x 1.
    assert eec.num_rows == 5 * 3 + 5 * 3 + 5
    rows = eec.to_pandas()
    assert rows.groupby("template_id").size().to_dict() == {1: 15, 2: 15, 3: 5}
    assert rows.groupby("gender").size().to_dict() == {"female": 14, "male": 7, "non-binary": 14}
    assert rows["emotion"].fillna("neutral").value_counts().to_dict() == {
        "anger": 15,
        "joy": 15,
        "neutral": 5,
    }


def test_contents_resolve_gendered_variants_groups_and_minority():
    rows = generate_eec(SPEC).to_list()
    sentences = {row["sentence"] for row in rows}
    assert (
        "Alex found themself in a funny situation." in sentences
    )  # no non-binary variant: the default
    assert "Maria found herself in a annoying situation." in sentences
    assert "Jacob found himself in a wonderful situation." in sentences
    assert "they have two children." in sentences and "my mother has two children." in sentences
    assert "they feels furious." in sentences  # a plain template is used as written for everyone
    alex = [row for row in rows if row["person"] == "Alex"]
    assert {row["group"] for row in alex} == {"Latino"} and {row["minority"] for row in alex} == {
        True
    }
    assert {row["person_kind"] for row in alex} == {"name"}
    jacob = next(row for row in rows if row["person"] == "Jacob")
    assert jacob["minority"] is False
    they = next(row for row in rows if row["person"] == "they")
    assert (
        they["group"] is None and they["minority"] is None and they["person_kind"] == "noun_phrase"
    )
    neutral = [row for row in rows if row["template_id"] == 3]
    assert all(row["emotion"] is None and row["emotion_word"] is None for row in neutral)
    assert all(row["sentence_en"] == row["sentence"] and row["language"] == "en" for row in rows)
    situation = next(
        row for row in rows if row["sentence"] == "Maria found herself in a annoying situation."
    )
    assert situation["template"] == "{person} found herself in a {emotion_word} situation."
    assert (situation["emotion"], situation["emotion_word"]) == ("anger", "annoying")


def test_gendered_emotion_words_and_a_yaml_spec_file(tmp_path):
    spec = {
        "language": "es",
        "templates": ["{person} se siente {emotion_word}"],
        "persons": [
            {"term": "Ana", "gender": "female", "group": "Latino"},
            {"term": "él", "gender": "male"},
        ],
        "emotion_words": {"anger": [{"female": "enojada", "male": "enojado"}]},
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    rows = generate_eec(path).to_list()
    assert [row["sentence"] for row in rows] == ["Ana se siente enojada", "él se siente enojado"]
    assert [row["emotion_word"] for row in rows] == ["enojada", "enojado"]
    assert all(
        row["minority"] is None and row["sentence_en"] is None for row in rows
    )  # no reference, not English


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"persons": None}, "lacks 'persons'"),
        ({"templates": ["I saw them."]}, "has no {person} slot"),
        (
            {"templates": [{"text": {"female": "{person} is {emotion_word}"}}]},
            "no form for gender 'male'",
        ),
        (
            {"templates": [{"text": "{person} is {emotion_word}", "word_set": "states"}]},
            "from set 'states'",
        ),
        ({"persons": [{"term": "Sam"}]}, "needs 'term' and 'gender'"),
        (
            {"emotion_words": {"anger": ["angry"], "situation": {"anger": ["bad"]}}},
            "mixes lists and word sets",
        ),
    ],
)
def test_bad_specs_name_the_problem(change, message):
    spec = {key: value for key, value in (SPEC | change).items() if value is not None}
    with pytest.raises(InputError, match=message):
        generate_eec(spec)


def test_a_spec_path_that_is_not_a_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="is not a file"):
        generate_eec(tmp_path / "missing.yaml")


# ---- issue 14: empty lists, misspelt slots and duplicates ----------------------------------------
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"templates": []}, "'templates' must be a non-empty list"),
        ({"persons": []}, "'persons' must be a non-empty list"),
        ({"templates": "{person} feels {emotion_word}."}, "'templates' must be a non-empty list"),
        (
            {"templates": ["{person} feels {emotion}."]},
            r"template 1 \('\{person\} feels \{emotion\}\.'\) has the unknown slot \{emotion\}; "
            r"the slots are \{person\}, \{emotion_word\}",
        ),
        (
            {
                "templates": [
                    "{person} is here.",
                    {"text": {"female": "{person} is {emotion_word}", "default": "{persn}"}},
                ]
            },
            r"template 2 \('\{persn\}'\) has the unknown slot \{persn\}",
        ),
        ({"templates": ["{person} feels {emotion_word."]}, r"template 1 .* has an unpaired brace"),
        (
            {"emotion_words": {"anger": [], "joy": ["happy"]}},
            "emotion 'anger' of word set 'default' needs a non-empty",
        ),
    ],
)
def test_empty_lists_and_unknown_slots_are_input_errors(change, message):
    with pytest.raises(InputError, match=message):
        generate_eec(SPEC | change)


def test_duplicate_persons_and_emotion_words_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        generate_eec(SPEC)  # no duplicates: no warning
    twice = SPEC | {
        "persons": [*SPEC["persons"], {"term": "Maria", "gender": "female", "group": "Latino"}]
    }
    with pytest.warns(UserWarning, match=r"person\(s\) \['Maria'\] more than once"):
        generate_eec(twice)
    repeated = {
        "default": {"anger": ["angry", "mad"], "joy": ["happy", "mad"]},
        "situation": SPEC["emotion_words"]["situation"],
    }
    with pytest.warns(
        UserWarning,
        match=r"word set 'default' lists the emotion word\(s\) \['mad'\] more than once",
    ):
        generate_eec(SPEC | {"emotion_words": repeated})
