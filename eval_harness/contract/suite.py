"""The plug-in contract between the harness and a bias method (a *suite*).

A suite turns (model, language) into *units* — the smallest pieces of work whose results
are written, resumed and sharded on their own (e.g. one EEC config x one emotion, or one
WEAT test) — and computes each unit's records. The harness drives it in two steps per
*task* (one model x suite x language x seed):

1. ``prepare(task, ctx)`` — the shared, expensive part (load the model, encode texts, train
   regressors). Every accelerate rank calls it together, so it may shard texts with
   ``ctx.dist.map``; it sees only the task's unfinished units.
2. ``evaluate(unit, prepared, ctx)`` — one unit's statistics, rank-local and pure: the
   harness shards units over ranks, gathers the records and writes them on rank 0.

Records are flat dicts with at least ``metric`` and ``value`` (plus ``term``, ``std_err``,
``p_value`` and any extra fields); the harness adds the unit's ``model, suite, language,
dataset, config, emotion, test, seed``.

A suite reaches models only through ``ctx.models`` (:class:`ModelProvider`): it never
imports the harness's internals or the model adapters. This package,
:mod:`eval_harness.contract`, is the only part of the harness a suite imports; it imports
nothing of the runner's machinery (``tests/architecture`` checks both, statically and in a
fresh interpreter). Suites are registered in :mod:`eval_harness.suites`.
"""

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from ..errors import InputError
from .capabilities import EmotionScorer, StaticSpace, WordEmbedder

if TYPE_CHECKING:
    from .records import RecordSchema
    from .samples import SampleSchema


# ``shared(key, factory)``: ``factory()`` once per run for ``key`` (a SuiteContext's ``shared``).
Shared = Callable[[tuple, Callable[[], Any]], Any]


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
        parts = [
            self.model,
            self.suite,
            self.language,
            self.dataset,
            self.config,
            self.emotion,
            self.test,
        ]
        text = "__".join(p for p in parts if p is not None) + f"__seed{self.seed}"
        return re.sub(r"[^A-Za-z0-9._-]+", "-", text)

    def fields(self) -> dict:
        return asdict(self)

    def part(self, name: Literal["config", "emotion", "test"]) -> str:
        """The key part ``name`` of a unit whose suite's plan always sets it (the EEC's ``config``
        and ``emotion``, XWEAT's ``test``): a ``str`` where the field may be None.

        Raises:
            InputError: the unit has no such part (a unit its suite did not plan).
        """
        value = getattr(self, name)
        if value is None:
            raise InputError(f"unit {self.id} of suite {self.suite!r} has no {name}")
        return value


@dataclass(frozen=True)
class Task:
    """The units of one model x suite x language x seed that still have to run.

    ``model`` is the config's model entry (name, type, id/path, languages, options); a suite
    reads ``model.name`` and ``model.type`` and passes ``model`` on to ``ctx.models``.
    """

    model: Any
    suite: str
    language: str
    seed: int
    options: Mapping[str, Any]
    units: tuple[Unit, ...]


def unit_rng(seed: int, unit_id: str) -> np.random.Generator:
    """A generator seeded by (run seed, unit id): the same draws whichever rank runs the unit, and
    in what order."""
    digest = hashlib.sha256(unit_id.encode()).digest()
    return np.random.default_rng([seed, int.from_bytes(digest[:8], "little")])


class ModelProvider(Protocol):
    """The models of a run, as a suite gets them (``ctx.models``).

    Every method is collective: all ranks call it together with the same arguments, and
    what it returns shards its heavy work (``encode``, ``predict``) over the ranks.
    """

    def word_embedder(self, model: Any) -> WordEmbedder:
        """The config model's word vectors (a model with the ``word_vectors`` capability); an
        encoder's is also a :class:`~.capabilities.ModalWordEmbedder`,
        :class:`~.capabilities.SentenceEncoder` and, with ``context_vectors``, a
        :class:`~.capabilities.ContextEmbedder`."""

    def static_vectors(self, source: str) -> StaticSpace:
        """Static word vectors from a file or a packaged name (e.g. ``"glove"``), not tied to a
        config model."""

    def emotion_regressor(
        self, model: Any, language: str, emotion: str, seed: int
    ) -> EmotionScorer:
        """The config model's emotion-intensity regressor for (language, emotion): loaded when a
        verified copy is cached, else trained now. ``predict(texts)`` scores texts; ``scores`` holds
        its SemEval quality. A model with the ``judge`` capability gives a
        :class:`~.capabilities.Judge`."""


class SuiteContext(Protocol):
    """What ``prepare``/``evaluate`` receive: the process group, the models, shared objects and
    progress."""

    dist: Any  # rank, world_size, is_main, map(function, items, chunk_size, desc), barrier()
    models: ModelProvider
    show_progress: bool

    def shared(self, key: tuple, factory: Callable[[], Any]) -> Any:
        """``factory()`` once per run for ``key``: freed with the model's other objects after its
        last task when the key starts with the model's name; kept for the whole run when it starts
        with None (a dataset every model reads)."""

    def status(self, message: str) -> None:
        """Say what a long step is doing ("anger: training the regressor"), beside the run's
        progress."""


class Suite:
    """Base class of suites. Subclasses set the class attributes and implement
    plan/prepare/evaluate.

    Attributes:
        name: registry name (``--suite NAME``).
        description: one line for ``xbias list``.
        languages: languages the suite can run.
        requires: what it needs of a model (``"emotion_model"``, ``"word_vectors"``,
            ``"context_vectors"``: a capability of the model's type); other models are skipped with
            a note.
        model_types: if set, only models of these types (a further restriction; default: any type
            that has what ``requires`` names).
        options: settings a config may give (``suites: {NAME: {option: value}}``) with their
        defaults.
        datasets: the project datasets it reads (built once, by rank 0, before any task runs).
        records: the schema of the records ``evaluate`` returns (:class:`~.records.RecordSchema`),
            which the harness checks every record against; None: unchecked.
        report_section: the method's section of ``xbias report``, a ``"module:object"`` reference to
            a :class:`~eval_harness.report.kit.method_section.ReportSection` (imported only by the
            report); None: the report shows the suite's records in its generic "Other results"
            table.
        limit_option: the option (one of ``options``, a whole number, 0 for none) that ``xbias run
            --limit N`` sets to N for a quick look: the EEC's ``sample``, N sentences per template x
            group x gender cell;
            None: the suite has nothing to limit and runs whole.
        samples: the columns of the per-sentence (per-word) numbers a unit keeps beside its unit
            file (:class:`~.samples.SampleSchema`; :meth:`unit_samples` gives them); None: the suite
            keeps none.
        trains: whether the suite trains the model it evaluates (the EEC's emotion regressor), so
            that its numbers depend on the training seed; a config without ``seeds:`` then runs it
            with several seeds (``runner.config.DEFAULT_SEEDS``) when the model's type trains, and
            pooling puts the between-seed variance into the standard errors.
    """

    name: str = ""
    description: str = ""
    languages: tuple[str, ...] = ()
    requires: str = "emotion_model"
    model_types: tuple[str, ...] | None = None
    options: Mapping[str, Any] = {}
    datasets: tuple[str, ...] = ()
    records: "RecordSchema | None" = None
    report_section: str | None = None
    limit_option: str | None = None
    samples: "SampleSchema | None" = None
    trains: bool = False

    def expand_languages(self, languages: Sequence[str], options: Mapping[str, Any]) -> list[str]:
        """The task languages for the configured ``languages``; a suite may add pairs such as
        ``"en-de"`` (targets in one language, attributes in another). Default: the languages
        themselves."""
        return list(languages)

    def validate_options(self, options: Mapping[str, Any]) -> None:
        """Check option values beyond their types (ranges, names) when the config is read, before
        anything runs; raise :class:`~eval_harness.errors.ConfigError`. Default: nothing more to
        check."""

    def plan(self, model: Any, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        """The units of ``model`` on ``language`` (one of :meth:`expand_languages`)."""
        raise NotImplementedError

    def prepare(self, task: Task, ctx: SuiteContext) -> Any:
        """Shared work for ``task.units``; called on every rank together. Default: nothing."""
        return None

    def evaluate(self, unit: Unit, prepared: Any, ctx: SuiteContext) -> list[dict]:
        raise NotImplementedError

    def keeps_samples(self, unit: Unit) -> bool:
        """Whether ``unit`` keeps samples (then a unit file without them is not a finished unit).
        Default: every unit of a suite that declares :attr:`samples`."""
        return self.samples is not None

    def unit_samples(
        self, unit: Unit, prepared: Any, ctx: SuiteContext
    ) -> Mapping[str, Sequence] | None:
        """The samples of ``unit`` (after :meth:`evaluate`, on the rank that evaluated it): column
        name -> one value per row, every column :attr:`samples` declares but the unit's ``model``
        and ``seed``, which the harness adds; None for a unit that keeps none
        (:meth:`keeps_samples`). Default: None."""
        return None

    def texts_to_score(self, task: Task, shared: Shared | None = None) -> Sequence[str] | None:
        """The texts ``task``'s units have a model score or encode (read from the datasets, no model
        loaded), for the plan a run prints before it starts; None when the suite does not say.
        ``shared``: the run's :meth:`SuiteContext.shared`, so that what the count reads the run does
        not read again. Default: None."""
        return None

    def headline(self, records: Sequence[dict]) -> dict | None:
        """The record the end-of-run summary shows for a unit. Default: the first."""
        return records[0] if records else None
