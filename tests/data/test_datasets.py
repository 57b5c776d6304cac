"""The four built datasets: every config loads offline with the right rows and contents; cards;
loaders; stamps.

Expected numbers come from the issue (EEC row counts) or are counted here from the
raw source files with code independent of the builders (pandas, line counts).
"""

import ast
import csv
import hashlib
import json
import re
import shutil
from decimal import Decimal

import datasets
import pandas as pd
import pytest
from huggingface_hub import DatasetCard

from eval_harness import paths
from eval_harness.data import (
    DATASETS,
    EEC_CONFIGS,
    EEC_FEATURES,
    build_datasets,
    dataset_folder,
    load_eec,
    load_gender_lists,
    load_semeval,
    load_xweat,
    load_xweat_translations,
    validate_card,
)
from eval_harness.data.sources import SOURCES, weat_tests_from_xweat_script
from eval_harness.errors import ConfigError
from eval_harness.io import BUILD_MARKER

EEC_ROWS = {
    "en_black_white": 8640,
    "en_latino_anglo": 8640,
    "es_latino_anglo": 8460,
    "en_arab_anglo": 8640,
    "ar_arab_anglo": 8038,
}
EEC_FILES = {
    "en_black_white": "en.csv",
    "en_latino_anglo": "en_es.csv",
    "es_latino_anglo": "es.csv",
    "en_arab_anglo": "en_ar.csv",
    "ar_arab_anglo": "ar.csv",
}
SEMEVAL_SPLIT_FILES = {"train": "train", "validation": "dev", "test": "test-gold"}
# The English template each template_id stands for, recognised in the English counterpart sentence.
ENGLISH_TEMPLATE_PATTERNS = {
    1: r"^\S+(?: \S+)? feels ",
    2: r"^The situation makes ",
    3: r"^I made ",
    4: r" made me feel ",
    5: r" found (?:himself|herself) in an? ",
    6: r" told us all about the recent ",
    7: r"^The conversation with ",
    8: r"^I saw ",
    9: r"^I talked to ",
    10: r" goes to the school in our neighborhood",
    11: r" has two children",
}


@pytest.fixture(scope="session")
def built(tmp_path_factory, source_dir):
    """All four datasets built once into a temporary folder: name -> folder."""
    return build_datasets(out_dir=tmp_path_factory.mktemp("built-datasets"), source_dir=source_dir)


def _load(folder, config, split="train"):
    return datasets.load_dataset(str(folder), config, split=split)


def _semeval_lines(source_dir, language, dimension, split):
    task = "Valence-reg" if dimension == "valence" else "EI-reg"
    middle = "" if dimension == "valence" else f"-{dimension}"
    name = f"2018-{task}-{language.capitalize()}{middle}-{SEMEVAL_SPLIT_FILES[split]}.txt"
    raw = (source_dir / "semeval2018" / name).read_bytes().decode("utf-8-sig")
    return [line.split("\t") for line in raw.split("\r\n")[1:] if line]


def _xweat_dictionary_rows(source_dir, language):
    with open(
        source_dir / "xweat" / f"vocab_en_{language}.csv", encoding="utf-8", newline=""
    ) as handle:
        return [row for row in csv.reader(handle) if row and row[0] and row[0][0].islower()]


def _expected_rows(source_dir):
    """dataset -> config -> split -> rows, counted from the raw files."""
    gender = source_dir / "gender_lists"
    word_lines = len(
        [line for line in (gender / "male_word_file.txt").read_text().splitlines() if line.strip()]
    )
    expected = {
        "eec": {config: {"train": rows} for config, rows in EEC_ROWS.items()},
        "xweat": {
            language: {"train": 40} for language in ("en", "de", "es", "it", "hr", "ru", "tr")
        },
        "gender_lists": {
            name: {"train": len(json.loads((gender / f"{name}.json").read_text()))}
            for name in (
                "definitional_pairs",
                "equalize_pairs",
                "gender_specific_seed",
                "gender_specific_full",
                "professions",
            )
        }
        | {"male_words": {"train": word_lines}, "female_words": {"train": word_lines}},
        "semeval2018_affect": {
            f"{language}_{dimension}": {
                split: len(_semeval_lines(source_dir, language, dimension, split))
                for split in SEMEVAL_SPLIT_FILES
            }
            for language in ("en", "es", "ar")
            for dimension in ("anger", "fear", "joy", "sadness", "valence")
        },
    }
    expected["xweat"]["translations"] = {
        "train": sum(
            len(_xweat_dictionary_rows(source_dir, lang))
            for lang in ("de", "es", "it", "hr", "ru", "tr")
        )
    }
    return expected


def test_every_config_of_every_dataset_loads_offline_with_its_row_counts(built, source_dir):
    expected = _expected_rows(source_dir)
    assert expected["xweat"]["translations"]["train"] == 6 * 293
    assert expected["semeval2018_affect"]["en_anger"] == {
        "train": 1701,
        "validation": 388,
        "test": 1002,
    }
    for name, configs in expected.items():
        assert set(DATASETS[name].configs) == set(configs)
        for config, splits in configs.items():
            loaded = datasets.load_dataset(str(built[name]), config)
            assert {split: part.num_rows for split, part in loaded.items()} == splits, (
                name,
                config,
            )


def test_the_issue_example_ar_arab_anglo_has_8038_rows(built):
    assert datasets.load_dataset(str(built["eec"]), "ar_arab_anglo")["train"].num_rows == 8038


@pytest.mark.parametrize("config", EEC_CONFIGS)
def test_eec_counts_per_emotion_group_and_gender_match_the_source(built, source_dir, config):
    loaded = _load(built["eec"], config).to_pandas()
    raw = pd.read_csv(source_dir / "eec" / EEC_FILES[config], keep_default_na=False, dtype=str)
    emotions = raw["emotion"].replace("", "neutral").value_counts().to_dict()
    assert loaded["emotion"].fillna("neutral").value_counts().to_dict() == emotions
    groups = raw.groupby([raw["race"].replace("", "noun phrase"), "gender"]).size().to_dict()
    assert (
        loaded.groupby([loaded["group"].fillna("noun phrase"), "gender"]).size().to_dict() == groups
    )


def test_arabic_eec_per_emotion_counts_are_the_documented_ones(built):
    emotions = (
        _load(built["eec"], "ar_arab_anglo").to_pandas()["emotion"].fillna("neutral").value_counts()
    )
    assert emotions.to_dict() == {
        "anger": 1740,
        "joy": 1858,
        "fear": 2100,
        "sadness": 2100,
        "neutral": 240,
    }


@pytest.mark.parametrize("config", EEC_CONFIGS)
def test_eec_rows_follow_the_normalised_schema(built, config):
    loaded = _load(built["eec"], config)
    assert loaded.features == EEC_FEATURES
    rows = loaded.to_pandas()
    reference = "European" if config == "en_black_white" else "Anglo"
    names = rows["group"].notna()
    assert set(rows["gender"]) == {"female", "male"}
    assert (rows["person_kind"] == names.map({True: "name", False: "noun_phrase"})).all()
    assert (rows.loc[names, "minority"] == (rows.loc[names, "group"] != reference)).all()
    assert rows.loc[~names, "minority"].isna().all()
    neutral = rows["emotion"].isna()
    assert (neutral == (rows["template_id"] >= 8)).all()
    assert (neutral == rows["emotion_word"].isna()).all()
    assert sorted(rows["template_id"].unique()) == list(range(1, 12))
    assert (rows["language"] == config[:2]).all()
    assert rows["sentence_en"].notna().all()
    assert rows.loc[names, "person"].nunique() == 40 and rows.loc[~names, "person"].nunique() in (
        20,
        22,
    )


@pytest.mark.parametrize("config", EEC_CONFIGS)
def test_eec_template_ids_mean_the_same_template_in_every_language(built, config):
    rows = _load(built["eec"], config).to_pandas()
    for template_id, pattern in ENGLISH_TEMPLATE_PATTERNS.items():
        english = rows.loc[rows["template_id"] == template_id, "sentence_en"]
        assert len(english) > 0
        mismatched = english[~english.str.contains(pattern)]
        assert mismatched.empty, (config, template_id, mismatched.head(3).tolist())


def test_arabic_templates_are_the_gendered_variant_of_each_row(built, source_dir):
    rows = _load(built["eec"], "ar_arab_anglo").to_pandas()
    raw = pd.read_csv(source_dir / "eec" / "ar.csv", keep_default_na=False, dtype=str)
    variants = raw["template"].map(ast.literal_eval)
    genders = raw["gender"].map({"female": "f", "male": "m"})
    expected = [variant[gender] for variant, gender in zip(variants, genders, strict=True)]
    assert rows["template"].tolist() == expected
    assert not rows["template"].str.startswith("{").any()
    assert (
        rows.groupby("template_id")["template"].nunique().eq(2).all()
    )  # one masculine, one feminine form
    assert (
        rows["sentence_en"].tolist() == raw.iloc[:, -1].tolist()
    )  # the second `sentence` column (English)


def test_spanish_eec_quirks_are_handled(built, source_dir):
    rows = _load(built["eec"], "es_latino_anglo").to_pandas()
    raw = pd.read_csv(source_dir / "eec" / "es.csv", keep_default_na=False, dtype=str)
    assert list(rows.columns) == list(EEC_FEATURES)  # no unnamed index or note columns
    assert "el" in set(raw["person"]) and "él" in set(raw["person"])
    assert "el" not in set(rows["person"])
    he = rows["person"] == "él"
    assert he.sum() == (raw["person"].isin(["el", "él"])).sum() == 141
    assert rows["sentence"].tolist() == raw["sentence"].tolist()  # sentences kept as written
    assert rows["sentence_en"].tolist() == raw["sentence_en"].tolist()
    assert rows.loc[~rows["group"].notna(), "person"].nunique() == 20


def test_english_xweat_lists_are_the_weat_lists(built, source_dir):
    tests = json.loads((source_dir / "xweat" / "weat_tests_en.json").read_text())["tests"]
    rows = _load(built["xweat"], "en").to_list()
    expected = [
        (test["test"], role, name, words)
        for test in tests
        for role, (name, words) in zip(
            ("target_x", "target_y", "attribute_a", "attribute_b"),
            [*test["targets"].items(), *test["attributes"].items()],
            strict=True,
        )
    ]
    assert [(row["test"], row["role"], row["set_name"], row["words"]) for row in rows] == expected


@pytest.mark.parametrize("language", ["de", "es", "it", "hr", "ru", "tr"])
def test_translated_xweat_lists_keep_both_forms_and_names_without_duplicates(
    built, source_dir, language
):
    rows = _load(built["xweat"], language).to_list()
    english = {
        (row["test"], row["role"]): row["words"] for row in _load(built["xweat"], "en").to_list()
    }
    dictionary = {}
    for row in _xweat_dictionary_rows(source_dir, language):
        # vocab_en_ru.csv: columns 3 and 4, where both are filled, are the gendered forms.
        forms = row[2:4] if language == "ru" and row[2] and row[3] else row[1:3]
        dictionary[row[0]] = [form for form in forms if form]
    for row in rows:
        words = row["words"]
        assert len(words) == len(set(words)), (row["test"], row["role"])
        expected = []
        for word in english[row["test"], row["role"]]:
            for form in [word] if word[0].isupper() else dictionary[word]:
                if form not in expected:
                    expected.append(form)
        assert words == expected, (row["test"], row["role"])


def test_xweat_translation_examples(built):
    by_key = {
        lang: {(r["test"], r["role"]): r["words"] for r in _load(built["xweat"], lang).to_list()}
        for lang in ("de", "es", "ru")
    }
    assert (
        "Brad" in by_key["es"]["T3", "target_x"]
        and "Puntilla" not in by_key["es"]["T3", "target_x"]
    )
    assert len(by_key["ru"]["T1", "target_x"]) == 24  # "rose" has no Russian translation
    assert {"постоянный", "постоянная"} <= set(
        by_key["ru"]["T9", "attribute_b"]
    )  # columns 3-4, not column 2
    pleasant = by_key["de"]["T1", "attribute_a"]
    assert (
        pleasant[pleasant.index("Freund") + 1] == "Freundin"
    )  # friend: both gendered forms, masculine first
    translations = load_xweat_translations("de").to_list()
    educator = next(row for row in translations if row["english"] == "educator")
    assert educator == {
        "english": "educator",
        "language": "de",
        "forms": ["Erzieher", "Erzieherin"],
    }
    assert {row["language"] for row in translations} == {"de"}
    assert [
        row["forms"] for row in load_xweat_translations("ru").to_list() if row["english"] == "rose"
    ] == [[]]


def test_builds_are_deterministic(built, source_dir, tmp_path):
    again = build_datasets(["xweat", "gender_lists"], out_dir=tmp_path, source_dir=source_dir)
    for name, folder in again.items():
        first = {
            path.relative_to(built[name]): path.read_bytes()
            for path in built[name].rglob("*.parquet")
        }
        second = {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*.parquet")}
        assert first == second


def test_gender_lists_match_the_source_files(built, source_dir):
    gender = source_dir / "gender_lists"
    definitional = _load(built["gender_lists"], "definitional_pairs").to_list()
    assert [[row["female"], row["male"]] for row in definitional] == json.loads(
        (gender / "definitional_pairs.json").read_text()
    )
    assert definitional[0] == {"female": "woman", "male": "man"}
    professions = _load(built["gender_lists"], "professions").to_list()
    assert [
        [row["word"], row["definitional"], row["stereotypical"]] for row in professions
    ] == json.loads((gender / "professions.json").read_text())
    male = _load(built["gender_lists"], "male_words").to_list()
    female = _load(built["gender_lists"], "female_words").to_list()
    assert [row["word"] for row in male] == (gender / "male_word_file.txt").read_text().split()
    assert [row["counterpart"] for row in male] == [row["word"] for row in female]
    assert [row["counterpart"] for row in female] == [row["word"] for row in male]
    assert (built["gender_lists"] / "LICENSE.debiaswe").read_bytes() == (
        gender / "LICENSE.debiaswe"
    ).read_bytes()


@pytest.mark.parametrize("language", ["en", "es", "ar"])
def test_semeval_intensities_are_parsed_exactly(built, source_dir, language):
    for dimension in ("anger", "fear", "joy", "sadness", "valence"):
        loaded = datasets.load_dataset(str(built["semeval2018_affect"]), f"{language}_{dimension}")
        for split in SEMEVAL_SPLIT_FILES:
            lines = _semeval_lines(source_dir, language, dimension, split)
            part = loaded[split]
            assert part["id"] == [fields[0] for fields in lines]
            assert part["text"] == [fields[1] for fields in lines]
            # Exact: each value is the double nearest the file's decimal string, and prints back as
            # that string.
            assert [Decimal(value) for value in part["intensity"]] == [
                Decimal(float(f[3])) for f in lines
            ]
            assert [f"{value:.3f}" for value in part["intensity"]] == [
                fields[3] for fields in lines
            ]
            assert all(0.0 <= value <= 1.0 for value in part["intensity"])


@pytest.mark.parametrize("name", list(DATASETS))
def test_dataset_cards_validate_and_document_configs_licence_quirks_and_citation(built, name):
    card = DatasetCard.load(built[name] / "README.md")
    metadata = card.data.to_dict()
    assert [config["config_name"] for config in metadata["configs"]] == list(DATASETS[name].configs)
    assert metadata["license"]
    for section in (
        "## Configs and rows",
        "## Known quirks",
        "## Provenance and licence",
        "## Citation",
    ):
        assert section in card.text
    assert not re.search(r"\{\{\s*\w+\s*\}\}", card.text) and "@" in card.text  # filled, cites
    validate_card(built[name])


def test_eec_card_lists_the_quirks_of_the_source_readme(built):
    text = DatasetCard.load(built["eec"] / "README.md").text
    for quirk in (
        "8,038",
        "8,040",
        "Python-dict",
        "8,460",
        "empty header",
        "`el`",
        "African-American",
    ):
        assert quirk in text


def test_source_registry_matches_the_source_readme(source_dir):
    block = (source_dir / "README.md").read_text().split("```\n")[1]
    listed = {
        path: digest for digest, path in (line.split() for line in block.strip().splitlines())
    }
    assert {path: source.sha256 for path, source in SOURCES.items()} == listed
    on_disk = {
        str(p.relative_to(source_dir))
        for p in source_dir.rglob("*")
        if p.is_file() and p.name != "README.md"
    }
    assert on_disk == set(listed)
    assert all(
        source.url.startswith("https://raw.githubusercontent.com/") for source in SOURCES.values()
    )


def test_weat_lists_are_derived_byte_for_byte_from_an_xweat_style_script(source_dir):
    tests = json.loads((source_dir / "xweat" / "weat_tests_en.json").read_text())["tests"]
    methods = []
    for test in tests:
        lists = [*test["targets"].values(), *test["attributes"].values()]
        names = ("targets_1", "targets_2", "attributes_1", "attributes_2")
        body = "\n".join(
            f"    {name} = [\n      {', '.join(map(repr, words))}]  # a comment"
            for name, words in zip(names, lists, strict=True)
        )
        methods.append(
            f"  def weat_{test['test'][1:]}(self):\n    '''doc'''\n{body}\n    return targets_1\n"
        )
    script = (
        "import numpy as np\nclass XWEAT(object):\n"
        + "\n".join(methods)
        + "  def wefat_1(self):\n    pass\n"
    )
    derived = weat_tests_from_xweat_script(script.encode())
    assert hashlib.sha256(derived).hexdigest() == SOURCES["xweat/weat_tests_en.json"].sha256


# --- loaders (build on first use into paths.datasets_dir()) ---------------------------------------


def test_loaders_build_on_first_use_and_return_datasets():
    eec = load_eec("ar_arab_anglo")
    assert isinstance(eec, datasets.Dataset) and eec.num_rows == 8038
    assert (paths.datasets_dir() / "eec" / BUILD_MARKER).is_file()
    assert load_xweat("hr").num_rows == 40
    assert load_gender_lists("professions").num_rows == 320
    semeval = load_semeval("ar", "valence")
    assert isinstance(semeval, datasets.DatasetDict) and list(semeval) == [
        "train",
        "validation",
        "test",
    ]
    assert semeval["test"].num_rows == 730


def test_dataset_folder_rebuilds_only_when_missing_stale_changed_or_of_an_older_format(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path))
    folder = dataset_folder("gender_lists")
    marker = folder / BUILD_MARKER
    first = marker.stat().st_mtime_ns
    assert (
        dataset_folder("gender_lists") == folder and marker.stat().st_mtime_ns == first
    )  # current: kept
    recorded = json.loads(marker.read_text())

    def with_stamp(**items):
        marker.write_text(json.dumps(recorded | {"stamp": recorded["stamp"] | items}))

    with_stamp(builder="an older builder")
    dataset_folder("gender_lists")
    assert (
        json.loads(marker.read_text())["stamp"]["builder"] == recorded["stamp"]["builder"]
    )  # other builder
    with_stamp(sources={"gender_lists/professions.json": "0" * 64})
    dataset_folder("gender_lists")
    assert (
        json.loads(marker.read_text())["stamp"]["sources"] == recorded["stamp"]["sources"]
    )  # other sources
    # an older xbias's folder (the stamp alone, no file list) cannot tell its files from a user's:
    # refused with the remedy in one line, then rebuilt once it is deleted
    marker.write_text(json.dumps(recorded["stamp"]))
    with pytest.raises(
        ConfigError, match="older xbias's, which lists no files.*delete the folder once"
    ):
        load_gender_lists("professions")
    shutil.rmtree(folder)
    assert (
        load_gender_lists("professions").num_rows == 320
        and json.loads(marker.read_text()) == recorded
    )
    parquet = next(folder.rglob("*.parquet"))
    written = parquet.read_bytes()
    parquet.write_bytes(written[:-1] + b"\0")  # a changed byte: rebuilt
    assert load_gender_lists("professions").num_rows == 320 and parquet.read_bytes() == written
    for parquet in folder.rglob("*.parquet"):
        parquet.unlink()
    assert load_gender_lists("male_words").num_rows == 223  # files missing: rebuilt
    # no staging or retired folders left behind (the lock file stays, as every kit lock does)
    assert [path.name for path in (tmp_path / "datasets").glob(".*")] == [".gender_lists.lock"]


@pytest.mark.parametrize(
    ("load", "argument", "valid"),
    [
        (load_eec, "en_white_black", "en_black_white, en_latino_anglo"),
        (load_xweat, "fr", "en, de, es, it, hr, ru, tr"),
        (load_xweat_translations, "en", "de, es, it, hr, ru, tr"),
        (load_gender_lists, "gender_specific", "gender_specific_seed, gender_specific_full"),
    ],
)
def test_unknown_config_names_give_one_line_naming_the_valid_ones(load, argument, valid):
    with pytest.raises(ConfigError) as error:
        load(argument)
    message = str(error.value)
    assert "\n" not in message and repr(argument) in message and valid in message


def test_unknown_semeval_dimension_and_dataset_names_are_config_errors():
    with pytest.raises(ConfigError, match=r"'en_surprise'.*en_anger"):
        load_semeval("en", "surprise")
    with pytest.raises(
        ConfigError,
        match=r"unknown dataset 'weat'; datasets: eec, gender_lists, semeval2018_affect, xweat",
    ):
        build_datasets(["weat"])


def test_xweat_translation_counts_per_language(source_dir):
    for language in ("de", "es", "it", "hr", "ru", "tr"):
        assert load_xweat_translations(language).num_rows == len(
            _xweat_dictionary_rows(source_dir, language)
        )
