"""The synthetic run folder the report tests read (built once per session: nothing writes into it),
its records, and its annotated results (the table every part of the report reads)."""

import json

import pandas as pd
import pytest
from helpers.synthetic_run import write_synthetic_run

from eval_harness.report import annotate, load_run


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("run") / "synthetic")


@pytest.fixture(scope="session")
def records(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


@pytest.fixture(scope="session")
def annotated(run_dir) -> pd.DataFrame:
    return annotate(load_run(run_dir).results)
