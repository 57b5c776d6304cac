"""``run_sweep``: run every unit of a config, sharded over accelerate ranks, resumable, written unit
by unit.

First everything that can be checked is checked (the config was validated when read; the plan and
the models' sources here), before anything is written or loaded. Then rank 0 takes the run folder's
lock, checks whose folder it is, and finds the finished units (:mod:`eval_harness.runner.store`);
the other ranks wait for its answer (or its error, which every rank raises). For each task (model x
suite x language x seed) with unfinished units, every rank calls ``suite.prepare`` together (suites
shard texts with ``ctx.dist.map``); then the units are handed out in rounds of one unit per rank
(``split_between_processes``), their records gathered (``gather_for_metrics``) and written by rank 0
as soon as the round ends, so an interrupted run keeps every finished unit and a re-run skips them
(*resume*). Rank 0 appends each unit's records to ``results.jsonl`` as it writes the unit (so a
report of a long run shows every finished unit); the file is rewritten whole from the unit files
when the run starts (the units it resumes) and when it ends, however it ends (also after an error),
and ``run.json`` then says how many units are on disk, how the run ended, and the record count and
sha256 of that ``results.jsonl``.

The bookkeeping is linear in the units: a unit file is read and verified once when the run starts
and written once; the end reuses the records the run holds (reading only a unit whose file a signal
wrote after its bookkeeping), and the summary table reads no file (``bench/bookkeeping.py`` measures
it).
"""

import logging
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..contract import Suite, Unit, make_record
from ..contract.records import TESTED_POOLINGS
from ..contract.samples import samples_bytes, samples_entry
from ..data.catalog import SEMEVAL_DIMENSIONS
from ..data.emotion_splits import SemEvalSplits
from ..errors import ConfigError, InputError, XBiasError
from ..io import folder_problem, write_problem
from ..models.packaged import pin_source
from ..models.registry import model_type
from ..suites import get_suite
from .config import RunConfig
from .context import RunContext
from .distributed import Distributed
from .library_bars import library_progress_bars
from .plan import Plan, plan_units, work_plan
from .provider import EMBEDDING_CACHE, REGRESSOR_CACHE, RUN_SEMEVAL
from .store import DISK_FULL, RunFolderError, RunLock, RunStore

logger = logging.getLogger(__name__)


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by a signal (Ctrl-C; SIGTERM too under ``xbias run``). Its finished units are
    on disk and ``run.json`` says ``interrupted``; the message says how many and how to resume.
    ``signum``: the signal."""

    def __init__(self, message: str = "interrupted", signum: int = signal.SIGINT):
        super().__init__(message)
        self.signum = signum


@dataclass
class _Saved:
    """The units on disk: those finished before this run started (``resumed``) and those it wrote
    (``written``); on rank 0 ``payloads`` holds every one of their unit files' content, by id."""

    resumed: int
    written: list[str] = field(default_factory=list)
    payloads: dict[str, dict] = field(default_factory=dict)

    def count(self) -> int:
        return self.resumed + len(self.written)


@dataclass(frozen=True)
class RunSummary:
    """What a run did: unit counts, where the results are, and the end-of-run table (rank 0's;
    ``is_main`` is False on the other ranks of an accelerate launch, which print nothing)."""

    out: Path
    planned: int
    resumed: int
    computed: int
    records: int
    seconds: float
    num_processes: int
    skipped: tuple[str, ...]
    table: str
    is_main: bool = True

    def to_dict(self) -> dict:
        return {
            "out": str(self.out),
            "planned": self.planned,
            "resumed": self.resumed,
            "computed": self.computed,
            "records": self.records,
            "seconds": round(self.seconds, 2),
            "num_processes": self.num_processes,
            "skipped": list(self.skipped),
        }

    def summary(self) -> str:
        lines = [self.table, ""] if self.table else []
        lines.append(
            f"units: {self.planned} planned, {self.resumed} already finished (resumed), "
            f"{self.computed} computed on {self.num_processes} process(es) in {self.seconds:.1f} s"
        )
        lines += [f"skipped: {note}" for note in self.skipped]
        lines.append(f"results: {self.out / 'results.jsonl'} ({self.records} records)")
        return "\n".join(lines)


def run_sweep(
    config: RunConfig,
    out: str | Path,
    force: bool = False,
    cache_dir: str | Path | None = None,
    progress: bool = True,
    dist: Distributed | None = None,
) -> RunSummary:
    """Run ``config`` into the run folder ``out`` (see :mod:`eval_harness.runner.store`).

    Args:
        config: a validated config (:func:`~eval_harness.runner.config.load_config`).
        out: the run folder; re-running into it resumes (finished units are skipped).
        force: recompute everything, replacing results already in ``out`` (even another run's).
        cache_dir: embeddings / trained-regressor cache (default ``out/cache``).
        progress: show progress bars (on rank 0).
        dist: the process group (default: from ``accelerate``'s environment).

    Raises:
        ConfigError: ``out`` holds a different run's results and ``force`` is not set.
        ModelLoadError: a model cannot be loaded here (checked before anything is written).
        RunFolderError: ``out`` is not a folder one can write, another run holds it, or the disk is
        full.
        RunInterrupted: a signal stopped the run (finished units are kept).
    """
    with library_progress_bars(shown=progress):
        return _run_sweep(config, out, force, cache_dir, progress, dist)


def _run_sweep(
    config: RunConfig,
    out: str | Path,
    force: bool,
    cache_dir: str | Path | None,
    progress: bool,
    dist: Distributed | None,
) -> RunSummary:
    """:func:`run_sweep`'s work, with the libraries' own progress bars already set as ``progress``
    says."""
    started = time.time()
    plan = plan_units(config)
    _check_before_writing(config, out, cache_dir)
    # Every model pinned before anything is written: a Hub model to the commit its revision resolves
    # to now.
    pins = {
        model.name: pin_source(
            model.source,
            model.name,
            is_path=model.path is not None,
            revision=model.revision,
            folder=model_type(model.type).loads_folder,
            with_code=model.trust_remote_code,
        )
        for model in config.models
        if model.source is not None
    }
    config = replace(config, pinned={name: pin["commit"] for name, pin in pins.items()})
    from ..models.factory import with_default_options

    for model in config.models:
        if (
            model.name in pins
        ):  # the settings it runs with: its own (default_options) under the config's
            pins[model.name]["options"] = with_default_options(
                model.type, pins[model.name]["load"], model.options
            )
    provenance = {"models": pins, "datasets": _dataset_fingerprints(plan)}
    store = RunStore(out, config)
    store.make_folder()  # every rank (it is idempotent): a bad --out fails here, before torch loads
    owns_dist = dist is None
    dist = dist or Distributed()
    provenance["precisions"] = _precisions(config, str(dist.accelerator.device))
    settings = {name: pin["options"] for name, pin in pins.items() if "options" in pin}
    lock, finished = _take_folder(
        store, config, plan, force, dist, provenance["precisions"], settings, cache_dir is None
    )
    # The run's shared objects, begun here so that the plan's count and the run read each dataset
    # once.
    shared: dict = {RUN_SEMEVAL: SemEvalSplits(_run_emotions(plan))}
    if dist.is_main:
        _log_work_plan(config, plan, {name: pin["load"] for name, pin in pins.items()}, shared)
    try:
        summary = _run_plan(
            config,
            plan,
            store,
            dist,
            finished,
            cache_dir,
            progress,
            started,
            provenance,
            shared=shared,
        )
    finally:
        if lock is not None:
            lock.release()
    if owns_dist:
        dist.close()
    return summary


def write_run(
    config: RunConfig,
    plan: Plan,
    out: str | Path,
    models: Callable[[RunContext], Any],
    provenance: dict,
    force: bool = False,
) -> RunSummary:
    """Write ``plan``'s units into the run folder ``out`` exactly as :func:`run_sweep` does (the
    same lock, checks, unit files, samples, ``results.jsonl`` and ``run.json``), the suites getting
    ``ctx.models`` from ``models(ctx)``: scores made elsewhere (lm-evaluation-harness's logged
    samples, :mod:`eval_harness.lmeval`). No model is loaded or pinned here; ``provenance`` says
    where the scores came from (``run.json`` keeps it, with the datasets' fingerprints), and
    ``config.pinned`` what identifies them. One process."""
    started = time.time()
    # The scores were computed elsewhere, in a precision lm-eval's own arguments record: none is
    # named or checked here.
    provenance = {"precisions": {}, **provenance, "datasets": _dataset_fingerprints(plan)}
    store = RunStore(out, config)
    store.make_folder()
    dist = Distributed()
    lock, finished = _take_folder(store, config, plan, force, dist, provenance["precisions"])
    try:
        return _run_plan(
            config, plan, store, dist, finished, None, False, started, provenance, models
        )
    finally:
        if lock is not None:
            lock.release()
        dist.close()


def _check_before_writing(config: RunConfig, out: str | Path, cache_dir: str | Path | None) -> None:
    """What only the models and the file system can tell, checked before the run folder exists:
    every model's option values (those its class checks without loading it) and a ``--cache-dir``
    that can be written and is a cache under the write rule (:func:`cache_folder_problem`), and is
    not the run folder itself.

    Raises:
        ConfigError: an option value the model would refuse (naming the model and the values
        allowed).
        RunFolderError: the cache folder is a file, lies below one, cannot be written, or holds what
        no cache does.
    """
    from ..models.factory import (
        check_option_values,
    )  # the emotion models' classes: imported when a run starts

    for model in config.models:
        check_option_values(model.type, model.options, where=f"model {model.name!r} options")
    problem = (
        (folder_problem(cache_dir) or cache_folder_problem(Path(cache_dir)))
        if cache_dir is not None
        else None
    )
    if cache_dir is not None and os.path.abspath(cache_dir) == os.path.abspath(out):
        problem = "it is the run folder itself (--out), whose run.json and units/ no cache holds"
    if problem is not None:
        raise RunFolderError(
            f"cannot use {cache_dir} as the cache folder (--cache-dir): {problem}; give another"
        )


def cache_folder_problem(folder: Path) -> str | None:
    """Why ``folder`` is not a cache xbias may write into, or None (the write rule,
    docs/run_folder.md): a cache is missing, empty, or holds only the cache's own folders
    (``embeddings/``, ``regressors/``), with no symbolic link anywhere below it. A cache written by
    an older xbias has no marker, so its layout is what marks it."""

    def is_cache_entry(path: Path) -> bool:
        parts = path.relative_to(
            folder
        ).parts  # the cache's own folders are folders (a FIFO or file is foreign)
        return parts[0] in (EMBEDDING_CACHE, REGRESSOR_CACHE) and (len(parts) > 1 or path.is_dir())

    return write_problem(folder, is_cache_entry)


def _check_own_cache(store: RunStore) -> None:
    """Refuse a run folder's own ``cache/`` that is not a cache under the write rule
    (:func:`cache_folder_problem`: a link below it would have the run write its regressors and their
    locks elsewhere), before anything is written.

    Raises:
        RunFolderError: one line naming the cache and what is wrong.
    """
    if os.path.lexists(store.cache_dir) and (problem := cache_folder_problem(store.cache_dir)):
        raise RunFolderError(
            f"cannot use the run folder's cache {store.cache_dir}: "
            f"{problem}; delete it (it is recomputed)"
        )


def _take_folder(
    store: RunStore,
    config: RunConfig,
    plan: Plan,
    force: bool,
    dist: Distributed,
    precisions: Mapping[str, str],
    settings: Mapping[str, Mapping] | None = None,
    own_cache: bool = False,
) -> tuple[RunLock | None, dict[str, dict | None]]:
    """Rank 0 locks the folder for the run, checks whose it is, opens it, builds the datasets the
    suites read, finds the finished units and writes ``results.jsonl`` of those; the other ranks
    wait for that answer. Returns the lock (rank 0's) and the finished units by id, with their
    files' content on rank 0 (None on the others). An error of rank 0 (the folder is locked, another
    run's...) is raised on every rank, so all stop together; only rank 0 holds the lock.
    ``own_cache``: the run uses the folder's own ``cache/`` (no --cache-dir), checked under the
    write rule first."""
    lock, outcome, finished = None, None, {}
    if dist.is_main:
        try:
            store.check_owner(
                force
            )  # before run.lock: a folder that is not xbias's gets nothing written into it
            if own_cache:
                _check_own_cache(store)
            lock = store.lock()
            if not force:
                _refuse_other_commits(store, config)
                _refuse_other_precisions(store, precisions)
                _refuse_other_settings(store, config, settings or {})
            store.open(config, wipe=store.check(config, force=force))
            _build_datasets(plan)
            finished = store.finished_units(plan.units, keeps_samples=_keeps_samples)
            store.write_results(
                finished.values()
            )  # what an earlier run left, cut short or not, made whole
            outcome = list(finished)
        except BaseException as error:
            if lock is not None:
                lock.release()
            if dist.world_size == 1 or not isinstance(error, Exception):
                raise
            outcome = error
    if dist.world_size > 1:
        outcome = dist.gather([outcome])[0]  # rank 0's answer (the finished ids), on every rank
        if isinstance(outcome, Exception):
            raise outcome
    return lock, finished or dict.fromkeys(outcome)


def _run_plan(
    config: RunConfig,
    plan: Plan,
    store: RunStore,
    dist: Distributed,
    finished: dict[str, dict | None],
    cache_dir: str | Path | None,
    progress: bool,
    started: float,
    provenance: dict,
    models: Callable[[RunContext], Any] | None = None,
    shared: dict | None = None,
) -> RunSummary:
    """Every unfinished unit of ``plan``, task by task; ``results.jsonl`` and ``run.json`` at the
    end, however the run ends (``finished``: the units finished before, with their files' content on
    rank 0; ``models``: what gives the suites ``ctx.models`` instead of the config's models, see
    :func:`write_run`)."""
    ctx = RunContext(
        dist=dist,
        cache_dir=Path(cache_dir) if cache_dir else store.cache_dir,
        progress=progress,
        sources={name: pin["load"] for name, pin in provenance["models"].items()},
        provenance=provenance,
        emotions=_run_emotions(plan),
        _shared={} if shared is None else shared,  # what the plan's count already read
    )
    if models is not None:
        ctx.models = models(ctx)
    saved = _Saved(resumed=len(finished), payloads=dict(finished) if dist.is_main else {})
    info = {
        "status": "running",
        "num_processes": dist.world_size,
        "units_planned": len(plan.units),
        "units_resumed": len(finished),
        "skipped": list(plan.skipped),
        "provenance": provenance,
    }
    if dist.is_main:
        with _writing(store, lambda: "run.json", saved.count):
            store.write_run_info(config, **info)
    status, timings, interruption = "failed", [], None
    # No time estimate: a task's first unit waits for its preparation (loading, training), the
    # others take milliseconds, so a rate over units would mislead. ctx.status() says what a long
    # step is doing instead.
    bar = tqdm(
        total=len(plan.units) - len(finished),
        desc="units",
        bar_format="{desc}: {n_fmt}/{total_fmt} [{elapsed}]{postfix}",
        disable=not ctx.show_progress,
    )
    ctx.status_line = lambda message: bar.set_postfix_str(message, refresh=True)
    try:
        for index, task in enumerate(plan.tasks):
            pending = tuple(unit for unit in task.units if unit.id not in finished)
            if pending:
                timings.append(
                    _run_task(
                        get_suite(task.suite), replace(task, units=pending), ctx, store, bar, saved
                    )
                )
            if index + 1 == len(plan.tasks) or plan.tasks[index + 1].model.name != task.model.name:
                ctx.release((task.model.name,))
        status = "complete"
    except KeyboardInterrupt as stop:
        status, interruption = "interrupted", stop  # raised below, once run.json says so
    finally:
        bar.close()
        results, on_disk = None, saved.count()
        if dist.is_main:
            # A signal may land between a unit's write and its bookkeeping: such a unit is read from
            # its file.
            late = store.finished_units(
                [unit for unit in plan.units if unit.id not in saved.payloads],
                warn=False,
                keeps_samples=_keeps_samples,
            )
            saved.payloads.update(late)
            on_disk = len(saved.payloads)
            final = {
                **info,
                "status": status,
                "units_computed": on_disk - len(finished),
                "units_finished": on_disk,
                "tasks": timings,
                "seconds": round(time.time() - started, 2),
                "features": ctx.models.feature_use() if hasattr(ctx.models, "feature_use") else {},
            }
            try:
                in_order = [
                    saved.payloads[unit.id] for unit in plan.units if unit.id in saved.payloads
                ]
                results = store.write_results(in_order)
                store.write_run_info(config, **final, results=results.to_dict())
            except OSError as error:
                # A run that is already failing keeps its own error (the unit files hold everything
                # finished).
                if status == "complete":
                    raise store.write_error(
                        error, "results.jsonl and run.json", saved.count()
                    ) from None
    if interruption is not None:
        raise RunInterrupted(
            f"{on_disk} of {len(plan.units)} units are finished in "
            f"{store.root}; run the same command again to resume",
            getattr(interruption, "signum", signal.SIGINT),
        )
    table = summary_table(plan, saved.payloads, store.results_path) if dist.is_main else ""
    return RunSummary(
        out=store.root,
        planned=len(plan.units),
        resumed=len(finished),
        computed=len(saved.written),
        records=results.records if results is not None else 0,
        seconds=time.time() - started,
        num_processes=dist.world_size,
        skipped=plan.skipped,
        table=table,
        is_main=dist.is_main,
    )


@contextmanager
def _writing(
    store: RunStore,
    what: Callable[[], str],
    finished: Callable[[], int],
    disk_full_only: bool = False,
) -> Iterator[None]:
    """Turn an OS error of writing ``what()`` into the run folder into one line (a
    :class:`RunFolderError` that says how many units are safe); ``disk_full_only``: other OS errors
    pass as they are (work that also reads files, such as a suite's prepare)."""
    try:
        yield
    except OSError as error:
        if disk_full_only and error.errno not in DISK_FULL:
            raise
        raise store.write_error(error, what(), finished()) from None


def _dataset_fingerprints(plan: Plan) -> dict[str, str]:
    """The fingerprint of every project dataset the plan's suites read (what the records were
    computed from)."""
    from ..data import DATASETS, dataset_fingerprint

    names = {name for task in plan.tasks for name in get_suite(task.suite).datasets}
    return {name: dataset_fingerprint(name) for name in sorted(names) if name in DATASETS}


def _refuse_other_commits(store: RunStore, config: RunConfig) -> None:
    """A folder whose run read another commit of one of this config's models is not resumed (as a
    changed config is not): its units were computed with other weights.

    Raises:
        ConfigError: naming the model, both commits and the fixes (pin the revision, --force,
        another --out).
    """
    before = (store.run_info().get("provenance") or {}).get("models") or {}
    for name, commit in config.pinned.items():
        old = (before.get(name) or {}).get("commit")
        if old and commit and old != commit:
            raise ConfigError(
                f"model {name!r} now resolves to {commit}, but the run in "
                f"{store.root} used {old}: pin it with `revision: {old}` to "
                "resume that run, or use --force to recompute, or another --out"
            )


def _precisions(config: RunConfig, device: str) -> dict[str, str]:
    """What each model with a ``precision`` option runs as here (``fp32``, ``bf16``, ``fp16``;
    ``auto`` follows the hardware), on its ``device`` option or the run's: its records and run.json
    name it."""
    from ..models.batching import precision_name  # torch: imported when a run starts

    return {
        model.name: precision_name(
            model.options.get("precision", "auto"), model.options.get("device") or device
        )
        for model in config.models
        if "precision" in model_type(model.type).options
    }


def _run_emotions(plan: Plan) -> tuple[str, ...] | None:
    """The SemEval dimensions the plan's units score, in SEMEVAL_DIMENSIONS' order (None: none)."""
    return (
        tuple(
            dimension
            for dimension in SEMEVAL_DIMENSIONS
            if any(u.emotion == dimension for u in plan.units)
        )
        or None
    )


def _log_work_plan(
    config: RunConfig, plan: Plan, sources: Mapping[str, str], shared: dict | None = None
) -> None:
    """Say what a run that encodes texts will do (units, texts to encode, estimated time:
    :func:`~.plan.work_plan`) in the log, at INFO (``xbias run`` shows it, ``-q`` hides it); a plan
    that cannot be estimated says its unit count alone. A run that encodes nothing (SVM-tfidf,
    static vectors, a judge) takes no time worth announcing."""
    try:
        store = {} if shared is None else shared

        def read_once(key: tuple, factory):
            if key not in store:
                store[key] = factory()
            return store[key]

        work = work_plan(config, plan, dict(sources), store.get(RUN_SEMEVAL), read_once)
        if not any(model.texts for model in work.models):
            return
        lines = work.lines()
    except XBiasError as error:  # the run meets the problem in its place and says it there
        lines = [
            f"plan: {len(plan.units)} units; no estimate of the work ({str(error).splitlines()[0]})"
        ]
    for line in lines:
        logger.info(line)


def _refuse_other_settings(
    store: RunStore, config: RunConfig, settings: Mapping[str, Mapping]
) -> None:
    """A folder whose units a model computed with other options is not resumed: a model now takes
    its own settings (e5's mean pooling and prefix, a sentence-transformers folder's), so the same
    config may run it otherwise than an older xbias did (which recorded no ``options``: it ran with
    the config's alone).

    Raises:
        ConfigError: naming the model, both settings and the fixes (--force, another --out).
    """
    before = (store.run_info().get("provenance") or {}).get("models") or {}
    for name, options in settings.items():
        if not isinstance(before.get(name), dict):
            continue
        # A folder this config wrote (else store.check refuses it) has the config's options, and
        # none of its own.
        old = before[name].get("options", config.model(name).options)
        if dict(old) != dict(options):
            raise ConfigError(
                f"model {name!r} now runs with options {dict(options)}, but "
                f"the run in {store.root} computed its units with "
                f"{dict(old)}: use --force to recompute, or give another --out"
            )


def _refuse_other_precisions(store: RunStore, precisions: Mapping[str, str]) -> None:
    """A folder whose units a model computed in another precision is not resumed: ``auto`` follows
    the hardware, so the same config resumed on another machine could mix fp32 and bf16 numbers in
    one run.

    Raises:
        ConfigError: naming the model, both precisions and the fixes (resume where it runs as
            before, --force, another --out).
    """
    before = (store.run_info().get("provenance") or {}).get("precisions") or {}
    for name, precision in precisions.items():
        old = before.get(name)
        if old and old != precision:
            raise ConfigError(
                f"model {name!r} runs in {precision} here, but the run in "
                f"{store.root} computed its units in {old} (precision auto "
                f"follows the hardware): resume it where it runs in {old}, "
                "or use --force to recompute, or give another --out"
            )


def _build_datasets(plan: Plan) -> None:
    """Build (on first use) the datasets the plan's suites read, once, before the ranks load them
    together."""
    names = sorted({name for task in plan.tasks for name in get_suite(task.suite).datasets})
    if names:
        from ..data import dataset_folder

        for name in names:
            dataset_folder(name)


def _run_task(suite: Suite, task, ctx: RunContext, store: RunStore, bar, saved: _Saved) -> dict:
    """Prepare the task on every rank, then evaluate its units one round (one unit per rank) at a
    time, adding each unit written to ``saved``; returns the task's timings (for run.json)."""
    started = time.time()
    ctx.status(f"{task.model.name} x {task.suite} x {task.language} (seed {task.seed}): preparing")
    label = f"the caches of {task.model.name} x {task.suite} x {task.language} (seed {task.seed})"
    with _writing(store, lambda: label, saved.count, disk_full_only=True):
        prepared = suite.prepare(task, ctx)
    prepared_at = time.time()
    ctx.status(
        f"{task.model.name} x {task.suite} x {task.language} "
        f"(seed {task.seed}): {len(task.units)} units"
    )
    world = ctx.dist.world_size
    for start in range(0, len(task.units), world):
        round_units = task.units[start : start + world]
        with ctx.dist.split(round_units) as mine:
            outcomes = [_evaluate(suite, unit, prepared, ctx) for unit in mine]
        outcomes = ctx.dist.gather(outcomes)
        for unit, (records, seconds, _, samples) in zip(round_units, outcomes, strict=True):
            if records is not None:
                if ctx.dist.is_main:
                    with _writing(store, lambda unit=unit: f"unit {unit.id}", saved.count):
                        payload = store.write_unit(unit, records, seconds, samples)
                        saved.payloads[unit.id] = payload
                        store.append_results(
                            records
                        )  # so that a report of a long run shows every finished unit
                saved.written.append(unit.id)
        for unit, (_, _, error, _) in zip(round_units, outcomes, strict=True):
            if error is not None:
                raise (
                    error
                    if isinstance(error, XBiasError)
                    else RuntimeError(f"unit {unit.id} failed:\n{error}")
                )
        bar.update(len(round_units))
    return {
        "model": task.model.name,
        "suite": task.suite,
        "language": task.language,
        "seed": task.seed,
        "units": len(task.units),
        "prepare_seconds": round(prepared_at - started, 2),
        "evaluate_seconds": round(time.time() - prepared_at, 2),
    }


def _keeps_samples(unit: Unit) -> bool:
    return get_suite(unit.suite).keeps_samples(unit)


def _unit_samples(suite: Suite, unit: Unit, prepared, ctx: RunContext) -> tuple[bytes, dict] | None:
    """The unit's samples as Parquet bytes and their unit-file entry
    (:mod:`eval_harness.contract.samples`), made on the rank that evaluated it (bytes travel to rank
    0 more cheaply than rows); None when it keeps none.

    Raises:
        InputError: a suite that keeps samples for the unit gave none, or columns its schema does
        not describe.
    """
    if not suite.keeps_samples(unit):
        return None
    columns = suite.unit_samples(unit, prepared, ctx)
    if columns is None:
        raise InputError(f"unit {unit.id}: suite {suite.name!r} keeps samples for it but gave none")
    table = suite.samples.table(unit, columns)
    data = samples_bytes(table)
    return data, samples_entry(unit.id, data, table)


def _evaluate(
    suite: Suite, unit: Unit, prepared, ctx: RunContext
) -> tuple[list[dict] | None, float, object, tuple[bytes, dict] | None]:
    """(records, seconds, error, samples) for one unit. With one process errors propagate as they
    are; with several they travel to every rank (so all stop together, after rank 0 has written the
    units that finished)."""
    started = time.time()
    try:
        pinned = {
            "model_commit": ctx.provenance["models"].get(unit.model, {}).get("commit"),
            "dataset_fingerprint": ctx.provenance["datasets"].get(unit.dataset),
            "precision": ctx.provenance["precisions"].get(unit.model),
            **_encoder_settings(ctx.provenance["models"].get(unit.model, {}).get("options")),
        }
        records = [
            make_record(unit, {**record, **pinned}, suite.records)
            for record in suite.evaluate(unit, prepared, ctx)
        ]
        samples = _unit_samples(suite, unit, prepared, ctx)
    except XBiasError as error:
        if ctx.dist.world_size == 1:
            raise
        return None, 0.0, error, None
    except Exception:
        if ctx.dist.world_size == 1:
            raise
        return None, 0.0, traceback.format_exc(), None
    return records, time.time() - started, None, samples


def _encoder_settings(options: Mapping | None) -> dict:
    """The records' ``encoder_pooling`` and ``encoder_prefix``: what a model that pools token states
    ran with."""
    if not options or "pooling" not in options and "prefix" not in options:
        return {}
    return {
        "encoder_pooling": options.get("pooling", "cls"),
        "encoder_prefix": options.get("prefix", ""),
    }


def summary_table(
    plan: Plan, payloads: Mapping[str, dict], results_path: Path | None = None, max_rows: int = 40
) -> str:
    """One screen: per suite, a row per model x language x dataset config x headline metric and a
    column per emotion or test; each cell is the unit's headline value (``suite.headline``) with its
    significance stars: the record's ``stars``, else the paper's from its p-value (as the report
    marks them).

    ``payloads``: the finished units' files by unit id (what the run holds; no file is read). With
    several seeds a cell is the seeds' headline records pooled
    (:func:`~eval_harness.contract.seeds.pool_seeds`: the mean over seeds with its standard error
    for an estimate with a standard error, with the pooled test's stars; the mean for a Pearson r),
    followed by ``±`` the between-seed SD; a headline that
    cannot be pooled shows each seed's value, ``/``-separated. A cell with no value (``n/a``) points
    to a footnote with the record's reason (e.g. XWEAT's coverage rule); rows beyond ``max_rows``
    are counted, with a pointer to ``results_path``."""
    blocks: dict[str, tuple[list[str], dict[tuple, dict[str, list[dict]]]]] = {}
    suites = {name: get_suite(name) for name in dict.fromkeys(unit.suite for unit in plan.units)}
    for unit in plan.units:
        payload = payloads.get(unit.id)
        record = suites[unit.suite].headline(payload["records"]) if payload else None
        if record is None:
            continue
        columns, rows = blocks.setdefault(unit.suite, ([], {}))
        column = unit.emotion or unit.test or "value"
        if column not in columns:
            columns.append(column)
        metric = record["metric"] + (f"[{record['term']}]" if record.get("term") else "")
        dataset = unit.config if unit.config and unit.config != unit.language else unit.dataset
        cells = rows.setdefault((unit.model, unit.suite, unit.language, dataset, metric), {})
        cells.setdefault(column, []).append({**record, "seed": unit.seed})
    lines, budget, pooled_any = [], max_rows, False
    why_missing: dict[str, int] = {}  # a missing value's reason -> its footnote number
    for columns, rows in blocks.values():
        header = ("model", "suite", "lang", "dataset", "metric", *columns)
        body = []
        for key, cells in rows.items():
            texts = []
            for column in columns:
                text, pooled = _summary_cell(cells.get(column, []), suites[key[1]].records)
                reasons = {
                    record["note"] for record in cells.get(column, []) if record["value"] is None
                }
                for reason in sorted(filter(None, reasons)):
                    text += f"[{why_missing.setdefault(reason, len(why_missing) + 1)}]"
                texts.append(text)
                pooled_any |= pooled
            body.append((*key, *texts))
        shown = body[: max(budget, 0)]
        widths = [max(len(str(row[i])) for row in (header, *shown)) for i in range(len(header))]
        table = [
            "  ".join(
                str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)
            ).rstrip()
            for row in (header, *shown)
        ]
        table.insert(1, "  ".join("-" * width for width in widths))
        if len(body) > len(shown):
            table.append(f"... {len(body) - len(shown)} more rows in {results_path}")
        lines += [*table, ""]
        budget -= len(shown)
    if lines:
        lines.append(
            "stars: *** p<=0.01, ** p<=0.05, * p<=0.10 (unadjusted; the report adds Holm / BH)"
        )
    lines += [f"n/a [{number}]: {reason}" for reason, number in why_missing.items()]
    if pooled_any:
        seeds = ", ".join(str(seed) for seed in sorted({unit.seed for unit in plan.units}))
        lines.append(
            f"seeds {seeds}: each cell is the mean over the seeds (with the mean's standard "
            "error and test for estimates with standard errors) ± the between-seed SD"
        )
    return "\n".join(lines)


def _summary_cell(records: list[dict], schema) -> tuple[str, bool]:
    """A summary-table cell of one quantity's headline records (one per seed, of a suite whose
    record schema is ``schema``) and whether it pools seeds."""
    from ..contract.seeds import pool_seeds  # scipy loads only when a run ends
    from ..stats.significance import significance_stars

    def marked(record: dict) -> str:
        value, p_value = record["value"], record.get("p_value")
        stars = record.get("stars") or ("" if p_value is None else significance_stars(p_value))
        return "n/a" if value is None else f"{value:+.3f}{stars}"

    pooled = pool_seeds(
        records, schemas={records[0]["suite"]: schema} if records and schema else None
    )
    if len(pooled) != 1:  # no record, or seeds that cannot be pooled
        return "/".join(marked(record) for record in pooled), False
    (record,) = pooled
    if record.get("pooling") in (*TESTED_POOLINGS, "mean"):
        return f"{marked(record)}±{record['between_seed_sd']:.3f}", True
    return marked(record), False
