"""A unit's samples: the per-sentence (per-word) numbers behind its records, kept beside its unit
file.

lm-evaluation-harness calls these ``--log_samples``; xbias always keeps them (they are numbers and
short
strings: see the README for their size), because the report's cross-language contrasts and ``xbias
compare`` read them instead of running a model again, and because a reader can refit any unit from
them.

The file is ``units/<unit id>.samples.parquet`` (Parquet, zstd-compressed; Parquet
dictionary-encodes the repeated strings). The unit file (:mod:`.unit_file`) names it in its
``"samples"`` entry::

    "samples": {"file": "<unit id>.samples.parquet", "sha256": "<sha256 of the file's bytes>", "rows": 700,
                "columns": ["model", "seed", ...]}

and that entry is inside the unit's checksum. So a samples file that is missing, truncated, edited
or swapped for another makes its unit unfinished, exactly as a damaged unit file does: a resumed run
computes the unit again (with one warning naming the file), the report counts it as unfinished, and
:func:`read_samples` raises :class:`SamplesError`.

Loading them (one line; every file of one suite shares its columns)::

    pandas.read_parquet("runs/demo/units/<unit id>.samples.parquet")
    datasets.load_dataset("parquet", data_files="runs/demo/units/*__eec__*.samples.parquet", split="train")
    read_samples("runs/demo", unit_id)  # verified against the unit file first (a pandas DataFrame)

Columns. Every file starts with the unit's ``model`` (string) and ``seed`` (int64)
(:data:`UNIT_COLUMNS`); the suite declares the rest (:class:`SampleSchema`, ``Suite.samples``), each
with its type, whether it may be null and what it holds. That declaration is the one list of a
suite's columns (the contract names no method's columns): ``eec`` in
:mod:`eval_harness.suites.eec.samples` (one row per sentence scored), ``xweat`` in
:mod:`eval_harness.suites.xweat.samples` (one row per word of the test's four sets),
``eec_crosslingual`` in :mod:`eval_harness.suites.eec_crosslingual.samples` (one row per aligned
pair); ``schema.describe()`` prints one.

This module holds no method: a suite declares its columns, :meth:`SampleSchema.table` checks what
the suite gives against them, :func:`samples_bytes` and :func:`samples_entry` are what the harness
writes, and :func:`samples_problem` / :func:`read_samples` what every reader checks.
"""  # noqa: E501

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, XBiasError
from ..io import parse_json, read_text
from .unit_file import (  # noqa: F401 (re-exported: the samples file's name and checks live with the unit file's)
    ENTRY_KEYS,
    SAMPLES_KEY,
    SAMPLES_SUFFIX,
    entry_problem,
    read_samples_bytes,
    samples_file_name,
    samples_problem,
    unit_file_problem,
)

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from .suite import Unit

COLUMN_TYPES = ("string", "int64", "float64", "bool")
COMPRESSION = "zstd"


class SamplesError(XBiasError):
    """A unit's samples cannot be read: no unit file, no samples, or a file that does not match its
    unit file (missing, truncated, edited). The message names the file and what to do."""


@dataclass(frozen=True)
class SampleColumn:
    """One column of a samples file: its ``name``, its ``type`` (one of :data:`COLUMN_TYPES`), what
    it means, and whether it may hold nulls."""

    name: str
    type: str
    doc: str = ""
    nullable: bool = False

    def __post_init__(self):
        if self.type not in COLUMN_TYPES:
            raise InputError(
                f"samples column {self.name!r}: type must be "
                f"one of {COLUMN_TYPES}, got {self.type!r}"
            )


# The unit's key columns every samples file starts with (the harness fills them).
UNIT_COLUMNS = (
    SampleColumn("model", "string", "the config's model name"),
    SampleColumn("seed", "int64", "the sweep seed of the unit"),
)


@dataclass(frozen=True)
class SampleSchema:
    """The columns a suite's samples hold beyond :data:`UNIT_COLUMNS`, in file order."""

    columns: tuple[SampleColumn, ...]

    def __post_init__(self):
        names = self.names
        if len(set(names)) != len(names):
            raise InputError(f"a samples schema names a column twice: {list(names)}")

    def describe(self) -> str:
        """Every column of the file, the unit's first, one line each: ``- name (type[, null
        allowed]): its doc``."""
        return "\n".join(
            f"- {c.name} ({c.type}{', null allowed' if c.nullable else ''}): {c.doc}"
            for c in (*UNIT_COLUMNS, *self.columns)
        )

    @property
    def names(self) -> tuple[str, ...]:
        """Every column of the file, the unit's first."""
        return tuple(column.name for column in (*UNIT_COLUMNS, *self.columns))

    def arrow_schema(self) -> pa.Schema:
        import pyarrow as pa

        types = {
            "string": pa.string(),
            "int64": pa.int64(),
            "float64": pa.float64(),
            "bool": pa.bool_(),
        }
        return pa.schema(
            [
                pa.field(c.name, types[c.type], nullable=c.nullable)
                for c in (*UNIT_COLUMNS, *self.columns)
            ]
        )

    def table(self, unit: Unit, columns: Mapping[str, Sequence[Any]]) -> pa.Table:
        """The samples table of ``unit`` from the suite's ``columns`` (name -> one value per row,
        every declared column and no other; numpy arrays, lists or pandas columns; NaN in a string
        column is a null).

        Raises:
            InputError: a column missing or undeclared, columns of different lengths, a value of
                another type, a null in a column that takes none, or a non-finite float.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        own = self.names[len(UNIT_COLUMNS) :]
        absent, extra = [n for n in own if n not in columns], [n for n in columns if n not in own]
        if absent or extra:
            raise InputError(
                f"unit {unit.id}: the samples have columns "
                f"{sorted(columns)}, the suite declares {list(own)}"
                + (f" (missing {absent})" if absent else "")
                + (f" (undeclared {extra})" if extra else "")
            )
        lengths = {name: len(values) for name, values in columns.items()}
        if len(set(lengths.values())) > 1:
            raise InputError(f"unit {unit.id}: the samples' columns differ in length: {lengths}")
        n_rows = next(iter(lengths.values()), 0)
        schema = self.arrow_schema()
        arrays = [
            pa.array([unit.model] * n_rows, pa.string()),
            pa.array([unit.seed] * n_rows, pa.int64()),
        ]
        for column in self.columns:
            values = columns[column.name]
            values = values.tolist() if hasattr(values, "tolist") else list(values)
            if column.type == "string":
                values = [
                    None if isinstance(v, float) and v != v else v for v in values
                ]  # NaN: pandas' null
            try:
                array = pa.array(values, schema.field(column.name).type)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as error:
                raise InputError(
                    f"unit {unit.id}: samples column {column.name!r} "
                    f"does not hold {column.type} values ({error})"
                ) from None
            if array.null_count and not column.nullable:
                raise InputError(
                    f"unit {unit.id}: samples column {column.name!r} "
                    f"holds {array.null_count} null(s)"
                )
            if column.type == "float64" and pc.any(pc.invert(pc.is_finite(array))).as_py():
                raise InputError(
                    f"unit {unit.id}: samples column {column.name!r} holds NaN or infinite values"
                )
            arrays.append(array)
        return pa.Table.from_arrays(arrays, schema=schema)


def samples_bytes(table: pa.Table) -> bytes:
    """The Parquet file of ``table`` (zstd; the same bytes for the same table and pyarrow
    version)."""
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(
        table, sink, compression=COMPRESSION, use_dictionary=True, write_statistics=False
    )
    return sink.getvalue()


def samples_entry(unit_id: str, data: bytes, table: pa.Table) -> dict:
    """The unit file's ``"samples"`` entry for the Parquet bytes ``data`` of ``table`` (module
    docstring)."""
    return {
        "file": samples_file_name(unit_id),
        "sha256": hashlib.sha256(data).hexdigest(),
        "rows": table.num_rows,
        "columns": list(table.column_names),
    }


def read_samples_table(run_folder: str | Path, unit: Unit | str) -> pa.Table:
    """The samples of one unit of a run folder as a pyarrow Table, verified: the unit file is a
    finished unit (:func:`~.unit_file.unit_file_problem`) and the samples file is the one it names
    (size, sha256).

    ``unit``: a :class:`~.suite.Unit` or a unit id.

    Raises:
        SamplesError: no such unit file, a damaged one, a unit that kept no samples, or a samples
            file that is missing or does not match its unit file.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    unit_id = unit if isinstance(unit, str) else unit.id
    units_dir = Path(run_folder) / "units"
    path = units_dir / f"{unit_id}.json"
    try:
        payload = parse_json(read_text(path))
    except FileNotFoundError:
        raise SamplesError(
            f"{path} does not exist: unit {unit_id!r} is not finished in {run_folder}"
        ) from None
    except (OSError, ValueError) as error:
        raise SamplesError(
            f"{path} is not a readable unit file ({error}); re-run the same `xbias run`"
        ) from None
    problem = unit_file_problem(payload, unit_id)
    if problem is None and SAMPLES_KEY not in payload:
        problem = (
            "it kept no samples (a unit without per-sentence scores, such as "
            "a regressor's SemEval r, or one written before xbias kept them)"
        )
    data = None
    if problem is None:
        try:
            data = read_samples_bytes(units_dir / payload[SAMPLES_KEY]["file"])
        except (OSError, TypeError, KeyError):
            data = None  # samples_problem names what is wrong
        problem = samples_problem(units_dir, payload, data)
    if problem is not None:
        raise SamplesError(f"no samples for unit {unit_id} in {run_folder}: {path.name}: {problem}")
    try:
        table = pq.read_table(pa.BufferReader(data))
    except (
        pa.ArrowException,
        OSError,
    ) as error:  # the bytes the unit file names, yet not Parquet: a bug
        name = payload[SAMPLES_KEY]["file"]
        raise SamplesError(f"{name} matches its checksum but is not Parquet ({error})") from None
    return table


def read_samples(run_folder: str | Path, unit: Unit | str) -> pd.DataFrame:
    """:func:`read_samples_table` as a pandas DataFrame (strings as Python str or None, a null float
    as NaN)."""
    return read_samples_table(run_folder, unit).to_pandas()


def samples_units(run_folder: str | Path, suite: str | None = None) -> dict[str, dict]:
    """The units of ``run_folder`` (of ``suite``, when given) whose unit file names a samples file:
    unit id -> the unit's key (``model, suite, language, dataset, config, emotion, test, seed``),
    sorted by id. Nothing is verified here: :func:`read_samples` verifies a unit's samples when it
    reads them."""
    found = {}
    for path in sorted((Path(run_folder) / "units").glob("*.json")):
        try:
            payload = parse_json(read_text(path))
        except (OSError, ValueError):
            continue
        if (
            isinstance(payload, dict)
            and SAMPLES_KEY in payload
            and isinstance(payload.get("unit"), dict)
        ):
            if suite is None or payload["unit"].get("suite") == suite:
                found[path.stem] = payload["unit"]
    return found
