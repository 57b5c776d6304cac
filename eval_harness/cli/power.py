"""``xbias power``: the power planner of a run's EEC effects."""

import argparse
import math
import sys
import warnings


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``power`` to the ``commands`` of ``xbias``."""
    power = commands.add_parser(
        "power",
        parents=[verbosity],
        help="the power planner: per EEC x emotion x effect, the MDE now and "
        "the design (templates, sentences per cell, seeds) that would "
        "reach a target MDE, from the run's own variance components",
    )
    power.add_argument("run_dir", help="the run folder (the --out of xbias run) with eec units")
    power.add_argument(
        "--target",
        type=float,
        default=None,
        help="the MDE to reach on the intensity scale, e.g. "
        "0.01 (default: each effect's equivalence margin)",
    )
    power.set_defaults(func=_cmd_power)


def _cmd_power(args: argparse.Namespace) -> None:
    from ..errors import InputError, shown
    from ..report import load_run
    from ..report.findings import pool_over_seeds
    from ..report.kit.document import Table, markdown_table
    from ..suites.eec.planner import no_plan_reason, power_summary, power_table

    if args.target is not None and not (math.isfinite(args.target) and 0 < args.target < 1):
        raise InputError(
            f"--target must be a number between 0 and 1 (the intensity scale), got {args.target!r}"
        )
    run = load_run(args.run_dir)
    status = (run.run_info or {}).get("status")
    if status != "complete" or run.missing:
        said = f"run.json says {shown(status)}" if status is not None else "no readable run.json"
        warnings.warn(
            f"{args.run_dir} is not a complete run ({said}; {len(run.missing)} "
            "part(s) missing or damaged): the planner reads its finished units "
            "only; resume it with the same `xbias run` for the whole design",
            RuntimeWarning,
            stacklevel=1,
        )
    results = pool_over_seeds(run.results)
    table = power_table(results, args.target)
    if table.empty:
        raise InputError(
            f"{args.run_dir} has no EEC effect with the power planner's "
            "fields: run the eec suite (2 x 2 EECs) with this version of xbias"
        )
    reason = no_plan_reason(results, table, args.target)
    if reason:
        print(f"xbias: {reason}", file=sys.stderr)
    summary = power_summary(results, args.target)
    if summary:
        print(summary + "\n")
    print(markdown_table(Table(table, f"{args.run_dir}: verdicts and the power planner")))
