"""Dataset cards state ``dataset_info`` (features, splits, sizes) that matches their files, and a
default config.

Every number in a card is checked against the folder itself, read independently: the parquet files'
own schemas and row counts (pyarrow), their sizes on disk, and what ``datasets.load_dataset``
returns.
"""

import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

from eval_harness.data import DATASETS, build_datasets
from eval_harness.data.hub_folder import validate_card


@pytest.fixture(scope="module")
def built(tmp_path_factory, source_dir):
    return build_datasets(out_dir=tmp_path_factory.mktemp("built"), source_dir=source_dir)


def _metadata(folder):
    return DatasetCard.load(folder / "README.md").data.to_dict()


@pytest.mark.parametrize("name", list(DATASETS))
def test_dataset_info_describes_the_files_beside_the_card(built, name):
    import datasets

    folder = built[name]
    metadata = _metadata(folder)
    infos = {info["config_name"]: info for info in metadata["dataset_info"]}
    configs = {config["config_name"]: config for config in metadata["configs"]}
    assert set(infos) == set(configs) == set(DATASETS[name].configs)
    for config_name, config in configs.items():
        info = infos[config_name]
        paths = {entry["split"]: folder / entry["path"] for entry in config["data_files"]}
        assert [split["name"] for split in info["splits"]] == list(paths)
        schema = pq.read_schema(paths[next(iter(paths))])
        assert [feature["name"] for feature in info["features"]] == schema.names
        # What datasets itself counts when it prepares the parquet files with no card to read.
        prepared = datasets.load_dataset(
            "parquet", data_files={split: str(path) for split, path in paths.items()}
        )
        for split in info["splits"]:
            assert split["num_examples"] == pq.read_metadata(paths[split["name"]]).num_rows > 0
            assert (
                split["num_bytes"] == prepared[split["name"]].info.splits[split["name"]].num_bytes
            )
        assert info["download_size"] == sum(path.stat().st_size for path in paths.values())
        assert info["dataset_size"] == sum(split["num_bytes"] for split in info["splits"])
    validate_card(folder)


@pytest.mark.parametrize("name", list(DATASETS))
def test_exactly_one_default_config_which_load_dataset_takes_without_a_name(built, name):
    import datasets

    folder = built[name]
    metadata = _metadata(folder)
    defaults = [config["config_name"] for config in metadata["configs"] if config.get("default")]
    assert defaults == [DATASETS[name].configs[0]]
    assert (
        f"`load_dataset` loads the default config, `{defaults[0]}`."
        in (folder / "README.md").read_text()
    )
    unnamed = datasets.load_dataset(str(folder))
    named = datasets.load_dataset(str(folder), defaults[0])
    assert list(unnamed) == list(named)
    for split in named:
        assert unnamed[split].to_list() == named[split].to_list()
    # The features datasets reports are the ones the card states.
    info = next(info for info in metadata["dataset_info"] if info["config_name"] == defaults[0])
    assert list(named[next(iter(named))].features) == [
        feature["name"] for feature in info["features"]
    ]


@pytest.mark.parametrize("name", list(DATASETS))
def test_each_card_states_its_sources_licences_and_intended_use(built, name):
    text = (built[name] / "README.md").read_text(encoding="utf-8")
    metadata = _metadata(built[name])
    assert "## Provenance and licence" in text and "## Intended use" in text
    assert "**For**" in text and "**Not for**" in text
    if (
        metadata["license"] == "unknown"
    ):  # the authors publish none: the body says so, source by source
        assert "no licence is published" in " ".join(text.split())
    assert metadata.get("task_categories"), f"{name} has no task_categories"


def test_semeval_cannot_be_pushed_publicly_its_terms_forbid_redistribution(built):
    from eval_harness.data import push_dataset
    from eval_harness.errors import ConfigError

    with pytest.raises(ConfigError, match="do not redistribute the data"):
        push_dataset("semeval2018_affect", built["semeval2018_affect"], "me/semeval")


def test_push_uploads_the_folder_and_tags_the_commit_with_the_fingerprint(built, monkeypatch):
    """What push_dataset asks of the Hub client (a recording stand-in: no network in tests)."""
    import huggingface_hub

    from eval_harness.data import dataset_fingerprint, push_dataset

    calls = []

    class RecordingApi:
        def __init__(self, token=None):
            pass

        def create_repo(self, repo_id, **options):
            calls.append(("create_repo", repo_id, options))

        def upload_folder(self, **options):
            calls.append(
                (
                    "upload_folder",
                    options["repo_id"],
                    sorted(p.name for p in options["folder_path"].iterdir()),
                )
            )
            return type(
                "Commit",
                (),
                {"oid": "c0ffee", "commit_url": "https://hf.co/datasets/me/eec/commit/c0ffee"},
            )

        def create_tag(self, repo_id, **options):
            calls.append(("create_tag", repo_id, options))

    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingApi)
    monkeypatch.setattr(huggingface_hub.DatasetCard, "validate", lambda self, repo_type=None: None)
    url = push_dataset("eec", built["eec"], "me/eec")
    assert url.endswith("/commit/c0ffee")
    assert [call[0] for call in calls] == ["create_repo", "upload_folder", "create_tag"]
    assert calls[2][2] == {
        "tag": dataset_fingerprint("eec"),
        "revision": "c0ffee",
        "repo_type": "dataset",
        "exist_ok": True,
    }
