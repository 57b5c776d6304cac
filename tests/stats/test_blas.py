"""stats.blas.single_blas_thread: one BLAS thread in the block, with the libraries found once, and
found again after an import that may have loaded another."""

import os
import subprocess
import sys

from eval_harness.stats import blas

# In a fresh interpreter: the block used before scipy is imported, then after scipy.linalg loads
# its own OpenBLAS (the wheels bundle one apart from numpy's), every BLAS pool must be at 1 thread.
LATE_BLAS = """
import numpy as np
from threadpoolctl import threadpool_info
from eval_harness.stats.blas import single_blas_thread

with single_blas_thread():
    np.ones((4, 4)) @ np.ones((4, 4))
before = {pool["filepath"] for pool in threadpool_info() if pool["user_api"] == "blas"}
import scipy.linalg  # noqa: E402, F401

with single_blas_thread():
    pools = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
after = {pool["filepath"] for pool in pools}
assert after - before, ("scipy brought no BLAS of its own", before, after)
assert {pool["num_threads"] for pool in pools} == {1}, pools
print("ok")
"""


def test_the_libraries_are_found_once_while_no_module_is_imported():
    with blas.single_blas_thread():
        pass
    first = blas._blas_controller()
    with blas.single_blas_thread():
        pass
    assert blas._blas_controller() is first


def test_a_blas_loaded_by_a_later_import_is_held_to_one_thread_too():
    environment = {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", LATE_BLAS],
        capture_output=True,
        text=True,
        env={**os.environ, **environment},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
