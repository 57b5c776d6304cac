"""The model-card writer: model-index results via huggingface_hub (the EEC's headline effects on the
intensity scale, at most MAX_RESULTS), a "Bias evaluation" section in the body, the rest of the
README byte-identical, re-running adds nothing, other results are kept, offline; `xbias report
--model-card/--repo-id/--push`."""

import json
import os
import re

import pytest
import yaml
from helpers.synthetic_run import MINILM, write_synthetic_run
from huggingface_hub import ModelCard

from eval_harness.cli import main
from eval_harness.errors import InputError
from eval_harness.report import load_run
from eval_harness.report.model_card import BODY_END, BODY_START, MAX_RESULTS, update_model_card

FRONT_MATTER = """---
license: apache-2.0
language:
- en
tags:
- sentence-similarity
- bias
custom_field:
  nested: [1, 2]
model-index:
- name: my-minilm
  results:
  - task:
      type: text-classification
    dataset:
      name: GLUE SST-2
      type: glue
      config: sst2
      split: validation
    metrics:
    - type: accuracy
      value: 0.91
---
"""
BODY = """
# My MiniLM

A sentence encoder. The next line is a Markdown rule, not front matter:

---

| a | b |
|---|---|
| ü | 2 |

Trailing text without a final newline"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("run") / "synthetic")


@pytest.fixture(scope="module")
def results(run_dir):
    return load_run(run_dir).results


@pytest.fixture(scope="module")
def expected_count(run_dir) -> int:
    """MiniLM's card results counted from the records: one per EEC config and headline effect (its
    largest emotion), one per other number, at most MAX_RESULTS."""
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    headline = (
        "group_within_reference_gender",
        "gender_within_reference_group",
        "group:gender_did",
    )
    count = 0
    for r in records:
        if r["model"] != MINILM:
            continue
        if r["metric"] == "effect" and r["term"] in headline and r["emotion"] == "anger":
            count += 1  # one per config x effect (counted once, at one emotion)
        elif r["metric"] == "pearson_r" and r["split"] == "test":
            count += 1
        elif r["metric"] == "effect_size" or (
            r["suite"] == "gender_space" and "explained_variance" not in r["metric"]
        ):
            count += 1
    return min(count, MAX_RESULTS)


def _body(rest: str, newline: str = "\n") -> str:
    """The card body without the xbias section (module docstring), checking the section is there
    once."""
    before, section = rest.split(BODY_START)
    assert section.count(BODY_END) == 1 and "## Bias evaluation" in section and "within" in section
    assert before.endswith(newline + newline)
    return before[: -2 * len(newline)]


def _split(text: str) -> tuple[dict, str]:
    """(front matter, rest) of a card, read by hand: the YAML between the first two '---' lines."""
    assert text.startswith("---\n") or text.startswith("---\r\n")
    newline = "\r\n" if text.startswith("---\r\n") else "\n"
    end = text.index(f"{newline}---{newline}", 3)
    return yaml.safe_load(text[4:end]), text[end + len(f"{newline}---{newline}") :]


def test_round_trip_keeps_the_body_and_other_metadata(tmp_path, results, expected_count):
    card_path = tmp_path / "README.md"
    card_path.write_bytes((FRONT_MATTER + BODY).encode("utf-8"))
    update = update_model_card(card_path, results, model=MINILM)
    assert (update.added, update.updated, update.unchanged, update.total) == (
        expected_count,
        0,
        0,
        expected_count + 1,
    )

    text = card_path.read_bytes().decode("utf-8")
    metadata, rest = _split(text)
    assert _body(rest) == BODY  # byte-identical outside the YAML and the xbias section
    assert metadata["license"] == "apache-2.0" and metadata["tags"] == [
        "sentence-similarity",
        "bias",
    ]
    assert metadata["custom_field"] == {"nested": [1, 2]}

    card = ModelCard.load(card_path)
    assert _body(card.text) == BODY
    assert card.data.model_name == "my-minilm"  # the card's own name is kept
    results_by_config = {(r.dataset_config, r.metric_name): r for r in card.data.eval_results}
    assert len(results_by_config) == len(card.data.eval_results) == expected_count + 1
    glue = results_by_config["sst2", None]
    assert (glue.dataset_type, glue.metric_type, glue.metric_value) == ("glue", "accuracy", 0.91)
    effects = results.query(
        "model == @MINILM and config == 'en_black_white' and term "
        "== 'group_within_reference_gender' and metric == 'effect'"
    )
    planted = effects.loc[
        effects["value"].abs().idxmax()
    ]  # the emotion where the effect is largest
    effect = results_by_config[
        "en_black_white", f"{planted['emotion']}: African-American vs European, among men"
    ]
    assert effect.metric_value == round(
        planted["value"], 6
    )  # the intensity-scale effect, never a coefficient
    assert (effect.dataset_type, effect.dataset_name, effect.dataset_split) == (
        "eec",
        "Equity Evaluation Corpora",
        "train",
    )
    assert (effect.metric_type, effect.metric_config) == ("eec_bias", None)
    arguments = {"reference_group": "European", "reference_gender": "male", "use_t": False}
    assert effect.metric_args == arguments  # the compute() arguments only: no uncertainty in args
    assert not any("coefficient" in (r.metric_name or "") for r in card.data.eval_results)
    pearson = results_by_config["en_anger", "Pearson r"]
    assert (pearson.dataset_type, pearson.dataset_split, pearson.metric_type) == (
        "semeval2018_affect",
        "test",
        "pearsonr",
    )


def test_rerun_adds_nothing_and_changes_no_byte(tmp_path, results, expected_count):
    card_path = tmp_path / "README.md"
    card_path.write_text(FRONT_MATTER + BODY, encoding="utf-8")
    update_model_card(card_path, results, model=MINILM)
    first = card_path.read_bytes()
    again = update_model_card(card_path, results, model=MINILM)
    assert (again.added, again.updated, again.unchanged) == (0, 0, expected_count)
    assert card_path.read_bytes() == first


def test_new_values_replace_old_ones_in_place(tmp_path, results):
    card_path = tmp_path / "README.md"
    update_model_card(card_path, results, model=MINILM)
    changed = results.copy()
    row = changed.index[
        (changed["model"] == MINILM)
        & (changed["metric"] == "effect_size")
        & (changed["test"] == "T1")
    ]
    changed.loc[row, "value"] = 0.123
    update = update_model_card(card_path, changed, model=MINILM)
    assert (update.added, update.updated) == (0, 1)
    card = ModelCard.load(card_path)
    t1 = [r for r in card.data.eval_results if r.metric_name == "T1 effect size"]
    assert [r.metric_value for r in t1] == [0.123]


def test_card_without_front_matter_or_missing_file(tmp_path, results, expected_count):
    plain = tmp_path / "plain" / "README.md"
    plain.parent.mkdir()
    plain.write_text(BODY, encoding="utf-8")
    update_model_card(plain, results, model=MINILM)
    metadata, rest = _split(plain.read_text(encoding="utf-8"))
    assert _body(rest) == BODY and metadata["model-index"][0]["name"] == MINILM

    created = tmp_path / "new" / "README.md"
    update = update_model_card(created, results, model=MINILM, model_name="minilm-audit")
    assert update.added == expected_count
    card = ModelCard.load(created)
    assert card.data.model_name == "minilm-audit" and len(card.data.eval_results) == expected_count


def test_windows_newlines_are_kept(tmp_path, results):
    card_path = tmp_path / "README.md"
    original = (FRONT_MATTER + BODY).replace("\n", "\r\n")
    card_path.write_bytes(original.encode("utf-8"))
    update_model_card(card_path, results, model=MINILM)
    text = card_path.read_bytes().decode("utf-8")
    _, rest = _split(text)
    assert _body(rest, "\r\n") == BODY.replace("\n", "\r\n")


def test_which_model_must_be_named_when_the_run_has_several(tmp_path, results):
    with pytest.raises(InputError, match="the run has 4 models .* say which one"):
        update_model_card(tmp_path / "README.md", results)
    with pytest.raises(InputError, match="--card-model 'nope' is no model of the run"):
        update_model_card(tmp_path / "README.md", results, model="nope")
    assert not (tmp_path / "README.md").exists()


def test_cli_model_card_and_push_offline(run_dir, tmp_path, capsys, expected_count):
    card_path = tmp_path / "README.md"
    out = str(tmp_path / "report")
    assert (
        main(
            [
                "report",
                str(run_dir),
                "--out",
                out,
                "--format",
                "md",
                "--model-card",
                str(card_path),
                "--card-model",
                MINILM,
            ]
        )
        == 0
    )
    assert f"{expected_count} results added" in capsys.readouterr().out
    assert main(["report", str(run_dir), "--out", out, "--push", "me/model"]) == 2
    assert "--push needs --model-card" in capsys.readouterr().err
    assert (
        main(
            [
                "report",
                str(run_dir),
                "--out",
                out,
                "--format",
                "md",
                "--model-card",
                str(card_path),
                "--card-model",
                MINILM,
                "--push",
                "me/model",
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert "cannot push the model card to me/model: HF_HUB_OFFLINE is set" in error


@pytest.mark.parametrize(
    ("front_matter", "reason"),
    [
        ("model-index: [\n", "not valid YAML (line"),  # broken front matter
        (
            "x: !!python/object/apply:os.system ['true']\n",
            "not valid YAML (line 1",
        ),  # a tag safe_load refuses
        ("a: 1\na: 2\n", "a key is written twice in one mapping (line 2, column 1)"),
        ("- a list\n", "not readable"),  # no mapping
    ],
)
def test_a_damaged_card_is_one_input_error_naming_it_and_is_left_as_it_was(
    tmp_path, results, front_matter, reason
):
    card_path = tmp_path / "README.md"
    card_path.write_text(f"---\n{front_matter}---\n# body\n")
    before = card_path.read_bytes()
    with pytest.raises(
        InputError, match=f"cannot read the model card {card_path}: .*{re.escape(reason)}"
    ):
        update_model_card(card_path, results, model=MINILM)
    assert card_path.read_bytes() == before


def test_a_card_that_is_a_folder_or_a_fifo_is_refused(tmp_path, results):
    with pytest.raises(InputError, match="is a folder: give the card's file"):
        update_model_card(tmp_path, results, model=MINILM)
    fifo = tmp_path / "README.md"
    os.mkfifo(fifo)  # writing a card into it would wait for a reader forever
    with pytest.raises(InputError, match="not a regular file"):
        update_model_card(fifo, results, model=MINILM)
