"""Packed shared-prefix forwards on tiny random causal LMs: every prompt's next-token
log-probabilities equal those of the prompt run alone through the plain model (no padding, no
cache), whatever the packing, the batch size, the prefix cache or the architecture (Llama, Qwen2,
and Mistral with a sliding window shorter than the prompts)."""

import numpy as np
import pytest
import torch
from helpers.tiny_causal_lm import build_tiny_bpe_tokenizer, build_tiny_causal_lm

from eval_harness.models.causal_lm import CausalLM, load_causal_lm
from eval_harness.models.shared_prefix import PackedLayout, packs_shared_prefixes

TEXTS = [
    "Alonzo feels angry.",
    "The nurse is afraid of the doctor, and the girl "
    "is sad because the man made her feel so scared.",
    "Hi",
    "Jessica se siente eufórica",
    "هذا رجل.",
    "My mother made me feel happy.",
]
PREFIX = (
    "<|im_start|>system\nYou are an annotator of "
    "emotions.<|im_end|>\n<|im_start|>user\nHow much anger? Text:\n"
)
SUFFIX = "<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


def tiny_mistral(directory, sliding_window: int):
    """A random Mistral whose sliding window is shorter than the prompts (the window binds in every
    layer)."""
    from transformers import MistralConfig, MistralForCausalLM

    tokenizer = build_tiny_bpe_tokenizer()
    config = MistralConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        sliding_window=sliding_window,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=tokenizer.bos_token_id,
    )
    torch.manual_seed(0)
    model = MistralForCausalLM(config)
    with torch.no_grad():
        model.lm_head.weight.mul_(40.0)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module", params=["llama", "qwen2", "mistral-window-6"])
def lm_dir(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-lm") / request.param
    if request.param.startswith("mistral"):
        return tiny_mistral(folder, sliding_window=6)
    return build_tiny_causal_lm(folder, architecture=request.param)


def prompts(lm: CausalLM) -> tuple[list[list[int]], list[int]]:
    sequences = lm.tokenize([PREFIX + text + SUFFIX for text in TEXTS])
    prefix = lm.tokenize([PREFIX])[0]
    assert all(sequence[: len(prefix)] == prefix for sequence in sequences)
    return sequences, prefix


def alone(lm: CausalLM, sequence: list[int], candidates: list[int]) -> np.ndarray:
    """The prompt by itself through the plain model (transformers' own attention and masks)."""
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([sequence])).logits[0, -1].double()
    return torch.log_softmax(logits, dim=-1)[candidates].numpy()


CANDIDATES = list(range(10, 30))


def test_the_tiny_models_are_packed(lm_dir):
    assert packs_shared_prefixes(load_causal_lm(lm_dir).model)


@pytest.mark.parametrize("batch_size", [1, 2, 4, 16])
def test_packed_log_probabilities_equal_each_prompt_run_alone(lm_dir, batch_size):
    lm = load_causal_lm(lm_dir, batch_size=batch_size)
    sequences, prefix = prompts(lm)
    hand = np.stack([alone(lm, sequence, CANDIDATES) for sequence in sequences])
    packed, _ = lm.next_token_logprobs(sequences, CANDIDATES, prefix)
    np.testing.assert_allclose(packed, hand, atol=1e-5, rtol=0)
    assert np.ptp(hand[:, 0]) > 1e-3  # the prompts differ: the comparison can fail
    # A second call reads the cached prefix (no prefix tokens run again) and gives the same numbers.
    prefix_tokens = lm.prefix_tokens
    again, _ = lm.next_token_logprobs(sequences[::-1], CANDIDATES, prefix)
    assert lm.prefix_tokens == prefix_tokens
    np.testing.assert_allclose(again[::-1], hand, atol=1e-5, rtol=0)


def test_a_packed_row_computes_the_prefix_once_and_no_pad(lm_dir):
    lm = load_causal_lm(lm_dir, batch_size=2)
    sequences, prefix = prompts(lm)
    lm.next_token_logprobs(sequences, CANDIDATES, prefix)
    assert lm.prefix_tokens == len(prefix)
    assert lm.tokens_computed() == len(prefix) + sum(
        len(sequence) - len(prefix) for sequence in sequences
    )
    # A row holds as many prompts as make the tokens of 2 whole prompts; the prefix rode in the
    # first row.
    longest = max(len(sequence) - len(prefix) for sequence in sequences)
    per_row = 2 * (len(prefix) + longest) // longest
    assert 2 < per_row < len(sequences)  # the tiny prompts give two rows
    assert lm.stats.forward_passes == 2 and lm.stats.sequences == len(sequences)


def test_prompts_without_the_prefix_are_packed_whole_next_to_cached_ones(lm_dir):
    lm = load_causal_lm(lm_dir, batch_size=3)
    sequences, prefix = prompts(lm)
    mixed = sequences[:3] + lm.tokenize(["No shared prefix here: " + text for text in TEXTS[3:]])
    hand = np.stack([alone(lm, sequence, CANDIDATES) for sequence in mixed])
    packed, _ = lm.next_token_logprobs(mixed, CANDIDATES, prefix)
    np.testing.assert_allclose(packed, hand, atol=1e-5, rtol=0)


def test_the_packed_path_equals_the_key_value_cache_path_and_shares_its_prefix_cache(lm_dir):
    lm = load_causal_lm(lm_dir, batch_size=4)
    sequences, prefix = prompts(lm)
    packed, _ = lm.next_token_logprobs(sequences, CANDIDATES, prefix)
    lm.packs_prompts = False
    prefix_tokens = lm.prefix_tokens
    from_cache, _ = lm.next_token_logprobs(
        sequences, CANDIDATES, prefix
    )  # reads the prefix the packed row kept
    assert lm.prefix_tokens == prefix_tokens
    lm.clear_prefix_cache()
    fresh, _ = lm.next_token_logprobs(sequences, CANDIDATES, prefix)
    np.testing.assert_allclose(from_cache, packed, atol=1e-5, rtol=0)
    np.testing.assert_allclose(fresh, packed, atol=1e-5, rtol=0)


def test_the_layout_places_each_prompt_after_the_prefix_and_masks_by_hand():
    lengths = torch.tensor([3, 1, 2])
    layout = PackedLayout.of(lengths, prefix_length=4, prefix_layers=None)
    assert layout.head == 4
    assert layout.position_ids().tolist() == [[0, 1, 2, 3, 4, 5, 6, 4, 4, 5]]
    assert layout.last_tokens().tolist() == [6, 7, 9]
    assert layout.gather_index().tolist() == [[4, 5, 6], [7, 0, 0], [8, 9, 0]]
    for window in (None, 2):
        mask = (
            layout.prompt_mask(window, torch.device("cpu"))[:, 0] == 0
        )  # additive: 0 where a key is seen
        for prompt, length in enumerate(lengths.tolist()):
            for step in range(3):
                for key in range(
                    4 + 3
                ):  # keys: the prefix's 4 positions, then the prompt's 3 slots
                    position = key if key < 4 else 4 + (key - 4)
                    own_token = key < 4 or (key - 4 < length and key - 4 <= step)
                    in_window = window is None or position > 4 + step - window
                    assert bool(mask[prompt, step, key]) == (own_token and in_window), (
                        prompt,
                        step,
                        key,
                        window,
                    )
        blocked = layout.prompt_mask(window, torch.device("cpu"))[:, 0][~mask]
        assert bool((blocked == torch.finfo(torch.float32).min).all())
        grouped = (
            layout.prompt_mask(window, torch.device("cpu"), groups=2)[:, 0] == 0
        )  # two heads per key head
        assert torch.equal(grouped[:, :3], mask) and torch.equal(grouped[:, 3:], mask)
    cached = PackedLayout.of(
        lengths, prefix_length=4, prefix_layers={0: (torch.zeros(1), torch.zeros(1))}
    )
    assert cached.head == 0 and cached.position_ids().tolist() == [[4, 5, 6, 4, 4, 5]]
    assert cached.last_tokens().tolist() == [2, 3, 5]


def test_models_the_packed_row_cannot_serve_use_the_key_value_cache_path(lm_dir):
    model = load_causal_lm(lm_dir).model
    config = model.config
    try:
        config.attn_logit_softcapping = 50.0  # Gemma 2: soft-capped attention logits
        assert not packs_shared_prefixes(model)
        config.attn_logit_softcapping = None
        config.layer_types = [
            "full_attention",
            "linear_attention",
        ]  # a recurrent layer mixes tokens in order
        assert not packs_shared_prefixes(model)
        config.layer_types = ["full_attention", "sliding_attention"]
        assert packs_shared_prefixes(model)
    finally:
        del config.attn_logit_softcapping, config.layer_types
    assert packs_shared_prefixes(model)


def test_greedy_answers_of_a_sliding_window_model_are_those_of_transformers_generate(tmp_path):
    """Generation runs on the key/value-cache path; prompts longer than the window run whole
    there."""
    lm = load_causal_lm(tiny_mistral(tmp_path / "mistral", sliding_window=6), batch_size=4)
    sequences, prefix = prompts(lm)
    _, generated = lm.next_token_logprobs(sequences[:3], CANDIDATES, prefix, new_tokens=3)
    for sequence, tokens in zip(sequences[:3], generated, strict=True):
        ids = torch.tensor([sequence])
        expected = lm.model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=3,
            do_sample=False,
            pad_token_id=0,
        )[0, ids.shape[1] :].tolist()
        assert tokens == expected
