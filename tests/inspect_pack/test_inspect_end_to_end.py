"""End to end with a real model, offline (slow): ``inspect eval`` runs the pack's task for
en_black_white x anger (one sentence per template x group x gender cell: 42) on the packaged SmolLM2
with Inspect's HF provider; ``xbias inspect import`` turns the log into a run folder, and ``xbias
report`` reads it.

The tolerance. The judge's candidates for SmolLM2 are its 10 bare digits (a space before a digit is
a token of its own), and the provider returned the top 100 tokens, which held all 10 for every
sentence: the reading is then the judge's rule on the same numbers, and what is left is the numbers
themselves. Both sides are float32 forward passes over the same tokens (the chat template renders
the same system and user messages) in other batch layouts (Inspect's left-padded batch against the
judge's cached prompt prefix). If every candidate's log-probability differs by at most d, each
numeral's share of the mass moves by a factor within exp(+-2d), so the expected value on [0, 1]
moves by at most (exp(2d) - 1) / 2 ~ d, and the mass by a factor within exp(+-d). Float32 rounding
in a 30-layer forward pass gives d of order 1e-6 to 1e-5; the bound asked is d = 1e-4: |score
difference| < 1e-4 and relative mass difference < 1e-4 (measured: 2.0e-6 and 7.8e-6).

A provider that returns only the top 20 (OpenAI's API, vLLM's default) drops the numerals outside
them: the same log truncated to its first 20 shows what that does, and that it stays within the
bounds each score records."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inspect_ai.log import read_eval_log

from eval_harness.cli import main
from eval_harness.inspect_pack.reading import read_numerals
from eval_harness.inspect_pack.tasks import TASK_FILE
from eval_harness.models.packaged import resolve_source

pytestmark = pytest.mark.slow

MODEL = "pypi:smollm2-135m-instruct"
TASK = "xbias_eec_en_black_white_anger"
TOP = 100
# the log-probability difference allowed between two float32 batch layouts (module docstring)
DELTA = 1e-4


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("inspect-e2e")
    folder = resolve_source(MODEL)
    assert main(["inspect", "tasks", "--out", str(root / "tasks")]) == 0
    command = [
        str(Path(sys.executable).with_name("inspect")),
        "eval",
        f"{root / 'tasks' / TASK_FILE}@{TASK}",
        "-T",
        "sample=1",
        "-T",
        f"top_logprobs={TOP}",
        "--model",
        "hf/smollm2",
        "-M",
        f"model_path={folder}",
        "-M",
        "dtype=float32",
        "-M",
        "device=cpu",
        "--log-dir",
        str(root / "logs"),
        "--display",
        "none",
    ]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    assert finished.returncode == 0, finished.stderr[-3000:]
    (log,) = (root / "logs").iterdir()
    run = root / "run"
    assert main(["inspect", "import", str(log), "--out", str(run), "--name", "smollm2"]) == 0
    return {"log": log, "run": run, "folder": folder}


@pytest.fixture(scope="module")
def judged(runs):
    """The imported samples beside xbias's own judge's numbers on the same sentences."""
    from eval_harness.models.causal_lm import load_causal_lm
    from eval_harness.models.prompt_judge import PromptJudge

    (path,) = (runs["run"] / "units").glob("*__eec__en_black_white__anger__*.samples.parquet")
    imported = pd.read_parquet(path)
    judge = PromptJudge(load_causal_lm(runs["folder"]))
    judge.language, judge.dimension = (
        "en",
        "anger",
    )  # no fit: the prompt is all the judge needs to score
    own = judge.score(imported["sentence"].tolist())
    return {"imported": imported, "own": own, "judge": judge}


def top_logprobs(log_path) -> list[list[tuple[str, float]]]:
    log = read_eval_log(str(log_path))
    return [
        [
            (entry.token, entry.logprob)
            for entry in sample.output.choices[0].logprobs.content[0].top_logprobs
        ]
        for sample in log.samples
    ]


def test_imported_scores_equal_xbias_judge_to_the_derived_tolerance(runs, judged):
    imported, own = judged["imported"], judged["own"]
    assert len(imported) == 42 and len(judged["judge"].candidates) == 10  # SmolLM2: the bare digits
    readings = [read_numerals(top, 0, 9) for top in top_logprobs(runs["log"])]
    assert all(len(top) == TOP for top in top_logprobs(runs["log"]))
    assert {reading.found for reading in readings} == {
        10
    }  # every candidate of the judge among the top 100
    assert np.abs(imported["score"].to_numpy() - own.value).max() < (np.exp(2 * DELTA) - 1) / 2
    assert (np.abs(imported["numeral_mass"].to_numpy() / own.numeral_mass - 1)).max() < np.expm1(
        DELTA
    )
    assert (
        own.numeral_mass.min() > 0.01 and np.ptp(own.value) > 1e-3
    )  # numbers that are not trivially equal


def test_a_top_20_provider_moves_the_scores_within_the_bounds_it_records(runs, judged):
    """The log's top 100 cut to its first 20, as a top-20 provider returns them: the measured effect
    on the score and the mass, and the recorded bounds that cover it."""
    own = judged["own"]
    log = read_eval_log(str(runs["log"]))
    order = {sentence: index for index, sentence in enumerate(judged["imported"]["sentence"])}
    shifts, losses = [], []
    for sample, top in zip(log.samples, top_logprobs(runs["log"]), strict=True):
        index = order[sample.metadata["sentence"]]
        reading = read_numerals(top[:20], 0, 9)
        shifts.append(abs(reading.expected - own.value[index]))
        losses.append(1 - reading.numeral_mass / own.numeral_mass[index])
        assert shifts[-1] <= reading.score_error_bound + DELTA
        assert own.numeral_mass[index] <= (reading.numeral_mass + reading.missing_mass_bound) * (
            1 + DELTA
        )
    assert (
        0 <= min(losses) and max(losses) < 1
    )  # the mass read is a lower bound, and never all of it lost
    print(f"top-20: max |score shift| {max(shifts):.2e}, max relative mass lost {max(losses):.2e}")


def test_report_reads_the_imported_run_and_run_json_names_inspect(runs, tmp_path):
    info = json.loads((runs["run"] / "run.json").read_text())
    inspect = info["provenance"]["inspect"]
    assert (
        inspect["backend"] == "hf"
        and inspect["top_logprobs"] == [TOP]
        and inspect["model"] == "hf/smollm2"
    )
    assert info["provenance"]["precisions"] == {"smollm2": "fp32"}
    assert main(["report", str(runs["run"]), "--model-card", str(tmp_path / "card.md")]) == 0
    assert (runs["run"] / "report" / "report.html").exists() and "smollm2" in (
        tmp_path / "card.md"
    ).read_text()
