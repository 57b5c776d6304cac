"""``xbias report RUN --details DIR``: the run's per-sentence samples as a Hub-ready dataset folder,
read the way the Hub and ``datasets`` read it: the card's front matter parses as huggingface_hub's
DatasetCardData with one config per suite, ``load_dataset(DIR, "eec")`` gives exactly the rows of
the unit's samples files (read here straight from the Parquet files), and a run without samples is
refused in one line."""

import json

import pyarrow.parquet as pq
import pytest
import yaml
from helpers.synthetic_run import write_synthetic_run

from eval_harness.cli import main
from eval_harness.runner import parse_config, run_sweep

UNITS = (
    "svm__eec__en__eec__en_arab_anglo__anger__seed0",
    "svm__eec__en__eec__en_arab_anglo__joy__seed0",
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("details") / "run"
    suite = {
        "languages": ["en"],
        "emotions": ["anger", "joy"],
        "configs": ["en_arab_anglo"],
        "sample": 2,
    }
    config = parse_config(
        {"seeds": [0], "models": [{"name": "svm", "type": "svm_tfidf"}], "suites": {"eec": suite}}
    )
    run_sweep(config, folder, progress=False)
    return folder


@pytest.fixture(scope="module")
def details(run_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("details") / "out"
    assert main(["report", str(run_dir), "--format", "md", "--details", str(folder), "-q"]) == 0
    return folder


def test_the_folder_loads_with_datasets_and_holds_exactly_the_units_samples(run_dir, details):
    import datasets

    loaded = datasets.load_dataset(str(details), "eec", split="train").to_pandas()
    on_disk = {
        uid: pq.read_table(run_dir / "units" / f"{uid}.samples.parquet").to_pandas()
        for uid in UNITS
    }
    assert list(loaded["unit_id"].unique()) == list(UNITS)  # unit order, the id first
    assert len(loaded) == sum(len(frame) for frame in on_disk.values()) > 0
    for uid, frame in on_disk.items():
        rows = loaded[loaded["unit_id"] == uid].drop(columns="unit_id").reset_index(drop=True)
        assert rows.equals(frame.reset_index(drop=True)), uid
        # Each unit's row count is the one its unit file records.
        assert (
            len(frame)
            == json.loads((run_dir / "units" / f"{uid}.json").read_text())["samples"]["rows"]
        )
    assert set(loaded["emotion"]) == {"anger", "joy"} and loaded["score"].between(0, 1).all()


def test_the_card_is_a_hub_dataset_card_with_one_config_per_suite(details):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(details / "README.md")
    metadata = card.data.to_dict()
    assert [config["config_name"] for config in metadata["configs"]] == ["eec"]
    assert metadata["configs"][0]["data_files"] == [
        {"split": "train", "path": "data/eec/*.parquet"}
    ]
    assert metadata["license"] == "unknown" and "evaluation-details" in metadata["tags"]
    body = card.text
    for column in ("unit_id", "sentence_id", "template_id", "score", "numeral_mass"):
        assert f"- `{column}` (" in body, column
    assert "hf upload ORG/NAME" in body and "## Provenance and licence" in body
    assert yaml.safe_load((details / "README.md").read_text().split("---")[1])[
        "pretty_name"
    ].startswith("xbias")


def test_writing_again_replaces_the_rows_never_adds_to_them(run_dir, details):
    before = sorted(path.name for path in details.rglob("*.parquet"))
    assert main(["report", str(run_dir), "--format", "md", "--details", str(details), "-q"]) == 0
    assert (
        sorted(path.name for path in details.rglob("*.parquet"))
        == before
        == ["train-00000-of-00001.parquet"]
    )


def test_a_run_without_samples_is_refused_in_one_line(tmp_path, capsys):
    run = write_synthetic_run(tmp_path / "run", suites=("eec",))
    assert main(["report", str(run), "--format", "md", "--details", str(tmp_path / "details")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("xbias: error:") and "holds no per-sentence samples" in lines[-1]
    assert not (tmp_path / "details").exists()
