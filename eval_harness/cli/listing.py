"""``xbias list``: the datasets, metrics, configs, suites, model types and packaged models."""

import argparse


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``list`` to the ``commands`` of ``xbias``."""
    listing = commands.add_parser(
        "list", parents=[verbosity], help="list datasets, metrics, suites and model types"
    )
    listing.set_defaults(func=_cmd_list)


def _cmd_list(args: argparse.Namespace) -> None:
    from ..data.catalog import DATASETS
    from ..metric_modules import REGISTER_COMMAND, is_registered, metric_names
    from ..models.packaged import PACKAGED_MODELS
    from ..models.registry import MODEL_TYPES
    from ..shipped import config_names
    from ..suites import get_suite, suite_names

    names = metric_names()
    unregistered = [name for name in names if not is_registered(name)]
    print("datasets: " + ", ".join(DATASETS.names()))
    print(
        "metrics:  "
        + ", ".join(names)
        + " (evaluate.load(metric_path(NAME)), from eval_harness.metric_modules)"
    )
    if unregistered:
        pending = ", ".join(unregistered)
        print(
            "          bare names, evaluate.load(NAME): run "
            f"`{REGISTER_COMMAND}` once (not yet: {pending})"
        )
    print("configs:  " + ", ".join(config_names()) + " (xbias run --config NAME)")
    print("suites:")
    suites = [get_suite(name) for name in suite_names()]
    print(
        _aligned(
            [
                suite.name,
                f"{suite.description} (languages: "
                f"{', '.join(suite.languages)}; needs: {suite.requires})",
            ]
            for suite in suites
        )
    )
    print("model types (type: in a config, --model-type):")
    print(_aligned([name, MODEL_TYPES.get(name).description] for name in MODEL_TYPES))
    print("packaged models (path: pypi:NAME):")
    print(
        _aligned(
            [model.source, model.kind, model.description] for model in PACKAGED_MODELS.values()
        )
    )


def _aligned(rows, indent: str = "  ") -> str:
    """Rows of cells as lines whose columns line up (every column but the last padded to its widest
    cell)."""
    rows = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] if rows else []
    return "\n".join(
        indent
        + "  ".join(
            [*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]
        )
        for row in rows
    )
