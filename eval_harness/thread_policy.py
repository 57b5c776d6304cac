"""The thread policy of every xbias process that runs models: ``xbias run`` and every script under
``bench/``.

OpenMP's default lets an idle worker thread spin (busy-wait) before it sleeps. On cores shared with
other jobs or with accelerate ranks, the spinning threads take the cores that the working ones need:
on a shared 2-core machine one 66-token SmolLM2 forward took 5.7 s by default and 0.46 s with the
passive policy, encoding and head training were 10-40x slower, and ``bench/encode.py`` measured 1.03
of its ceiling one way and 0.38 the other. So xbias runs with ``OMP_WAIT_POLICY=PASSIVE`` (idle
threads sleep) unless the environment already sets a policy (``OMP_WAIT_POLICY=ACTIVE`` to
override).

OpenMP reads its environment once, when torch loads it: call :func:`apply_thread_policy` before
``import torch``. The policy reaches child processes (accelerate ranks, a bench's ``xbias run``)
through the environment.
"""

import os
import sys

THREAD_POLICY = {"OMP_WAIT_POLICY": "PASSIVE"}


def apply_thread_policy() -> bool:
    """Set :data:`THREAD_POLICY` in ``os.environ`` where the environment does not set it already.

    Returns:
        True when it can still take effect in this process (torch not imported yet); False when
        torch is loaded already (its OpenMP runtime has read the environment; children still get
        it).
    """
    for name, value in THREAD_POLICY.items():
        os.environ.setdefault(name, value)
    return "torch" not in sys.modules


def thread_policy_summary() -> str:
    """The policy in force, for a bench's header: ``OMP_WAIT_POLICY=PASSIVE``."""
    return ", ".join(f"{name}={os.environ.get(name, 'unset')}" for name in THREAD_POLICY)
