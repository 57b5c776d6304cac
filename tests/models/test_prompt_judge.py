"""The zero-shot LLM judge on a tiny random causal LM: its numbers against hand computations from
the logits.

The prompt is rebuilt here from the shipped prompt data and run whole through the model (no prefix
cache, no padding); the expected value, numeral mass and arg-max are then computed by hand from the
last position's logits and compared with the judge's. The prefix-cached packed rows, the batch size,
batch composition and sharding (scoring parts separately, as ranks do) must not change a score.
"""

import numpy as np
import pytest
import torch
import yaml
from helpers.tiny_causal_lm import build_tiny_causal_lm

from eval_harness.errors import InputError
from eval_harness.models import EmbeddingCache, EmotionRegressor, ModelResources
from eval_harness.models.causal_lm import check_device_map, load_causal_lm
from eval_harness.models.prompt_judge import (
    PROMPTS_FILE,
    PromptJudge,
    PromptScores,
    numeral_candidates,
    parse_answer,
)
from eval_harness.models.regressors import TextSplit
from eval_harness.models.shared_prefix import packs_shared_prefixes

TEXTS = [
    "Alonzo feels angry.",
    "The nurse is afraid of the doctor, and the girl "
    "is sad because the man made her feel so scared.",
    "Hi",
    "My mother made me feel happy.",
    "Jessica se siente eufórica",
    "هذا رجل.",
    "Amanda feels sad.",
]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


@pytest.fixture(scope="module")
def tiny_lm_dir(tmp_path_factory):
    return build_tiny_causal_lm(tmp_path_factory.mktemp("tiny-lm") / "llama")


@pytest.fixture(scope="module")
def tiny_lm(tiny_lm_dir):
    return load_causal_lm(tiny_lm_dir, batch_size=3)


def fitted_judge(lm, language="en", dimension="anger", **options) -> PromptJudge:
    judge = PromptJudge(lm, **options)
    judge.language, judge.dimension = language, dimension
    return judge


def shipped_prompt(language: str, paraphrase: str | None = None) -> dict:
    """The shipped prompt of ``language`` read from the YAML here, reworded by hand by its
    paraphrase ``paraphrase`` (each key the paraphrase gives replaces the prompt's; its questions
    replace the prompt's one by one)."""
    spec = yaml.safe_load(PROMPTS_FILE.read_text(encoding="utf-8"))[language]
    if paraphrase is None:
        return spec
    (rewording,) = [p for p in spec["paraphrases"] if p["name"] == paraphrase]
    merged = {key: rewording.get(key, spec[key]) for key in ("system", "user", "answer")}
    merged["questions"] = {
        name: rewording["questions"].get(name, q) for name, q in spec["questions"].items()
    }
    return merged


def hand_scores(lm, text, language="en", dimension="anger", low=0, high=9, paraphrase=None):
    """Expected value (mapped to [0, 1]), numeral mass and arg-max from one unpadded forward of the
    whole prompt."""
    spec = shipped_prompt(language, paraphrase)
    question = spec["questions"][dimension].replace("{low}", str(low)).replace("{high}", str(high))
    user = spec["user"].replace("{question}", question).replace("{text}", text)
    messages = [{"role": "system", "content": spec["system"]}, {"role": "user", "content": user}]
    ids = lm.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)[
        "input_ids"
    ]
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([ids])).logits[0, -1].double()
    probabilities = torch.softmax(logits, dim=-1)
    digit_ids = [
        lm.tokenizer.convert_tokens_to_ids(str(numeral)) for numeral in range(low, high + 1)
    ]
    digits = probabilities[digit_ids].numpy()
    restricted = digits / digits.sum()
    expected = float(restricted @ np.arange(low, high + 1))
    return (expected - low) / (high - low), float(digits.sum()), low + int(restricted.argmax())


def test_the_tiny_tokenizer_spells_each_numeral_as_one_token_only(tiny_lm):
    token_ids, numerals = numeral_candidates(tiny_lm.tokenizer, 0, 9)
    assert numerals == list(
        range(10)
    )  # no " 7"-style second spelling: the hand computation covers all
    assert tiny_lm.tokenizer.convert_ids_to_tokens(token_ids) == [
        str(numeral) for numeral in range(10)
    ]


@pytest.mark.parametrize(
    ("language", "dimension"), [("en", "anger"), ("es", "joy"), ("ar", "sadness")]
)
def test_expected_value_mass_and_argmax_equal_a_hand_computation_from_the_logits(
    tiny_lm, language, dimension
):
    assert tiny_lm.packs_prompts and packs_shared_prefixes(
        tiny_lm.model
    )  # the judge scores in packed rows
    scores = fitted_judge(tiny_lm, language, dimension).score(TEXTS)
    hand = np.array([hand_scores(tiny_lm, text, language, dimension) for text in TEXTS])
    np.testing.assert_allclose(scores.expected, hand[:, 0], atol=1e-5, rtol=0)
    np.testing.assert_allclose(scores.numeral_mass, hand[:, 1], rtol=1e-4)
    np.testing.assert_array_equal(scores.argmax, hand[:, 2])
    np.testing.assert_array_equal(scores.value, scores.expected)
    assert np.ptp(hand[:, 0]) > 1e-3  # the texts get different scores: the comparison can fail


def test_every_language_ships_at_least_three_paraphrases_that_reword_every_question():
    for language in ("en", "es", "ar"):
        spec = shipped_prompt(language)
        names = [p["name"] for p in spec["paraphrases"]]
        assert len(names) >= 3 and len(set(names)) == len(names) and "default" not in names
        for name in names:
            reworded = shipped_prompt(language, name)
            assert set(reworded["questions"]) == set(spec["questions"])  # every SemEval dimension
            changed = [
                d for d in spec["questions"] if reworded["questions"][d] != spec["questions"][d]
            ]
            assert changed == list(spec["questions"]), (language, name)  # a rewording, not a copy
            assert reworded["user"].endswith("{text}") and reworded["user"].count("{text}") == 1


@pytest.mark.parametrize(
    ("language", "dimension"), [("en", "anger"), ("es", "joy"), ("ar", "sadness")]
)
def test_each_paraphrase_scores_as_a_hand_computation_with_its_own_wording(
    tiny_lm, language, dimension
):
    judge = fitted_judge(tiny_lm, language, dimension)
    texts = [
        TEXTS[0],
        TEXTS[5],
        TEXTS[6],
    ]  # short: the tiny LM reads at most 256 tokens, Arabic costs many
    assert judge.prompt_names() == ("default", "expert", "rate", "conveys")
    assert judge.with_prompt("default") is judge
    default = judge.score(texts).expected
    for name in judge.prompt_names()[1:]:
        scores = judge.with_prompt(name).score(texts)
        hand = np.array(
            [hand_scores(tiny_lm, text, language, dimension, paraphrase=name) for text in texts]
        )
        np.testing.assert_allclose(scores.expected, hand[:, 0], atol=1e-5, rtol=0)
        np.testing.assert_allclose(scores.numeral_mass, hand[:, 1], rtol=1e-4)
        assert np.abs(scores.expected - default).max() > 1e-4  # another wording, another answer
    assert judge.score(texts).expected.tolist() == default.tolist()  # the judge itself is unchanged


def test_paraphrases_are_overridden_per_language_and_checked(tiny_lm):
    own = {
        "en": {"paraphrases": [{"name": "short", "questions": {"anger": "Anger, {low}-{high}?"}}]}
    }
    judge = fitted_judge(tiny_lm, prompts=own)
    assert judge.prompt_names() == ("default", "short")
    before, _ = judge.with_prompt("short").prompt("en", "anger")
    assert "Anger, 0-9?" in before and judge.prompts["en"]["user"] == shipped_prompt("en")["user"]
    assert judge.prompt_names("es") == (
        "default",
        "expert",
        "rate",
        "conveys",
    )  # other languages keep theirs
    with pytest.raises(InputError, match="no prompt paraphrase 'long'"):
        judge.with_prompt("long")
    for bad, message in (
        ({"en": {"paraphrases": {"name": "x"}}}, "must be a list"),
        ({"en": {"paraphrases": [{"name": "default"}]}}, "a name of its own"),
        ({"en": {"paraphrases": [{"name": "x"}, {"name": "x"}]}}, "a name of its own"),
        ({"en": {"paraphrases": [{"name": "x", "colour": "red"}]}}, "unknown key"),
    ):
        with pytest.raises(InputError, match=message):
            PromptJudge(tiny_lm, prompts=bad)


def test_a_scale_of_one_to_five_is_mapped_to_zero_one(tiny_lm):
    scores = fitted_judge(tiny_lm, scale=(1, 5)).score(TEXTS[:3])
    hand = np.array([hand_scores(tiny_lm, text, low=1, high=5) for text in TEXTS[:3]])
    np.testing.assert_allclose(scores.expected, hand[:, 0], atol=1e-5, rtol=0)
    np.testing.assert_array_equal(scores.argmax, hand[:, 2])


def test_prefix_cached_scores_equal_uncached_ones(tiny_lm):
    judge = fitted_judge(tiny_lm)
    before, after = judge.prompt("en", "anger")
    sequences = tiny_lm.tokenize([before + text + after for text in TEXTS])
    prefix = tiny_lm.tokenize([before])[0]
    assert all(sequence[: len(prefix)] == prefix for sequence in sequences)
    computed_before = tiny_lm.tokens_computed()
    cached, _ = tiny_lm.next_token_logprobs(sequences, judge.candidates, prefix)
    cached_cost = tiny_lm.tokens_computed() - computed_before
    uncached, _ = tiny_lm.next_token_logprobs(sequences, judge.candidates, None)
    uncached_cost = tiny_lm.tokens_computed() - computed_before - cached_cost
    np.testing.assert_allclose(cached, uncached, atol=1e-5, rtol=0)
    assert cached_cost < uncached_cost / 2  # the prefix was run once, not once per text


def test_packing_batch_size_and_batch_composition_do_not_change_a_score(tiny_lm_dir):
    alone = [
        fitted_judge(load_causal_lm(tiny_lm_dir, batch_size=1)).score([text]).expected[0]
        for text in TEXTS
    ]
    for batch_size in (2, 7):
        together = (
            fitted_judge(load_causal_lm(tiny_lm_dir, batch_size=batch_size)).score(TEXTS).expected
        )
        np.testing.assert_allclose(together, alone, atol=1e-5, rtol=0)


def test_scoring_in_two_shards_equals_scoring_at_once(tiny_lm):
    """What two accelerate ranks do (each scores its part of the texts) gives the one-rank
    scores."""
    judge = fitted_judge(tiny_lm)
    whole = judge.score(TEXTS)
    parts = [judge.score(TEXTS[:4]), judge.score(TEXTS[4:])]
    joined = PromptScores.from_records(
        parts[0].records() + parts[1].records()
    )  # as dist.map gathers them
    for field in ("value", "expected", "numeral_mass", "argmax"):
        np.testing.assert_allclose(getattr(joined, field), getattr(whole, field), atol=1e-5, rtol=0)


def test_duplicates_are_scored_once_and_order_is_kept(tiny_lm):
    judge = fitted_judge(tiny_lm)
    texts = [TEXTS[2], TEXTS[0], TEXTS[2]]
    before = tiny_lm.stats.sequences
    scores = judge.score(texts)
    assert tiny_lm.stats.sequences - before == 2
    assert scores.value[0] == scores.value[2] != scores.value[1]


def test_a_cache_serves_the_second_call(tiny_lm, tmp_path):
    cache = EmbeddingCache(tmp_path / "cache")
    judge = fitted_judge(tiny_lm, cache=cache)
    first = judge.score(TEXTS).value
    sequences_before = tiny_lm.stats.sequences
    second = judge.score(TEXTS).value
    assert cache.hits == 1 and cache.misses == 1 and tiny_lm.stats.sequences == sequences_before
    np.testing.assert_array_equal(first, second)
    other_prompt = fitted_judge(tiny_lm, dimension="fear", cache=cache).score(TEXTS).value
    assert cache.misses == 2 and not np.allclose(other_prompt, first)


def test_generate_mode_answers_greedily_as_transformers_generate_does(tiny_lm):
    judge = fitted_judge(tiny_lm, answer="generate", max_new_tokens=4)
    scores = judge.score(TEXTS[:3])
    before, after = judge.prompt("en", "anger")
    for text, answer in zip(TEXTS[:3], scores.answers, strict=True):
        ids = torch.tensor([tiny_lm.tokenize([before + text + after])[0]])
        generated = tiny_lm.model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=4,
            do_sample=False,
            pad_token_id=0,
        )[0, ids.shape[1] :].tolist()
        assert answer == judge._decode(generated)
    # The random model answers no number: every answer is a parse failure, scored by its expected
    # value.
    assert not scores.parsed.any() and scores.validity()["parse_failure_rate"] == 1.0
    np.testing.assert_array_equal(scores.value, scores.expected)
    again = PromptScores.from_records(scores.records())
    assert again.answers == scores.answers and (again.parsed == scores.parsed).all()


def test_parse_answer_reads_the_first_number_on_the_scale():
    assert parse_answer("7", 0, 9) == 7.0
    assert parse_answer("I would say 3, maybe 4", 0, 9) == 3.0
    assert parse_answer("٨", 0, 9) == 8.0  # Arabic-Indic digit
    assert parse_answer("2,5", 0, 9) == 2.5
    assert parse_answer("12", 0, 9) is None  # off the scale
    assert parse_answer("I cannot rate this.", 0, 9) is None


def test_fit_records_pearson_r_and_validity_on_the_scored_sample(tiny_lm):
    rng = np.random.default_rng(1)
    gold = {name: rng.uniform(size=len(TEXTS)) for name in ("validation", "test")}
    splits = {
        "train": TextSplit([], np.zeros(0)),
        **{name: TextSplit(list(TEXTS), gold[name]) for name in ("validation", "test")},
    }
    judge = PromptJudge(tiny_lm, fit_sample=None, preprocess=None)
    scores = judge.fit_splits(splits, "en", "anger")
    predicted = judge.predict(TEXTS)
    assert scores.model_type == "llm" and (scores.n_train, scores.n_validation, scores.n_test) == (
        0,
        7,
        7,
    )
    assert scores.pearson_test == pytest.approx(
        np.corrcoef(predicted, gold["test"])[0, 1], abs=1e-9
    )
    assert scores.pearson_validation == pytest.approx(
        np.corrcoef(predicted, gold["validation"])[0, 1], abs=1e-9
    )
    assert scores.selected["numeral_mass_test"] == pytest.approx(
        judge.score(TEXTS).numeral_mass.mean()
    )
    assert len(scores.selected["prompt_sha256"]) == 64


def test_fit_scores_a_seeded_sample_of_semeval(tiny_lm):
    first = PromptJudge(tiny_lm, fit_sample=6, seed=3).fit("es", "anger")
    again = PromptJudge(tiny_lm, fit_sample=6, seed=3).fit("es", "anger")
    assert (first.n_validation, first.n_test) == (6, 6)
    assert first.pearson_test == again.pearson_test and -1 <= first.pearson_test <= 1


def test_save_and_load_round_trip(tiny_lm, tiny_lm_dir, tmp_path):
    judge = PromptJudge(tiny_lm, fit_sample=4, scale=(1, 5))
    judge.fit("en", "joy")
    judge.save(tmp_path / "saved")
    # reloaded through the registry's llm type and ModelResources.causal_lm, as a run reloads it
    loaded = EmotionRegressor.load(
        tmp_path / "saved", ModelResources(EmbeddingCache(tmp_path / "cache"), device="cpu")
    )
    assert isinstance(loaded, PromptJudge) and loaded.identity() == judge.identity()
    assert loaded.scores == judge.scores
    np.testing.assert_allclose(loaded.predict(TEXTS), judge.predict(TEXTS), atol=1e-9)


def test_prompt_overrides_add_a_language_and_change_the_identity(tiny_lm, tmp_path):
    german = {
        "de": {
            "user": "{question}\n\nText:\n{text}",
            "questions": {"anger": "Wie wütend ({low}-{high})?"},
        }
    }
    judge = fitted_judge(tiny_lm, "de", "anger", prompts=german)
    before, after = judge.prompt("de", "anger")
    assert (
        "Wie wütend (0-9)?" in before
        and before.endswith("Text:\n")
        and after.endswith("assistant\n")
    )
    path = tmp_path / "prompts.yaml"
    path.write_text(yaml.safe_dump(german, allow_unicode=True))
    assert PromptJudge(tiny_lm, prompts=path).prompts == judge.prompts
    assert judge.identity("de", "anger") != PromptJudge(tiny_lm).identity("de", "anger")


def test_without_a_chat_template_the_prompt_is_plain_and_ends_with_the_answer_cue(tmp_path):
    lm = load_causal_lm(build_tiny_causal_lm(tmp_path / "plain", chat_template=False))
    judge = fitted_judge(lm, "es", "anger")
    before, after = judge.prompt("es", "anger")
    assert "<|im_start|>" not in before + after and after == "\nRespuesta: "
    assert judge.score(["Jessica se siente eufórica"]).numeral_mass[0] > 0


def test_bad_options_and_inputs_are_clear_errors(tiny_lm):
    with pytest.raises(InputError, match="not single tokens"):
        PromptJudge(tiny_lm, scale=(0, 12))
    for bad in (
        {"scale": (5, 1)},
        {"scale": "0-9"},
        {"answer": "vote"},
        {"fit_sample": 1},
        {"max_new_tokens": 0},
    ):
        with pytest.raises(InputError):
            PromptJudge(tiny_lm, **bad)
    with pytest.raises(InputError, match="no judge prompt for language 'de'"):
        PromptJudge(tiny_lm).fit("de", "anger")
    with pytest.raises(InputError, match="not fitted"):
        PromptJudge(tiny_lm).score(["x"])
    with pytest.raises(InputError):
        fitted_judge(tiny_lm).score("one string")
    with pytest.raises(InputError, match="exactly once"):
        fitted_judge(tiny_lm, prompts={"en": {"user": "{question}"}}).score(["x"])


def test_device_map_is_validated_and_a_cpu_map_loads_the_same_model(tiny_lm_dir, tiny_lm):
    assert check_device_map("auto") == "auto" and check_device_map({"model": 0, "lm_head": "cpu"})
    for bad in ("everywhere", {}, {"model": "gpu"}, {"model": -1}, 3):
        with pytest.raises(InputError):
            check_device_map(bad)
    spread = load_causal_lm(tiny_lm_dir, device_map={"": "cpu"})
    np.testing.assert_allclose(
        fitted_judge(spread).score(TEXTS).value, fitted_judge(tiny_lm).score(TEXTS).value, atol=1e-6
    )


def test_a_prompt_whose_tokens_merge_across_the_text_boundary_is_run_whole(tiny_lm):
    """'Text: {text}': the space before the text joins the text's first token, so the prefix's
    tokens differ."""
    judge = fitted_judge(tiny_lm, prompts={"en": {"user": "{question} Text: {text}"}})
    before, after = judge.prompt("en", "anger")
    prefix = tiny_lm.tokenize([before])[0]
    sequence = tiny_lm.tokenize([before + TEXTS[0] + after])[0]
    assert sequence[: len(prefix)] != prefix
    scores = judge.score(TEXTS[:2])
    with torch.no_grad():
        for index, text in enumerate(TEXTS[:2]):
            ids = torch.tensor([tiny_lm.tokenize([before + text + after])[0]])
            digits = torch.softmax(tiny_lm.model(input_ids=ids).logits[0, -1].double(), dim=-1)[
                judge.candidates
            ]
            expected = float((digits / digits.sum()) @ torch.arange(10, dtype=torch.float64)) / 9
            assert scores.expected[index] == pytest.approx(expected, abs=1e-5)


def test_a_batch_that_runs_out_of_memory_is_split_and_gives_the_same_scores(
    tiny_lm_dir, monkeypatch
):
    lm = load_causal_lm(tiny_lm_dir, batch_size=7)
    expected = fitted_judge(lm).score(TEXTS).value
    forward = lm.model.forward

    def small_batches_only(*args, **kwargs):
        keep = kwargs["logits_to_keep"]  # a packed row keeps one position per prompt
        if (len(keep) if isinstance(keep, torch.Tensor) else kwargs["input_ids"].shape[0]) > 2:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return forward(*args, **kwargs)

    monkeypatch.setattr(lm.model, "forward", small_batches_only)
    lm.clear_prefix_cache()
    np.testing.assert_allclose(fitted_judge(lm).score(TEXTS).value, expected, atol=1e-5, rtol=0)
    assert lm.stats.oom_splits >= 2
