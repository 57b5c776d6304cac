"""CEAT in the xweat suite: the contexts drawn are sentences with the word, as many as asked, fixed
by the seed; the record equals stats.ceat on context vectors read directly from the encoder; runs
repeat per seed."""

import pytest
from helpers.association_run import (
    FILLERS,
    encoder_model,
    hand_seed,
    run_records,
    write_corpus,
    xweat_config,
)
from helpers.tiny_models import build_tiny_bert

from eval_harness.errors import InputError
from eval_harness.models import TransformerEncoder
from eval_harness.stats.ceat import ceat
from eval_harness.suites.xweat import load_word_sets, sample_contexts
from eval_harness.suites.xweat.ceat import run_ceat

SAMPLES, CONTEXTS = 200, 3


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


def corpus_lines(path) -> list[str]:
    return path.read_text().splitlines()


def test_contexts_are_sentences_with_the_word_as_many_as_asked_and_fixed_by_the_seed(tmp_path):
    lines = corpus_lines(write_corpus(tmp_path / "corpus.txt"))
    lines += [
        "Tulips? A tulip-seller sold tulip bulbs.",
        "THE TULIP IS HERE",
        "a tulipa",
    ]  # 2 more with "tulip"
    words = ["tulip", "rose", "ant", "absent"]
    drawn = sample_contexts(words, lines, CONTEXTS, seed=0, language="en")
    having = {
        # independently: the word as a whole token of the line (split at spaces and this corpus's
        # punctuation)
        word: [
            line
            for line in lines
            if word in line.lower().replace("-", " ").replace("?", " ").split()
        ]
        for word in words
    }
    assert (len(having["tulip"]), len(having["absent"])) == (6, 0)
    for word in words:
        assert set(drawn[word]) <= set(having[word]) and len(drawn[word]) == min(
            CONTEXTS, len(having[word])
        )
        assert drawn[word] == [line for line in lines if line in drawn[word]]  # corpus order
    # fixed by (seed, language, word), whichever other words are asked for
    assert sample_contexts(["tulip"], lines, CONTEXTS, seed=0, language="en") == {
        "tulip": drawn["tulip"]
    }
    draws = {
        seed: sample_contexts(["tulip"], lines, CONTEXTS, seed, "en")["tulip"] for seed in range(6)
    }
    assert len({tuple(draw) for draw in draws.values()}) > 1


def test_ceat_records_equal_stats_ceat_on_directly_read_context_vectors(tiny_bert, tmp_path):
    corpus = write_corpus(tmp_path / "corpus.txt")
    records = run_records(
        xweat_config([encoder_model(tiny_bert)], measures=["ceat"], corpus=str(corpus)),
        tmp_path / "run",
    )
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean")
    lines = corpus_lines(corpus)
    for test in ("T1", "T7"):
        (record,) = [r for r in records if r["test"] == test]
        assert record["metric"] == "ceat" and record["status"] == "ok"
        sets = load_word_sets("en")[test]
        vectors = []
        for role in "XYAB":
            words = list(sets[role].words)
            contexts = sample_contexts(words, lines, CONTEXTS, seed=0, language="en")
            read = encoder.embed_words_in_contexts(words, contexts, on_missing="ignore")
            vectors.append({word: read[word] for word in words if len(read[word])})
        seed = hand_seed(test, "en", "en", "ceat")
        expected = ceat(*vectors, n_samples=SAMPLES, seed=seed)
        meta = expected.meta
        assert record["measure_seed"] == seed and record["n_samples"] == SAMPLES
        assert record["value"] == pytest.approx(meta.combined_effect, rel=1e-5)
        assert record["std_err"] == pytest.approx(meta.std_err, rel=1e-4)
        assert record["p_value"] == pytest.approx(meta.p_value, rel=1e-4, abs=1e-12)
        assert record["tau2"] == pytest.approx(meta.tau2, rel=1e-3, abs=1e-9)
        assert record["q"] == pytest.approx(meta.q, rel=1e-3)
        assert record["i2"] == pytest.approx(meta.i2, abs=1e-4)
        assert record["sample_effect_mean"] == pytest.approx(expected.sample_effect_mean, rel=1e-5)
        assert [record[f"n_{role}"] for role in "xyab"] == [
            getattr(expected, f"n_{role}") for role in "xyab"
        ]
        assert (record["min_contexts"], record["max_contexts"]) == (
            expected.min_contexts,
            expected.max_contexts,
        )
        assert record["max_contexts"] == CONTEXTS < len(FILLERS)  # the cap was applied
        # the 95 % normal interval around the combined effect
        half = 1.959963984540054 * record["std_err"]
        assert (record["ci_low"], record["ci_high"]) == pytest.approx(
            (record["value"] - half, record["value"] + half)
        )
        # beside it, the word-and-context bootstrap's interval (the same draws from the same seed)
        boot = expected.bootstrap
        assert record["words_contexts_std_err"] == pytest.approx(boot.std_err, rel=1e-3)
        assert (record["words_contexts_ci_low"], record["words_contexts_ci_high"]) == pytest.approx(
            (boot.ci_low, boot.ci_high), rel=1e-3, abs=1e-6
        )
        assert record["words_contexts_replicates"] == boot.n_bootstrap == 1000
        assert (
            record["words_contexts_ci_high"] - record["words_contexts_ci_low"]
            > record["ci_high"] - record["ci_low"]
        )


def test_ceat_repeats_per_seed_and_skips_a_test_whose_words_have_no_context(tiny_bert, tmp_path):
    insects = load_word_sets("en")["T1"]["Y"].words
    corpus = write_corpus(tmp_path / "corpus.txt", leave_out=insects[:10])
    config = xweat_config(
        [encoder_model(tiny_bert)], seeds=(0, 1), measures=["ceat"], corpus=str(corpus)
    )
    first, again = run_records(config, tmp_path / "first"), run_records(config, tmp_path / "again")
    assert first == again
    t7 = {r["seed"]: r for r in first if r["test"] == "T7"}
    assert t7[0]["value"] != t7[1]["value"] and t7[0]["measure_seed"] != t7[1]["measure_seed"]
    (t1, _) = [r for r in first if r["test"] == "T1"]
    assert t1["status"] == "skipped" and t1["value"] is None
    assert t1["note"].startswith(
        "words without a context vector (not in the corpus, or not located by the encoder): "
    )
    assert (
        "set Y (insects, en) keeps 15 of 25 words (60%), below the 80% coverage rule" in t1["note"]
    )
    # the tiny BERT reads "-" as [UNK], so it locates "blue-bell" in none of its sentences
    assert t1["missing"] == {"X": ["blue-bell"], "Y": list(insects[:10])}


def test_a_skipped_ceat_test_has_no_confidence_interval_and_says_why():
    sets = load_word_sets("en")["T1"]
    targets, attributes = {"X": sets["X"], "Y": sets["Y"]}, {"A": sets["A"], "B": sets["B"]}
    result = run_ceat({"en": {}}, "T1", targets, attributes)  # no word has a context vector
    assert result.ceat is None and result.skip_reason
    with pytest.raises(
        InputError, match=r"CEAT T1 was skipped \(words without a context vector.*no confidence"
    ):
        result.confidence_interval()
