"""``xbias lm-eval tasks``: the EEC judge as a task pack that lm-evaluation-harness loads with
``--include_path``.

One task per EEC config x emotion x prompt (the judge's prompt and its paraphrases,
``judge_prompts.yaml``), named ``xbias_eec_<config>_<emotion>_<prompt>``, and groups:
``xbias_eec_<language>`` (the reported prompt, every config and emotion of the language),
``xbias_eec_<language>_<prompt>`` (a paraphrase's) and ``xbias_<config>`` (one EEC, the reported
prompt). Each task is ``output_type: multiple_choice`` over a Parquet file of the pack
(``dataset_path: parquet``, ``data_files``: the EEC rows of that config and emotion, the ``--limit``
sample drawn as ``xbias run --limit`` draws it), so it runs offline.

The prompt is rendered here, with the model's tokenizer, exactly as the judge renders it
(:func:`~eval_harness.models.prompt_judge.render_prompt`: the chat template when the model has one),
and the choices are the judge's candidates: every single-token spelling of each numeral of the
scale, after the white space the prompt ends with, plus that white space alone (:mod:`.task_utils`
says why). lm-eval then computes, for every sentence, the log-likelihoods the judge reads;
:mod:`.importer` turns them into the judge's numbers. A pack is therefore written for one tokenizer
(``--model``): give the model lm-eval will run.

The folder is a plain artefact (its YAML, ``utils.py`` with ``judge_rule.py``, ``data/*.parquet``
and a README), built with the storage kit (:func:`eval_harness.io.build_folder`: staged, then
renamed into place, sealed with every file's sha256).
"""

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..data.catalog import EEC_CONFIGS_BY_LANGUAGE, EEC_EMOTIONS
from ..errors import ConfigError, InputError, XBiasError
from ..io import build_folder, whole_folder_problem

PACK_KIND = "xbias lm-eval task pack"
PACK_FORMAT = 1
TASK_PREFIX = "xbias_eec_"
# The lm-eval versions the pack was tested with (tests/lmeval/test_lm_eval_end_to_end.py runs one of
# them).
TESTED_LM_EVAL = ("0.4.13",)
NORMALISER = -1  # the numeral of the empty choice (see task_utils)
UTILS = Path(__file__).with_name("task_utils.py")
# What a task pack's marker stamp says (the write rule: a folder replaced only when such a marker
# lists every file).
PACK_OWNER = {"kind": PACK_KIND, "format": PACK_FORMAT}


@dataclass(frozen=True)
class TaskPack:
    """What :func:`write_tasks` wrote: the folder, its tasks and groups (names), the sentences per
    task."""

    folder: Path
    tasks: tuple[str, ...]
    groups: tuple[str, ...]
    sentences: dict[str, int]


def task_name(config: str, emotion: str, prompt: str) -> str:
    return f"{TASK_PREFIX}{config}_{emotion}_{prompt}"


def write_tasks(
    out: str | Path,
    model: str,
    languages: Sequence[str] = tuple(EEC_CONFIGS_BY_LANGUAGE),
    emotions: Sequence[str] = EEC_EMOTIONS,
    sample: int = 0,
    scale: tuple[int, int] = (0, 9),
    trust_remote_code: bool = False,
) -> TaskPack:
    """Write the task pack for ``model``'s tokenizer into ``out`` (see the module docstring).

    ``trust_remote_code``: let a tokenizer that ships its own Python run it
    (``--trust-remote-code``); never asked.

    ``sample``: rows per template x group x gender cell (0: every row), drawn as the ``eec`` suite's
    ``sample``.

    Raises:
        ConfigError: an unknown language or emotion, a bad sample, or an ``out`` that holds
            something other than a task pack (never overwritten).
        InputError: a numeral of the scale is not a single token for the tokenizer.
    """
    unknown = [lang for lang in languages if lang not in EEC_CONFIGS_BY_LANGUAGE]
    unknown += [emotion for emotion in emotions if emotion not in EEC_EMOTIONS]
    if unknown or not languages or not emotions:
        raise ConfigError(
            "lm-eval tasks: languages must be some of "
            f"{', '.join(EEC_CONFIGS_BY_LANGUAGE)} and emotions some of "
            f"{', '.join(EEC_EMOTIONS)}; got {', '.join(unknown) or 'none'}"
        )
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise ConfigError(
            "lm-eval tasks: --limit must be a whole number "
            f"of rows per cell (0: all), got {sample!r}"
        )
    folder = Path(os.path.abspath(out))  # not resolved: a link at --out is refused, never followed
    _check_folder(folder)
    tokenizer = _tokenizer(model, trust_remote_code)
    written: dict = {}

    def build(staging: Path) -> dict:
        written.update(
            _write(staging, folder, tokenizer, model, languages, emotions, sample, scale)
        )
        return {"tasks": len(written["tasks"])}

    try:
        build_folder(folder, build, rebuild=True, owner=PACK_OWNER)
    except (
        OSError
    ) as error:  # a link planted at its lock, a folder put there since, a full disk, /proc
        raise ConfigError(
            f"cannot write the task pack into {folder} "
            f"({error.strerror or error}, at {error.filename or folder}); "
            "it is as it was: give another --out, or free some space"
        ) from None
    return TaskPack(folder, tuple(written["tasks"]), tuple(written["groups"]), written["sentences"])


def _check_folder(folder: Path) -> None:
    """Refuse, before the tokenizer loads, an ``out`` the write rule does not let a task pack
    replace whole: a file, a symbolic link (dangling or not) or a folder holding one, a folder that
    cannot be written, or one that is not empty and holds a file its task pack's marker does not
    list (:func:`eval_harness.io.whole_folder_problem`)."""
    problem = whole_folder_problem(folder, PACK_OWNER)
    if problem is not None:
        raise ConfigError(
            f"cannot write the task pack into {folder}: {problem}; give a new or empty --out"
        )


def _tokenizer(model: str, trust_remote_code: bool = False):
    """``model``'s tokenizer, with ``trust_remote_code`` always passed (so transformers never asks
    on standard input): a tokenizer that ships its own code is one line unless
    ``trust_remote_code``."""
    from transformers import AutoTokenizer
    from transformers.utils import logging as transformers_logging

    from ..models.loading import asks_for_code, remote_code_refused
    from ..models.packaged import resolve_source

    verbosity = transformers_logging.get_verbosity()
    # its guesses about an unknown model type: the error says what matters
    transformers_logging.set_verbosity_error()
    try:
        return AutoTokenizer.from_pretrained(
            resolve_source(model), trust_remote_code=bool(trust_remote_code)
        )
    except XBiasError:
        raise
    except Exception as error:  # noqa: BLE001 - every loader failure is the user's model problem
        if not trust_remote_code and asks_for_code(error):
            raise remote_code_refused(model) from None
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise InputError(
            f"cannot load the tokenizer of {model!r}: {type(error).__name__}: {first_line}"
        ) from None
    finally:
        transformers_logging.set_verbosity(verbosity)


def choices(
    tokenizer, before_after: Sequence[tuple[str, str]], low: int, high: int
) -> tuple[str, list[str], list[int]]:
    """``(white space, choices, numerals)``: the white space every prompt ends with (it leaves the
    prompt and starts every choice, as lm-eval would move it), the choices (that white space and
    then each of the judge's candidates spelled out, and the white space alone) and the numeral of
    each (:data:`NORMALISER` for the last).

    Raises:
        InputError: the prompts end with different white space (one choice list cannot serve them
        all).
    """
    from ..models.prompt_judge import numeral_candidates

    token_ids, numerals = numeral_candidates(tokenizer, low, high)
    spelled = [tokenizer.decode([token]) for token in token_ids]
    endings = {after[len(after.rstrip()) :] for _, after in before_after}
    if len(endings) > 1:
        raise InputError("the judge's prompts for this tokenizer end with different white space")
    (space,) = endings
    options = [space + text for text in spelled] + ([space] if space else [])
    before, after = before_after[0]
    _check_split(
        tokenizer, before + "A sentence." + after[: len(after) - len(space)], options, token_ids
    )
    return space, options, [*numerals, NORMALISER] if space else list(numerals)


def _check_split(tokenizer, context: str, options: list[str], token_ids: list[int]) -> None:
    """Check that lm-eval's split of each choice's tokens (the whole text's tokens after the
    context's, without special tokens, as its HF backend encodes them) gives the judge's: the white
    space's tokens, then the candidate's one token.

    Raises:
        InputError: this tokenizer merges the white space with a numeral (lm-eval's log-likelihoods
            would then not be the judge's numbers).
    """

    def encode(text: str) -> list[int]:
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    start = len(encode(context))
    space = encode(context + options[-1])[start:] if len(options) > len(token_ids) else []
    for option, token in zip(options, token_ids, strict=False):
        if encode(context + option)[start:] != [*space, token]:
            raise InputError(
                f"lm-eval would read the numeral {option.strip()!r} after this "
                "model's prompt as other tokens than the judge does (its tokenizer "
                "joins white space and numeral): use xbias run --model-type llm"
            )


def judged_rows(corpus, config: str, emotion: str, sample: int):
    """The rows of ``corpus`` (the EEC ``config``: ``load_corpus(config, {})``) for ``emotion`` that
    ``xbias run``'s ``eec`` suite scores with ``sample`` rows per template x identity cell (0: every
    row), indexed by the sentence's id in the corpus."""
    from ..suites.eec.corpora import identity_factors
    from ..suites.eec.suite import SAMPLE_SEED, stratified_sample

    rows = corpus[corpus["emotion"] == emotion]
    return (
        stratified_sample(rows, sample, SAMPLE_SEED, tuple(identity_factors(config, {})))
        if sample
        else rows
    )


def _write(staging, folder, tokenizer, model, languages, emotions, sample, scale) -> dict:
    from ..data.emotion_splits import clean_tweet
    from ..models.judge_definition import DEFAULT_PROMPT, prompt_names
    from ..models.prompt_judge import judge_prompts, paraphrased_prompt, render_prompt
    from ..stats import judge as judge_rule
    from ..suites.eec.corpora import load_corpus
    from .task_utils import RULE_FILE

    low, high = scale
    table = judge_prompts()
    (staging / "data").mkdir()
    shutil.copyfile(UTILS, staging / "utils.py")
    shutil.copyfile(
        judge_rule.__file__, staging / RULE_FILE
    )  # the judge's scoring rule, which utils.py reads
    tasks, groups, sentences = [], {}, {}
    for language in languages:
        spec = table[language]
        names = prompt_names(spec)
        rendered = {
            (name, emotion): render_prompt(
                tokenizer, paraphrased_prompt(spec, name), emotion, low, high
            )
            for name in names
            for emotion in emotions
        }
        space, options, choice_numerals = choices(tokenizer, list(rendered.values()), low, high)
        for config in EEC_CONFIGS_BY_LANGUAGE[language]:
            corpus = load_corpus(config, {})
            for emotion in emotions:
                rows = judged_rows(corpus, config, emotion, sample)
                data = rows.assign(
                    sentence_id=rows.index.to_numpy(),
                    text=[
                        clean_tweet(text) for text in rows["sentence"]
                    ],  # as the judge cleans it (preprocess)
                    choices=[options] * len(rows),
                    choice_numerals=[choice_numerals] * len(rows),
                ).reset_index(drop=True)
                data_file = staging / "data" / f"{config}_{emotion}.parquet"
                data.to_parquet(data_file, index=False)
                for name in names:
                    before, after = rendered[name, emotion]
                    after = after[: len(after) - len(space)]  # the white space starts every choice
                    task = task_name(config, emotion, name)
                    identity = {
                        "format": PACK_FORMAT,
                        "config": config,
                        "language": language,
                        "emotion": emotion,
                        "prompt": name,
                        "scale": [low, high],
                        "sample": sample,
                        "model": model,
                    }
                    (staging / f"{task}.yaml").write_text(
                        _task_yaml(task, folder / "data" / data_file.name, before, after, identity),
                        encoding="utf-8",
                    )
                    tasks.append(task)
                    sentences[task] = len(data)
                    group_names = [f"{TASK_PREFIX}{language}_{name}"]
                    if name == DEFAULT_PROMPT:
                        group_names += [f"{TASK_PREFIX}{language}", f"xbias_{config}"]
                    for group in group_names:
                        groups.setdefault(group, []).append(task)
    for group, members in groups.items():
        text = yaml.safe_dump(
            {"group": group, "task": members, "metadata": {"version": PACK_FORMAT}}, sort_keys=False
        )
        (staging / f"{group}.yaml").write_text(text, encoding="utf-8")
    (staging / "README.md").write_text(
        _card(model, languages, emotions, sample, len(tasks), groups), encoding="utf-8"
    )
    return {"tasks": tasks, "groups": list(groups), "sentences": sentences}


def _task_yaml(task: str, data_file: Path, before: str, after: str, identity: dict) -> str:
    """One task's YAML: the prompt as a Jinja template whose fixed parts are raw (a chat template's
    braces stay text), the sentence as ``{{text}}``."""
    for part in (before, after):
        if "{% endraw %}" in part:
            raise InputError(
                "a judge prompt holds '{% endraw %}', which the task's Jinja template cannot quote"
            )
    body = {
        "task": task,
        "dataset_path": "parquet",
        "dataset_kwargs": {"data_files": {"test": str(data_file)}},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "{% raw %}"
        + before
        + "{% endraw %}{{text}}{% raw %}"
        + after
        + "{% endraw %}",
        "doc_to_choice": "choices",
        # lm-eval asks for one; the judge has no right answer (process_results ignores it)
        "doc_to_target": 0,
        "target_delimiter": "",
        "metric_list": [
            {"metric": "score", "aggregation": "mean", "higher_is_better": True},
            {"metric": "numeral_mass", "aggregation": "mean", "higher_is_better": True},
        ],
        "metadata": {"version": PACK_FORMAT, "xbias": identity},
    }
    return (
        yaml.safe_dump(body, sort_keys=False, allow_unicode=True)
        + "process_results: !function utils.process_results\n"
    )


def _card(model: str, languages, emotions, sample: int, count: int, groups: dict) -> str:
    shown = ", ".join(f"`{group}`" for group in list(groups)[:6])
    return (
        "# xbias EEC judge tasks for lm-evaluation-harness\n\n"
        f"Written by `xbias lm-eval tasks` for the tokenizer of `{model}` (the prompts "
        "are rendered with its chat template, exactly as xbias's judge renders them; the "
        "choices are its single-token numeral spellings): run them on that model.\n\n"
        f"- {count} tasks: languages {', '.join(languages)}; emotions {', '.join(emotions)}; "
        f"{'every EEC row' if not sample else f'{sample} row(s) per template x group x gender cell'}"  # noqa: E501
        ".\n"
        f"- Groups: {shown}, ...\n"
        f"- Tested with lm-eval {', '.join(TESTED_LM_EVAL)} (`pip install xbias[lm-eval]`).\n\n"
        "```\n"
        "lm_eval --model vllm --model_args pretrained=MODEL --include_path "
        "THIS_FOLDER --tasks xbias_eec_en --log_samples --output_path OUT\n"
        "xbias lm-eval import OUT/*/samples_xbias_eec_*.jsonl --out RUN\n"
        "```\n\n"
        "`metadata.xbias` of each task says what it measures; `xbias "
        "lm-eval import` reads it back. The data files are named by "
        "absolute path: write the pack where lm-eval will read it.\n"
    )
