"""``xbias compare``: two models compared on the same sentences, with paired tests."""

import argparse
import sys

from .common import names


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``compare`` to the ``commands`` of ``xbias``."""
    compare = commands.add_parser(
        "compare",
        parents=[verbosity],
        help="two models (two runs, or two models of one run) "
        "compared on the same sentences, with paired tests",
    )
    compare.add_argument("run_a", help="run folder of model A (the reference)")
    compare.add_argument(
        "run_b", nargs="?", help="run folder of model B (default: RUN_A, two of its models)"
    )
    compare.add_argument("--model-a", help="model A's name in RUN_A (needed when it has several)")
    compare.add_argument("--model-b", help="model B's name in RUN_B (needed when it has several)")
    compare.add_argument(
        "--out", help="the comparison's folder (default: compare-A-vs-B beside RUN_A)"
    )
    compare.add_argument(
        "--cluster-by",
        default="template_id",
        help="EEC: the clustered errors' one or two columns, of "
        "template_id, sentence, person (default template_id)",
    )
    compare.add_argument(
        "--cov-type", choices=("cluster", "model"), default="cluster", help="EEC standard errors"
    )
    compare.add_argument(
        "--bootstrap", type=int, default=10_000, help="WEAT: paired bootstrap replicates"
    )
    compare.add_argument(
        "--equivalence-margin",
        type=float,
        default=None,
        metavar="DELTA",
        help="also test each EEC difference for equivalence within +-DELTA on the "
        "intensity scale (TOST): 'the fine-tune changed no effect by more than DELTA'",
    )
    compare.set_defaults(func=_cmd_compare)


def _cmd_compare(args: argparse.Namespace) -> None:
    from ..compare import compare_runs
    from ..compare.output import nothing_compared
    from ..errors import InputError

    progress = None if args.verbosity < 0 else (lambda line: print(line, file=sys.stderr))
    files = compare_runs(
        args.run_a,
        args.run_b,
        model_a=args.model_a,
        model_b=args.model_b,
        out=args.out,
        cov_type=args.cov_type,
        cluster_by=names(args.cluster_by),
        n_bootstrap=args.bootstrap,
        progress=progress,
        equivalence_margin=args.equivalence_margin,
    )
    tested = files.results["p_value"].notna()
    nothing = nothing_compared(files.results)
    if (
        nothing is not None
    ):  # exit 0 would read as "no difference"; the folder keeps the skipped records
        raise InputError(nothing)
    print(
        f"compared {int(sum(tested))} differences, "
        f"{int(files.results['survives_holm'].sum())} survive Holm"
    )
    for label, path in (
        ("markdown", files.markdown),
        ("csv", files.csv),
        ("eec plot", files.eec_figure),
        ("weat plot", files.weat_figure),
    ):
        if path:
            print(f"{label}: {path}")
