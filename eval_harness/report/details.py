"""A run's per-sentence (per-word) samples as a Hub-ready dataset folder: ``xbias report RUN
--details DIR``.

Like lighteval's details datasets, the folder holds one config per suite that keeps samples
(``eec``: one row per scored sentence; ``xweat``: one row per word of a test), as Parquet, and a
dataset card whose ``configs:`` front matter lets ``datasets.load_dataset(DIR, "eec",
split="train")`` read it, offline, and the Hub show it once it is uploaded::

    hf upload ORG/xbias-details-RUN DIR --repo-type dataset

Each config's rows are the samples files of the run's units (:mod:`eval_harness.contract.samples`,
every one verified against its unit file), concatenated in unit order, with the unit's id as a first
column ``unit_id``, so that a row leads back to the unit (and its records in ``results.jsonl``). The
card lists the columns as the suites declare them, the run (its name, config hash, models and the
datasets' fingerprints) and where the sentences come from, whose licences the rows keep. The folder
is written whole, with the marker that says xbias wrote it: a folder that is not new, empty or
earlier details is never written into (:func:`details_folder`, the write rule of
:func:`eval_harness.io.write_problem`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..contract.samples import UNIT_COLUMNS, read_samples_table, samples_units
from ..errors import InputError
from ..io import OutputFolder, output_folder, read_json, write_output_folder
from ..suites import get_suite

DATA_DIR = "data"
SPLIT = "train"
UNIT_ID_COLUMN = "unit_id"
# What a details folder's marker says: only a folder with it (or a new or empty one) is written.
DETAILS_OWNER = {"writer": "xbias report --details"}
DETAILS_FOLDER = OutputFolder(DETAILS_OWNER, "the details", "--details", "xbias report --details")


@dataclass(frozen=True)
class DetailsWrite:
    """What :func:`write_details` wrote: the folder, and per config its rows and units."""

    folder: Path
    rows: dict[str, int]
    units: dict[str, int]

    def summary(self) -> str:
        parts = [
            f"{config}: {self.rows[config]} rows from {self.units[config]} units"
            for config in self.rows
        ]
        return (
            f"details: {self.folder} ({'; '.join(parts)}); upload: "
            f"hf upload ORG/NAME {self.folder} --repo-type dataset"
        )


def details_tables(run_dir: str | Path) -> dict[str, object]:
    """Per suite that kept samples, its units' samples as one pyarrow Table with ``unit_id`` first,
    units in id order.

    Raises:
        InputError: the run kept no samples (no unit file names one).
        SamplesError: a unit's samples file is missing or does not match its unit file.
    """
    import pyarrow as pa

    units = samples_units(run_dir)
    if not units:
        raise InputError(
            f"{run_dir} holds no per-sentence samples (no unit file names "
            "one): a run of an xbias that keeps them writes units/<unit "
            "id>.samples.parquet beside each EEC and XWEAT unit"
        )
    by_suite: dict[str, list] = {}
    for unit_id, key in units.items():
        table = read_samples_table(run_dir, unit_id)
        ids = pa.array([unit_id] * table.num_rows, pa.string())
        by_suite.setdefault(key["suite"], []).append(table.add_column(0, UNIT_ID_COLUMN, ids))
    return {suite: pa.concat_tables(tables) for suite, tables in sorted(by_suite.items())}


def _column_lines(suite: str) -> list[str]:
    """The card's list of a config's columns, from the suite's declared samples schema."""
    schema = get_suite(suite).samples
    columns = [*UNIT_COLUMNS, *(schema.columns if schema else ())]
    lines = [
        f"- `{UNIT_ID_COLUMN}` (string): the unit the row "
        "belongs to (its records in the run's results.jsonl)"
    ]
    for column in columns:
        nullable = ", may be null" if column.nullable else ""
        lines.append(f"- `{column.name}` ({column.type}{nullable}): {column.doc}".rstrip(": "))
    return lines


def details_card(run_dir: Path, tables: dict[str, object]) -> str:
    """The dataset card (README.md) of the details folder: front matter with one config per suite,
    then the run, the columns, how to load and upload, and the provenance of the rows."""
    info = read_json(
        run_dir / "run.json"
    )  # None when missing or unreadable: the card then names the folder
    info = info if isinstance(info, dict) else {}
    name = info.get("name") or run_dir.name
    models = sorted(
        {model for table in tables.values() for model in table.column("model").to_pylist()}
    )
    metadata = {
        "pretty_name": f"xbias details: {name}",
        # The rows copy sentences and words of the source datasets; their cards' licences apply
        # (body).
        "license": "unknown",
        "tags": ["bias", "fairness", "xbias", "evaluation-details"],
        "configs": [
            {
                "config_name": suite,
                "data_files": [{"split": SPLIT, "path": f"{DATA_DIR}/{suite}/*.parquet"}],
                **({"default": True} if index == 0 else {}),
            }
            for index, suite in enumerate(tables)
        ],
    }
    fingerprints = (info.get("provenance") or {}).get("datasets") or {}
    lines = [
        "---",
        yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True).rstrip(),
        "---",
        f"# xbias details: {name}",
        "",
        "The per-sentence (EEC) and per-word (XWEAT) numbers behind the bias "
        "measures of one `xbias run`, one config per method. A row's "
        "`unit_id` names the unit whose records (coefficients, effect sizes, "
        "p-values) it produced; refitting a unit's rows reproduces them.",
        "",
        f"- run: `{name}`, config hash `{info.get('config_hash', 'unknown')}`",
        f"- models: {', '.join(f'`{model}`' for model in models)}",
    ]
    if fingerprints:
        lines.append(
            "- datasets (fingerprint): "
            + ", ".join(f"`{d}` ({f})" for d, f in sorted(fingerprints.items()))
        )
    lines += ["", "## Load", "", "```python", "from datasets import load_dataset", ""]
    lines += [
        f'load_dataset("<this folder or ORG/NAME>", "{suite}", split="{SPLIT}")' for suite in tables
    ]
    lines += [
        "```",
        "",
        "Upload the folder: `hf upload ORG/NAME <folder> --repo-type dataset`.",
        "",
    ]
    for suite, table in tables.items():
        lines += [f"## Config `{suite}` ({table.num_rows} rows)", "", *_column_lines(suite), ""]
    lines += [
        "## Provenance and licence",
        "",
        "The sentences and words are those of the datasets the run read (`eec`, "
        "`xweat`), whose dataset cards state their sources and licences; those terms "
        "apply to these rows. The numbers are the models' outputs, computed by xbias.",
        "",
    ]
    return "\n".join(lines)


def details_folder(out_dir: str | Path) -> Path:
    """``out_dir`` as an absolute path, once the details may be written there: refused, before any
    work, when it is the root, cannot be written, or is not new, empty or earlier details holding
    only their own files (the write rule, :func:`~eval_harness.io.output_folder`).

    Raises:
        InputError: one line naming the folder, the cause and the fix.
    """
    return output_folder(out_dir, DETAILS_FOLDER)


def write_details(run_dir: str | Path, out_dir: str | Path) -> DetailsWrite:
    """Write the run's samples into ``out_dir`` as a Hub-ready dataset folder (module docstring),
    whole.

    Raises:
        InputError: the run kept no samples, or ``out_dir`` may not be written
        (:func:`details_folder`).
        SamplesError: a unit's samples file is missing or does not match its unit file.
    """
    import pyarrow.parquet as pq

    run_dir, folder = Path(run_dir), details_folder(out_dir)
    tables = details_tables(run_dir)
    contents = {}
    for suite, table in tables.items():
        stream = io.BytesIO()
        pq.write_table(table, stream, compression="zstd")
        contents[f"{DATA_DIR}/{suite}/{SPLIT}-00000-of-00001.parquet"] = stream.getvalue()
    contents["README.md"] = details_card(run_dir, tables).encode("utf-8")
    write_output_folder(folder, contents, DETAILS_FOLDER)
    units = {
        suite: len(set(table.column(UNIT_ID_COLUMN).to_pylist())) for suite, table in tables.items()
    }
    return DetailsWrite(folder, {suite: table.num_rows for suite, table in tables.items()}, units)
