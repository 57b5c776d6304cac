"""The report's kit gives the same tables whatever was imported first: what every section declares
reaches it as an argument (``KnownSections``), never through state an import sets
(docs/architecture.md, "The report is two packages").

Each order runs in a fresh interpreter, which imports the kit's modules, the assembly and a method's
section in that order and then prints the kit's tables of one fixed set of results; every order
prints the same bytes."""

import subprocess
import sys

import pytest
from helpers import PROJECT_ROOT

KIT = [
    "eval_harness.report.kit.document",
    "eval_harness.report.kit.families",
    "eval_harness.report.kit.method_section",
    "eval_harness.report.kit.plots",
    "eval_harness.report.kit.tables",
]
ASSEMBLY = ["eval_harness.report.sections", "eval_harness.report.build"]
METHOD = ["eval_harness.suites.eec.report"]
ORDERS = {
    "the kit alone": KIT,
    "the kit backwards": KIT[::-1],
    "the assembly first": [*ASSEMBLY, *KIT],
    "the kit, then the assembly": [*KIT, *ASSEMBLY],
    "a method's section first": [*METHOD, *KIT[::-1], *ASSEMBLY],
}

# Prints the kit's tables of fixed results, read with a probe section's flag, its further p-value
# column and the records it shows (the other suite's go to "Other results").
TABLES = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
import pandas as pd
from eval_harness.report.kit.method_section import Flag, KnownSections, ReportSection
from eval_harness.report.kit import tables

class Probe(ReportSection):
    suite = "probe"
    flags = (Flag("probed", "¤ probed", mark="¤", legend="{mark} probed at {alpha:g}."),)
    findings_p_values = {"p_probe": "p_probe_field"}

probe = Probe()
known = KnownSections((probe,), {"probe": probe})
base = dict(model="m", language="en", config="c", emotion="anger", test=None, std_err=0.01)
results = pd.DataFrame([
    {**base, "suite": "probe", "term": "a", "metric": "estimate", "value": 0.25, "p_value": 0.001,
     "p_holm": 0.002, "p_bh": 0.002, "survives_holm": True, "survives_bh": True, "probed": True,
     "p_probe_field": 0.04},
    {**base, "suite": "probe", "term": "b", "metric": "estimate", "value": -0.5, "p_value": 0.03,
     "p_holm": 0.06, "p_bh": 0.03, "survives_holm": False, "survives_bh": True, "probed": False,
     "p_probe_field": 0.2},
    {**base, "suite": "other", "term": None, "metric": "score", "value": 1.5, "p_value": None,
     "p_holm": None, "p_bh": None, "survives_holm": False, "survives_bh": False, "probed": False,
     "p_probe_field": None},
])
print(tables.findings_table(results, known).to_csv())
print(tables.findings_table(results, known, "probed").to_csv())
print(tables.other_results_table(results, known).to_csv())
print(tables.significance_legend(known, 0.01))
print([tables.marked_value(row, known) for _, row in results.iterrows()])
"""


def tables_after(modules: list[str]) -> bytes:
    """What :data:`TABLES` prints in a fresh interpreter that first imports ``modules`` in that
    order."""
    finished = subprocess.run(
        [sys.executable, "-c", TABLES, *modules], capture_output=True, timeout=300, cwd=PROJECT_ROOT
    )
    assert finished.returncode == 0, finished.stderr.decode()[-2000:]
    return finished.stdout


@pytest.fixture(scope="module")
def printed() -> dict[str, bytes]:
    return {name: tables_after(modules) for name, modules in ORDERS.items()}


def test_the_kit_prints_byte_identical_tables_in_every_import_order(printed):
    first, *others = printed.values()
    different = [name for name, output in printed.items() if output != first]
    assert others and not different, f"these import orders print other tables: {different}"


def test_the_tables_carry_what_the_known_sections_declare(printed):
    text = next(iter(printed.values())).decode()
    assert "0.250***†¤" in text  # the probe's mark after the stars and Holm's
    assert "¤ probed at 0.01." in text and "p_probe" in text and "0.040" in text
    assert ",other," in text  # the record no known section shows is in "Other results"
