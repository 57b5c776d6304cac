"""The EEC as a Hub benchmark run by Inspect: its ``eval.yaml`` (``evaluation_framework:
inspect-ai``) and the names of its tasks, which are the tasks of xbias's Inspect pack
(:mod:`eval_harness.inspect_pack`).

The Hub lists a benchmark's results only when its ``eval.yaml`` names a framework of its allow-list
(``EVALUATION_FRAMEWORKS`` in huggingface.js ``packages/tasks/src/eval.ts``, which holds
``inspect-ai``), and an ``inspect-ai`` benchmark's tasks also say how Inspect reads the dataset
(``field_spec``), asks the model (``solvers``) and scores it (``scorers``; hub-docs
``docs/hub/eval-results.md``). One task per EEC config and emotion, named as the pack's task
(:func:`inspect_task_id`): a model's ``.eval_results`` entry for it names that task id.
docs/model_card.md says what a publisher does with it.
"""

from .catalog import EEC_CONFIGS_BY_LANGUAGE, EEC_EMOTIONS

INSPECT_FRAMEWORK = "inspect-ai"
INSPECT_TASK_PREFIX = "xbias_eec_"
SPLIT = "train"  # the EEC's one split (data.builders)
# The pack's solver and scorer (eval_harness.inspect_pack.tasks), and what generate asks for: one
# token, and the log-probabilities of the first token's most likely alternatives.
SOLVER = "judge_prompt"
SCORER = "judge_numerals"
TOP_LOGPROBS = 20  # the most OpenAI's API and vLLM's default server return


def inspect_task_id(language: str, config: str, emotion: str) -> str:
    """The Inspect task (and Hub benchmark task) of the EEC judge on ``config`` (an EEC of
    ``language``) and ``emotion``: ``xbias_eec_en_black_white_anger``.

    Raises:
        ValueError: ``config`` is not an EEC of ``language``, or ``emotion`` not an EEC emotion.
    """
    if config not in EEC_CONFIGS_BY_LANGUAGE.get(language, ()) or emotion not in EEC_EMOTIONS:
        raise ValueError(
            f"no EEC task for language {language!r}, config {config!r}, "
            f"emotion {emotion!r} (configs by language: "
            f"{EEC_CONFIGS_BY_LANGUAGE}; emotions: {', '.join(EEC_EMOTIONS)})"
        )
    return f"{INSPECT_TASK_PREFIX}{config}_{emotion}"


def eec_task_id(config: str, emotion: str) -> str:
    """The Inspect task (and Hub benchmark task) of ``config`` and ``emotion``, its language read
    from the
    config: every result xbias measures on that EEC config and emotion (a judge's or a regressor's)
    is an entry on this task, its effect named in the entry's notes."""
    languages = [
        language for language, configs in EEC_CONFIGS_BY_LANGUAGE.items() if config in configs
    ]
    return inspect_task_id(languages[0] if languages else "", config, emotion)


def inspect_task_ids() -> dict[str, tuple[str, str, str]]:
    """Every task of the pack: ``{task id: (language, config, emotion)}``, language by language."""
    return {
        inspect_task_id(language, config, emotion): (language, config, emotion)
        for language, configs in EEC_CONFIGS_BY_LANGUAGE.items()
        for config in configs
        for emotion in EEC_EMOTIONS
    }


EEC_BENCHMARK_NAME = (
    "Equity Evaluation Corpora: an LLM judge's intersectional emotion-intensity bias"
)
EEC_BENCHMARK_DESCRIPTION = (
    "How much an LLM's judged emotion intensity moves with the race/ethnicity and "
    "gender a sentence is about, and with their intersection (Kiritchenko & Mohammad "
    "2018; Camara et al. 2022). One task per EEC config and emotion: the model is "
    "asked, with xbias's judge prompt, how strongly each sentence expresses the "
    "emotion on 0-9, and its answer is read from the first token's log-probabilities "
    "(the expected numeral and the probability mass on the numerals). xbias (`xbias "
    "inspect import`, then `xbias report`) fits the Beta regression y ~ minority + "
    "female + minority:female to the scores; its bias coefficients are signed (0 is "
    "no bias): a leaderboard is read by distance from 0, never as higher-is-better."
)


def eec_eval_yaml_data() -> dict:
    """The EEC's ``eval.yaml`` as a mapping, in the spec's field order: one ``inspect-ai`` task per
    config and emotion, reading the ``sentence`` column of its config's split (``target``: the
    emotion, which the scorer does not compare with anything: the judge has no right answer), asking
    with the pack's solver and scoring with its scorer."""
    tasks = []
    for task_id, (language, config, emotion) in inspect_task_ids().items():
        tasks.append(
            {
                "id": task_id,
                "config": config,
                "split": SPLIT,
                "field_spec": {"input": "sentence", "target": "emotion"},
                "solvers": [
                    {"name": SOLVER, "args": {"language": language, "emotion": emotion}},
                    {
                        "name": "generate",
                        "args": {"max_tokens": 1, "logprobs": True, "top_logprobs": TOP_LOGPROBS},
                    },
                ],
                "scorers": [{"name": SCORER}],
            }
        )
    return {
        "name": EEC_BENCHMARK_NAME,
        "description": EEC_BENCHMARK_DESCRIPTION,
        "evaluation_framework": INSPECT_FRAMEWORK,
        "tasks": tasks,
    }
