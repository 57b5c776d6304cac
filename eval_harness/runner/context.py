"""The run context a suite receives (:class:`~eval_harness.contract.SuiteContext`): the process
group, the run's models, shared objects and progress."""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .distributed import Distributed
from .provider import RunModels

logger = logging.getLogger(__name__)


@dataclass
class RunContext:
    """Per-run services for suites.

    Attributes:
        dist: the accelerate process group (``dist.map`` shards texts, ``dist.is_main`` is rank 0).
        cache_dir: root of the caches (embeddings, trained regressors), shared by all ranks.
        progress: whether to show progress bars (rank 0 only).
        models: the config's models (:class:`~eval_harness.runner.provider.RunModels`).
    """

    dist: Distributed
    cache_dir: Path
    progress: bool = True
    _shared: dict = field(default_factory=dict, repr=False)
    # model name -> what to load it from (a Hub model's pinned snapshot folder), and what the run
    # pinned.
    sources: dict = field(default_factory=dict, repr=False)
    provenance: dict = field(default_factory=lambda: {"models": {}, "datasets": {}}, repr=False)
    # The emotions the run's units score (None: the plan names none): the SemEval dimensions its
    # probes encode.
    emotions: tuple[str, ...] | None = None
    # Where status() shows its message (the run's unit bar); None: the log only.
    status_line: Callable[[str], None] | None = field(default=None, repr=False)

    def __post_init__(self):
        self.models = RunModels(self)

    def status(self, message: str) -> None:
        """Say what a long step is doing (beside the unit bar, and in the log at DEBUG,
        ``--verbose``, on rank 0)."""
        if not self.dist.is_main:
            return
        logger.debug(message)
        if self.status_line is not None:
            self.status_line(message)

    @property
    def show_progress(self) -> bool:
        return self.progress and self.dist.is_main

    def shared(self, key: tuple, factory: Callable[[], Any]) -> Any:
        """``factory()`` once per run for ``key`` (e.g. a loaded model reused by several suites and
        languages)."""
        if key not in self._shared:
            self._shared[key] = factory()
        return self._shared[key]

    def release(self, prefix: tuple) -> None:
        """Forget shared objects whose key starts with ``prefix`` (free a model once its tasks are
        done)."""
        for key in [k for k in self._shared if k[: len(prefix)] == prefix]:
            del self._shared[key]
