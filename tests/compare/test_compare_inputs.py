"""``xbias compare``'s refusals and notes (issue 31, section 4): a replicate count outside
2..XBIAS_MAX_DRAWS is one line before any run is read; two models that scored alike get that reason,
not a singular-covariance one that blames two-way clustering; a run that did not complete is
compared with a warning saying so."""

import json
import warnings

import pytest
import yaml
from helpers.planted_model import planted_model, register_planted

from eval_harness.cli import main
from eval_harness.compare import compare_runs
from eval_harness.compare.contrasts import IDENTICAL_SCORES

SUITE = {"languages": ["en"], "emotions": ["anger"], "configs": ["en_arab_anglo"], "sample": 4}


@pytest.mark.parametrize("count", ["-1", "0", "1", str(10**12)])
def test_a_bootstrap_count_outside_the_rule_is_one_line_before_any_run_is_read(
    tmp_path, capsys, count
):
    assert main(["compare", str(tmp_path / "no-such-run"), "--bootstrap", count]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1, error
    assert ("is more than XBIAS_MAX_DRAWS" if len(count) > 3 else "at least 2") in error


@pytest.fixture(scope="module")
def twin_run(tmp_path_factory):
    """A run of two planted models with the same draws: every sentence scored alike by both."""
    folder = tmp_path_factory.mktemp("twins")
    config = folder / "twins.yaml"
    models = [planted_model("first", noise_seed=1), planted_model("second", noise_seed=1)]
    config.write_text(yaml.safe_dump({"seeds": [0], "models": models, "suites": {"eec": SUITE}}))
    remove = register_planted()
    try:
        assert (
            main(
                [
                    "run",
                    "--config",
                    str(config),
                    "--out",
                    str(folder / "run"),
                    "--no-progress",
                    "-q",
                ]
            )
            == 0
        )
    finally:
        remove()
    return folder / "run"


def test_identical_scores_are_the_reason_given_whatever_the_clustering(twin_run, tmp_path):
    for number, cluster_by in enumerate((["template_id"], ["template_id", "person"])):
        files = compare_runs(twin_run, out=tmp_path / f"c{number}", cluster_by=cluster_by)
        eec = files.results[files.results["suite"] == "eec"]
        assert len(eec) and (eec["note"] == IDENTICAL_SCORES).all(), eec["note"].tolist()


def test_an_interrupted_run_is_compared_with_a_warning_and_a_complete_one_without(
    twin_run, tmp_path
):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_runs(twin_run, out=tmp_path / "complete")
    info = json.loads((twin_run / "run.json").read_text())
    try:
        (twin_run / "run.json").write_text(json.dumps({**info, "status": "interrupted"}))
        with pytest.warns(
            RuntimeWarning, match="is not a complete run \\(run.json says it is 'interrupted'\\)"
        ):
            compare_runs(twin_run, out=tmp_path / "interrupted")
    finally:
        (twin_run / "run.json").write_text(json.dumps(info))
