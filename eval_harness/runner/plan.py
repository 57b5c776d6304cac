"""Unit planning: a config becomes an ordered list of tasks (model x suite x language x seed), each
with its units."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..contract import Task, Unit
from ..contract.suite import Shared
from ..errors import ConfigError, XBiasError
from ..suites import get_suite
from .config import RunConfig

if TYPE_CHECKING:
    from ..data.emotion_splits import SemEvalSplits


@dataclass(frozen=True)
class Plan:
    """The tasks of a run in execution order, and why some model x suite x language pairs were left
    out."""

    tasks: tuple[Task, ...]
    skipped: tuple[str, ...] = ()

    @property
    def units(self) -> list[Unit]:
        return [unit for task in self.tasks for unit in task.units]


def plan_units(config: RunConfig) -> Plan:
    """Every unit of ``config``: for each model, suite, language (of the suite and the model) and
    seed (the config's seeds of a task that trains its model with a seed, one seed for a
    deterministic training, the seeds of a task that trains nothing: :func:`_seeds`), the units the
    suite plans. Ordered by model first, so a loaded model serves all its tasks in a row.

    A model whose type lacks what the suite requires (e.g. SVM-tfidf in XWEAT, which needs word
    vectors), or whose ``languages`` share none with the suite, is left out with a note in
    ``Plan.skipped``; a model restricted to some of a suite's languages runs on those without a
    note.
    """
    tasks, skipped = [], []
    for suite_spec in config.suites:
        if suite_spec.skipped_languages:
            suite = get_suite(suite_spec.name)
            skipped.append(
                f"{suite_spec.name}: language(s) {', '.join(suite_spec.skipped_languages)} (it has "
                f"{', '.join(suite.languages)})"
            )
    for model in config.models:
        for suite_spec in config.suites:
            suite, name = (
                get_suite(suite_spec.name),
                suite_spec.name,
            )  # the registry name, as configs say it
            if suite.requires not in model.capabilities:
                what = suite.requires.replace("_", " ")
                skipped.append(
                    f"{model.name} x {name}: {name} needs a model with {what}, not {model.type}"
                )
                continue
            if suite.model_types is not None and model.type not in suite.model_types:
                types = ", ".join(suite.model_types)
                skipped.append(
                    f"{model.name} x {name}: {name} evaluates {types} models, not {model.type}"
                )
                continue
            expanded = suite.expand_languages(suite_spec.languages, suite_spec.options)
            languages = [lang for lang in expanded if model.covers(lang)]
            if not languages:
                skipped.append(
                    f"{model.name} x {name}: none of the suite's "
                    f"languages ({', '.join(expanded)}) is one of the "
                    f"model's ({', '.join(model.languages or ())})"
                )
            seeds = _seeds(config, trains=suite.trains and model.trains, seeded=model.seeded)
            for language in languages:
                keys = suite.plan(model, language, suite_spec.options)
                for seed in seeds:
                    units = tuple(
                        Unit(
                            model=model.name, suite=name, language=language, seed=seed, **vars(key)
                        )
                        for key in keys
                    )
                    tasks.append(
                        Task(
                            model=model,
                            suite=name,
                            language=language,
                            seed=seed,
                            options=suite_spec.options,
                            units=units,
                        )
                    )
    ids = [unit.id for task in tasks for unit in task.units]
    if len(set(ids)) != len(ids):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        raise ConfigError(
            f"the plan names some units twice ({repeated[:3]}...): a suite's plan() repeats a key"
        )
    return Plan(tasks=tuple(tasks), skipped=tuple(skipped))


def _seeds(config: RunConfig, trains: bool, seeded: bool) -> tuple[int, ...]:
    """A task's seeds: the config's trained seeds where the suite trains a model whose training
    draws on the seed (training noise in its numbers, averaged over the seeds); the first of its
    other seeds where the training is deterministic (ridge, an SVR on every tweet: another seed
    would train the same model again); its other seeds where nothing is trained."""
    if trains and seeded:
        return config.seeds_for(True)
    return config.seeds_for(False)[:1] if trains else config.seeds_for(False)


# What a run will encode, and roughly how long it takes (the plan `xbias run` prints before it
# starts; --dry-run prints it alone). A whole first run of multilingual-e5-small (12 layers of
# width 384) goes at about 49 texts (tweets, EEC sentences) per CPU-second, loading, fitting and the
# EEC's regression included: bench/first_run.py measured 102 CPU-s for its 5,190 texts (its bare
# forward passes: 69 texts per CPU-second). A transformer of another size is scaled by its layers x
# width^2 (its weight matrices' size, which its arithmetic per token follows).
REFERENCE_TEXTS_PER_CPU_SECOND = 49.0
REFERENCE_LAYERS_X_WIDTH2 = 12 * 384**2


@dataclass(frozen=True)
class ModelWork:
    """One model's share of a plan: its units, the SemEval tweets its probe encodes to train
    (``training_texts``: each distinct text once, over the emotions the run fits) and the EEC
    sentences it scores, and the CPU-seconds encoding them all is estimated to take (None: a model
    that encodes nothing, or of unknown size)."""

    model: str
    units: int
    training_texts: int
    sentences: int
    cpu_seconds: float | None

    @property
    def texts(self) -> int:
        return self.training_texts + self.sentences


@dataclass(frozen=True)
class WorkPlan:
    """What a run will do: units per model, texts to encode, and the estimated time on ``cores`` CPU
    cores."""

    models: tuple[ModelWork, ...]
    cores: int

    def lines(self) -> list[str]:
        """The plan as the run prints it."""
        lines = []
        for work in self.models:
            line = f"plan: {work.model}: {work.units} units"
            if work.texts:
                line += (
                    f", {work.texts:,} texts to encode ({work.training_texts:,} "
                    f"SemEval training tweets, {work.sentences:,} EEC "
                    "sentences) before the feature cache"
                )
            if work.cpu_seconds is not None:
                line += (
                    f"; about {work.cpu_seconds:,.0f} CPU-s, "
                    f"{work.cpu_seconds / self.cores:,.0f} s on {self.cores} idle core(s) at "
                    f"{REFERENCE_TEXTS_PER_CPU_SECOND:g} texts per CPU-second for e5-small"
                )
            lines.append(line)
        cpu = [work.cpu_seconds for work in self.models if work.cpu_seconds is not None]
        if cpu:
            lines.append(
                f"plan: encoding about {sum(cpu) / self.cores / 60:,.1f} min in all; "
                "features already in the cache are reused, loading and fitting come on top"
            )
        return lines


def work_plan(
    config: RunConfig,
    plan: Plan,
    sources: dict[str, str] | None = None,
    semeval: SemEvalSplits | None = None,
    shared: Shared | None = None,
) -> WorkPlan:
    """What ``plan`` will encode (reads the SemEval splits and the EEC corpora it names, loads no
    model).

    ``sources``: model name -> the folder its weights load from (a run's pinned snapshot), for the
    size that scales the throughput; a packaged model resolves its own.
    """
    import os

    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    models = []
    for model in config.models:
        tasks = [task for task in plan.tasks if task.model.name == model.name]
        units = sum(len(task.units) for task in tasks)
        encodes = model.type in ("encoder",) or (
            model.type == "llm" and model.options.get("mode") == "probe"
        )
        training, sentences = _texts_to_encode(tasks, semeval, shared) if encodes else (0, 0)
        rate = (
            _texts_per_cpu_second((sources or {}).get(model.name, model.source))
            if encodes
            else None
        )
        seconds = (training + sentences) / rate if rate else None
        models.append(ModelWork(model.name, units, training, sentences, seconds))
    return WorkPlan(tuple(models), cores)


def _texts_to_encode(
    tasks: list[Task], semeval: SemEvalSplits | None = None, shared: Shared | None = None
) -> tuple[int, int]:
    """(distinct SemEval texts of the tasks' languages x emotions, distinct texts their suites
    score: :meth:`~eval_harness.contract.Suite.texts_to_score`). ``semeval``, ``shared``: the run's
    splits and shared objects, so that counting loads nothing the run will load again."""
    from ..data.emotion_splits import SemEvalSplits

    semeval = semeval or SemEvalSplits()
    emotions_by_language: dict[str, set[str]] = {}
    scored: dict[str, set[str]] = {}
    for task in tasks:
        suite = get_suite(task.suite)
        emotions = {unit.emotion for unit in task.units if unit.emotion is not None}
        if emotions and suite.trains:
            for language in task.language.split("-"):
                emotions_by_language.setdefault(language, set()).update(emotions)
        scored.setdefault(task.language, set()).update(suite.texts_to_score(task, shared) or ())
    training = 0
    for language, emotions in emotions_by_language.items():
        training += len(
            {
                text
                for emotion in emotions
                for split in semeval.splits(language, emotion).values()
                for text in split.texts
            }
        )
    return training, sum(len(texts) for texts in scored.values())


def _texts_per_cpu_second(source: str | None) -> float | None:
    """The estimated encoding throughput of the transformer at ``source`` (its config.json's layers
    and width against e5-small's measured one), or None when its size cannot be read here."""
    import json
    from pathlib import Path

    from ..models.packaged import resolve_source

    if source is None:
        return None
    try:
        config = json.loads((Path(resolve_source(source)).expanduser() / "config.json").read_text())
        layers = config.get("num_hidden_layers") or config.get("n_layer")
        width = config.get("hidden_size") or config.get("n_embd") or config.get("d_model")
        size = int(layers) * int(width) ** 2
    except (OSError, ValueError, TypeError, XBiasError):
        return None
    return REFERENCE_TEXTS_PER_CPU_SECOND * REFERENCE_LAYERS_X_WIDTH2 / size
