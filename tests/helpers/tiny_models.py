"""Tiny random transformer models built in a test, saved to a folder, loadable with ``AutoModel``.

They exercise code paths in a fraction of a second (no download, no real weights). Any test
module can use them (pytest puts ``tests/`` on ``sys.path``)::

    from helpers.tiny_models import build_tiny_bert
    folder = build_tiny_bert(tmp_path / "bert")
    AutoModel.from_pretrained(folder); AutoTokenizer.from_pretrained(folder)

The tokenizer is a real WordPiece (``tokenizers`` library, BERT normaliser and pre-tokeniser,
lowercasing): every lowercase ASCII word has a tokenisation (single letters and ``##`` letter
continuations are in the vocabulary), and a few words split into known pieces, e.g.
``"programmer"`` -> ``program ##mer`` and ``"unhappy"`` -> ``un ##happy``.
"""

from collections.abc import Sequence
from pathlib import Path

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
WORDS = (
    "this is that there here it a an the i am you we they he she his her "
    "feel feels very so and or not angry happy sad afraid glad furious "
    "scared joy anger fear sadness man woman boy girl mother father "
    "doctor nurse engineer teacher program un das ist hier esto es aqui"
).split()
# Continuation pieces that make multi-token words: program+mer, un+happy, feel+ing, doctor+s.
PIECES = ("##mer", "##happy", "##ing", "##s")
PUNCTUATION = tuple(".,!?'\"")
LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")


def tiny_vocabulary() -> list[str]:
    """The WordPiece vocabulary: special tokens, punctuation, words, pieces, letters and
    ``##``-letters."""
    tokens = [
        *SPECIAL_TOKENS,
        *PUNCTUATION,
        *WORDS,
        *PIECES,
        *LETTERS,
        *("##" + letter for letter in LETTERS),
    ]
    return list(dict.fromkeys(tokens))  # first occurrence of each token, ids 0..n-1


def build_tiny_tokenizer(special_tokens: bool = True, model_max_length: int = 64):
    """A lowercasing WordPiece ``PreTrainedTokenizerFast``.

    With ``special_tokens=False`` there is no [CLS]/[SEP] and nothing is added around a text
    (a model without a [CLS]-like first token); [PAD] and [UNK] stay.
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocabulary = {token: index for index, token in enumerate(tiny_vocabulary())}
    backend = Tokenizer(
        models.WordPiece(vocab=vocabulary, unk_token="[UNK]", max_input_chars_per_word=100)
    )
    backend.normalizer = normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.decoder = decoders.WordPiece()
    named = {"unk_token": "[UNK]", "pad_token": "[PAD]"}
    if special_tokens:
        backend.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", vocabulary["[CLS]"]), ("[SEP]", vocabulary["[SEP]"])],
        )
        named.update(cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    return PreTrainedTokenizerFast(
        tokenizer_object=backend, model_max_length=model_max_length, **named
    )


def build_tiny_bert(
    directory: str | Path,
    *,
    special_tokens: bool = True,
    hidden_size: int = 32,
    num_layers: int = 2,
    max_length: int = 64,
    seed: int = 0,
) -> Path:
    """Save a random ``BertModel`` (seeded, deterministic) and its tokenizer into ``directory``."""
    import torch
    from transformers import BertConfig, BertModel

    directory = Path(directory)
    tokenizer = build_tiny_tokenizer(special_tokens=special_tokens, model_max_length=max_length)
    torch.manual_seed(seed)
    model = BertModel(
        _tiny_bert_config(BertConfig, len(tokenizer), hidden_size, num_layers, max_length)
    )
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def build_tiny_classifier(
    directory: str | Path,
    labels: Sequence[str] | None = ("anger", "joy", "sadness"),
    *,
    seed: int = 0,
) -> Path:
    """Save a random ``BertForSequenceClassification`` with ``labels`` as its ``id2label``.

    ``labels=None`` makes a one-output regression head (``problem_type="regression"``).
    """
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    directory = Path(directory)
    tokenizer = build_tiny_tokenizer()
    config = _tiny_bert_config(BertConfig, len(tokenizer), 32, 1, 64)
    if labels is None:
        config.num_labels = 1
        config.problem_type = "regression"
    else:
        config.id2label = dict(enumerate(labels))
        config.label2id = {label: index for index, label in enumerate(labels)}
    torch.manual_seed(seed)
    model = BertForSequenceClassification(config)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def _tiny_bert_config(
    config_class, vocab_size: int, hidden_size: int, num_layers: int, max_length: int
):
    return config_class(
        vocab_size=vocab_size,
        hidden_size=hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden_size,
        max_position_embeddings=max_length,
        pad_token_id=0,
    )


def write_tiny_eec_config(
    folder: str | Path, max_epochs: int = 4, seeds=(0,), **suite_options
) -> Path:
    """A sweep config ``folder/eec.yaml`` of a tiny BERT (saved in ``folder/bert``) through the eec
    suite: its probe (mean pooling, an MLP head trained ``max_epochs`` on 200 SemEval texts) on
    English anger and one EEC, ``en_black_white``, with ``seeds`` (one by default: the tests that
    use it are not about pooling) and 50 stability resamples per fit (the suite's 1000 cost minutes
    on a tiny model's 1,400 sentences); ``suite_options`` add to the suite's (``sample: 2``...)."""
    import yaml

    folder = Path(folder)
    model = build_tiny_bert(folder / "bert")
    options = {
        "pooling": "mean",
        "max_train": 200,
        "head": "mlp",
        "head_options": {"max_epochs": max_epochs},
    }
    suite = {
        "languages": ["en"],
        "emotions": ["anger"],
        "configs": ["en_black_white"],
        "stability_resamples": 50,
    }
    suite.update(suite_options)
    path = folder / "eec.yaml"
    config = {
        "seeds": list(seeds),
        "models": [{"name": "tiny", "path": str(model), "type": "encoder", "options": options}],
    }
    path.write_text(yaml.safe_dump({**config, "suites": {"eec": suite}}))
    return path
