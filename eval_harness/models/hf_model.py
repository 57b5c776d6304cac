"""What every wrapper of a loaded Hugging Face transformers model shares
(:class:`HuggingFaceModel`): its name, where it runs, how long a text may be, the autocast of its
forward passes, its pad id, its batches and its fingerprint.
:class:`~eval_harness.models.encoder.TransformerEncoder`,
:class:`~eval_harness.models.causal_lm.CausalLM` and
:class:`~eval_harness.models.classifier.ClassifierScorer` are built on it.

Device: a model spread over several devices by ``from_pretrained(device_map=...)`` (it has an
``hf_device_map``) stays where accelerate put it, and its inputs go where its input embeddings are;
any other model is moved to ``device`` (default: the first GPU, else the CPU).

Autocast: ``precision`` ``"auto"`` (bf16 on a GPU that supports it, else fp16; fp32 on a CPU),
``"bf16"`` (on any device, a CPU included), ``"fp16"`` (GPUs only) or ``"fp32"``
(:func:`~eval_harness.models.batching.resolve_precision`).
"""

import functools
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from eval_harness.errors import InputError
from eval_harness.models.batching import (
    RunStats,
    autocast,
    cpu_has_bf16_matrix_units,
    default_device,
    max_sequence_length,
    pad_token_id,
    resolve_precision,
    run_length_sorted,
)
from eval_harness.models.loading import model_fingerprint

logger = logging.getLogger(__name__)


@functools.cache
def _say_bf16_is_faster_here() -> None:
    """Once per process: this CPU has bf16 matrix units, where ``precision: bf16`` is faster
    (docs/models.md)."""
    logger.info(
        "this CPU multiplies bf16 matrices natively (AMX-BF16): precision: bf16 runs e5 "
        "~2x and the judge ~1.5x faster than the fp32 that auto keeps, its numbers a "
        "little apart and dependent on the thread count (docs/models.md, bf16 on a CPU)"
    )


def place_model(
    model: torch.nn.Module, device: str | torch.device | None
) -> tuple[torch.nn.Module, torch.device]:
    """``(model in eval mode, the device its inputs go to)``: a model with an ``hf_device_map``
    stays where it is and takes inputs on its input embeddings' device; any other is moved to
    ``device`` (default: see :func:`~eval_harness.models.batching.default_device`)."""
    if getattr(model, "hf_device_map", None):
        return model.eval(), model.get_input_embeddings().weight.device
    device = torch.device(device) if device is not None else default_device()
    return model.to(device).eval(), device


class HuggingFaceModel:
    """A loaded transformers model and its tokenizer, placed and configured once (see the module
    docstring).

    Attributes:
        name: the id or path it was loaded from (else the config's ``_name_or_path``, else the class
        name). model, tokenizer, folder: the model (in eval mode), its tokenizer, the local folder
        of its files.
        device: where inputs go. batch_size: texts per forward pass. max_length: tokens per text.
        precision, autocast_dtype: the precision asked for and the autocast dtype it gives (None:
        fp32).
        pad_id: the id batches are padded with. stats: counters of the inference work.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any,
        *,
        name: str | None = None,
        folder: Path | None = None,
        device: str | torch.device | None = None,
        batch_size: int = 32,
        max_length: int | None = None,
        precision: str = "auto",
        progress: bool | None = None,
    ):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.name = name or getattr(model.config, "_name_or_path", "") or type(model).__name__
        self.tokenizer = tokenizer
        self.folder = folder
        self.model, self.device = place_model(model, device)
        self.batch_size = batch_size
        self.max_length = max_sequence_length(tokenizer, model.config, max_length)
        self.precision = precision
        self.autocast_dtype = resolve_precision(precision, self.device)
        if precision == "auto" and self.device.type == "cpu" and cpu_has_bf16_matrix_units():
            _say_bf16_is_faster_here()
        self.progress = progress
        self.pad_id = pad_token_id(tokenizer)
        self.stats = RunStats()

    def autocast(self):
        """The autocast context of this model's forward passes (a no-op in fp32)."""
        return autocast(self.device, self.autocast_dtype)

    def content_fingerprint(self, **extra: Any) -> str:
        """sha256 of the model's config, weights and tokenizer, and ``extra`` (what else changes its
        numbers)."""
        return model_fingerprint(self.model, self.tokenizer, self.folder, **extra)

    def batches(
        self,
        sequences: Sequence[Sequence[int]],
        step: Callable[[torch.Tensor, torch.Tensor, list[int]], Any],
        description: str = "encoding",
        *,
        batch_size: int | None = None,
        packed: bool = False,
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        """:func:`~eval_harness.models.batching.run_length_sorted` with this model's pad id, device,
        autocast, counters and progress setting, and its batch size unless ``batch_size`` is given
        (``packed``: one row per batch, see there)."""
        return run_length_sorted(
            sequences,
            step,
            batch_size=batch_size or self.batch_size,
            pad_id=self.pad_id,
            device=self.device,
            autocast_dtype=self.autocast_dtype,
            stats=self.stats,
            progress=self.progress,
            description=description,
            packed=packed,
        )
