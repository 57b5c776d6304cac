"""Suites: what a sweep evaluates, and the registry ``xbias run`` finds them in.

A suite turns (model, language) into *units* — the smallest pieces of work whose
results are written, resumed and sharded on their own (e.g. one EEC config x one
emotion, or one WEAT test) — and computes each unit's records. Adding a suite is
one module that defines ``SUITE = MySuite()`` and one entry in :data:`BUILTIN_SUITES`
(or a :func:`register_suite` call, as the tests do).

The harness drives a suite in two steps per *task* (one model x suite x language x seed):

1. ``prepare(task, ctx)`` — the shared, expensive part (load the model, encode
   texts, train regressors). Every accelerate rank calls it together, so it may
   shard texts with ``ctx.dist.map``; it sees only the task's unfinished units.
2. ``evaluate(unit, prepared, ctx)`` — one unit's statistics, rank-local and pure:
   the harness shards units over ranks, gathers the records and writes them on rank 0.

Records are flat dicts with at least ``metric`` and ``value`` (plus ``term``,
``std_err``, ``p_value`` and any extra fields); the harness adds the unit's
``model, suite, language, dataset, config, emotion, test, seed``.
"""

import importlib
import importlib.util
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..runner.config import ModelSpec
    from ..runner.context import RunContext

# name -> module defining SUITE (imported on first use, so `xbias list` stays light).
BUILTIN_SUITES = {
    "eec": "eval_harness.suites.eec",
    "xweat": "eval_harness.suites.xweat",
    "gender_space": "eval_harness.suites.gender_space",
}
_REGISTERED: dict[str, "Suite"] = {}


@dataclass(frozen=True)
class UnitKey:
    """What a suite's plan names inside one (model, language): dataset, config, emotion and test."""

    dataset: str
    config: str | None = None
    emotion: str | None = None
    test: str | None = None


@dataclass(frozen=True)
class Unit:
    """One unit of work: model x suite x language x dataset config x emotion/test, for one seed."""

    model: str
    suite: str
    language: str
    dataset: str
    config: str | None = None
    emotion: str | None = None
    test: str | None = None
    seed: int = 0

    @property
    def id(self) -> str:
        """File-name-safe identity: the non-empty key parts joined by ``__``."""
        parts = [self.model, self.suite, self.language, self.dataset, self.config, self.emotion, self.test]
        text = "__".join(p for p in parts if p is not None) + f"__seed{self.seed}"
        return re.sub(r"[^A-Za-z0-9._-]+", "-", text)

    def fields(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Task:
    """The units of one model x suite x language x seed that still have to run."""

    model: "ModelSpec"
    suite: str
    language: str
    seed: int
    options: Mapping[str, Any]
    units: tuple[Unit, ...]


class Suite:
    """Base class of suites. Subclasses set the class attributes and implement plan/prepare/evaluate.

    Attributes:
        name: registry name (``--suite NAME``).
        description: one line for ``xbias list``.
        languages: languages the suite can run.
        model_types: model types it can evaluate; other models are skipped with a note.
        options: settings a config may give (``suites: {NAME: {option: value}}``) with their defaults.
        datasets: the project datasets it reads (built once, by rank 0, before any task runs).
    """

    name: str = ""
    description: str = ""
    languages: tuple[str, ...] = ()
    model_types: tuple[str, ...] = ()
    options: Mapping[str, Any] = {}
    datasets: tuple[str, ...] = ()

    def expand_languages(self, languages: Sequence[str], options: Mapping[str, Any]) -> list[str]:
        """The task languages for the configured ``languages``; a suite may add pairs such as ``"en-de"``
        (targets in one language, attributes in another). Default: the languages themselves."""
        return list(languages)

    def plan(self, model: "ModelSpec", language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        """The units of ``model`` on ``language`` (one of :meth:`expand_languages`)."""
        raise NotImplementedError

    def prepare(self, task: Task, ctx: "RunContext") -> Any:
        """Shared work for ``task.units``; called on every rank together. Default: nothing."""
        return None

    def evaluate(self, unit: Unit, prepared: Any, ctx: "RunContext") -> list[dict]:
        raise NotImplementedError

    def headline(self, records: Sequence[dict]) -> dict | None:
        """The record the end-of-run summary shows for a unit. Default: the first."""
        return records[0] if records else None


def register_suite(suite: Suite, replace: bool = False) -> Suite:
    """Add a suite instance to the registry under ``suite.name``; returns it (usable as a decorator on instances)."""
    if not suite.name:
        raise ConfigError(f"suite {suite!r} has no name")
    if not replace and (suite.name in _REGISTERED or suite.name in BUILTIN_SUITES):
        raise ConfigError(f"a suite named {suite.name!r} is already registered (pass replace=True to override)")
    _REGISTERED[suite.name] = suite
    return suite


def unregister_suite(name: str) -> None:
    _REGISTERED.pop(name, None)


def suite_names() -> list[str]:
    """Registered suites, and the built-in ones whose module is present."""
    present = [name for name, module in BUILTIN_SUITES.items() if importlib.util.find_spec(module) is not None]
    return sorted({*present, *_REGISTERED})


def get_suite(name: str) -> Suite:
    """The registered suite called ``name``.

    Raises:
        ConfigError: no suite has that name (the message lists the suites).
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in suite_names():
        raise ConfigError(f"unknown suite {name!r}; suites: {', '.join(suite_names())}")
    suite = importlib.import_module(BUILTIN_SUITES[name]).SUITE
    _REGISTERED[name] = suite
    return suite
