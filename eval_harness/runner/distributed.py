"""Sharding work over ``accelerate`` processes (one process when not launched).

Launched with ``accelerate launch`` every rank runs the same sweep; the harness
splits units (and suites split texts) with ``split_between_processes`` and
collects them with ``gather_for_metrics``. Both keep order: rank r gets the r-th
contiguous block and the gathered list is the blocks in rank order, so a
gathered result equals the single-process one.

The model is never passed through ``prepare()`` (evaluation only; a prepared model
can abort at exit on CPU, see docs/environment.md).
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tqdm.auto import tqdm


class Distributed:
    """The accelerate process group as the harness uses it: rank, world size, map and gather."""

    def __init__(self):
        from accelerate import Accelerator

        self.accelerator = Accelerator()

    @property
    def rank(self) -> int:
        return self.accelerator.process_index

    @property
    def world_size(self) -> int:
        return self.accelerator.num_processes

    @property
    def is_main(self) -> bool:
        return self.accelerator.is_main_process

    def barrier(self) -> None:
        self.accelerator.wait_for_everyone()

    def close(self) -> None:
        """Wait for every rank, then tear the process group down.

        Left to interpreter exit, gloo's threads are destroyed while still joinable and a rank can
        abort ("terminate called without an active exception") after correct output.
        """
        if self.world_size > 1:
            self.barrier()
            self.accelerator.end_training()

    def gather(self, items: list) -> list:
        """Concatenate every rank's list, in rank order (every rank gets the whole list)."""
        if self.world_size == 1:
            return list(items)
        return list(self.accelerator.gather_for_metrics(list(items), use_gather_object=True))

    def split(self, items: Sequence):
        """Context manager giving this rank its contiguous block of ``items``."""
        return self.accelerator.split_between_processes(list(items))

    def map(
        self,
        function: Callable[[list], Any],
        items: Sequence,
        chunk_size: int = 1,
        desc: str | None = None,
    ) -> list | np.ndarray:
        """``function`` over ``items`` in chunks, the chunks shared between ranks; the whole result
        on every rank.

        ``items`` is cut into consecutive chunks of ``chunk_size`` *before* sharding, so each
        chunk (e.g. an encoder batch) is the same whatever the number of ranks, and so are
        its outputs. ``function`` takes a list and returns a list or an array with one entry
        (row) per item; the result is a list, or one array when ``function`` returns arrays.
        With ``desc``, rank 0 shows a progress bar over its share of the items.
        """
        items = list(items)
        chunks = [items[i : i + chunk_size] for i in range(0, len(items), chunk_size)]
        with self.split(chunks) as mine:
            bar = tqdm(
                total=sum(map(len, mine)),
                desc=desc,
                unit="item",
                leave=False,
                disable=desc is None or not self.is_main,
            )
            outputs = []
            for chunk in mine:
                outputs.append(function(chunk))
                bar.update(len(chunk))
            bar.close()
        outputs = self.gather(outputs)
        if outputs and all(isinstance(o, np.ndarray) for o in outputs):
            return np.concatenate(outputs, axis=0)
        return [row for output in outputs for row in output]
