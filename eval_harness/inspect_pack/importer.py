"""``xbias inspect import``: Inspect logs of the pack's tasks as an xbias run folder.

An Inspect log (``.eval`` or ``.json``, read with Inspect's own ``read_eval_log``) holds, per
sample, the sentence and its labels (the metadata :mod:`.tasks` gave it, with the task's identity
under ``xbias``) and the model's output with the first token's top log-probabilities. The judge's
numbers are read from those again with the judge's own rule (:func:`.reading.read_numerals`), not
taken from the scorer's values, so a log scored by another version of the scorer reads the same.

The run folder is written as lm-eval's import writes it
(:func:`~eval_harness.lmeval.importer.write_logged_run`: the ``eec`` suite scores the same rows as
``xbias run`` with the same ``sample``, asking a judge that answers with the logged numbers), so
``xbias report``, ``compare`` and ``power`` read it unchanged. run.json's provenance names Inspect's
version, the provider and model, the model arguments, how many alternatives the provider returned,
and the largest error that a top-k truncation may have put into a score (:mod:`.reading`).
"""

from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, unreadable_file
from ..lmeval.importer import LoggedTask, write_logged_run
from ..runner.sweep import RunSummary
from .reading import read_numerals
from .tasks import PACK_FORMAT


class InspectLogError(InputError):
    """A file that is not an Inspect log of a finished run of an xbias task."""


def read_inspect_log(path: str | Path) -> LoggedTask:
    """The judge's numbers by sentence, and what ran them, from one Inspect log of an xbias EEC
    task.

    Raises:
        InspectLogError: one line naming the file and what is wrong (not Inspect's log, not an xbias
            task, a run that did not finish, a sample without log-probabilities or without a numeral
            among them).
    """
    from inspect_ai.log import read_eval_log

    path = Path(path)
    try:
        log = read_eval_log(str(path))
    except Exception as error:  # noqa: BLE001 - Inspect raises many kinds for a file that is not its log
        raise InspectLogError(unreadable_file(path, error, "Inspect log")) from None
    if log.status != "success":
        raise InspectLogError(
            f"{path}: the Inspect run did not finish (status {log.status}); finish it first"
        )
    samples = log.samples or []
    identity = (samples[0].metadata or {}).get("xbias") if samples else None
    if not isinstance(identity, dict) or identity.get("format") != PACK_FORMAT:
        raise InspectLogError(
            f"{path} is not a log of an xbias task (written by `xbias inspect tasks`)"
        )
    low, high = identity["scale"]
    scores: dict[str, dict] = {}
    bounds: list[float] = []
    sizes: set[int] = set()
    for sample in samples:
        where = f"{path} sample {sample.id}"
        choices = sample.output.choices if sample.output else []
        content = choices[0].logprobs.content if choices and choices[0].logprobs else []
        if (sample.metadata or {}).get("xbias") != identity:
            raise InspectLogError(
                f"{where} belongs to another xbias task than the log's first sample"
            )
        if not content or not content[0].top_logprobs:
            raise InspectLogError(
                f"{where} has no top log-probabilities: run with a "
                "provider that returns them (logprobs, top_logprobs)"
            )
        top = [(entry.token, entry.logprob) for entry in content[0].top_logprobs]
        reading = read_numerals(top, low, high)
        if reading is None:
            raise InspectLogError(
                f"{where}: no numeral {low}-{high} among the first "
                f"token's {len(top)} most likely; raise top_logprobs"
            )
        scores.setdefault(sample.metadata["sentence"], reading.record())
        bounds.append(reading.score_error_bound)
        sizes.add(len(top))
    model_args = dict(log.eval.model_args or {})
    inspect = {
        "version": log.eval.packages.get("inspect_ai"),
        "backend": log.eval.model.split("/")[0],
        "model": log.eval.model,
        "model_args": model_args,
        "model_sha": None,
        "limit": log.eval.config.limit,
        "top_logprobs": sorted(sizes),
        # The most a top-k truncation may have moved a score (0: every numeral spelling was
        # returned).
        "score_error_bound_max": max(bounds),
    }
    return LoggedTask(path, log.eval.task, {**identity, "model": log.eval.model}, scores, inspect)


def import_logs(
    paths: Sequence[str | Path], out: str | Path, name: str | None = None, force: bool = False
) -> RunSummary:
    """Write the run folder ``out`` from Inspect logs ``paths`` (one per task: EEC config x emotion,
    all with one prompt, sample and model). ``name``: the model's name in the run (default: the
    model's, from Inspect).

    Raises:
        InspectLogError: a file that is not an Inspect log of a finished xbias task.
        InputError: logs that do not form one run
        (:func:`~eval_harness.lmeval.importer.write_logged_run`).
    """
    logged = [read_inspect_log(path) for path in dict.fromkeys(Path(path) for path in paths)]
    if not logged:
        raise InputError("inspect import: give at least one Inspect log")
    return write_logged_run(logged, out, name, force, runner="inspect")
