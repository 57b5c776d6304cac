"""Pinned revisions: a Hub model is loaded from the snapshot of the commit its revision resolves to
when the run starts; run.json and every record name that commit; a folder is not resumed once the
model resolves to another commit (pin the old one with `revision:` to resume). Offline: a Hugging
Face cache laid out in the test."""

import json
import shutil

import pytest
import yaml
from helpers.tiny_models import build_tiny_bert
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.errors import ConfigError, ModelLoadError
from eval_harness.models.loading import pin_hub_model
from eval_harness.runner import parse_config
from eval_harness.suites import unregister_suite

REPO = "xbias-test/tiny-bert"
FIRST, SECOND = "a" * 40, "b" * 40


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """``REPO`` in a fresh Hugging Face hub cache, with two commits; ``main`` points at FIRST."""
    import huggingface_hub.constants as constants

    root = tmp_path / "hub"
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(root))
    repo = root / f"models--{REPO.replace('/', '--')}"
    model = build_tiny_bert(tmp_path / "model")
    for commit in (FIRST, SECOND):
        shutil.copytree(model, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(FIRST)
    return repo


@pytest.fixture
def toy():
    yield register_toy_suite()
    unregister_suite("toy")


def test_a_hub_model_is_pinned_to_the_commit_of_its_revision(hub_cache):
    folder, commit = pin_hub_model(REPO)
    assert (folder.name, commit) == (FIRST, FIRST) and (folder / "config.json").is_file()
    assert pin_hub_model(REPO, revision=SECOND)[1] == SECOND
    with pytest.raises(ModelLoadError, match="at revision 'v9'.*not in the Hugging Face cache"):
        pin_hub_model(REPO, revision="v9")


def config_file(tmp_path, revision=None):
    model = {
        "name": "tiny",
        "id": REPO,
        "type": "encoder",
        **({"revision": revision} if revision else {}),
    }
    path = tmp_path / f"toy-{revision or 'main'}.yaml"
    path.write_text(
        yaml.safe_dump(
            {"models": [model], "suites": {"toy": {"languages": ["en"], "n_configs": 1}}}
        )
    )
    return str(path)


def test_run_json_and_records_carry_the_commit_and_a_moved_branch_is_not_resumed(
    hub_cache, toy, tmp_path, capsys
):
    out = tmp_path / "run"
    assert main(["run", "--config", config_file(tmp_path), "--out", str(out), "--no-progress"]) == 0
    run_info = json.loads((out / "run.json").read_text())
    assert run_info["provenance"]["models"]["tiny"]["commit"] == FIRST
    assert run_info["provenance"]["models"]["tiny"]["load"].endswith(FIRST)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert records and {record["model_commit"] for record in records} == {FIRST}

    (hub_cache / "refs" / "main").write_text(SECOND)  # the branch moved on
    capsys.readouterr()
    assert main(["run", "--config", config_file(tmp_path), "--out", str(out), "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert (
        f"model 'tiny' now resolves to {SECOND}, but the run" in error
        and f"revision: {FIRST}" in error
    )
    # pinning the old commit resumes the run: nothing is computed again
    assert (
        main(["run", "--config", config_file(tmp_path, FIRST), "--out", str(out), "--no-progress"])
        == 0
    )
    assert "already finished (resumed), 0 computed" in capsys.readouterr().out


def test_revision_goes_with_a_hub_id(tmp_path):
    with pytest.raises(ConfigError, match="revision pins a Hub model"):
        parse_config(
            {
                "models": [{"path": str(tmp_path), "revision": "main"}],
                "suites": ["eec"],
                "languages": ["en"],
            }
        )
    with pytest.raises(ConfigError, match="revision must be a branch, tag or commit"):
        parse_config(
            {"models": [{"id": REPO, "revision": ""}], "suites": ["eec"], "languages": ["en"]}
        )
