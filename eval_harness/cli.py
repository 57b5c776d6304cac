"""The ``xbias`` command: one CLI with subcommands.

Errors a user can cause (:class:`~eval_harness.errors.XBiasError`) print one line
to stderr and exit with code 2; anything else is a bug and keeps its traceback.
"""

import argparse
import sys

from .errors import XBiasError


def _cmd_datasets_build(args: argparse.Namespace) -> None:
    from .data import build_datasets

    for name, folder in build_datasets(args.names or None, out_dir=args.out, source_dir=args.source_dir).items():
        print(f"{name}: {folder}")


def _cmd_metrics_register(args: argparse.Namespace) -> None:
    from .metric_modules import register_metrics

    for path in register_metrics(args.names or None):
        print(f"registered {path.parent.parent.name.split('--', 1)[1]}: {path}")


def _cmd_list(args: argparse.Namespace) -> None:
    from .data import DATASETS
    from .metric_modules import metric_names

    print("datasets: " + ", ".join(DATASETS))
    print("metrics:  " + ", ".join(metric_names()))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="xbias", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    datasets = commands.add_parser("datasets", help="build the project's datasets").add_subparsers(
        dest="action", required=True
    )
    build = datasets.add_parser("build", help="build datasets into Hub-ready folders (parquet + card)")
    build.add_argument("names", nargs="*", help="datasets to build (default: all)")
    build.add_argument("--out", help="output folder (default: the xbias cache)")
    build.add_argument("--source-dir", help="folder with the source files (default: $XBIAS_SOURCE_DIR, else download)")
    build.set_defaults(func=_cmd_datasets_build)

    metrics = commands.add_parser("metrics", help="evaluate metric modules").add_subparsers(
        dest="action", required=True
    )
    register = metrics.add_parser("register", help="make evaluate.load('<name>') work offline by bare name")
    register.add_argument("names", nargs="*", help="metrics to register (default: all)")
    register.set_defaults(func=_cmd_metrics_register)

    listing = commands.add_parser("list", help="list datasets, metrics, suites and model types")
    listing.set_defaults(func=_cmd_list)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except XBiasError as error:
        print(f"xbias: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
