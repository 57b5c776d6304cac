"""Packed forwards of prompts that share a prefix: one row, no padding, the prefix's keys/values
computed once.

A batch of ``B`` prompts ``prefix + s_1``, ..., ``prefix + s_B`` runs as **one** row of
``T = P + |s_1| + ... + |s_B|`` tokens (``P = 0`` once the prefix's keys/values are cached)::

    [ prefix (P) | s_1 | s_2 | ... | s_B ]      position ids  0..P-1 | P..P+|s_1|-1 | P..P+|s_2|-1 | ...

Everything in a decoder layer but attention acts on each token alone (embeddings, norms,
projections, MLP, rotary embeddings from the position ids), so it runs as one matrix product over
the ``T`` real
tokens: no pad is computed, and the prefix rides in the first batch's products instead of a separate
small (slow) forward. Attention is :func:`shared_prefix_attention`, registered with transformers'
``AttentionInterface``: per layer, the prefix attends to itself (causal), and each ``s_b``, gathered
into a padded ``(B, heads, S, dim)`` block, attends to the prefix's keys/values and causally to its
own, in one ``scaled_dot_product_attention`` call (the query heads of one key/value head stacked
along the sequence axis, so grouped-query keys/values are never copied per query head). A token
therefore sees exactly the keys it sees when its prompt runs alone, at the same positions: the
numbers are those of a plain forward (float rounding aside). The
prefix's keys/values of every layer (after rotary embedding, as a key/value cache holds them) are
kept for the next batches and later calls.

:func:`packs_shared_prefixes` says which models qualify: those whose attention goes through the
interface (``_supports_attention_backend``), without attention-logit soft-capping, whose layers are
all full or sliding-window attention (the window is applied in the masks). Others (and greedy
generation) use the key/value-cache path of :class:`eval_harness.models.causal_lm.CausalLM`.
"""  # noqa: E501

import contextlib
import contextvars
from dataclasses import dataclass, field

import torch

from eval_harness.errors import XBiasError

ATTENTION_NAME = "xbias_shared_prefix"
ATTENTION_LAYER_TYPES = {"full_attention", "sliding_attention"}
_LAYOUT: contextvars.ContextVar["PackedLayout | None"] = contextvars.ContextVar(
    "xbias_packed_layout", default=None
)


@dataclass
class PackedLayout:
    """Where each prompt's tokens sit in one packed row, and the prefix's keys/values per layer.

    Attributes:
        head: prefix tokens at the head of the row (``0`` when ``prefix_layers`` holds them
        already).
        prefix_length: the prefix's length ``P`` (its tokens' positions are ``0..P-1``).
        lengths: ``(B,)`` tokens of each prompt after the prefix.
        prefix_layers: ``{layer index: (keys, values)}`` of the prefix, ``(1, kv heads, P, dim)``;
            read when ``head == 0``, filled by the forward when ``head == P``.
    """

    head: int
    prefix_length: int
    lengths: torch.Tensor
    prefix_layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    _masks: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(
        cls, lengths: torch.Tensor, prefix_length: int, prefix_layers: dict | None
    ) -> "PackedLayout":
        """The layout of a batch (``prefix_layers``: the cached prefix, or None to compute it in
        this row)."""
        head = 0 if prefix_layers is not None or not prefix_length else prefix_length
        return cls(head, prefix_length, lengths.cpu(), dict(prefix_layers or {}))

    @property
    def longest(self) -> int:
        return int(self.lengths.max())

    def position_ids(self) -> torch.Tensor:
        """``(1, T)``: the prefix's positions ``0..P-1`` (when in the row), then ``P..P+len-1`` for
        each prompt."""
        steps = torch.arange(self.longest)
        suffixes = (self.prefix_length + steps[None, :]).expand(len(self.lengths), -1)[self.valid()]
        return torch.cat([torch.arange(self.head), suffixes])[None]

    def valid(self) -> torch.Tensor:
        """``(B, S)``: which slots of the padded ``(B, S)`` block hold a token (right padding)."""
        return torch.arange(self.longest)[None, :] < self.lengths[:, None]

    def gather_index(self) -> torch.Tensor:
        """``(B, S)``: each slot's token index in the row (padding slots read token 0, masked
        out)."""
        starts = self.head + torch.cumsum(self.lengths, 0) - self.lengths
        index = starts[:, None] + torch.arange(self.longest)[None, :]
        return torch.where(self.valid(), index, 0)

    def last_tokens(self) -> torch.Tensor:
        """``(B,)``: the row index of each prompt's last token (where its next-token logits are
        read)."""
        return self.head + torch.cumsum(self.lengths, 0) - 1

    def _cached(self, key: tuple, device: torch.device, build):
        """``build()`` on ``device``, made once per layout (every layer reads the same masks and
        indices)."""
        if (key, device) not in self._masks:
            self._masks[key, device] = build().to(device)
        return self._masks[key, device]

    def prompt_mask(
        self,
        window: int | None,
        device: torch.device,
        groups: int = 1,
        dtype: torch.dtype = torch.float32,
    ) -> torch.Tensor:
        """``(B, 1, groups * S, P + S)`` additive mask in ``dtype``: 0 where a prompt's token sees a
        key (the prefix and its own earlier tokens, in ``window``), the dtype's minimum elsewhere;
        repeated for the ``groups`` query heads stacked along the sequence axis. Additive, not bool:
        with a bool mask PyTorch's CPU attention took twice as long on these block shapes
        (docs/llm.md)."""

        def build():
            steps = torch.arange(self.longest)
            query = self.prefix_length + steps[:, None]
            keys = torch.cat([torch.arange(self.prefix_length), self.prefix_length + steps])[
                None, :
            ]
            allowed = keys <= query
            if window is not None:
                allowed = allowed & (keys > query - window)
            filled = torch.cat(
                [torch.ones(len(self.lengths), self.prefix_length, dtype=torch.bool), self.valid()],
                1,
            )
            mask = allowed[None] & filled[:, None, :]  # (B, S, P + S)
            mask = (
                mask[:, None]
                .expand(-1, groups, -1, -1)
                .reshape(len(self.lengths), 1, -1, mask.shape[-1])
            )
            return torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, torch.finfo(dtype).min)

        return self._cached(("prompts", window, groups, dtype), device, build)

    def prefix_mask(self, window: int | None, device: torch.device) -> torch.Tensor | None:
        """``(1, 1, P, P)`` bool for a sliding window shorter than the prefix, else None (plain
        causal)."""
        if window is None or window >= self.head:
            return None

        def build():
            positions = torch.arange(self.head)
            return (
                (positions[None, :] <= positions[:, None])
                & (positions[None, :] > positions[:, None] - window)
            )[None, None]

        return self._cached(("prefix", window), device, build)


def shared_prefix_attention(
    module, query, key, value, attention_mask=None, scaling=None, dropout=0.0, **kwargs
):
    """The attention of a packed row (registered as :data:`ATTENTION_NAME`); see the module
    docstring.

    ``query`` is ``(1, heads, T, dim)``, ``key``/``value`` ``(1, kv heads, T, dim)``; returns ``((1,
    T, heads, dim), None)`` as transformers' attention functions do. The model's own mask is not
    used (none is built for this implementation): the layout defines who sees whom.
    """
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    layout = _LAYOUT.get()
    if layout is None:
        raise XBiasError(f"the {ATTENTION_NAME!r} attention runs only inside packed_forward()")
    window = kwargs.get("sliding_window")
    outputs = []
    if layout.head:
        prefix_keys, prefix_values = key[:, :, : layout.head], value[:, :, : layout.head]
        layout.prefix_layers[module.layer_idx] = (prefix_keys, prefix_values)
        prefix_output, _ = sdpa_attention_forward(
            module,
            query[:, :, : layout.head],
            prefix_keys,
            prefix_values,
            layout.prefix_mask(window, query.device),
            scaling=scaling,
            is_causal=True,
        )
        outputs.append(prefix_output[0])
    elif layout.prefix_length:
        prefix_keys, prefix_values = layout.prefix_layers[module.layer_idx]
    batch, steps = len(layout.lengths), layout.longest
    slots = layout._cached(("slots",), query.device, lambda: layout.gather_index().flatten())
    filled = layout._cached(
        ("filled",), query.device, lambda: layout.valid().flatten().nonzero()[:, 0]
    )

    def blocks(tensor: torch.Tensor) -> torch.Tensor:
        """``(1, h, T, d) -> (B, h, S, d)``: each prompt's tokens in one padded row of the attention
        block."""
        tokens = tensor[0].transpose(0, 1).index_select(0, slots)  # (B * S, h, d)
        return tokens.view(batch, steps, *tokens.shape[1:]).transpose(1, 2)

    prompt_keys, prompt_values = blocks(key), blocks(value)
    if layout.prefix_length:
        prompt_keys = torch.cat([prefix_keys.expand(batch, -1, -1, -1), prompt_keys], dim=2)
        prompt_values = torch.cat([prefix_values.expand(batch, -1, -1, -1), prompt_values], dim=2)
    # Grouped-query attention without copying keys/values per query head: the query heads that share
    # a key/value head are stacked along the sequence axis, (B, h, S, d) -> (B, kv heads, groups *
    # S, d), with the mask alike.
    prompt_queries = blocks(query)
    groups = prompt_queries.shape[1] // prompt_keys.shape[1]
    grouped = prompt_queries.reshape(
        batch, prompt_keys.shape[1], groups * steps, prompt_queries.shape[-1]
    )
    prompt_output = torch.nn.functional.scaled_dot_product_attention(
        grouped,
        prompt_keys,
        prompt_values,
        attn_mask=layout.prompt_mask(window, query.device, groups, query.dtype),
        scale=scaling,
    ).reshape(prompt_queries.shape)  # (B, h, S, d)
    heads, dim = prompt_queries.shape[1], prompt_queries.shape[-1]
    outputs.append(
        prompt_output.transpose(1, 2).reshape(batch * steps, heads, dim).index_select(0, filled)
    )
    return torch.cat(outputs)[None], None


def packs_shared_prefixes(model: torch.nn.Module) -> bool:
    """Whether ``model`` can run packed rows (see the module docstring); else the key/value-cache
    path is used."""
    config = model.config
    layer_types = set(getattr(config, "layer_types", None) or ())
    return (
        bool(getattr(model, "_supports_attention_backend", False))
        and getattr(config, "attn_logit_softcapping", None) is None
        and layer_types <= ATTENTION_LAYER_TYPES
    )


@contextlib.contextmanager
def packed_forward(model: torch.nn.Module, layout: PackedLayout):
    """Inside: ``model``'s attention is :func:`shared_prefix_attention` over ``layout`` (restored on
    exit)."""
    from transformers import AttentionInterface

    AttentionInterface.register(ATTENTION_NAME, shared_prefix_attention)
    config = model.config
    previous = config._attn_implementation
    token = _LAYOUT.set(layout)
    config._attn_implementation = ATTENTION_NAME
    try:
        yield
    finally:
        config._attn_implementation = previous
        _LAYOUT.reset(token)
