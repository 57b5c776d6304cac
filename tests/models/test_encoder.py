"""TransformerEncoder on tiny random BERTs: every pooling and word-vector mode against a direct
model call."""

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
import torch
from helpers.tiny_models import build_tiny_bert
from transformers import AutoModel, AutoTokenizer

from eval_harness.errors import InputError, ModelLoadError, XBiasError
from eval_harness.models import TransformerEncoder

TEXTS = [
    "this is a programmer.",
    "she is here",
    "he feels very unhappy and angry and sad",
    "a",
    "this is a programmer.",
]


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


@pytest.fixture(scope="module")
def plain(bert_dir):
    """The same model and tokenizer loaded directly with transformers (the independent
    computation)."""
    return AutoModel.from_pretrained(bert_dir).eval(), AutoTokenizer.from_pretrained(bert_dir)


def direct_hidden(plain, text, layer=-1):
    """Hidden states ``(tokens, d)`` of one text run alone (no padding), and its token strings."""
    model, tokenizer = plain
    inputs = tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        outputs = model(**inputs, output_hidden_states=True)
    return outputs.hidden_states[layer][0].numpy(), tokenizer.convert_ids_to_tokens(
        inputs["input_ids"][0]
    )


@pytest.mark.parametrize("layer", [-1, 0, 1])
def test_cls_pooling_is_the_first_token_of_each_text_run_alone(bert_dir, plain, layer):
    encoder = TransformerEncoder.from_pretrained(bert_dir, pooling="cls", layer=layer, batch_size=2)
    vectors = encoder.encode(TEXTS)
    expected = np.stack([direct_hidden(plain, text, layer)[0][0] for text in TEXTS])
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), 32)
    np.testing.assert_allclose(vectors, expected, atol=1e-5)


def test_mean_pooling_averages_all_tokens_ignoring_padding(bert_dir, plain):
    encoder = TransformerEncoder.from_pretrained(bert_dir, pooling="mean", batch_size=8)
    vectors = encoder.encode(TEXTS)
    expected = np.stack([direct_hidden(plain, text)[0].mean(0) for text in TEXTS])
    np.testing.assert_allclose(vectors, expected, atol=1e-5)


def test_prefix_is_read_by_the_model_and_changes_the_fingerprint(bert_dir, plain):
    plain_encoder = TransformerEncoder.from_pretrained(bert_dir, pooling="mean")
    prefixed = TransformerEncoder.from_pretrained(bert_dir, pooling="mean", prefix="it is ")
    np.testing.assert_allclose(
        prefixed.encode(["here"]), plain_encoder.encode(["it is here"]), atol=1e-6
    )
    assert prefixed.fingerprint != plain_encoder.fingerprint


def test_duplicates_are_encoded_once_and_order_is_kept(bert_dir):
    encoder = TransformerEncoder.from_pretrained(bert_dir, batch_size=2)
    vectors = encoder.encode(TEXTS)
    assert encoder.stats.sequences == len(set(TEXTS))  # 4 unique of 5
    assert encoder.stats.forward_passes == 2  # ceil(4 / 2)
    np.testing.assert_array_equal(vectors[0], vectors[4])
    assert not np.allclose(vectors[0], vectors[1])


def test_length_sorting_pads_less_than_file_order(bert_dir):
    texts = [
        "a",
        "he feels very unhappy and angry and sad here",
        "b",
        "she is here and he is there and it is so",
    ]
    encoder = TransformerEncoder.from_pretrained(bert_dir, batch_size=2)
    encoder.encode(texts)
    lengths = [len(AutoTokenizer.from_pretrained(bert_dir)(text)["input_ids"]) for text in texts]
    file_order_padding = 2 * max(lengths[:2]) + 2 * max(lengths[2:])
    assert encoder.stats.padded_tokens < file_order_padding


def test_vectors_do_not_depend_on_batch_size(bert_dir):
    one = TransformerEncoder.from_pretrained(bert_dir, pooling="mean", batch_size=1).encode(TEXTS)
    many = TransformerEncoder.from_pretrained(bert_dir, pooling="mean", batch_size=64).encode(TEXTS)
    np.testing.assert_allclose(one, many, atol=1e-5)


def test_out_of_memory_splits_the_batch_and_gives_the_same_vectors(bert_dir):
    reference = TransformerEncoder.from_pretrained(bert_dir, batch_size=4).encode(TEXTS)
    encoder = TransformerEncoder.from_pretrained(bert_dir, batch_size=4)
    seen_batch_sizes = []
    real_forward = encoder.model.forward

    def forward_with_small_memory(*args, **kwargs):
        batch = kwargs["input_ids"].shape[0]
        seen_batch_sizes.append(batch)
        if batch > 1:
            raise torch.OutOfMemoryError(
                "CUDA out of memory. Tried to allocate 2.00 GiB (simulated)"
            )
        return real_forward(*args, **kwargs)

    encoder.model.forward = forward_with_small_memory
    vectors = encoder.encode(TEXTS)
    np.testing.assert_allclose(vectors, reference, atol=1e-6)
    assert seen_batch_sizes[:3] == [4, 2, 1]  # split in half until it fits, then kept small
    assert set(seen_batch_sizes[3:]) == {1}
    assert encoder.stats.oom_splits == 2 and encoder.stats.forward_passes == 4


def test_out_of_memory_on_a_single_text_is_a_clear_error(bert_dir):
    encoder = TransformerEncoder.from_pretrained(bert_dir, batch_size=2)

    def never_fits(*args, **kwargs):
        raise RuntimeError(
            "DefaultCPUAllocator: can't allocate memory: you tried to allocate 999 bytes"
        )

    encoder.model.forward = never_fits
    with pytest.raises(XBiasError, match="out of memory on a single text"):
        encoder.encode(["a", "b"])


def test_another_runtime_error_is_not_mistaken_for_out_of_memory(bert_dir):
    encoder = TransformerEncoder.from_pretrained(bert_dir)

    def broken(*args, **kwargs):
        raise RuntimeError("shape mismatch")

    encoder.model.forward = broken
    with pytest.raises(RuntimeError, match="shape mismatch"):
        encoder.encode(["a"])


# ------------------------------------------------------------------ word vectors


def test_static_mode_averages_the_input_embedding_rows_of_the_subword_tokens(bert_dir, plain):
    model, tokenizer = plain
    encoder = TransformerEncoder.from_pretrained(bert_dir)
    vectors, found = encoder.embed_words(["programmer", "doctor", "unhappy", "x1"], mode="static")
    table = model.get_input_embeddings().weight.detach().numpy()

    def rows(*tokens):
        return table[tokenizer.convert_tokens_to_ids(list(tokens))].mean(0)

    np.testing.assert_allclose(vectors[0], rows("program", "##mer"), atol=1e-7)
    np.testing.assert_allclose(vectors[1], rows("doctor"), atol=1e-7)
    np.testing.assert_allclose(vectors[2], rows("un", "##happy"), atol=1e-7)
    # "x1" holds a [UNK] piece ("1" is not in the vocabulary): not found, zero row.
    assert found.tolist() == [True, True, True, False]
    assert not vectors[3].any()


def test_template_mode_pools_the_words_own_tokens_and_averages_templates(bert_dir, plain):
    templates = ["this is {word}.", "{word} is here."]
    encoder = TransformerEncoder.from_pretrained(bert_dir, layer=1)
    vectors, found = encoder.embed_words(
        ["programmer", "doctor"], mode="template", templates=templates
    )
    expected = []
    for word_tokens, word in ((["program", "##mer"], "programmer"), (["doctor"], "doctor")):
        per_template = []
        for template in templates:
            hidden, tokens = direct_hidden(plain, template.replace("{word}", word), layer=1)
            positions = [index for index, token in enumerate(tokens) if token in word_tokens]
            assert len(positions) == len(word_tokens)
            per_template.append(hidden[positions].mean(0))
        expected.append(np.mean(per_template, axis=0))
    np.testing.assert_allclose(vectors, np.stack(expected), atol=1e-5)
    assert found.all()


def test_template_mode_reports_a_word_absent_from_the_templates_tokenisation(bert_dir, plain):
    # The tiny model reads 64 tokens: in the long template the word falls after the cut.
    long_template = "this is " * 40 + "{word}."
    encoder = TransformerEncoder.from_pretrained(bert_dir)
    vectors, found = encoder.embed_words(["doctor"], mode="template", templates=[long_template])
    assert found.tolist() == [False] and not vectors.any()
    # Present in one template only: the vector is that template's alone.
    both, found_both = encoder.embed_words(
        ["doctor"], mode="template", templates=[long_template, "{word} is here."]
    )
    only, _ = encoder.embed_words(["doctor"], mode="template", templates=["{word} is here."])
    assert found_both.tolist() == [True]
    np.testing.assert_allclose(both, only, atol=1e-6)


def test_template_mode_uses_the_languages_default_templates(bert_dir):
    encoder = TransformerEncoder.from_pretrained(bert_dir)
    german, _ = encoder.embed_words(["doctor"], language="de", mode="template")
    english, _ = encoder.embed_words(["doctor"], language=None, mode="template")
    assert not np.allclose(german, english)
    with pytest.raises(InputError, match="no default templates for language 'xx'"):
        encoder.embed_words(["doctor"], language="xx", mode="template")
    with pytest.raises(InputError, match="exactly once"):
        encoder.embed_words(["doctor"], mode="template", templates=["no placeholder"])


def test_context_mode_pools_every_occurrence_and_reports_missing_sentences(bert_dir, plain):
    encoder = TransformerEncoder.from_pretrained(bert_dir)
    sentences = {
        "doctor": ["the doctor and the doctor", "no such word here", "this is " * 40 + "doctor"],
        "he": ["he is a doctor"],
    }
    with pytest.warns(RuntimeWarning, match="could not be located"):
        result = encoder.embed_words_in_contexts(["doctor", "he"], sentences)
    hidden, tokens = direct_hidden(plain, "the doctor and the doctor")
    np.testing.assert_allclose(result["doctor"][0], hidden[[2, 5]].mean(0), atol=1e-5)
    assert tokens[2] == tokens[5] == "doctor"
    assert result["doctor"].shape == (1, 32) and result.sentence_indices["doctor"].tolist() == [0]
    assert [index for index, _ in result.missing["doctor"]] == [1, 2]
    assert "not in the sentence" in result.missing["doctor"][0][1]
    assert "max_length" in result.missing["doctor"][1][1]
    hidden_he, _ = direct_hidden(plain, "he is a doctor")
    np.testing.assert_allclose(result["he"][0], hidden_he[1], atol=1e-5)
    with pytest.raises(InputError, match="could not be located"):
        encoder.embed_words_in_contexts(["doctor"], sentences, on_missing="raise")


# ------------------------------------------------------------------ bad input, loading, fingerprint


def test_bad_input_is_a_clear_error(bert_dir, tmp_path):
    encoder = TransformerEncoder.from_pretrained(bert_dir)
    with pytest.raises(InputError, match="empty list of texts"):
        encoder.encode([])
    with pytest.raises(InputError, match="not one string"):
        encoder.encode("one text")
    with pytest.raises(InputError, match="must all be strings"):
        encoder.encode(["ok", None])
    with pytest.raises(InputError, match="pooling must be one of"):
        TransformerEncoder.from_pretrained(bert_dir, pooling="max")
    with pytest.raises(InputError, match="layer must be an integer"):
        TransformerEncoder.from_pretrained(bert_dir, layer=7)
    with pytest.raises(InputError, match="mode must be one of"):
        encoder.embed_words(["a"], mode="context")


def test_cls_pooling_without_a_cls_like_token_is_refused(tmp_path):
    folder = build_tiny_bert(tmp_path / "no-cls", special_tokens=False)
    with pytest.raises(InputError, match=r"\[CLS\]-like special token first.*pooling='mean'"):
        TransformerEncoder.from_pretrained(folder, pooling="cls")
    assert TransformerEncoder.from_pretrained(folder, pooling="mean").encode(["a b"]).shape == (
        1,
        32,
    )


def test_an_uncached_hub_id_fails_fast_offline_with_a_hint(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    with pytest.raises(
        ModelLoadError, match="not in the Hugging Face cache.*local folder"
    ) as caught:
        TransformerEncoder.from_pretrained("xbias-made-up-org/no-such-model-7f3a")
    assert time.perf_counter() - started < 5
    # No deep traceback: no chained exception, no frame inside transformers / huggingface_hub.
    assert caught.value.__cause__ is None and (
        caught.value.__context__ is None or caught.value.__suppress_context__
    )
    assert not [entry for entry in caught.traceback if "site-packages" in str(entry.path)]
    with pytest.raises(ModelLoadError, match="does not exist"):
        TransformerEncoder.from_pretrained("./no/such/folder")


def test_a_folder_without_a_model_is_a_model_load_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelLoadError, match="cannot load model .*config.json") as caught:
        TransformerEncoder.from_pretrained(tmp_path / "empty")
    assert caught.value.__suppress_context__


def test_fingerprint_depends_on_weights_and_options_not_on_the_path(bert_dir, tmp_path):
    encoder = TransformerEncoder.from_pretrained(bert_dir)
    copy = shutil.copytree(bert_dir, tmp_path / "copy")
    assert TransformerEncoder.from_pretrained(copy).fingerprint == encoder.fingerprint
    assert TransformerEncoder.from_pretrained(bert_dir, layer=1).fingerprint != encoder.fingerprint
    assert (
        TransformerEncoder.from_pretrained(bert_dir, pooling="mean").fingerprint
        != encoder.fingerprint
    )
    other_weights = build_tiny_bert(tmp_path / "other", seed=1)
    assert TransformerEncoder.from_pretrained(other_weights).fingerprint != encoder.fingerprint


@pytest.mark.slow
def test_fingerprint_is_stable_across_processes(bert_dir):
    script = (
        "from eval_harness.models import TransformerEncoder; "
        f"print(TransformerEncoder.from_pretrained({str(bert_dir)!r}).fingerprint)"
    )
    output = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "XBIAS_CACHE_DIR": os.path.join(str(bert_dir), "..", "fresh-cache")},
    )
    assert (
        output.stdout.strip().splitlines()[-1]
        == TransformerEncoder.from_pretrained(bert_dir).fingerprint
    )
