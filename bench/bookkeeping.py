"""The harness's bookkeeping per unit, for a sweep of 100 and of 2,000 cheap units: it must not grow
with the sweep.

A cheap suite (two records per unit from the unit's own generator, no model) runs through
``run_sweep`` in this process, ten units per task (one task per seed). What is left of the wall time
once the suite's own ``prepare``/``evaluate`` time is taken away is bookkeeping: planning, writing
and verifying unit files, ``results.jsonl``, ``run.json`` and the summary table. Side by side, the
same sweep with the bookkeeping the harness had before (``results.jsonl`` rebuilt after every task
from every unit file of the folder, each read and checksummed again, and the summary table reading
them all once more). It prints seconds per unit for both at each size, how the per-unit cost grows
from the smallest sweep to the largest (ours should stay within 2x), and the speed-up.

Run: ``.venv/bin/python bench/bookkeeping.py`` (100 and 2,000 units; a few minutes on a loaded
2-core machine, mostly the old bookkeeping's), ``--quick`` (100 and 400 units, well under a minute),
or ``--sizes 100,1000``.
"""

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # as `xbias run` does, before anything loads OpenMP

from eval_harness.contract import Suite, UnitKey, unit_rng
from eval_harness.contract.unit_file import unit_file_problem
from eval_harness.runner import Distributed, RunStore, parse_config, run_sweep, sweep
from eval_harness.suites import register_suite, unregister_suite

UNITS_PER_TASK = 10


class CheapSuite(Suite):
    """Ten units per task, two records each, computed in microseconds; ``seconds`` adds up its own
    time."""

    name = "cheap"
    description = "bench: units that cost nothing to compute"
    languages = ("en",)
    model_types = ("svm_tfidf",)
    options = {}

    def __init__(self):
        self.seconds = 0.0

    def plan(self, model, language, options):
        return [UnitKey(dataset="cheap", config=f"c{index}") for index in range(UNITS_PER_TASK)]

    def evaluate(self, unit, prepared, ctx):
        started = time.perf_counter()
        rng = unit_rng(unit.seed, unit.id)
        records = [
            {
                "term": "x",
                "metric": "estimate",
                "value": rng.normal(),
                "std_err": 0.1,
                "p_value": rng.uniform(),
            },
            {"metric": "n", "value": 10},
        ]
        self.seconds += time.perf_counter() - started
        return records


def rebuild_after_every_task(original):
    """``sweep._run_task`` with the old bookkeeping after it: results.jsonl rebuilt from every unit
    file."""

    def run_task(suite, task, ctx, store, bar, saved):
        timings = original(suite, task, ctx, store, bar, saved)
        store.write_results(read_every_unit(store))
        return timings

    return run_task


def read_every_unit(store) -> list[dict]:
    """Every unit file of the folder, read, parsed and verified against its checksum (as the old
    code did)."""
    payloads = []
    for path in sorted(store.units_dir.glob("*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        if unit_file_problem(payload, path.stem, config_hash=store.config_hash) is None:
            payloads.append(payload)
    return payloads


def bookkeeping_seconds(n_units: int, work: Path, dist: Distributed, old: bool) -> float:
    """Seconds of bookkeeping of one sweep of ``n_units`` cheap units into a fresh folder."""
    suite = CheapSuite()
    register_suite(suite, replace=True)
    seeds = list(range(n_units // UNITS_PER_TASK))
    config = parse_config(
        {
            "seeds": seeds,
            "models": [{"name": "m", "type": "svm_tfidf"}],
            "suites": ["cheap"],
            "languages": ["en"],
        }
    )
    out = work / f"{'old' if old else 'new'}-{n_units}"
    original = sweep._run_task
    if old:
        sweep._run_task = rebuild_after_every_task(original)
    try:
        started = time.perf_counter()
        summary = run_sweep(config, out, progress=False, dist=dist)
        if old:  # the old summary table read every unit file once more
            read_every_unit(RunStore(out, config))
        seconds = time.perf_counter() - started
    finally:
        sweep._run_task = original
        unregister_suite("cheap")
    assert summary.computed == n_units, summary.summary()
    shutil.rmtree(out)
    return seconds - suite.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="100,2000",
        help="sweep sizes in units, comma-separated (default 100,2000)",
    )
    parser.add_argument("--quick", action="store_true", help="sizes 100 and 400")
    args = parser.parse_args()
    sizes = [100, 400] if args.quick else [int(size) for size in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="xbias-bench-bookkeeping-"))
    dist = Distributed()  # once: its start-up is no bookkeeping
    bookkeeping_seconds(
        UNITS_PER_TASK, work, dist, old=False
    )  # warm-up: imports, first file system use
    print(
        f"bookkeeping per unit, {UNITS_PER_TASK} units "
        f"per task ({os.cpu_count()} CPU cores; {work})"
    )
    print(f"{'units':>7} {'ours ms/unit':>13} {'old ms/unit':>12} {'old / ours':>11}")
    per_unit = {}
    for size in sizes:
        ours = bookkeeping_seconds(size, work, dist, old=False) / size
        old = bookkeeping_seconds(size, work, dist, old=True) / size
        per_unit[size] = (ours, old)
        print(f"{size:>7} {1000 * ours:>13.2f} {1000 * old:>12.2f} {old / ours:>10.1f}x")
    smallest, largest = min(sizes), max(sizes)
    growth = per_unit[largest][0] / per_unit[smallest][0]
    old_growth = per_unit[largest][1] / per_unit[smallest][1]
    verdict = "within" if growth <= 2 else "NOT within"
    print(
        f"per-unit cost at {largest} / at {smallest} units: ours "
        f"{growth:.2f}x ({verdict} 2x), old {old_growth:.2f}x"
    )
    dist.close()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
