"""``xbias lm-eval import``: lm-evaluation-harness's logged samples of xbias's EEC tasks as an xbias
run folder.

lm-eval's ``--log_samples`` writes, per task, ``samples_<task>_<time>.jsonl`` (one line per
document: the document, and the log-likelihood of each choice in ``filtered_resps``) beside
``results_<time>.json`` (the task's config, with the ``metadata.xbias`` that :mod:`.tasks` wrote,
lm-eval's version, the model and its backend). From each document's log-likelihoods the judge's
numbers are computed by the judge's own function
(:func:`~eval_harness.stats.judge.numeral_statistics`): the candidates' log-probabilities are the
numeral choices' log-likelihoods less the white-space choice's (:mod:`.task_utils`).

The run folder is written by the runner (:func:`~eval_harness.runner.sweep.write_run`): the ``eec``
suite scores the same rows it would score in ``xbias run`` (the same ``sample``), asking a
:class:`LoggedJudge` that answers with the logged numbers, so its units, samples, records and
``run.json`` are a normal run's, and ``xbias report``, ``xbias compare`` and the Hub outputs read
them unchanged. lm-eval scored the EEC sentences only, so the run has no SemEval units (the judge's
Pearson r): its report shows the numeral mass as the judge's validity.
"""

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..errors import InputError, shown, unreadable_file
from ..io import file_sha256, parse_json, read_text
from ..models.prompt_judge import DEFAULT_PROMPT, PromptScores
from ..runner.config import PLAIN_NAME, parse_config
from ..runner.plan import Plan, plan_units
from ..runner.sweep import RunSummary, write_run
from ..stats.judge import numeral_statistics
from ..suites import get_suite
from .tasks import NORMALISER, PACK_FORMAT

SAMPLES_FILE = re.compile(r"samples_(?P<task>.+)_(?P<time>\d{4}-\d\d-\d\dT[\d.-]+)\.jsonl")


class SamplesFileError(InputError):
    """A samples file that is not lm-eval's ``--log_samples`` output of an xbias task, or that is
    damaged."""


@dataclass(frozen=True)
class LoggedTask:
    """One xbias task's logged samples, read: what the task measured (``identity``: its
    ``metadata.xbias``), the judge's numbers by sentence, and what ran it (lm-eval's version,
    backend, model, model arguments)."""

    path: Path
    task: str
    identity: dict
    scores: dict[str, dict]
    lm_eval: dict


def read_samples(path: str | Path) -> LoggedTask:
    """Read one ``samples_<task>_<time>.jsonl`` of lm-eval and the ``results_<time>.json`` beside
    it.

    Raises:
        SamplesFileError: one line naming the file and what is wrong (not lm-eval's, not an xbias
            task, another task's, cut short or damaged).
    """
    path = Path(path)
    match = SAMPLES_FILE.fullmatch(path.name)
    if match is None:
        raise SamplesFileError(
            f"{path} is not named as lm-eval names its "
            "--log_samples files (samples_<task>_<time>.jsonl)"
        )
    task, results_path = match["task"], path.with_name(f"results_{match['time']}.json")
    results = _read_json(results_path, "lm-eval results file (written beside its samples)")
    config = _field(_field(results, "configs"), task)
    if not config:
        raise SamplesFileError(
            f"{results_path} has no task {task!r}: {path} belongs to another lm-eval run"
        )
    identity = _field(_field(config, "metadata"), "xbias")
    if not identity or identity.get("format") != PACK_FORMAT:
        raise SamplesFileError(
            f"task {task!r} of {path} is not an xbias task (written by `xbias lm-eval tasks`)"
        )
    _check_identity(identity, f"{results_path} (task {task!r}, metadata.xbias)")
    low, high = identity["scale"]
    scores: dict[str, dict] = {}
    for number, line in enumerate(_lines(path), 1):
        where = f"{path} line {number}"
        sentence, row = _document_scores(line, low, high, where)
        first = scores.setdefault(sentence, row)
        if any(abs(first[key] - row[key]) > SAME_SCORE for key in ("value", "numeral_mass")):
            raise SamplesFileError(
                f"{where} logs the sentence {shown(sentence)} again, with other log-likelihoods"
            )
    expected = _field(_field(results, "n-samples"), task).get("effective")
    if not scores or (expected is not None and number != expected):
        raise SamplesFileError(
            f"{path} holds {number if scores else 0} documents, "
            f"lm-eval logged {shown(expected)}: cut short?"
        )
    lm_config = _field(results, "config")
    lm_eval = {
        "version": results.get("lm_eval_version"),
        "backend": results.get("model_source") or lm_config.get("model"),
        "model": results.get("model_name"),
        "model_args": lm_config.get("model_args"),
        "model_sha": lm_config.get("model_sha") or None,
        "limit": lm_config.get("limit"),
    }
    return LoggedTask(path, task, identity, scores, lm_eval)


def _field(document, key: str) -> dict:
    """``document[key]`` when both are JSON objects, else an empty one (a missing or malformed part
    of lm-eval's results reads as absent, and the caller says what is missing)."""
    value = document.get(key) if isinstance(document, dict) else None
    return value if isinstance(value, dict) else {}


# What each field of a task's ``metadata.xbias`` must be (:func:`.tasks.write_tasks` writes them).
IDENTITY_FIELDS = {
    "config": str,
    "language": str,
    "emotion": str,
    "prompt": str,
    "model": str,
    "sample": int,
}
# Two logs of one sentence agree when their numbers differ by no more than this (a batch's float
# noise).
SAME_SCORE = 1e-6
# A log-likelihood above this is not a log-probability (lm-eval's float32 sums may round a sure
# token to just above 0).
MAX_LOGLIK = 1e-6


def _check_identity(identity: dict, where: str) -> None:
    """Refuse a ``metadata.xbias`` that `xbias lm-eval tasks` could not have written (a field
    missing, of another type, a scale that is not two whole numbers low < high)."""
    wrong = [
        name
        for name, kind in IDENTITY_FIELDS.items()
        if not isinstance(identity.get(name), kind) or isinstance(identity.get(name), bool)
    ]
    scale = identity.get("scale")
    if not (
        isinstance(scale, list)
        and len(scale) == 2
        and all(isinstance(end, int) and not isinstance(end, bool) for end in scale)
        and scale[0] < scale[1]
    ):
        wrong.append("scale")
    if wrong or identity["sample"] < 0:
        raise SamplesFileError(
            f"{where} is malformed ({', '.join(wrong) or 'sample'}): not an xbias task's metadata"
        )


def _read_json(path: Path, what: str):
    try:
        return parse_json(
            read_text(path)
        )  # the read rule: a regular file, bounded in size and depth
    except (OSError, ValueError) as error:
        raise SamplesFileError(unreadable_file(path, error, what)) from None


def _lines(path: Path) -> list:
    try:
        text = read_text(path)
    except (OSError, ValueError) as error:
        raise SamplesFileError(unreadable_file(path, error, "lm-eval samples file")) from None
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            lines.append(parse_json(line))
        except ValueError:
            raise SamplesFileError(
                f"{path} line {number} is not JSON: not lm-eval's samples file, or cut short"
            ) from None
    return lines


def _document_scores(line, low: int, high: int, where: str) -> tuple[str, dict]:
    """``(sentence, the judge's numbers)`` of one logged document (see the module docstring)."""
    try:
        doc, responses = line["doc"], line["filtered_resps"]
        sentence, numerals = doc["sentence"], list(doc["choice_numerals"])
        logliks = np.array([float(response[0]) for response in responses])
    except (KeyError, TypeError, IndexError, ValueError):
        raise SamplesFileError(
            f"{where} is not a logged document of an xbias task (doc, filtered_resps)"
        ) from None
    if (
        len(logliks) != len(numerals)
        or not np.isfinite(logliks).all()
        or not isinstance(sentence, str)
    ):
        raise SamplesFileError(
            f"{where}: {len(logliks)} log-likelihoods for {len(numerals)} choices, or not finite"
        )
    if (logliks > MAX_LOGLIK).any():
        raise SamplesFileError(
            f"{where}: a log-likelihood above 0 ({logliks.max():.6g}) is no log-probability"
        )
    if not all(isinstance(numeral, int) and not isinstance(numeral, bool) for numeral in numerals):
        raise SamplesFileError(f"{where}: its choice_numerals are not whole numbers")
    numerals = np.array(numerals)
    scored = numerals != NORMALISER
    shift = logliks[~scored].sum() if (~scored).any() else 0.0
    if sorted(set(numerals[scored])) != list(range(low, high + 1)):
        raise SamplesFileError(
            f"{where}: its choices are not the numerals {low}..{high} of the task's scale"
        )
    expected, mass, argmax = numeral_statistics(
        (logliks[scored] - shift)[None, :], numerals[scored], low, high
    )
    if (
        not mass[0] <= 1 + SAME_SCORE
    ):  # each numeral's log-likelihood holds the white space's: its p is at most 1
        raise SamplesFileError(
            f"{where}: the numerals' probabilities after the white space "
            f"sum to {mass[0]:.6g} > 1: not log-likelihoods lm-eval computed"
        )
    row = {
        "value": expected[0],
        "expected": expected[0],
        "numeral_mass": mass[0],
        "argmax": int(argmax[0]),
    }
    return sentence, row


class LoggedJudge:
    """A judge that answers with numbers lm-eval logged: a :class:`~eval_harness.contract.Judge`
    with the one prompt lm-eval asked (``scores`` is None: no SemEval fit was logged)."""

    scores = None

    def __init__(self, by_sentence: dict[str, dict], prompt: str, where: str):
        self.by_sentence, self.prompt, self.where = by_sentence, prompt, where

    def prompt_names(self) -> tuple[str, ...]:
        return (self.prompt,)

    def with_prompt(self, name: str) -> "LoggedJudge":
        """This judge for its own prompt; lm-eval logged no other paraphrase."""
        if name != self.prompt:
            raise InputError(f"{self.where} logged the prompt {self.prompt!r} only, not {name!r}")
        return self

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        return self.score(texts).value

    def score(self, texts: Sequence[str]) -> PromptScores:
        missing = [text for text in texts if text not in self.by_sentence]
        if missing:
            raise InputError(
                f"{self.where} has no score for {len(missing)} "
                f"sentence(s) the eec suite scores (e.g. {missing[0]!r}): "
                "lm-eval ran it with --limit, or on another pack's data"
            )
        return PromptScores.from_records([self.by_sentence[text] for text in texts])


class LoggedModels:
    """``ctx.models`` of an import: each (language, emotion)'s :class:`LoggedJudge`."""

    def __init__(self, judges: dict[tuple[str, str], LoggedJudge]):
        self.judges = judges

    def emotion_regressor(self, model, language: str, emotion: str, seed: int) -> LoggedJudge:
        return self.judges[language, emotion]


def import_samples(
    paths: Sequence[str | Path], out: str | Path, name: str | None = None, force: bool = False
) -> RunSummary:
    """Write the run folder ``out`` from lm-eval's samples files ``paths`` (one per task: EEC config
    x emotion, all with one prompt and one sample). ``name``: the model's name in the run (default:
    the model's, from lm-eval).

    Raises:
        SamplesFileError: a file that is not lm-eval's samples of an xbias task, or a damaged one.
        InputError: tasks that do not form one run (two prompts, models, samples; a config x emotion
            twice or missing from the grid).
    """
    logged = [read_samples(path) for path in dict.fromkeys(Path(path) for path in paths)]
    if not logged:
        raise InputError("lm-eval import: give at least one samples_<task>_<time>.jsonl file")
    return write_logged_run(logged, out, name, force, runner="lm_eval")


def write_logged_run(
    logged: Sequence[LoggedTask], out: str | Path, name: str | None, force: bool, runner: str
) -> RunSummary:
    """Write the run folder ``out`` from the logged tasks of one runner (``runner``: ``lm_eval`` or
    ``inspect``, the key under which run.json's provenance says what ran the model; each task's
    ``lm_eval`` holds that runner's
    account: version, backend, model, model arguments). ``name``: the model's name in the run
    (default: the runner's model's).

    Raises:
        InputError: tasks that do not form one run (two prompts, models, samples; a config x emotion
            twice or missing from the grid).
    """
    for field in ("prompt", "sample", "scale", "model"):
        values = {json.dumps(task.identity[field]) for task in logged}
        if len(values) > 1:
            raise InputError(
                f"the logs come from tasks of different {field}s "
                f"({', '.join(sorted(values))}): import each as "
                "its own run (xbias compare then pairs them)"
            )
    models = {json.dumps([task.lm_eval["backend"], task.lm_eval["model"]]) for task in logged}
    if len(models) > 1:
        raise InputError(f"the logs come from different models ({', '.join(sorted(models))})")
    cells = [(task.identity["config"], task.identity["emotion"]) for task in logged]
    repeated = sorted({cell for cell in cells if cells.count(cell) > 1})
    if repeated:
        raise InputError(f"the logs measure {' x '.join(repeated[0])} twice: import one of them")
    identity, lm_eval = logged[0].identity, logged[0].lm_eval
    name = name or _model_name(lm_eval["model"], identity["prompt"])
    digest = hashlib.sha256(
        "".join(sorted(file_sha256(task.path) for task in logged)).encode()
    ).hexdigest()
    config = parse_config(
        {
            "name": f"{runner.replace('_', '-')}-import",
            "seeds": [0],
            "models": [
                {
                    "name": name,
                    "path": str(lm_eval["model"]),
                    "type": "llm",
                    "options": {"scale": identity["scale"]},
                }
            ],
            "suites": {
                "eec": {
                    "languages": sorted({task.identity["language"] for task in logged}),
                    "configs": sorted({config for config, _ in cells}),
                    "emotions": sorted({emotion for _, emotion in cells}),
                    "sample": identity["sample"],
                    "prompt_spread": False,
                }
            },
        },
        where=f"{runner} import",
    )
    pinned = (
        f"{runner.replace('_', '-')} {'samples' if runner == 'lm_eval' else 'log'} sha256:{digest}"
    )
    config = replace(config, pinned={name: pinned})
    plan = _sampled_units(plan_units(config), set(cells))
    judges = {(task.identity["language"], task.identity["emotion"]): {} for task in logged}
    for task in logged:
        judges[task.identity["language"], task.identity["emotion"]].update(task.scores)
    where = ", ".join(str(task.path) for task in logged)
    provenance = {
        "models": {
            name: {"commit": pinned, "load": None, runner: lm_eval, "prompt": identity["prompt"]}
        },
        runner: {**lm_eval, "tasks": {task.task: file_sha256(task.path) for task in logged}},
        "precisions": {name: precision}
        if (precision := lm_eval_precision(lm_eval.get("model_args")))
        else {},
    }
    return write_run(
        config,
        plan,
        out,
        lambda ctx: LoggedModels(
            {key: LoggedJudge(scores, identity["prompt"], where) for key, scores in judges.items()}
        ),
        provenance,
        force=force,
    )


# lm-eval's ``dtype=`` model argument, as the records name a precision.
LM_EVAL_DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


def lm_eval_precision(model_args) -> str | None:
    """The precision lm-eval ran the model in, from its ``dtype=`` model argument (a ``"k=v,k=v"``
    string or a mapping); None when it does not say (its ``auto``: the checkpoint's own dtype)."""
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    dtype = str((model_args or {}).get("dtype", "")).removeprefix("torch.")
    return LM_EVAL_DTYPES.get(dtype)


def _model_name(model: str | None, prompt: str) -> str:
    """A run's model name from lm-eval's (its last path part, made plain), with the prompt when not
    the judge's."""
    base = (
        re.sub(r"[^A-Za-z0-9._-]+", "-", Path(str(model or "lm-eval")).name).lstrip(".-")
        or "lm-eval"
    )
    name = base if prompt == DEFAULT_PROMPT else f"{base}_{prompt}"
    return name if PLAIN_NAME.fullmatch(name) else "lm-eval"


def _sampled_units(plan: Plan, cells: set[tuple[str, str]]) -> Plan:
    """``plan``'s units with samples (the EEC units; lm-eval logged no SemEval fit) of the logged
    cells.

    Raises:
        InputError: a config x emotion of the plan's grid that no samples file measured.
    """
    tasks = []
    for task in plan.tasks:
        suite = get_suite(task.suite)
        units = tuple(unit for unit in task.units if suite.keeps_samples(unit))
        missing = [
            f"{unit.config} x {unit.emotion}"
            for unit in units
            if (unit.config, unit.emotion) not in cells
        ]
        if missing:
            raise InputError(
                f"the samples files measure some configs and emotions but not {missing[0]}: "
                "import every config x emotion of the grid, or each part as its own run"
            )
        tasks.append(replace(task, units=units))
    return Plan(tuple(tasks), plan.skipped)
