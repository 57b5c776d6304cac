"""A tiny random causal LM (Llama or Qwen2 architecture) with a byte-level BPE tokenizer and a chat
template.

Built in a test in well under a second, saved to a folder that ``AutoModelForCausalLM`` and
``AutoModel`` load::

    from tiny_causal_lm import build_tiny_causal_lm
    folder = build_tiny_causal_lm(tmp_path / "lm")

The tokenizer is trained (deterministically) on a few English, Spanish and Arabic sentences; it is
byte-level, so every text has a tokenisation, and no training sentence holds a digit, so each of
``"0"`` ... ``"9"`` is one token (the numerals of a judge's scale). The chat template is ChatML
(``<|im_start|>role\\ncontent<|im_end|>\\n``), as SmolLM2's and Qwen2.5's are.
"""

from pathlib import Path

CORPUS = (
    "How much anger does the author of this text express? Answer with a single digit.",
    "How much fear, joy or sadness does the author of this text express? Text: none, extreme.",
    "This is a man. That is a woman. Here is the boy "
    "and there is the girl. The doctor feels angry.",
    "Alonzo feels angry. Amanda feels sad. My mother made me feel happy. The nurse is afraid.",
    "Esto es un hombre. Jessica se siente eufórica. ¿Cuánta ira expresa el autor de este texto?",
    "هذا رجل. هذه امرأة. ما مقدار الغضب الذي يعبّر عنه كاتب هذا النص؟",
    "You are an annotator of emotions. system user assistant",
)
SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ "
    "message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tiny_bpe_tokenizer(vocab_size: int = 400, chat_template: bool = True):
    """A byte-level BPE ``PreTrainedTokenizerFast`` (pad = eos = ``<|im_end|>``), optionally with
    ChatML."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(CORPUS, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        unk_token="<|endoftext|>",
        eos_token="<|im_end|>",
        pad_token="<|im_end|>",
        bos_token="<|im_start|>",
        model_max_length=256,
    )
    if chat_template:
        tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


def build_tiny_causal_lm(
    directory: str | Path,
    *,
    architecture: str = "llama",
    hidden_size: int = 32,
    num_layers: int = 3,
    chat_template: bool = True,
    seed: int = 0,
) -> Path:
    """Save a random ``LlamaForCausalLM`` or ``Qwen2ForCausalLM`` (seeded) and its tokenizer into
    ``directory``."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    directory = Path(directory)
    tokenizer = build_tiny_bpe_tokenizer(chat_template=chat_template)
    config_class, model_class = {
        "llama": (LlamaConfig, LlamaForCausalLM),
        "qwen2": (Qwen2Config, Qwen2ForCausalLM),
    }[architecture]
    config = config_class(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=tokenizer.bos_token_id,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    model = model_class(config)
    # Random weights of this scale give near-uniform next-token distributions; larger ones make the
    # numerals' probabilities differ clearly between texts, which is what the tests compare.
    with torch.no_grad():
        model.lm_head.weight.mul_(40.0)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
