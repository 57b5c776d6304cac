"""numpy's BLAS on one thread: small products whose bits would otherwise depend on the thread count.

OpenBLAS (and MKL without its strict mode) splits a product's sums between threads in an order that
depends on how many there are, so a ridge solve or a normal-equations fit gave other bits on 1 and 2
threads (docs/reproducibility.md). The matrices xbias's statistics solve have at most a few hundred
columns, which a second thread does not speed up either (on shared cores it slows them down many
times over).
"""

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run numpy's BLAS and LAPACK (OpenBLAS, MKL) on one thread in the block, restored after it.

    Through threadpoolctl, a scikit-learn dependency.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> from eval_harness.stats.blas import single_blas_thread
    >>> with single_blas_thread():
    ...     pools = threadpool_info()
    >>> threads = {pool["num_threads"] for pool in pools if pool["user_api"] == "blas"}
    >>> threads
    {1}
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
