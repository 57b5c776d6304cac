"""numpy's BLAS on one thread: small products whose bits would otherwise depend on the thread count.

OpenBLAS (and MKL without its strict mode) splits a product's sums between threads in an order that
depends on how many there are, so a ridge solve or a normal-equations fit gave other bits on 1 and 2
threads (docs/reproducibility.md). The matrices xbias's statistics solve have at most a few hundred
columns, which a second thread does not speed up either (on shared cores it slows them down many
times over).
"""

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

# threadpoolctl's controller of the loaded BLAS libraries, and len(sys.modules) when it was made.
_controller: "tuple[int, ThreadpoolController] | None" = None


def _blas_controller() -> "ThreadpoolController":
    """The BLAS libraries loaded in this process, found again only after a new import.

    Finding them reads /proc/self/maps, which took 2 ms a call (more than the small solves it
    guards, 60 % of the planner's simulation time); a BLAS library is loaded by importing a module,
    so the module count tells when to look again.
    """
    global _controller
    if _controller is None or _controller[0] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        _controller = (len(sys.modules), ThreadpoolController())
    return _controller[1]


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
    with _blas_controller().limit(limits=1, user_api="blas"):
        yield
