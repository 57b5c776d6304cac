"""What the model-index and ``.eval_results`` files say, read the way the Hub reads them.

model-index: every ``dataset.type`` is the Hub id under the namespace given, every (config, split)
is one that ``datasets.load_dataset`` accepts on the built dataset folder, metric types are the
evaluate modules (a p-value is
none: it rides in the args with the standard error and CI), ``dataset.revision`` is the dataset's
fingerprint, and a namespace change replaces the entries xbias wrote. ``.eval_results``: one file
per number on a benchmark, whose task id is a task of the ``eval.yaml`` that `xbias datasets build`
ships, parsed back by huggingface_hub's own parser into exactly the entries written, with values
equal to the run's records and the uncertainty in the notes.
"""

import json

import pytest
import yaml
from helpers.eval_yaml_spec import read_eval_yaml
from helpers.synthetic_run import E5, GLOVE, MINILM, dataset_fingerprint, write_synthetic_run
from huggingface_hub import EvalResult, ModelCard, parse_eval_result_entries

from eval_harness.cli import main
from eval_harness.contract.unit_file import payload_checksum
from eval_harness.data import build_datasets
from eval_harness.errors import ConfigError
from eval_harness.metric_modules import metric_names
from eval_harness.report import load_run
from eval_harness.report.benchmarks import EVAL_YAML, eval_yaml
from eval_harness.report.eval_results import run_date, write_eval_results
from eval_harness.report.model_card import dataset_ids_in, eval_results, update_model_card
from eval_harness.suites.eec.verdicts import effect_name

NAMESPACE = "my-org"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = write_synthetic_run(tmp_path_factory.mktemp("run") / "synthetic")
    # The harness stamps each unit file when it finishes; the run's date is the last stamp.
    for i, unit_file in enumerate(sorted((folder / "units").glob("*.json"))[:3]):
        payload = json.loads(unit_file.read_text())
        payload["finished_at"] = f"2026-03-0{i + 1}T12:00:00+0100"
        payload["checksum"] = payload_checksum(
            payload
        )  # as the harness writes it: the stamp is content
        unit_file.write_text(json.dumps(payload))
    return folder


@pytest.fixture(scope="module")
def run(run_dir):
    return load_run(run_dir)


@pytest.fixture(scope="module")
def built(tmp_path_factory, source_dir):
    return build_datasets(out_dir=tmp_path_factory.mktemp("datasets"), source_dir=source_dir)


@pytest.mark.parametrize("model", [MINILM, E5, GLOVE])
def test_model_index_fields_mean_what_the_spec_says(model, run, built):
    import datasets

    results = eval_results(run.results, model, dataset_ids_in(NAMESPACE))
    assert results
    loaded = {}
    for result in results:
        namespace, local_name = result.dataset_type.split("/")
        assert namespace == NAMESPACE and local_name in built
        assert result.metric_config is None  # the modules have no configurations
        assert result.metric_type in {
            *metric_names(),
            "pearsonr",
        }  # an evaluate module, never "p_value"
        assert result.dataset_split is not None
        assert result.dataset_revision == dataset_fingerprint(local_name)
        if result.dataset_config is None:
            # Only measures that read several configs name none.
            assert result.task_name == "Gender space" or "targets" in result.metric_name
            continue
        where = (local_name, result.dataset_config, result.dataset_split)
        if (
            where not in loaded
        ):  # what load_dataset(id, config, split=split) gives on the built folder
            loaded[where] = datasets.load_dataset(
                str(built[local_name]), result.dataset_config, split=result.dataset_split
            )
        assert loaded[where].num_rows > 0


def _headline(results, model=MINILM, config="en_black_white", term="group_within_reference_gender"):
    """The record a card carries for an EEC config's headline effect: the emotion where it is
    largest."""
    effects = results.query(
        "model == @model and config == @config and term == @term and metric == 'effect'"
    )
    return effects.loc[effects["value"].abs().idxmax()]


def test_model_index_args_are_the_compute_arguments_only(run):
    results = {(r.dataset_config, r.metric_name): r for r in eval_results(run.results, MINILM)}
    planted = _headline(run.results)
    effect = results[
        "en_black_white", f"{planted['emotion']}: African-American vs European, among men"
    ]
    assert effect.metric_value == round(planted["value"], 6)
    # the model-index spec reserves args for the metric's arguments: the uncertainty goes to the
    # notes and the body
    assert effect.metric_args == {
        "reference_group": "European",
        "reference_gender": "male",
        "use_t": False,
    }
    assert not (results["en_anger", "Pearson r"].metric_args or {})


def test_cross_lingual_xweat_and_gender_space_name_no_config(run):
    results = eval_results(run.results, E5, dataset_ids_in(NAMESPACE))
    pairs = [r for r in results if "targets" in r.metric_name]
    assert pairs and all(
        r.dataset_config is None and r.dataset_type == f"{NAMESPACE}/xweat" for r in pairs
    )
    record = run.results.query(
        "model == @E5 and config == 'en-de' and test == 'T1' and metric == 'effect_size'"
    )
    (t1,) = [r for r in pairs if r.metric_name == "T1 effect size (targets en, attributes de)"]
    assert t1.metric_value == round(record["value"].iloc[0], 6)
    glove = eval_results(run.results, GLOVE, dataset_ids_in(NAMESPACE))
    spaces = [r for r in glove if r.task_name == "Gender space"]
    assert spaces and {r.dataset_config for r in spaces} == {None}
    assert {r.metric_name for r in spaces if r.metric_type == "gender_space"} >= {
        "direct bias (static)"
    }


def test_dataset_namespace_must_be_one_name():
    assert dataset_ids_in(None) == {}
    assert dataset_ids_in("org")["eec"] == "org/eec"
    for bad in ("", "org/eec"):
        with pytest.raises(ConfigError, match="must be a Hub user or organisation name"):
            dataset_ids_in(bad)


def test_eval_results_round_trip_through_the_hub_parser(run, run_dir, tmp_path):
    written = write_eval_results(tmp_path / ".eval_results", run, NAMESPACE, model=MINILM)
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    card = eval_results(run.results, MINILM, dataset_ids_in(NAMESPACE))
    on_benchmarks = [
        r for r in card if r.dataset_type in (f"{NAMESPACE}/eec", f"{NAMESPACE}/xweat")
    ]
    assert sorted(path.name for path in written.paths) == [
        "eec.yaml",
        "xweat.yaml",
    ]  # one file per benchmark
    assert (
        written.not_benchmarks == len(card) - len(on_benchmarks) > 0
    )  # the Pearson r: model-index only
    entries = {}
    for path in written.paths:
        for entry in parse_eval_result_entries(yaml.safe_load(path.read_text())):
            # An EEC task (config x emotion) carries up to three headline effects, each named in its
            # notes.
            entries[entry.dataset_id, entry.task_id, entry.notes] = entry
    assert len(entries) == len(on_benchmarks) > 0
    assert {entry.date for entry in entries.values()} == {"2026-03-03T12:00:00+01:00"}

    headline = _headline(run.results)
    planted = next(
        r
        for r in records
        if r["model"] == MINILM
        and r["config"] == "en_black_white"
        and r["emotion"] == headline["emotion"]
        and r["term"] == "group_within_reference_gender"
        and r["metric"] == "effect"
    )
    task = f"xbias_eec_en_black_white_{planted['emotion']}"
    (effect,) = (
        entry
        for (dataset, task_id, notes), entry in entries.items()
        if (dataset, task_id) == (f"{NAMESPACE}/eec", task)
        and f": {effect_name(planted)} (" in notes
    )
    assert effect.value == round(
        planted["value"], 6
    )  # a record of results.jsonl, on the intensity scale
    assert effect.dataset_revision == dataset_fingerprint("eec")
    assert (
        f"std err {planted['std_err']:.4g}; 95% CI [{planted['ci_low']:.4g}, "
        f"{planted['ci_high']:.4g}]; p-value {planted['p_value']:.4g}"
    ) in effect.notes
    assert "verdict: " in effect.notes
    assert "reference_group=European" in effect.notes and effect.source_url is None
    assert not any(dataset.endswith("semeval2018_affect") for dataset, _, _ in entries)


def test_every_task_id_written_is_a_task_of_the_eval_yaml_the_dataset_build_ships(
    run, source_dir, tmp_path, capsys
):
    datasets = tmp_path / "datasets"
    argv = [
        "datasets",
        "build",
        "eec",
        "xweat",
        "gender_lists",
        "--source-dir",
        str(source_dir),
        "--out",
        str(datasets),
    ]
    assert main(argv) == 0
    shipped = {
        name: read_eval_yaml((datasets / name / EVAL_YAML).read_text(), name)
        for name in ("eec", "xweat")
    }
    assert not (datasets / "gender_lists" / EVAL_YAML).exists()  # no benchmark
    assert (datasets / "eec" / EVAL_YAML).read_text() == eval_yaml("eec")
    eec_tasks = shipped["eec"]
    assert len(eec_tasks) == 5 * 4  # EEC config x emotion: the Inspect pack's tasks
    task = eec_tasks["xbias_eec_ar_arab_anglo_sadness"]
    assert (task["id"], task["config"], task["split"]) == (
        "xbias_eec_ar_arab_anglo_sadness",
        "ar_arab_anglo",
        "train",
    )
    assert task["scorers"] == [{"name": "judge_numerals"}]
    assert len(shipped["xweat"]) == 7 * 10 + 7 * 6 * 10  # languages x tests, ordered pairs x tests
    import datasets as hf_datasets

    for name, tasks in shipped.items():  # every task's config and split load from the folder
        for config, split in {(task.get("config"), task["split"]) for task in tasks.values()}:
            assert hf_datasets.load_dataset(str(datasets / name), config, split=split).num_rows > 0
    for model in (MINILM, E5):
        written = write_eval_results(
            tmp_path / model / ".eval_results", run, NAMESPACE, model=model
        )
        for path in written.paths:
            for entry in parse_eval_result_entries(yaml.safe_load(path.read_text())):
                assert entry.task_id in shipped[entry.dataset_id.removeprefix(f"{NAMESPACE}/")], (
                    entry.task_id
                )


def test_a_namespace_change_replaces_the_entries_xbias_wrote(run, tmp_path):
    card_path = tmp_path / "README.md"
    # A card as an earlier xbias left it: bare dataset names, a p-value of its own type; and someone
    # else's result.
    legacy = [
        EvalResult(
            task_type="text-classification",
            dataset_type="eec",
            dataset_name="Equity Evaluation Corpora",
            dataset_config="en_black_white",
            dataset_split="train",
            metric_type="p_value",
            metric_name="anger group coefficient p-value",
            metric_value=0.01,
        ),
        EvalResult(
            task_type="text-classification",
            dataset_type="glue",
            dataset_name="GLUE SST-2",
            dataset_config="sst2",
            dataset_split="validation",
            metric_type="accuracy",
            metric_value=0.91,
        ),
    ]
    card = ModelCard("---\n{}\n---\n# m\n")
    card.data.eval_results, card.data.model_name = legacy, MINILM
    card.save(card_path)
    first = update_model_card(card_path, run.results, model=MINILM)
    assert first.removed == 1  # the p-value entry
    second = update_model_card(
        card_path, run.results, model=MINILM, dataset_ids=dataset_ids_in(NAMESPACE)
    )
    assert (second.added, second.total) == (
        0,
        first.total,
    )  # replaced in place, nothing beside them
    assert second.updated == first.total - 1  # every xbias entry (now ORG/...), not the GLUE one
    results = ModelCard.load(card_path).data.eval_results
    ours = [r for r in results if r.dataset_type != "glue"]
    assert ours and all(r.dataset_type.startswith(f"{NAMESPACE}/") for r in ours)
    assert not any(r.metric_type == "p_value" for r in results)
    assert [r.metric_value for r in results if r.dataset_type == "glue"] == [0.91]
    # And back: the same number under another namespace is still one entry.
    third = update_model_card(
        card_path, run.results, model=MINILM, dataset_ids=dataset_ids_in("other-org")
    )
    assert (third.added, third.total) == (0, first.total)


def test_eval_results_remove_files_an_earlier_xbias_wrote_and_keep_others(run, tmp_path):
    folder = tmp_path / ".eval_results"
    folder.mkdir()
    old_naming = {
        "dataset": {"id": f"{NAMESPACE}/eec", "task_id": "en_black_white/anger/group"},
        "value": 0.1,
    }
    old_naming["notes"] = "xbias 0.1.0, model m: anger group coefficient (eec_bias)"
    (folder / "eec__en_black_white__anger__group.yaml").write_text(yaml.safe_dump([old_naming]))
    pearson = {
        "dataset": {"id": f"{NAMESPACE}/semeval2018_affect", "task_id": "en_anger"},
        "value": 0.6,
    }
    pearson["notes"] = "xbias 0.1.0, model m: Pearson r (pearsonr)"
    (folder / "semeval2018_affect__en_anger.yaml").write_text(yaml.safe_dump([pearson]))
    foreign = {"dataset": {"id": "cais/hle", "task_id": "hle"}, "value": 20.9}
    (folder / "hle.yaml").write_text(yaml.safe_dump([foreign]))
    written = write_eval_results(folder, run, NAMESPACE, model=MINILM)
    assert {path.name for path in written.removed} == {
        "eec__en_black_white__anger__group.yaml",
        "semeval2018_affect__en_anger.yaml",
    }
    assert sorted(path.name for path in folder.glob("*.yaml")) == sorted(
        [*(p.name for p in written.paths), "hle.yaml"]
    )


def test_eval_results_are_rewritten_identically_and_need_a_namespace(run, tmp_path):
    folder = tmp_path / ".eval_results"
    first = write_eval_results(
        folder, run, NAMESPACE, model=MINILM, source_url="https://example.org/report"
    )
    contents = {path: path.read_bytes() for path in first.paths}
    again = write_eval_results(
        folder, run, NAMESPACE, model=MINILM, source_url="https://example.org/report"
    )
    assert {path: path.read_bytes() for path in again.paths} == contents
    entry = parse_eval_result_entries(yaml.safe_load(first.paths[0].read_text()))[0]
    assert (entry.source_url, entry.source_name) == ("https://example.org/report", "xbias")
    with pytest.raises(ConfigError, match="give --dataset-namespace ORG"):
        write_eval_results(folder, run, None, model=MINILM)


def test_run_date_without_stamps_is_none(tmp_path):
    (tmp_path / "units").mkdir()
    (tmp_path / "units" / "a.json").write_text(json.dumps({"records": []}))
    assert run_date(tmp_path) is None


def test_cli_report_writes_eval_results_beside_the_model_card(run_dir, tmp_path, capsys):
    card_path, folder = tmp_path / "README.md", tmp_path / ".eval_results"
    options = [
        "report",
        str(run_dir),
        "--out",
        str(tmp_path / "report"),
        "--format",
        "md",
        "--card-model",
        MINILM,
    ]
    assert main([*options, "--eval-results", str(folder)]) == 2
    assert "--eval-results needs --dataset-namespace ORG" in capsys.readouterr().err
    assert main([*options, "--model-card", str(card_path)]) == 0
    assert "dataset.type values are the local dataset names" in capsys.readouterr().err
    arguments = [
        *options,
        "--model-card",
        str(card_path),
        "--eval-results",
        str(folder),
        "--dataset-namespace",
        NAMESPACE,
    ]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert f"eval results ({MINILM}): {len(list(folder.glob('*.yaml')))} files in {folder}" in out
    types = {r.dataset_type for r in ModelCard.load(card_path).data.eval_results}
    assert f"{NAMESPACE}/eec" in types


def test_update_model_card_with_dataset_ids(run, tmp_path):
    update = update_model_card(
        tmp_path / "README.md", run.results, model=MINILM, dataset_ids=dataset_ids_in(NAMESPACE)
    )
    assert update.added > 0
    card = ModelCard.load(tmp_path / "README.md")
    assert all(r.dataset_type.startswith(f"{NAMESPACE}/") for r in card.data.eval_results)


def test_eval_results_notes_carry_each_effects_verdict_computed_directly(run, tmp_path):
    """With a margin on the effects, each EEC entry's notes give the verdict of the one rule
    (stats.verdict), here computed directly from the record: its 95% interval wholly outside ±margin
    (beyond), the TOST's larger one-sided p at most 0.05 (within), the interval excluding 0
    (nonzero), else cannot tell."""
    from dataclasses import replace

    from scipy import stats

    margin = 0.02
    results = run.results.copy()
    results.loc[results["metric"] == "effect", "equivalence_margin"] = margin
    written = write_eval_results(
        tmp_path / ".eval_results", replace(run, results=results), NAMESPACE, model=MINILM
    )
    (path,) = [p for p in written.paths if p.name == "eec.yaml"]
    words = set()
    effects = results[(results["model"] == MINILM) & (results["metric"] == "effect")]
    for entry in parse_eval_result_entries(yaml.safe_load(path.read_text())):
        # The entry's task is its config and emotion; its notes name the effect.
        (effect,) = (
            row
            for _, row in effects.iterrows()
            if entry.task_id == f"xbias_eec_{row['config']}_{row['emotion']}"
            and f": {effect_name(row)} (" in entry.notes
        )
        dist = stats.t(effect["df"]) if effect["statistic_kind"] == "t" else stats.norm()
        value, std_err = effect["value"], effect["std_err"]
        p = max(dist.sf((value + margin) / std_err), dist.cdf((value - margin) / std_err))
        low, high = value - dist.ppf(0.975) * std_err, value + dist.ppf(0.975) * std_err
        if low > margin or high < -margin:
            expected = f"beyond ±{margin:g}"
        elif p <= 0.05:
            expected = f"within ±{margin:g}"
        elif low > 0 or high < 0:
            expected = f"nonzero, not shown beyond ±{margin:g}"
        else:
            expected = f"cannot tell (±{margin:g})"
        assert f"verdict: {expected}" in entry.notes, entry.task_id
        words.add(expected)
    assert len(words) >= 2  # the margin tells the planted effects apart from the others
