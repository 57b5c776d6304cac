"""Unit planning: a config becomes an ordered list of tasks (model x suite x language x seed), each with its units."""

from dataclasses import dataclass

from ..contract import Task, Unit
from ..errors import ConfigError
from ..suites import get_suite
from .config import RunConfig


@dataclass(frozen=True)
class Plan:
    """The tasks of a run in execution order, and why some model x suite x language pairs were left out."""

    tasks: tuple[Task, ...]
    skipped: tuple[str, ...] = ()

    @property
    def units(self) -> list[Unit]:
        return [unit for task in self.tasks for unit in task.units]


def plan_units(config: RunConfig) -> Plan:
    """Every unit of ``config``: for each model, suite, language (of the suite and the model) and seed (the
    config's seeds of a task that trains its model with a seed, one seed for a deterministic training, the
    seeds of a task that trains nothing: :func:`_seeds`), the units the suite plans. Ordered by model first, so a
    loaded model serves all its tasks in a row.

    A model whose type lacks what the suite requires (e.g. SVM-tfidf in XWEAT, which needs word vectors),
    or whose ``languages`` share none with the suite, is left out with a note in ``Plan.skipped``; a
    model restricted to some of a suite's languages runs on those without a note.
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
            suite, name = get_suite(suite_spec.name), suite_spec.name  # the registry name, as configs say it
            if suite.requires not in model.capabilities:
                what = suite.requires.replace("_", " ")
                skipped.append(f"{model.name} x {name}: {name} needs a model with {what}, not {model.type}")
                continue
            if suite.model_types is not None and model.type not in suite.model_types:
                types = ", ".join(suite.model_types)
                skipped.append(f"{model.name} x {name}: {name} evaluates {types} models, not {model.type}")
                continue
            expanded = suite.expand_languages(suite_spec.languages, suite_spec.options)
            languages = [lang for lang in expanded if model.covers(lang)]
            if not languages:
                skipped.append(
                    f"{model.name} x {name}: none of the suite's languages "
                    f"({', '.join(expanded)}) is one of the model's ({', '.join(model.languages or ())})"
                )
            seeds = _seeds(config, trains=suite.trains and model.trains, seeded=model.seeded)
            for language in languages:
                keys = suite.plan(model, language, suite_spec.options)
                for seed in seeds:
                    units = tuple(
                        Unit(model=model.name, suite=name, language=language, seed=seed, **vars(key)) for key in keys
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
        raise ConfigError(f"the plan names some units twice ({repeated[:3]}...): a suite's plan() repeats a key")
    return Plan(tasks=tuple(tasks), skipped=tuple(skipped))


def _seeds(config: RunConfig, trains: bool, seeded: bool) -> tuple[int, ...]:
    """A task's seeds: the config's trained seeds where the suite trains a model whose training draws on the seed
    (training noise in its numbers, averaged over the seeds); the first of its other seeds where the training is
    deterministic (ridge, an SVR on every tweet: another seed would train the same model again); its other seeds
    where nothing is trained."""
    if trains and seeded:
        return config.seeds_for(True)
    return config.seeds_for(False)[:1] if trains else config.seeds_for(False)
