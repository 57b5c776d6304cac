"""The Inspect pack without a real model: Inspect's own task discovery lists the pack's tasks; a
task run by Inspect (its ``mockllm`` provider answering with known log-probabilities) asks the
judge's prompt and logs the sentences with their labels; ``xbias inspect import`` turns the log into
a run folder whose scores equal a direct computation from those probabilities, which ``xbias
report`` and ``xbias power`` read; a log that cannot give the judge's numbers is refused in one line
with exit 2."""

import json
import math
import zlib

import numpy as np
import pandas as pd
import pytest
from helpers.judge_numerals import direct_reading
from inspect_ai import eval as inspect_eval
from inspect_ai import list_tasks
from inspect_ai.model import (
    ChatMessageUser,
    Logprob,
    Logprobs,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    get_model,
)

from eval_harness.cli import main
from eval_harness.data.eec_benchmark import SCORER, SOLVER, inspect_task_id, inspect_task_ids
from eval_harness.inspect_pack.tasks import TASK_FILE, eec_task
from eval_harness.lmeval.tasks import judged_rows
from eval_harness.models.prompt_judge import judge_prompts
from eval_harness.suites.eec.corpora import load_corpus

CONFIG, EMOTION = "en_black_white", "anger"
# The answer's first token: both spellings of every numeral, and other words (byte-level BPE's space
# mark).
TOKENS = [*map(str, range(10)), *(f"Ġ{n}" for n in range(10)), "The", "ĠThe", "Text", "I", "Ċ"]


def probabilities(sentence: str, model: str = "") -> np.ndarray:
    """A sentence's answer distribution over :data:`TOKENS` (seeded by the sentence and a model's
    name; the rest of the vocabulary gets a tenth of the mass)."""
    rng = np.random.default_rng(zlib.crc32((model + sentence).encode()))
    return rng.dirichlet(np.ones(len(TOKENS))) * 0.9


def answer(messages, tools, tool_choice, config, model: str = "") -> ModelOutput:
    """mockllm's answer: one token, with the sentence's distribution as its top
    log-probabilities."""
    sentence = messages[-1].text.rsplit("\n", 1)[-1]
    ranked = sorted(
        zip(TOKENS, probabilities(sentence, model), strict=True), key=lambda pair: -pair[1]
    )
    top = [TopLogprob(token=token, logprob=math.log(p)) for token, p in ranked][
        : config.top_logprobs
    ]
    output = plain_output(top[0].token)
    first = Logprob(token=top[0].token, logprob=top[0].logprob, top_logprobs=top)
    output.choices[0].logprobs = Logprobs(content=[first])
    return output


def plain_output(text: str) -> ModelOutput:
    """mockllm's answer ``text`` with its token counts (else mockllm counts with tiktoken, which
    downloads)."""
    output = ModelOutput.from_content(model="mockllm", content=text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def run_inspect(tmp_path, name: str, custom_outputs=answer, **options):
    logs = inspect_eval(
        eec_task(CONFIG, EMOTION, sample=1, top_logprobs=len(TOKENS)),  # every numeral returned
        model=get_model("mockllm/model", custom_outputs=custom_outputs),
        log_dir=str(tmp_path / name),
        display="none",
        **options,
    )
    (log,) = logs
    return log, next((tmp_path / name).iterdir())


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("inspect")
    log, path = run_inspect(tmp_path, "logs")
    run = tmp_path / "run"
    assert main(["inspect", "import", str(path), "--out", str(run), "--name", "mock"]) == 0
    return {"log": log, "path": path, "run": run}


def test_inspects_task_discovery_lists_one_task_per_eec_config_and_emotion(tmp_path, capsys):
    assert main(["inspect", "tasks", "--out", str(tmp_path)]) == 0
    found = list_tasks(TASK_FILE, root_dir=tmp_path)
    assert sorted(task.name for task in found) == sorted(inspect_task_ids()) and len(found) == 20
    assert {task.file for task in found} == {TASK_FILE}
    assert inspect_task_id("es", "es_latino_anglo", "joy") in {task.name for task in found}


def test_a_task_file_xbias_did_not_write_is_never_replaced(tmp_path, capsys):
    assert main(["inspect", "tasks", "--out", str(tmp_path)]) == 0
    assert main(["inspect", "tasks", "--out", str(tmp_path)]) == 0  # its own file: written again
    (tmp_path / TASK_FILE).write_text("my tasks")
    assert main(["inspect", "tasks", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "which xbias did not write" in err
    assert (tmp_path / TASK_FILE).read_text() == "my tasks"


def test_a_task_logs_the_eec_sentences_with_their_labels_and_asks_the_judges_prompt(logged):
    log = logged["log"]
    rows = judged_rows(load_corpus(CONFIG, {}), CONFIG, EMOTION, 1)
    assert log.status == "success" and log.eval.task == inspect_task_id("en", CONFIG, EMOTION)
    assert sorted(sample.id for sample in log.samples) == sorted(rows.index) and len(rows) == 42
    spec = judge_prompts()["en"]
    for sample in log.samples:
        row = rows.loc[sample.id]
        labels = {
            key: sample.metadata[key]
            for key in ("sentence", "group", "gender", "template_id", "emotion")
        }
        assert labels == {
            key: None if pd.isna(row[key]) else row[key] for key in labels
        }  # a noun phrase: no group
        system, user = sample.messages[:2]
        question = spec["questions"][EMOTION].format(low=0, high=9)
        assert (system.role, system.text) == ("system", spec["system"])
        assert isinstance(user, ChatMessageUser) and user.text == spec["user"].format(
            question=question, text=row["sentence"]
        )
    assert [step.solver for step in log.plan.steps] == [
        SOLVER,
        "generate",
    ]  # the names eval.yaml gives
    assert [(score.scorer, score.name) for score in log.results.scores] == [
        (SCORER, "score"),
        (SCORER, "numeral_mass"),
    ]


def test_imported_scores_equal_a_direct_computation_from_the_answers_probabilities(logged):
    (path,) = (logged["run"] / "units").glob("*__eec__en_black_white__anger__*.samples.parquet")
    samples = pd.read_parquet(path)
    assert len(samples) == 42
    for sentence, score, mass in samples[["sentence", "score", "numeral_mass"]].itertuples(
        index=False
    ):
        probability = dict(
            zip([token.replace("Ġ", " ") for token in TOKENS], probabilities(sentence), strict=True)
        )
        expected, direct_mass = direct_reading(probability, 0, 9)
        assert score == pytest.approx(expected, abs=1e-12) and mass == pytest.approx(
            direct_mass, rel=1e-12
        )


def test_the_run_names_inspect_and_report_and_power_read_it(logged, tmp_path):
    import inspect_ai

    info = json.loads((logged["run"] / "run.json").read_text())
    inspect = info["provenance"]["inspect"]
    assert info["status"] == "complete" and inspect["version"] == inspect_ai.__version__
    assert (
        inspect["backend"] == "mockllm" and inspect["score_error_bound_max"] == 0.0
    )  # every numeral returned
    assert set(inspect["tasks"]) == {inspect_task_id("en", CONFIG, EMOTION)}
    assert (
        main(["report", str(logged["run"])]) == 0
        and (logged["run"] / "report" / "report.html").exists()
    )
    assert main(["power", str(logged["run"])]) == 0


def test_compare_pairs_two_imported_runs(logged, tmp_path):
    from eval_harness.compare import compare_runs

    _, path = run_inspect(
        tmp_path, "other", custom_outputs=lambda *args: answer(*args, model="other")
    )
    assert (
        main(["inspect", "import", str(path), "--out", str(tmp_path / "run"), "--name", "other"])
        == 0
    )
    files = compare_runs(logged["run"], tmp_path / "run", out=tmp_path / "compare", n_bootstrap=200)
    tested = files.results[files.results["p_value"].notna()]
    assert (
        len(tested) > 0 and tested["p_value"].between(0, 1).all() and (tested["std_err"] > 0).all()
    )
    assert "other" in files.markdown.read_text()


def test_a_log_without_log_probabilities_or_cut_by_limit_is_refused_in_one_line(tmp_path, capsys):
    _, path = run_inspect(tmp_path, "plain", custom_outputs=lambda *args: plain_output("7"))
    assert main(["inspect", "import", str(path), "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no top log-probabilities" in err
    _, path = run_inspect(tmp_path, "limited", limit=5)
    assert main(["inspect", "import", str(path), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has no score for 37 sentence(s)" in err
    (tmp_path / "not-a-log.eval").write_text("hello")
    assert (
        main(["inspect", "import", str(tmp_path / "not-a-log.eval"), "--out", str(tmp_path / "c")])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not-a-log.eval" in err
