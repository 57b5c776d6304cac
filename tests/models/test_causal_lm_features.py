"""Hidden-state features of a tiny random causal LM: the probe's sentence vectors and template word
vectors."""

import numpy as np
import pytest
import torch
from helpers.tiny_causal_lm import build_tiny_causal_lm
from transformers import AutoModel

from eval_harness.models import EmbeddingCache, ProbeRegressor, TransformerEncoder
from eval_harness.models.causal_lm import (
    CausalLMEncoder,
    default_probe_layer,
    left_align,
    load_causal_lm,
)
from eval_harness.models.regressors import TextSplit

TEXTS = [
    "Alonzo feels angry.",
    "The nurse is afraid of the doctor, and the girl "
    "is sad because the man made her feel so scared.",
    "Hi",
    "Jessica se siente eufórica",
    "هذا رجل.",
]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


@pytest.fixture(scope="module", params=["llama", "qwen2"])
def lm_dir(request, tmp_path_factory):
    return build_tiny_causal_lm(
        tmp_path_factory.mktemp("tiny-lm") / request.param, architecture=request.param
    )


def hand_features(folder, text, layer, pooling):
    """The text alone through the decoder stack: hidden_states[layer], masked mean or last token."""
    model = AutoModel.from_pretrained(folder).eval()
    from transformers import AutoTokenizer

    ids = AutoTokenizer.from_pretrained(folder)(text)["input_ids"]
    with torch.no_grad():
        hidden = model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states[
            layer
        ][0]
    return (hidden.mean(0) if pooling == "mean" else hidden[-1]).numpy()


def test_default_layer_is_two_thirds_of_the_depth(lm_dir):
    lm = load_causal_lm(lm_dir)
    assert default_probe_layer(lm.model.config) == 2  # 3 layers
    assert CausalLMEncoder(lm).layer == 2


@pytest.mark.parametrize("pooling", ["mean", "last"])
def test_features_equal_the_hidden_states_of_each_text_run_alone_whatever_the_batch(
    lm_dir, pooling
):
    lm = load_causal_lm(lm_dir)
    hand = np.stack([hand_features(lm_dir, text, 2, pooling) for text in TEXTS])
    for batch_size in (1, 2, 5):
        encoder = CausalLMEncoder(lm, pooling=pooling, batch_size=batch_size)
        np.testing.assert_allclose(encoder.encode(TEXTS), hand, atol=1e-5, rtol=0)
        np.testing.assert_allclose(encoder.encode(TEXTS[::-1])[::-1], hand, atol=1e-5, rtol=0)
    assert not np.allclose(hand[0], hand[1])


def test_features_are_those_of_the_plain_encoder_on_the_same_folder_with_the_same_fingerprint(
    lm_dir,
):
    """A probe saved with an LLM's features reloads through the plain encoder loader unchanged."""
    encoder = CausalLMEncoder(load_causal_lm(lm_dir), pooling="last", layer=1)
    plain = TransformerEncoder.from_pretrained(lm_dir, pooling="last", layer=1)
    assert encoder.fingerprint == plain.fingerprint
    np.testing.assert_allclose(encoder.encode(TEXTS), plain.encode(TEXTS), atol=1e-6, rtol=0)
    assert (
        CausalLMEncoder(load_causal_lm(lm_dir), pooling="mean", layer=1).fingerprint
        != plain.fingerprint
    )


def test_the_last_layer_reads_hidden_states_not_logits(lm_dir):
    encoder = CausalLMEncoder(load_causal_lm(lm_dir), layer=-1)
    assert encoder.encode(TEXTS[:2]).shape == (2, encoder.dim) == (2, 32)


def test_the_probe_trains_on_llm_features_through_the_embedding_cache(lm_dir, tmp_path):
    rng = np.random.default_rng(0)
    words = "angry happy sad afraid glad furious scared man woman doctor nurse mother".split()
    texts = [
        f"the {rng.choice(words)} feels {rng.choice(words)} and {rng.choice(words)}"
        for _ in range(60)
    ]
    cache = EmbeddingCache(tmp_path / "cache")
    encoder = CausalLMEncoder(load_causal_lm(lm_dir), cache=cache)
    intensity = rng.uniform(size=60)
    splits = {
        name: TextSplit(texts[start : start + 20], intensity[start : start + 20])
        for name, start in (("train", 0), ("validation", 20), ("test", 40))
    }
    probe = ProbeRegressor(
        encoder,
        head="svr",
        head_options={"grid": {"kernel": ["rbf"], "C": [1.0], "gamma": ["scale"]}, "n_jobs": 1},
    )
    scores = probe.fit_splits(splits, "en", "anger")
    assert scores.n_train == 20 and -1 <= scores.pearson_test <= 1
    options = probe.options()
    assert {key: options[key] for key in ("pooling", "layer", "prefix", "max_length")} == {
        "pooling": "mean",
        "layer": 2,
        "prefix": "",
        "max_length": 256,
    }
    probe.predict(texts[:3])
    assert cache.misses >= 1 and cache.hits >= 1


def test_word_vectors_default_to_template_mode(lm_dir):
    encoder = CausalLMEncoder(load_causal_lm(lm_dir))
    template, found = encoder.embed_words(["man", "woman"], "en")
    explicit, _ = encoder.embed_words(["man", "woman"], "en", mode="template")
    static, _ = encoder.embed_words(["man", "woman"], "en", mode="static")
    assert found.all() and template.shape == (2, 32)
    np.testing.assert_array_equal(template, explicit)
    assert not np.allclose(template, static)
    spanish, found = encoder.embed_words(["hombre"], "es")
    assert found.all() and not np.allclose(spanish, 0)


def test_left_align_moves_each_rows_tokens_to_the_right_end():
    ids = torch.tensor([[1, 2, 3], [4, 0, 0], [5, 6, 0]])
    mask = torch.tensor([[1, 1, 1], [1, 0, 0], [1, 1, 0]])
    aligned_ids, aligned_mask = left_align(ids, mask)
    assert aligned_ids.tolist() == [[1, 2, 3], [0, 0, 4], [0, 5, 6]]
    assert aligned_mask.tolist() == [[1, 1, 1], [0, 0, 1], [0, 1, 1]]
