"""The EEC judge as Inspect tasks: one task per EEC config and emotion (:func:`eec_task`), and the
task file that ``xbias inspect tasks --out DIR`` writes for Inspect to load
(:func:`write_task_file`).

A task's samples are the EEC sentences (the rows ``xbias run``'s ``eec`` suite scores with the same
``sample``: :func:`~eval_harness.lmeval.tasks.judged_rows`), each with its labels in the sample's
metadata (group, gender, template, emotion, ...). Its solver :func:`judge_prompt` asks xbias's judge
prompt (or a paraphrase) as chat messages
(:func:`~eval_harness.models.judge_definition.judge_messages`); ``generate`` asks for one token with
its ``top_logprobs`` most likely alternatives; the scorer :func:`judge_numerals` records the
expected numeral and the numeral mass read from them (:mod:`.reading`: exact when every numeral
spelling is among them; otherwise the bounds it records say how far off they may be).

The provider renders the messages through the model's chat template, as xbias's judge does
(:func:`~eval_harness.models.prompt_judge.render_prompt`), so a chat model gets the same tokens. A
model without a chat template gets the provider's own rendering (Inspect's HF provider: ``role:
content`` lines), not the judge's plain prompt.
"""

import json
from pathlib import Path

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Score, mean, scorer, stderr
from inspect_ai.solver import generate, solver

from ..data.eec_benchmark import (
    INSPECT_TASK_PREFIX,
    SCORER,
    SOLVER,
    TOP_LOGPROBS,
    inspect_task_id,
    inspect_task_ids,
)
from ..data.emotion_splits import clean_tweet
from ..errors import ConfigError
from ..io import atomic_write_text, folder_problem, write_problem
from ..lmeval.tasks import judged_rows
from ..models.judge_definition import (
    DEFAULT_PROMPT,
    DEFAULT_SCALE,
    TEXT_MARK,
    judge_messages,
    prompt_names,
)
from ..models.prompt_judge import judge_prompts, paraphrased_prompt
from ..suites.eec.corpora import load_corpus
from .reading import read_numerals

PACK_FORMAT = 1
TASK_FILE = "xbias_eec.py"
TASK_FILE_HEADER = '"""xbias: the EEC judge as Inspect tasks,'
# The sample metadata's labels: the EEC's columns that say who a sentence is about and how it is
# built.
LABELS = (
    "template",
    "template_id",
    "person",
    "person_kind",
    "gender",
    "group",
    "minority",
    "emotion",
    "emotion_word",
)


@solver(name=SOLVER)
def judge_prompt(language: str, emotion: str, prompt: str = DEFAULT_PROMPT):
    """The Inspect solver that puts the sample's sentence into xbias's judge prompt ``prompt`` (the
    reported one, or a paraphrase) for ``language`` and ``emotion``, as a system and a user
    message."""
    table = judge_prompts()
    if language not in table:
        raise ConfigError(f"no judge prompt for language {language!r} (have {', '.join(table)})")
    system, user = judge_messages(
        paraphrased_prompt(table[language], prompt), emotion, *DEFAULT_SCALE
    )

    async def solve(state, generate):
        text = clean_tweet(state.input_text)  # as the judge cleans a text (its preprocess)
        messages = [ChatMessageSystem(content=system)] if system else []
        state.messages = [*messages, ChatMessageUser(content=user.replace(TEXT_MARK, text))]
        return state

    return solve


@scorer(name=SCORER, metrics={"score": [mean(), stderr()], "numeral_mass": [mean()]})
def judge_numerals(low: int = DEFAULT_SCALE[0], high: int = DEFAULT_SCALE[1]):
    """The Inspect scorer of the judge: from the first answer token's log-probabilities, the
    expected numeral on [0, 1] (``score``) and the probability mass on the scale's numerals
    (``numeral_mass``); the metadata add the expected numeral on the scale, the arg-max numeral and
    :mod:`.reading`'s bounds. A sample whose provider returned no log-probabilities, or no numeral
    among them, is scored NaN with the reason."""

    async def score(state, target):
        logprobs = state.output.choices[0].logprobs if state.output.choices else None
        if logprobs is None or not logprobs.content or not logprobs.content[0].top_logprobs:
            return _unscored(
                "the provider returned no top log-probabilities "
                "(it needs logprobs and top_logprobs)"
            )
        top = [(entry.token, entry.logprob) for entry in logprobs.content[0].top_logprobs]
        reading = read_numerals(top, low, high)
        if reading is None:
            return _unscored(
                f"no numeral {low}-{high} among the first token's {len(top)} most likely"
            )
        return Score(
            value={"score": reading.expected, "numeral_mass": reading.numeral_mass},
            answer=str(reading.argmax),
            metadata={
                "expected_numeral": low + reading.expected * (high - low),
                "argmax": reading.argmax,
                "top_logprobs": len(top),
                "candidates_found": reading.found,
                "missing_mass_bound": reading.missing_mass_bound,
                "score_error_bound": reading.score_error_bound,
            },
        )

    return score


def _unscored(reason: str) -> Score:
    return Score(value={"score": float("nan"), "numeral_mass": float("nan")}, explanation=reason)


def eec_task(
    config: str,
    emotion: str,
    prompt: str = DEFAULT_PROMPT,
    sample: int = 0,
    top_logprobs: int = TOP_LOGPROBS,
):
    """The Inspect task of the judge on the EEC ``config`` and ``emotion`` (``sample`` rows per
    template x identity cell, 0: every row; ``prompt``: the judge's prompt or a paraphrase;
    ``top_logprobs``: how many alternatives of the first token to ask for).

    Raises:
        ConfigError: an unknown config, emotion or prompt, a bad sample or top_logprobs.
    """
    cells = {
        (config_, emotion_): language for language, config_, emotion_ in inspect_task_ids().values()
    }
    if (config, emotion) not in cells:
        raise ConfigError(f"no xbias EEC task for config {config!r} and emotion {emotion!r}")
    language = cells[config, emotion]
    if prompt not in prompt_names(judge_prompts()[language]):
        raise ConfigError(
            f"no judge prompt {prompt!r} for {language} (have "
            f"{prompt_names(judge_prompts()[language])})"
        )
    for name, value, least in (("sample", sample, 0), ("top_logprobs", top_logprobs, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(f"{name} must be a whole number >= {least}, got {value!r}")
    identity = {
        "format": PACK_FORMAT,
        "config": config,
        "language": language,
        "emotion": emotion,
        "prompt": prompt,
        "scale": list(DEFAULT_SCALE),
        "sample": sample,
    }
    rows = judged_rows(load_corpus(config, {}), config, emotion, sample)
    samples = [
        Sample(
            id=int(sentence_id),
            input=row["sentence"],
            target=row["emotion"],
            metadata={
                "sentence_id": int(sentence_id),
                "sentence": row["sentence"],
                **_labels(row),
                "xbias": identity,
            },
        )
        for sentence_id, row in rows.iterrows()
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"eec/{config}"),
        solver=[judge_prompt(language, emotion, prompt), generate()],
        scorer=judge_numerals(*DEFAULT_SCALE),
        config=GenerateConfig(max_tokens=1, logprobs=True, top_logprobs=top_logprobs),
        name=inspect_task_id(language, config, emotion),
        version=PACK_FORMAT,
        metadata={"xbias": identity},
    )


def _labels(row) -> dict:
    """A row's labels as JSON values (numpy's scalars as Python's, a missing group as None)."""
    return json.loads(row[list(LABELS)].to_json())


def write_task_file(out: str | Path) -> Path:
    """Write ``out``/xbias_eec.py: one ``@task`` per EEC config and emotion (the task ids of
    :func:`~eval_harness.data.eec_benchmark.inspect_task_ids`), each :func:`eec_task` with its
    arguments (``-T prompt=... -T sample=... -T top_logprobs=...``). Returns the file's path.

    Raises:
        ConfigError: xbias may not write there (a file, not writable, or an ``xbias_eec.py`` it did
        not write).
    """
    folder = Path(out)
    problem = folder_problem(folder) or write_problem(folder, _written_by_xbias, [TASK_FILE])
    if problem:
        raise ConfigError(f"cannot write the task file into {folder}: {problem}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / TASK_FILE
    atomic_write_text(path, task_file_text())
    return path


def _written_by_xbias(path: Path) -> bool:
    """Whether ``path`` is a task file this command wrote (its first line says so)."""
    try:
        return path.read_text(encoding="utf-8").startswith(TASK_FILE_HEADER)
    except (OSError, ValueError):
        return False


def task_file_text() -> str:
    """The text of the task file (:func:`write_task_file`)."""
    parts = [
        f"{TASK_FILE_HEADER} one per EEC config and emotion (written by\n"
        "`xbias inspect tasks`; it needs xbias installed). "
        "Run one with any Inspect provider, e.g.\n\n"
        f"    inspect eval {TASK_FILE}@{INSPECT_TASK_PREFIX}en_black_white_anger "
        "--model hf/MODEL\n\n"
        "and read its log into an xbias run folder with `xbias inspect import LOG --out RUN`.\n"
        '"""\n\n'
        "from inspect_ai import Task, task\n\n"
        "from eval_harness.inspect_pack.tasks import eec_task\n"
    ]
    for task_id, (language, config, emotion) in inspect_task_ids().items():
        parts.append(
            f"\n\n@task\ndef {task_id}(prompt: str = {DEFAULT_PROMPT!r}, sample: int = 0, "
            f"top_logprobs: int = {TOP_LOGPROBS}) -> Task:\n"
            f'    """The judge on the EEC {config} ({language}), {emotion}."""\n'
            f"    return eec_task({config!r}, {emotion!r}, prompt, sample, top_logprobs)\n"
        )
    return "".join(parts)
