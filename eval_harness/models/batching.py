"""Length-sorted, padded (or packed), out-of-memory-safe batches of token-id sequences through a
model.

Every model call in xbias goes through :func:`run_length_sorted`: sequences are sorted by length
(longest first, so an out-of-memory error shows on the first batch, not after an hour), padded
only to the longest sequence of their batch (or packed back to back in one row, for the judge's
shared-prefix forwards), and run under ``torch.inference_mode()`` with the autocast of
:func:`resolve_precision` (bf16/fp16 on a GPU; bf16 on a CPU only when asked). A batch that runs out
of memory is split in half and retried, and the smaller batch size is kept for the rest of the run.
"""

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from eval_harness.errors import InputError, XBiasError

PRECISIONS = ("auto", "fp32", "bf16", "fp16")
PRECISION_NAMES = {None: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}
# CPU flags (Linux /proc/cpuinfo) of native bf16 matrix units: Intel AMX-BF16 (Sapphire Rapids and
# later).
BF16_MATRIX_FLAGS = frozenset({"amx_bf16"})
# PyTorch CPU capabilities (lowered by ATEN_CPU_CAPABILITY) under which its kernels can reach those
# units.
BF16_MATRIX_CAPABILITIES = frozenset({"AVX512"})
CPUINFO = "/proc/cpuinfo"


@dataclass
class RunStats:
    """Counters of one model's inference work (cumulative over calls)."""

    forward_passes: int = 0
    sequences: int = 0
    padded_tokens: int = (
        0  # token positions run: a padded batch's pads included, a packed row has none
    )
    oom_splits: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def is_out_of_memory(error: BaseException) -> bool:
    """True for a CUDA/MPS out-of-memory error or a CPU allocator failure."""
    if isinstance(error, torch.OutOfMemoryError):
        return True
    message = str(error).lower()
    return isinstance(error, RuntimeError) and (
        "out of memory" in message or "can't allocate memory" in message
    )


def cpu_flags(path: str = CPUINFO) -> frozenset[str]:
    """The CPU's feature flags as Linux lists them (the first ``flags`` line of ``path``); empty
    elsewhere."""
    try:
        with open(path, encoding="utf-8", errors="replace") as info:
            for line in info:
                name, _, value = line.partition(":")
                if name.strip() == "flags":
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


@functools.cache
def cpu_has_bf16_matrix_units() -> bool:
    """Whether this CPU multiplies bf16 matrices natively (AMX-BF16 in its flags) and PyTorch
    reaches them: its CPU kernels at a capability that can
    (``torch.backends.cpu.get_cpu_capability()``, lowered by ``ATEN_CPU_CAPABILITY``) and oneDNN
    built in and not held below AMX (``ONEDNN_MAX_CPU_ISA``). Without them bf16 autocast converts
    every operand and runs 5-10x slower than fp32 (docs/models.md). Read once per process."""
    isa_limit = os.environ.get("ONEDNN_MAX_CPU_ISA", "ALL").upper()
    return (
        bool(BF16_MATRIX_FLAGS & cpu_flags())
        and torch.backends.cpu.get_cpu_capability() in BF16_MATRIX_CAPABILITIES
        and torch.backends.mkldnn.is_available()
        and (isa_limit == "ALL" or "AMX" in isa_limit)
    )


def resolve_precision(precision: str, device: torch.device) -> torch.dtype | None:
    """The autocast dtype of the forward passes (None: fp32, no autocast).

    ``auto``: on a GPU bf16 where supported, else fp16; on a CPU fp32, even one with bf16 matrix
    units (:func:`cpu_has_bf16_matrix_units`), where bf16 runs 1.4-2x faster and moves the EEC
    records by little, but its numbers depend on the thread count (docs/models.md has the
    measurements and the rule). ``fp32``: None. ``bf16``: bf16 on any device, a CPU included.
    ``fp16``: GPUs only (refused on a CPU).
    """
    if precision not in PRECISIONS:
        raise InputError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision == "fp32":
        return None
    if device.type == "cuda":
        if precision == "fp16":
            return torch.float16
        return (
            torch.bfloat16
            if precision == "bf16" or torch.cuda.is_bf16_supported()
            else torch.float16
        )
    if precision == "bf16":
        return torch.bfloat16
    if precision == "fp16":
        raise InputError(f"precision fp16 runs on a GPU only; on {device.type} use bf16 or fp32")
    return None


def precision_name(precision: str, device: str | torch.device) -> str:
    """What ``precision`` runs as on ``device``: ``"fp32"``, ``"bf16"`` or ``"fp16"`` (records and
    run.json say it)."""
    return PRECISION_NAMES[resolve_precision(precision, torch.device(device))]


def run_length_sorted(
    sequences: Sequence[Sequence[int]],
    step: Callable[[torch.Tensor, torch.Tensor, list[int]], np.ndarray],
    *,
    batch_size: int,
    pad_id: int,
    device: torch.device,
    autocast_dtype: torch.dtype | None = None,
    stats: RunStats | None = None,
    progress: bool | None = None,
    description: str = "encoding",
    packed: bool = False,
) -> Iterator[tuple[list[int], np.ndarray]]:
    """Yield ``(rows, step(input_ids, attention_mask, rows))`` batch by batch until every sequence
    has run.

    ``rows`` are indices into ``sequences``; ``input_ids``/``attention_mask`` are right-padded
    ``(len(rows), longest)`` tensors on ``device`` (right padding keeps position 0 the first token,
    which [CLS] pooling reads). ``step`` runs the model and returns numpy rows. With ``packed=True``
    the batch is one row ``(1, total length)`` of the sequences back to back, and the second tensor
    holds their lengths ``(len(rows),)`` (:mod:`eval_harness.models.shared_prefix`).
    """
    stats = stats if stats is not None else RunStats()
    order = sorted(range(len(sequences)), key=lambda index: -len(sequences[index]))
    limit = max(1, int(batch_size))
    # progress=None: a bar for more than one batch, on a terminal only (tqdm's disable=None).
    disable = (not progress) if progress is not None else (None if len(order) > limit else True)
    bar = tqdm(total=len(order), desc=description, unit="text", disable=disable)
    start = 0
    with bar:
        while start < len(order):
            rows = order[start : start + limit]
            batch = [sequences[row] for row in rows]
            input_ids, attention_mask = (
                _pack(batch, device) if packed else _pad(batch, pad_id, device)
            )
            try:
                with torch.inference_mode(), autocast(device, autocast_dtype):
                    output = step(input_ids, attention_mask, rows)
            except (RuntimeError, torch.OutOfMemoryError) as error:
                if not is_out_of_memory(error):
                    raise
                del input_ids, attention_mask
                _free_memory(device)
                if len(rows) == 1:
                    raise XBiasError(
                        f"out of memory on a single text of {len(sequences[rows[0]])} tokens; "
                        "use a smaller max_length, a smaller model, or another device"
                    ) from None
                limit = max(1, len(rows) // 2)
                stats.oom_splits += 1
                continue
            stats.forward_passes += 1
            stats.sequences += len(rows)
            stats.padded_tokens += int(input_ids.numel())
            yield rows, output
            start += len(rows)
            bar.update(len(rows))


def _pad(
    batch: list[Sequence[int]], pad_id: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    longest = max(len(sequence) for sequence in batch)
    input_ids = np.full((len(batch), longest), pad_id, dtype=np.int64)
    attention_mask = np.zeros((len(batch), longest), dtype=np.int64)
    for index, sequence in enumerate(batch):
        input_ids[index, : len(sequence)] = sequence
        attention_mask[index, : len(sequence)] = 1
    return torch.from_numpy(input_ids).to(device), torch.from_numpy(attention_mask).to(device)


def _pack(batch: list[Sequence[int]], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    tokens = torch.tensor([[token for sequence in batch for token in sequence]], dtype=torch.long)
    lengths = torch.tensor([len(sequence) for sequence in batch], dtype=torch.long)
    return tokens.to(device), lengths.to(device)


def autocast(device: torch.device, dtype: torch.dtype | None):
    """``torch.autocast`` to ``dtype`` on ``device``'s type, or a no-op context for None (fp32)."""
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def _free_memory(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()


def max_sequence_length(tokenizer: Any, config: Any, requested: int | None) -> int:
    """``requested``, else the smaller of the tokenizer's and the position embeddings' limits (else
    512)."""
    if requested is not None:
        if not isinstance(requested, int) or requested < 2:
            raise InputError(f"max_length must be an integer >= 2, got {requested!r}")
        return requested
    limits = [
        getattr(tokenizer, "model_max_length", None),
        getattr(config, "max_position_embeddings", None),
    ]
    limits = [limit for limit in limits if isinstance(limit, int) and 0 < limit < 1_000_000]
    return min(limits) if limits else 512


def pad_token_id(tokenizer: Any) -> int:
    """The id used for padding: [PAD], else end-of-text, else [UNK] (padded positions are masked
    anyway)."""
    for attribute in ("pad_token_id", "eos_token_id", "unk_token_id"):
        value = getattr(tokenizer, attribute, None)
        if isinstance(value, int):
            return value
    return 0


def default_device() -> torch.device:
    """The first GPU when there is one, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
