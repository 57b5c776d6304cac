"""SEAT in the xweat suite: the record equals weat() (ddof 1, May et al.'s) on sentence vectors
computed directly from the templates; languages without packaged templates take the user's; a model
without sentence vectors is skipped, named."""

import pytest
from helpers.association_run import (
    DE_TEMPLATES,
    encoder_model,
    hand_seed,
    run_records,
    static_model,
    write_static_vectors,
    xweat_config,
)
from helpers.tiny_models import build_tiny_bert

from eval_harness.data.seat import load_seat_templates
from eval_harness.models import TransformerEncoder
from eval_harness.stats.weat import weat
from eval_harness.suites.xweat import load_word_sets


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


def direct_seat(encoder, test: str, targets: str, attributes: str, templates: dict):
    """weat() on the sentence vectors of every word of the sets in its language's templates, word by
    word."""
    target_sets, attribute_sets = load_word_sets(targets)[test], load_word_sets(attributes)[test]
    sets = {
        "X": target_sets["X"],
        "Y": target_sets["Y"],
        "A": attribute_sets["A"],
        "B": attribute_sets["B"],
    }
    rows = {}
    for role, word_set in sets.items():
        language_templates = templates[word_set.language]
        sentences = [
            sentence for word in word_set.words for sentence in language_templates.sentences(word)
        ]
        rows[role] = encoder.encode(sentences)
    seed = hand_seed(test, targets, attributes, "seat")
    # ddof=1: SEAT's default, May et al.'s sample SD (test_xweat_duplicates checks it against a
    # direct computation)
    return weat(
        rows["X"], rows["Y"], rows["A"], rows["B"], permutations=999, seed=seed, ddof=1
    ), seed


def test_seat_records_equal_weat_on_directly_encoded_template_sentences(tiny_bert, tmp_path):
    records = run_records(
        xweat_config(
            [encoder_model(tiny_bert)],
            languages=["en", "de"],
            cross_lingual=True,
            tests=["T7"],
            measures=["seat"],
            seat_templates={"de": DE_TEMPLATES},
        ),
        tmp_path / "run",
    )
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean")
    templates = {"en": load_seat_templates("en"), "de": load_seat_templates("de", DE_TEMPLATES)}
    seat = {(r["language"], r["test"]): r for r in records if r["metric"] == "seat"}
    assert len(seat) == 4 == len(records)  # en, de, en-de, de-en
    for (language, test), record in seat.items():
        targets, _, attributes = language.partition("-")
        attributes = attributes or targets
        expected, seed = direct_seat(encoder, test, targets, attributes, templates)
        assert record["status"] == "ok" and record["measure_seed"] == seed and record["ddof"] == 1
        assert record["value"] == pytest.approx(expected.effect_size, rel=1e-5)
        assert record["statistic"] == pytest.approx(expected.statistic, rel=1e-5, abs=1e-7)
        assert record["p_value"] == pytest.approx(expected.p_value, abs=2e-3)
        assert [record[f"n_{role}"] for role in "xyab"] == [
            getattr(expected, f"n_{role}") for role in "xyab"
        ]
        assert record["templates"] == {
            targets: templates[targets].source,
            attributes: templates[attributes].source,
        }
    # German sentences: two templates per word; English T7 words take the 8 singular-noun templates
    de_t7 = seat["de", "T7"]
    assert de_t7["n_a"] == 2 * len(load_word_sets("de")["T7"]["A"].words)
    assert seat["en-de", "T7"]["n_x"] == 8 * len(load_word_sets("en")["T7"]["X"].words)
    assert seat["en", "T7"]["p_value"] is not None


def test_a_model_without_sentence_vectors_gets_a_skipped_seat_record_and_its_other_measures(
    tmp_path,
):
    vectors = write_static_vectors(tmp_path / "vectors.txt")
    records = run_records(
        xweat_config([static_model(vectors)], tests=["T7"], measures=["weat", "seat"]),
        tmp_path / "run",
    )
    by_metric = {r["metric"]: r for r in records}
    assert (
        by_metric["effect_size"]["status"] == "ok" and by_metric["effect_size"]["value"] is not None
    )
    seat = by_metric["seat"]
    assert seat["status"] == "skipped" and seat["value"] is None
    assert (
        "gives no sentence vectors (no encode(texts)); SEAT needs a sentence encoder"
        in seat["note"]
    )
