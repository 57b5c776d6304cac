"""The samples contract: a schema describes its columns (the suites' declarations are their one
list), refuses what it does not describe, and a samples file is verified against its unit file
(missing, edited, swapped)."""

import numpy as np
import pytest

from eval_harness.contract import Unit
from eval_harness.contract import samples as samples_module
from eval_harness.contract.samples import (
    UNIT_COLUMNS,
    SampleColumn,
    SampleSchema,
    SamplesError,
    read_samples,
    samples_bytes,
    samples_entry,
    samples_file_name,
    samples_units,
)
from eval_harness.contract.unit_file import unit_file_problem, unit_payload
from eval_harness.errors import InputError
from eval_harness.io import atomic_write_json
from eval_harness.suites.eec.samples import EEC_SAMPLES
from eval_harness.suites.xweat.samples import XWEAT_SAMPLES

UNIT = Unit(model="m", suite="toy", language="en", dataset="d", config="c", emotion="anger", seed=3)
SCHEMA = SampleSchema(
    (
        SampleColumn("word", "string"),
        SampleColumn("group", "string", nullable=True),
        SampleColumn("n", "int64"),
        SampleColumn("score", "float64"),
        SampleColumn("found", "bool", nullable=True),
    )
)
COLUMNS = {
    "word": ["a", "b", "c"],
    "group": ["x", None, float("nan")],
    "n": np.array([1, 2, 3]),
    "score": np.array([0.1, 0.2, 1 / 3]),
    "found": [True, None, False],
}


@pytest.mark.parametrize("schema", [EEC_SAMPLES, XWEAT_SAMPLES])
def test_a_schema_describes_each_column_of_the_file_in_file_order(schema):
    # The suite's declaration is the one list of its columns: what describe() prints is read from
    # it.
    lines = schema.describe().splitlines()
    assert [line[2:].split(" (")[0] for line in lines] == list(schema.names)
    for line, column in zip(lines, (*UNIT_COLUMNS, *schema.columns), strict=True):
        kind = column.type + (", null allowed" if column.nullable else "")
        assert line == f"- {column.name} ({kind}): {column.doc}" and column.doc


def test_the_contract_lists_no_methods_columns():
    # It points to the suites' declarations instead of repeating them (contract must not import
    # suites).
    assert (
        "``sentence_id``" not in samples_module.__doc__
        and "``association``" not in samples_module.__doc__
    )
    assert "eval_harness.suites.eec.samples" in samples_module.__doc__


def test_a_table_holds_the_unit_key_then_the_declared_columns():
    table = SCHEMA.table(UNIT, COLUMNS)
    assert table.column_names == ["model", "seed", "word", "group", "n", "score", "found"]
    rows = table.to_pylist()
    assert rows[1] == {
        "model": "m",
        "seed": 3,
        "word": "b",
        "group": None,
        "n": 2,
        "score": 0.2,
        "found": None,
    }
    assert (
        rows[2]["group"] is None and rows[2]["score"] == 1 / 3
    )  # NaN in a string column is a null; float64 kept


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": [1, 2, 3]}, "undeclared \\['extra'\\]"),
        ({"n": [1, 2]}, "differ in length"),
        ({"n": ["one", "two", "three"]}, "'n' does not hold int64"),
        ({"word": ["a", None, "c"]}, "'word' holds 1 null"),
        ({"score": [0.1, float("inf"), 0.3]}, "'score' holds NaN or infinite"),
        ({"score": [0.1, float("nan"), 0.3]}, "'score' holds NaN or infinite"),
    ],
)
def test_a_table_refuses_what_its_schema_does_not_describe(change, message):
    with pytest.raises(InputError, match=message):
        SCHEMA.table(UNIT, COLUMNS | change)
    missing = {name: values for name, values in COLUMNS.items() if name != "found"}
    with pytest.raises(InputError, match="missing \\['found'\\]"):
        SCHEMA.table(UNIT, missing)


def write_unit(folder, unit=UNIT):
    """A unit file with samples, as the harness writes one."""
    units = folder / "units"
    units.mkdir(parents=True, exist_ok=True)
    table = SCHEMA.table(unit, COLUMNS)
    data = samples_bytes(table)
    (units / samples_file_name(unit.id)).write_bytes(data)
    payload = unit_payload(
        unit.id, unit.fields(), "hash", [], 0.1, samples=samples_entry(unit.id, data, table)
    )
    atomic_write_json(units / f"{unit.id}.json", payload)
    return payload


def test_read_samples_gives_the_rows_back_and_refuses_a_damaged_or_missing_file(tmp_path):
    payload = write_unit(tmp_path)
    assert payload["samples"] == {
        "file": f"{UNIT.id}.samples.parquet",
        "sha256": payload["samples"]["sha256"],
        "rows": 3,
        "columns": ["model", "seed", "word", "group", "n", "score", "found"],
    }
    frame = read_samples(tmp_path, UNIT)
    assert frame["word"].tolist() == ["a", "b", "c"] and frame["score"].tolist() == [
        0.1,
        0.2,
        1 / 3,
    ]
    assert read_samples(tmp_path, UNIT.id).equals(frame)
    assert (
        samples_units(tmp_path) == {UNIT.id: UNIT.fields()}
        and samples_units(tmp_path, suite="eec") == {}
    )
    assert unit_file_problem(payload, UNIT.id, units_dir=tmp_path / "units") is None

    path = tmp_path / "units" / samples_file_name(UNIT.id)
    good = path.read_bytes()
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0x01
    path.write_bytes(bytes(damaged))
    with pytest.raises(SamplesError, match="does not match its checksum"):
        read_samples(tmp_path, UNIT)
    assert "does not match its checksum" in unit_file_problem(
        payload, UNIT.id, units_dir=tmp_path / "units"
    )
    # another unit's samples file, copied over this one's, is refused too
    other = Unit(**{**UNIT.fields(), "seed": 4})
    write_unit(tmp_path, other)
    path.write_bytes((tmp_path / "units" / samples_file_name(other.id)).read_bytes())
    with pytest.raises(SamplesError, match="does not match its checksum"):
        read_samples(tmp_path, UNIT)
    path.unlink()
    with pytest.raises(SamplesError, match="is missing"):
        read_samples(tmp_path, UNIT)
    path.write_bytes(good)
    assert read_samples(tmp_path, UNIT).equals(frame)


def test_a_unit_file_that_names_another_file_or_was_edited_is_refused(tmp_path):
    payload = write_unit(tmp_path)
    units = tmp_path / "units"
    renamed = {**payload, "samples": {**payload["samples"], "file": "../elsewhere.parquet"}}
    assert "names '../elsewhere.parquet'" in unit_file_problem(renamed, UNIT.id)
    edited = {
        **payload,
        "samples": {**payload["samples"], "rows": 4},
    }  # the checksum no longer matches
    atomic_write_json(units / f"{UNIT.id}.json", edited)
    with pytest.raises(SamplesError, match="checksum does not match its content"):
        read_samples(tmp_path, UNIT)
    without = unit_payload(UNIT.id, UNIT.fields(), "hash", [], 0.1)
    atomic_write_json(units / f"{UNIT.id}.json", without)
    with pytest.raises(SamplesError, match="kept no samples"):
        read_samples(tmp_path, UNIT)
    with pytest.raises(SamplesError, match="does not exist"):
        read_samples(tmp_path, "no-such-unit")
