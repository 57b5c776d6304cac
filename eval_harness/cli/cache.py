"""``xbias cache``: the user's feature cache, its size per model, and ``--clear``."""

import argparse


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``cache`` to the ``commands`` of ``xbias``."""
    cache = commands.add_parser(
        "cache",
        parents=[verbosity],
        help="the feature cache: the features each model "
        "computed, reused by every run (its size; --clear)",
    )
    cache.add_argument(
        "--clear", action="store_true", help="delete the feature cache (runs compute them again)"
    )
    cache.set_defaults(func=_cmd_cache)


def _cmd_cache(args: argparse.Namespace) -> None:
    """``xbias cache``: where the user's feature cache is, its size per model; ``--clear`` deletes
    it."""
    from ..models.cache import (
        FEATURE_CACHE_VARIABLE,
        clear_feature_cache,
        feature_cache_usage,
        features_root,
    )

    root = features_root()
    if root is None:
        print(
            f"the feature cache is off (${FEATURE_CACHE_VARIABLE}=off): "
            "runs keep their features in OUT/cache"
        )
        return
    if args.clear:
        print(
            f"cleared the feature cache {root}: {clear_feature_cache(root) / 2**20:,.1f} MiB freed"
        )
        return
    usage = feature_cache_usage(root)
    total = sum(size for _, _, size in usage)
    print(f"feature cache {root}: {len(usage)} model setting(s), {total / 2**20:,.1f} MiB")
    for model, files, size in usage:
        print(f"  {model}  {files} file(s)  {size / 2**20:,.1f} MiB")
