"""Hub-ready dataset folders: one parquet file per config and split, a README.md card, a build
stamp.

Layout of a folder::

    README.md                         card: YAML front matter (metadata + ``configs:``) and prose
    <config>/<split>-<sha256[:12]>.parquet
    .xbias-build.json                 the storage kit's marker (eval_harness.io): the stamp (builder
                                      fingerprint, source digests, rows and files per config/split) and
                                      the sha256 of every file

Parquet file names carry a digest of their bytes because ``datasets`` caches a
local folder's configs by data-file path (not content): a rebuilt file under the
same name would be served stale from the cache.
"""  # noqa: E501

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from ..errors import ConfigError, XBiasError
from ..io import BUILD_MARKER, build_folder

CARDS_DIR = Path(__file__).resolve().parent / "cards"
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")

Tables = Mapping[str, Mapping[str, pa.Table]]  # config -> split -> table


def parquet_bytes(table: pa.Table) -> bytes:
    """The table as parquet bytes (deterministic for a given table and pyarrow version)."""
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def render_card(template_name: str, configs_yaml: list[dict], fields: Mapping[str, str]) -> str:
    """Fill ``cards/<template_name>.md``: add ``configs`` to its front matter and ``{{ field }}``
    values to its body.

    ``{{ default_config }}`` is the default config's name (see :func:`configs_yaml`).
    """
    text = (CARDS_DIR / f"{template_name}.md").read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    metadata = yaml.safe_load(front)
    metadata["configs"] = configs_yaml
    default = next((entry["config_name"] for entry in configs_yaml if entry.get("default")), None)
    fields = {"default_config": default, **fields} if default else fields
    missing = sorted(set(_PLACEHOLDER.findall(body)) - set(fields))
    if missing:
        raise KeyError(f"card template {template_name}.md needs fields {missing}")
    body = _PLACEHOLDER.sub(lambda match: fields[match.group(1)], body)
    return (
        "---\n"
        + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=120)
        + "---\n"
        + body
    )


def markdown_table(header: list[str], rows: list[list]) -> str:
    """A GitHub-flavoured markdown table (numbers right-aligned, with thousands separators)."""

    def cell(value):
        return f"{value:,}" if isinstance(value, int) else str(value)

    align = ["---:" if rows and isinstance(rows[0][i], int) else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def encode_tables(tables: Tables) -> tuple[dict[str, bytes], dict[str, dict[str, str]]]:
    """Parquet bytes by relative path, and config -> split -> that path
    (``<config>/<split>-<digest>.parquet``)."""
    files, paths_by_config = {}, {}
    for config, splits in tables.items():
        for split, table in splits.items():
            data = parquet_bytes(table)
            relative = f"{config}/{split}-{hashlib.sha256(data).hexdigest()[:12]}.parquet"
            files[relative] = data
            paths_by_config.setdefault(config, {})[split] = relative
    return files, paths_by_config


def write_folder(
    folder: Path,
    files: Mapping[str, bytes],
    card: str,
    stamp: dict,
    owner: Mapping[str, Any] | None = None,
) -> None:
    """Write a complete dataset folder (``files`` by relative path, the card, the stamp), replacing
    any previous one that is ``owner``'s (:func:`eval_harness.io.write_problem`: never a folder
    xbias did not build).

    The card gets its ``dataset_info`` here (:func:`with_dataset_info`), from the very bytes
    written, so the sizes it states are those of the files beside it.

    Built with the storage kit (:func:`eval_harness.io.build_folder`): in a sibling temporary
    folder, under a lock, sealed with the stamp and every file's sha256, then renamed into place, so
    a reader never sees a half-written dataset and two processes building at once both end with a
    complete folder.
    """

    def write(staging: Path) -> None:
        for relative, data in files.items():
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            (staging / relative).write_bytes(data)
        (staging / "README.md").write_text(with_dataset_info(card, files), encoding="utf-8")

    build_folder(folder, write, stamp, rebuild=True, owner=owner)


def configs_yaml(paths_by_config: Mapping[str, Mapping[str, str]]) -> list[dict]:
    """The card's ``configs:`` entries: ``config_name`` and ``data_files`` (one per split).

    The first config is the default (``default: true``): ``datasets.load_dataset(folder)`` with no
    config name loads it.
    """
    entries = []
    for config, splits in paths_by_config.items():
        entry = {"config_name": config, "default": True} if not entries else {"config_name": config}
        entry["data_files"] = [{"split": split, "path": path} for split, path in splits.items()]
        entries.append(entry)
    return entries


def dataset_info_yaml(configs: list[dict], files: Mapping[str, bytes]) -> dict | list[dict]:
    """The card's ``dataset_info``, computed from the parquet bytes each config lists, by
    ``datasets`` itself.

    Per config: ``features`` (from the parquet schema), ``splits`` (``num_examples``; ``num_bytes``,
    the split's size as an Arrow table, as ``datasets`` counts it), ``download_size`` (the parquet
    files' bytes) and ``dataset_size`` (the splits' ``num_bytes`` summed).
    """
    from datasets import DatasetInfo, Features, SplitDict, SplitInfo
    from datasets.info import DatasetInfosDict

    infos = {}
    for config in configs:
        splits, features, download_size = SplitDict(), None, 0
        for entry in config["data_files"]:
            data = files[entry["path"]]
            table = pq.read_table(io.BytesIO(data))
            features = Features.from_arrow_schema(
                table.schema
            )  # one schema per config, every split alike
            splits.add(
                SplitInfo(name=entry["split"], num_bytes=table.nbytes, num_examples=table.num_rows)
            )
            download_size += len(data)
        infos[config["config_name"]] = DatasetInfo(
            features=features,
            splits=splits,
            download_size=download_size,
            dataset_size=sum(split.num_bytes for split in splits.values()),
        )
    metadata: dict = {}
    DatasetInfosDict(infos).to_dataset_card_data(metadata)
    return metadata["dataset_info"]


def with_dataset_info(card: str, files: Mapping[str, bytes]) -> str:
    """The card with ``dataset_info`` (see :func:`dataset_info_yaml`) in its front matter, before
    ``configs``."""
    _, front, body = card.split("---\n", 2)
    metadata = yaml.safe_load(front)
    configs = metadata.pop("configs")
    metadata.pop("dataset_info", None)
    metadata.update(dataset_info=dataset_info_yaml(configs, files), configs=configs)
    return (
        "---\n"
        + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=120)
        + "---\n"
        + body
    )


def validate_card(folder: Path) -> None:
    """Check the folder's card offline: it parses as a Hub dataset card, its ``configs`` are what
    ``datasets`` accepts, every data file it lists exists, and it states a licence.

    (``DatasetCard.validate`` asks the Hub; :func:`push_to_hub` runs that too.)
    """
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(folder / "README.md")
    metadata = card.data.to_dict()
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    if not configs:
        raise ConfigError(f"dataset card {folder / 'README.md'} lists no configs")
    for name, config in configs.items():
        for entry in config["data_files"]:
            if not (folder / entry["path"]).is_file():
                raise ConfigError(
                    f"dataset card config {name!r} lists {entry['path']}, which is not in {folder}"
                )
    if not metadata.get("license"):
        raise ConfigError(f"dataset card {folder / 'README.md'} states no licence")


def push_to_hub(
    folder: Path,
    repo_id: str,
    private: bool = False,
    token: str | None = None,
    tag: str | None = None,
) -> str:
    """Upload a built dataset folder to the Hub as dataset ``repo_id`` (the card is validated by the
    Hub first); returns the commit's URL.

    ``tag``: also tag that commit (the dataset's fingerprint,
    :func:`~.builders.dataset_fingerprint`, which the results' ``dataset.revision`` names, so that
    ``load_dataset(repo_id, revision=tag)`` reads those rows).
    """
    from huggingface_hub import DatasetCard, HfApi

    validate_card(folder)
    try:
        DatasetCard.load(folder / "README.md").validate(repo_type="dataset")
        api = HfApi(token=token)
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        commit = api.upload_folder(
            folder_path=folder, repo_id=repo_id, repo_type="dataset", ignore_patterns=[BUILD_MARKER]
        )
        if tag:
            api.create_tag(
                repo_id, tag=tag, revision=commit.oid, repo_type="dataset", exist_ok=True
            )
    except Exception as error:  # network, authentication and validation failures from the Hub
        raise XBiasError(
            f"pushing {folder} to the Hub dataset {repo_id} failed ({type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else 'no detail'}): check the "
            "network and `hf auth login`"
        ) from error
    return commit.commit_url
