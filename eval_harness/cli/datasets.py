"""``xbias datasets build``: the project's datasets as Hub-ready folders."""

import argparse
import time


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``datasets build`` to the ``commands`` of ``xbias``."""
    datasets = commands.add_parser("datasets", help="build the project's datasets").add_subparsers(
        dest="action", required=True
    )
    build = datasets.add_parser(
        "build", parents=[verbosity], help="build datasets into Hub-ready folders (parquet + card)"
    )
    build.add_argument("names", nargs="*", help="datasets to build (default: all)")
    build.add_argument("--out", help="output folder (default: the xbias cache)")
    build.add_argument(
        "--source-dir",
        help="folder with the source files (default: $XBIAS_SOURCE_DIR, else download)",
    )
    build.add_argument(
        "--push-to-hub",
        metavar="REPO",
        help="also upload the folder to this Hub dataset repo (one dataset; "
        "online, after `hf auth login`), tagged with the dataset's fingerprint",
    )
    build.add_argument(
        "--private", action="store_true", help="--push-to-hub: create the Hub repo as private"
    )
    build.set_defaults(func=_cmd_datasets_build)


def _cmd_datasets_build(args: argparse.Namespace) -> None:
    from ..data import build_datasets, build_summary, push_dataset
    from ..errors import ConfigError
    from ..report.benchmarks import eval_yaml_files

    if args.push_to_hub and len(args.names) != 1:
        raise ConfigError(
            "--push-to-hub REPO takes one dataset: xbias datasets build eec --push-to-hub ORG/eec"
        )
    if args.private and not args.push_to_hub:
        raise ConfigError("--private goes with --push-to-hub REPO")
    started = time.perf_counter()
    # A benchmark dataset (eec, xweat) gets the eval.yaml whose task ids the .eval_results of `xbias
    # report` name; the EEC's is an inspect-ai benchmark, whose tasks are xbias's Inspect pack (the
    # Hub lists inspect-ai, not xbias).
    try:
        folders = build_datasets(
            args.names or None,
            out_dir=args.out,
            source_dir=args.source_dir,
            added_files=eval_yaml_files(),
        )
    except (
        OSError
    ) as error:  # a full disk, a read-only file system: every folder is as it was (built aside)
        where = error.filename or args.out or "the datasets folder"
        raise ConfigError(
            f"cannot build the datasets ({error.strerror or error}, at "
            f"{where}); what was built before is as it was: free some "
            "space or give another --out, and run the command again"
        ) from None
    print(
        f"built {len(folders)} dataset(s) in "
        f"{time.perf_counter() - started:.1f} s (dataset, configs, rows):"
    )
    print(build_summary(folders))
    if args.push_to_hub:
        ((name, folder),) = folders.items()
        print(
            f"pushed {name} to {args.push_to_hub}: "
            f"{push_dataset(name, folder, args.push_to_hub, args.private)}"
        )
