"""``xbias lm-eval tasks`` on a tiny chat model (fast): the pack's tasks, groups and data, and the
token sequences lm-eval will score are the judge's own: the judge's prompt around the sentence, then
each numeral candidate."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from helpers.tiny_causal_lm import build_tiny_bpe_tokenizer, build_tiny_causal_lm

from eval_harness.lmeval.tasks import NORMALISER, write_tasks
from eval_harness.models.prompt_judge import (
    judge_prompts,
    numeral_candidates,
    paraphrased_prompt,
    render_prompt,
)
from eval_harness.stats import judge as judge_rule


class Loader(yaml.SafeLoader):
    """lm-eval's YAML: ``!function module.name`` read as a string."""


Loader.add_constructor(
    "!function", lambda loader, node: f"!function {loader.construct_scalar(node)}"
)


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    model = build_tiny_causal_lm(tmp_path_factory.mktemp("lm") / "lm")
    return model, write_tasks(
        tmp_path_factory.mktemp("pack") / "tasks", str(model), ["en"], ["anger"], sample=1
    )


def read(folder, name):
    return yaml.load((folder / f"{name}.yaml").read_text(encoding="utf-8"), Loader=Loader)


def test_one_task_per_config_emotion_and_prompt_with_groups(pack):
    _, written = pack
    assert len(written.tasks) == 3 * 4 and "xbias_eec_en_black_white_anger_expert" in written.tasks
    group = read(written.folder, "xbias_eec_en")
    assert group["task"] == [
        f"xbias_eec_{config}_anger_default"
        for config in ("en_black_white", "en_latino_anglo", "en_arab_anglo")
    ]
    task = read(written.folder, "xbias_eec_en_black_white_anger_expert")
    assert task["output_type"] == "multiple_choice" and task["dataset_path"] == "parquet"
    assert task["process_results"] == "!function utils.process_results"
    assert task["metadata"]["xbias"] == {
        "format": 1,
        "config": "en_black_white",
        "language": "en",
        "emotion": "anger",
        "prompt": "expert",
        "scale": [0, 9],
        "sample": 1,
        "model": task["metadata"]["xbias"]["model"],
    }
    rows = pd.read_parquet(task["dataset_kwargs"]["data_files"]["test"])
    assert (
        len(rows) == written.sentences["xbias_eec_en_black_white_anger_expert"] == 42
    )  # 1 row a cell
    assert (rows["emotion"] == "anger").all() and rows["sentence_id"].is_unique

    # lm-eval runs the pack without xbias: utils.py scores with the pack's copy of the judge's own
    # rule
    assert (written.folder / "judge_rule.py").read_bytes() == Path(judge_rule.__file__).read_bytes()
    line = {"choice_numerals": [0, 1, 1, 2, 3, -1], "resps": [-2.1, -1.3, -4.0, -0.9, -3.3, -0.2]}
    script = (
        "import importlib.util, json, sys\n"
        "sys.modules['eval_harness'] = None  # any import of xbias fails\n"
        "spec = importlib.util.spec_from_file_location('utils', "
        f"{str(written.folder / 'utils.py')!r})\n"
        "utils = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(utils)\n"
        f"line = {line!r}\n"
        "print(json.dumps(utils.process_results(line, "
        "[(value, False) for value in line['resps']])))\n"
    )
    numbers = json.loads(
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout
    )
    logprobs = np.array([line["resps"][:-1]]) - line["resps"][-1]
    expected, mass, _ = judge_rule.numeral_statistics(logprobs, line["choice_numerals"][:-1], 0, 3)
    assert numbers == {
        "score": pytest.approx(expected[0], abs=1e-12),
        "numeral_mass": pytest.approx(mass[0], rel=1e-12),
    }


def test_the_scored_tokens_are_the_judges(pack):
    from transformers import AutoTokenizer

    model, written = pack
    tokenizer = AutoTokenizer.from_pretrained(model)
    task = read(written.folder, "xbias_eec_en_black_white_anger_expert")
    row = pd.read_parquet(task["dataset_kwargs"]["data_files"]["test"]).iloc[0]
    context = (
        task["doc_to_text"]
        .replace("{% raw %}", "")
        .replace("{% endraw %}", "")
        .replace("{{text}}", row["text"])
    )
    before, after = render_prompt(
        tokenizer, paraphrased_prompt(judge_prompts()["en"], "expert"), "anger", 0, 9
    )
    judge_tokens = tokenizer(before + row["text"] + after, add_special_tokens=False)["input_ids"]
    candidates, numerals = numeral_candidates(tokenizer, 0, 9)
    assert list(row["choice_numerals"]) == [*numerals, NORMALISER]
    for choice, candidate in zip(row["choices"], candidates, strict=False):
        assert tokenizer(context + choice, add_special_tokens=False)["input_ids"] == [
            *judge_tokens,
            candidate,
        ]
    assert (
        tokenizer(context + row["choices"][-1], add_special_tokens=False)["input_ids"]
        == judge_tokens
    )


def test_a_tokenizer_that_joins_white_space_and_numeral_is_refused():
    from eval_harness.errors import InputError
    from eval_harness.lmeval.tasks import choices

    tokenizer = build_tiny_bpe_tokenizer(chat_template=False)
    tokenizer.add_tokens(
        [" 7"]
    )  # " 7" becomes one token: lm-eval's split after "Answer:" is no longer the judge's
    before, after = render_prompt(tokenizer, judge_prompts()["en"], "anger", 0, 9)
    with pytest.raises(InputError, match="joins white space and numeral"):
        choices(tokenizer, [(before, after)], 0, 9)
