"""Numbers that do not depend on how a run is laid out: threads per process, number of processes.

A run's features are cut into the same chunks and batches whatever the number of ranks
(``runner.provider.ENCODE_CHUNK``), so only the thread count can still change a float32 result.
On a CPU it does, in two places (measured on the PyPI torch 2.13 CPU wheel, Intel MKL 2024.2;
docs/reproducibility.md has the whole finding):

- Intel MKL's sgemm splits some small products between threads in another order: a 7 x 384 by
  384 x 1536 product (one short text alone in its batch) differs by up to 3e-5 between 1 and 2
  threads, a MiniLM sentence vector by 6.9e-7. MKL's strict *conditional numerical
  reproducibility* (``MKL_CBWR=AUTO,STRICT``) makes ``?gemm`` give the same bits for any thread
  count. MKL reads the variable at its first call, so :func:`request_thread_independent_blas`
  sets it (unless it is set already) when :mod:`eval_harness.models` is imported, before any model
  runs. A process that ran an MKL product before importing xbias keeps its mode: set
  ``MKL_CBWR=AUTO,STRICT`` in its environment instead.
- The MLP head's training still differs in other kernels (the last, partial mini-batch: 5 rows),
  by 1e-8 in the weights after one epoch; early stopping on validation r then amplifies that into
  a different chosen epoch. Heads therefore train and predict under :func:`single_thread`: one
  intra-op thread, whatever the process's setting (a small network gains nothing from more).
- The ridge head's SVD and products run in numpy's BLAS (OpenBLAS), which also splits its sums by
  thread: they run under :func:`eval_harness.stats.blas.single_blas_thread` (a few hundred columns
  need no second thread either).
"""

import contextlib
import os
from collections.abc import Iterator

MKL_REPRODUCIBILITY = ("MKL_CBWR", "AUTO,STRICT")


def request_thread_independent_blas() -> None:
    """Ask Intel MKL for results that do not depend on the thread count (a user's own ``MKL_CBWR``
    wins)."""
    name, value = MKL_REPRODUCIBILITY
    os.environ.setdefault(name, value)


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """torch's intra-op thread count set to 1 inside the block, and restored after it."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
