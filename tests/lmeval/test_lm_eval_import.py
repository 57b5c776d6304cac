"""``xbias lm-eval import`` on lm-eval output written here (no model): the judge's numbers read from
logged log-likelihoods equal a direct computation from the probabilities they were made of,
lm-eval's own table (the pack's ``utils.py``) agrees with them, and a samples file that is not
lm-eval's, belongs to another task or run, or is damaged is refused with one line and exit 2."""

import json
import math

import numpy as np
import pytest

from eval_harness.cli import main
from eval_harness.errors import ConfigError
from eval_harness.lmeval import task_utils
from eval_harness.lmeval.importer import read_samples
from eval_harness.lmeval.tasks import NORMALISER, write_tasks

TASK = "xbias_eec_en_black_white_anger_default"
TIME = "2026-12-03T13-37-09.830831"
SCALE = (0, 3)
# numeral 1 has two single-token spellings ("1" and " 1"): the judge sums them
NUMERALS = [0, 1, 1, 2, 3, NORMALISER]
IDENTITY = {
    "format": 1,
    "config": "en_black_white",
    "language": "en",
    "emotion": "anger",
    "prompt": "default",
    "scale": list(SCALE),
    "sample": 2,
    "model": "org/model",
}


def probabilities(seed: int) -> tuple[float, np.ndarray]:
    """(p of the white space the prompt ends with, p of each candidate after it): a random answer
    distribution whose numerals take some of the mass."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.3, 0.9), rng.dirichlet(np.ones(len(NUMERALS))) * rng.uniform(0.1, 1.0)


def document(index: int) -> dict:
    space, candidates = probabilities(index)
    logliks = [math.log(space) + math.log(p) for p in candidates[:-1]] + [math.log(space)]
    return {
        "doc_id": index,
        "doc": {"sentence": f"Sentence {index}.", "choice_numerals": NUMERALS},
        "filtered_resps": [[repr(value), "False"] for value in logliks],
    }


def write_logged(folder, task=TASK, identity=IDENTITY, docs=4, lines=None, results_task=None):
    """lm-eval's --log_samples output of one task: results_<time>.json and
    samples_<task>_<time>.jsonl."""
    folder.mkdir(parents=True, exist_ok=True)
    metadata = {"version": 1} if identity is None else {"version": 1, "xbias": identity}
    results = {
        "configs": {results_task or task: {"task": task, "metadata": metadata}},
        "n-samples": {task: {"original": docs, "effective": docs}},
        "lm_eval_version": "0.4.13",
        "model_source": "hf",
        "model_name": "org/model",
        "config": {"model": "hf", "model_args": {"pretrained": "org/model"}, "limit": None},
    }
    (folder / f"results_{TIME}.json").write_text(json.dumps(results))
    lines = lines if lines is not None else [json.dumps(document(index)) for index in range(docs)]
    path = folder / f"samples_{task}_{TIME}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def direct(index: int) -> tuple[float, float]:
    """The judge's score and numeral mass by their definitions, from the probabilities
    themselves."""
    _, candidates = probabilities(index)
    p = {numeral: 0.0 for numeral in range(SCALE[0], SCALE[1] + 1)}
    for numeral, probability in zip(NUMERALS[:-1], candidates[:-1], strict=True):
        p[numeral] += probability
    mass = sum(p.values())
    expected = sum(numeral * probability for numeral, probability in p.items()) / mass
    return (expected - SCALE[0]) / (SCALE[1] - SCALE[0]), mass


def test_the_judges_numbers_are_read_from_the_logged_log_likelihoods(tmp_path):
    logged = read_samples(write_logged(tmp_path))
    assert logged.task == TASK and logged.identity == IDENTITY
    assert logged.lm_eval["version"] == "0.4.13" and logged.lm_eval["backend"] == "hf"
    for index in range(4):
        row = logged.scores[f"Sentence {index}."]
        score, mass = direct(index)
        assert row["value"] == pytest.approx(score, abs=1e-12) and row[
            "numeral_mass"
        ] == pytest.approx(mass, abs=1e-12)


def test_lm_evals_own_table_agrees_with_the_import(tmp_path):
    logged = read_samples(write_logged(tmp_path))
    for index in range(4):
        line = document(index)
        numbers = task_utils.process_results(line["doc"], line["filtered_resps"])
        row = logged.scores[line["doc"]["sentence"]]
        assert numbers["score"] == pytest.approx(row["value"], abs=1e-12)
        assert numbers["numeral_mass"] == pytest.approx(row["numeral_mass"], abs=1e-12)


def refused(capsys, path, out) -> str:
    assert main(["lm-eval", "import", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("xbias: error: "), err
    assert not (out / "units").exists()
    return err


def test_a_file_not_named_as_lm_evals_samples_is_refused(tmp_path, capsys):
    path = write_logged(tmp_path / "logged")
    renamed = path.rename(tmp_path / "scores.jsonl")
    assert "samples_<task>_<time>.jsonl" in refused(capsys, renamed, tmp_path / "run")


def test_samples_without_their_results_file_are_refused(tmp_path, capsys):
    path = write_logged(tmp_path / "logged")
    (path.parent / f"results_{TIME}.json").unlink()
    assert "results file" in refused(capsys, path, tmp_path / "run")


def test_samples_of_a_task_the_results_do_not_hold_are_refused(tmp_path, capsys):
    path = write_logged(tmp_path / "logged", results_task="hellaswag")
    assert "another lm-eval run" in refused(capsys, path, tmp_path / "run")


def test_samples_of_a_task_that_is_not_xbias_are_refused(tmp_path, capsys):
    path = write_logged(tmp_path / "logged", task="crows_pairs_english", identity=None)
    assert "not an xbias task" in refused(capsys, path, tmp_path / "run")


def test_a_file_cut_short_is_refused(tmp_path, capsys):
    lines = [json.dumps(document(index)) for index in range(4)]
    path = write_logged(tmp_path / "logged", lines=[*lines[:3], lines[3][:40]])
    assert "line 4 is not JSON" in refused(capsys, path, tmp_path / "run")


def test_a_file_missing_documents_is_refused(tmp_path, capsys):
    lines = [json.dumps(document(index)) for index in range(3)]
    path = write_logged(tmp_path / "logged", lines=lines)  # results say 4
    assert "cut short" in refused(capsys, path, tmp_path / "run")


@pytest.mark.parametrize("damage", ["drop a choice", "not finite", "no doc"])
def test_a_damaged_document_is_refused(tmp_path, capsys, damage):
    line = document(1)
    if damage == "drop a choice":
        line["filtered_resps"] = line["filtered_resps"][:-1]
    elif damage == "not finite":
        line["filtered_resps"][2][0] = "nan"
    else:
        del line["doc"]
    lines = [
        json.dumps(document(0)),
        json.dumps(line),
        json.dumps(document(2)),
        json.dumps(document(3)),
    ]
    assert "line 2" in refused(
        capsys, write_logged(tmp_path / "logged", lines=lines), tmp_path / "run"
    )


def test_samples_of_two_prompts_are_one_run_each(tmp_path, capsys):
    first = write_logged(tmp_path / "a")
    expert = {**IDENTITY, "prompt": "expert"}
    second = write_logged(
        tmp_path / "b", task="xbias_eec_en_black_white_anger_expert", identity=expert
    )
    assert main(["lm-eval", "import", str(first), str(second), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "different prompts" in err


def test_tasks_are_never_written_over_a_folder_that_is_not_a_task_pack(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="holds notes.txt, which xbias did not write"):
        write_tasks(
            tmp_path / "mine", "pypi:smollm2-135m-instruct", languages=["en"], emotions=["anger"]
        )
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"


def test_the_precision_lm_eval_ran_in_comes_from_its_dtype_argument():
    from eval_harness.lmeval.importer import lm_eval_precision

    assert lm_eval_precision("pretrained=/models/smollm2,dtype=float32") == "fp32"
    assert lm_eval_precision({"dtype": "torch.bfloat16"}) == "bf16"
    assert (
        lm_eval_precision("pretrained=/models/smollm2") is None
    )  # lm-eval's auto: the checkpoint's dtype
    assert lm_eval_precision(None) is None
