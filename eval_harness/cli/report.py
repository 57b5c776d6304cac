"""``xbias report``: HTML / Markdown / CSV of a run folder, and the model card, eval results and
details."""

import argparse
import os
import sys
from pathlib import Path

from ..stats.estimands import DEFAULT_ESTIMAND, ESTIMANDS
from .common import names


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``report`` to the ``commands`` of ``xbias``."""
    report = commands.add_parser(
        "report",
        parents=[verbosity],
        help="HTML / Markdown / CSV report of a run folder; model-card metadata",
    )
    report.add_argument("run_dir", help="the run folder (the --out of xbias run)")
    report.add_argument(
        "--format",
        default="html,md",
        help="comma-separated, of html, md (default: html,md); results.csv is always written",
    )
    report.add_argument("--out", help="the report folder (default: RUN_DIR/report)")
    report.add_argument(
        "--family",
        choices=("model", "model-suite", "run"),
        default="model",
        help="the tests whose p-values Holm and Benjamini-Hochberg adjust together: "
        "each model's (default), each model x suite's, or the whole run's",
    )
    report.add_argument(
        "--seed-estimand",
        choices=[name.replace("_", "-") for name in ESTIMANDS],
        default=DEFAULT_ESTIMAND.replace("_", "-"),
        help="what a number pooled over a seeded head's seeds estimates: the mean over seeds, "
        "whose standard error holds the sampling variance plus the training noise left "
        "in the mean (default), or what one retrained head would show (Rubin's rules)",
    )
    report.add_argument(
        "--model-card",
        metavar="PATH",
        help="add or update the results in this model card's "
        "model-index (a README.md; created if missing)",
    )
    report.add_argument(
        "--eval-results",
        metavar="DIR",
        help="also write one .eval_results/*.yaml file per result into "
        "DIR (the Hub's per-file format; needs --dataset-namespace)",
    )
    report.add_argument(
        "--dataset-namespace",
        metavar="ORG",
        help="the Hub user or organisation the datasets are "
        "pushed under: results name ORG/eec, ORG/xweat, ...",
    )
    report.add_argument(
        "--source-url", help="--eval-results: where the evaluation can be seen (a Space, a report)"
    )
    report.add_argument(
        "--card-model",
        help="the run's model the card / eval results describe (needed when the run has several)",
    )
    report.add_argument(
        "--push", metavar="REPO_ID", help="upload the --model-card to this Hub model (online only)"
    )
    report.add_argument(
        "--repo-id",
        help="the name the card's model-index gives the model: its Hub repo id, ORG/NAME "
        "(default: --push's, else the card's own, else the run's model name)",
    )
    report.add_argument(
        "--details",
        metavar="DIR",
        help="also write the per-sentence (per-word) samples into DIR as a Hub-ready dataset "
        "folder with a card (upload: hf upload ORG/NAME DIR --repo-type dataset)",
    )
    report.set_defaults(func=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> None:
    from ..errors import ConfigError
    from ..report import load_run, write_report
    from ..report.build import report_folder
    from ..report.eval_results import check_eval_results, write_eval_results
    from ..report.model_card import (
        card_model,
        check_model_card,
        check_repo_id,
        dataset_ids_in,
        push_model_card,
        update_model_card,
    )

    if args.push and not args.model_card:
        raise ConfigError("--push needs --model-card PATH (the card to write and upload)")
    if args.eval_results and not args.dataset_namespace:
        raise ConfigError(
            "--eval-results needs --dataset-namespace ORG: "
            "each result names its Hub dataset, ORG/eec"
        )
    dataset_ids = dataset_ids_in(args.dataset_namespace)
    out = report_folder(
        args.run_dir, args.out
    )  # a folder the report cannot go into: one line, before any work
    _check_targets_apart(
        {"the report folder": out, "--details": args.details},
        {"--model-card": args.model_card, "--eval-results": args.eval_results},
    )
    run = load_run(
        args.run_dir
    )  # once: what it warns of (an edited results.jsonl) is said once, before any number
    # Every other target too, before anything is written (the write rule: docs/run_folder.md).
    repo_id = check_repo_id(args.repo_id or args.push)
    if args.model_card:
        check_model_card(args.model_card)
        card_model(run.results, args.card_model)
    if args.eval_results:
        check_eval_results(
            args.eval_results, run, args.dataset_namespace, args.card_model, args.source_url
        )
    if args.details:
        from ..report.details import details_folder, write_details

        details_folder(args.details)
    files = write_report(
        run,
        formats=tuple(names(args.format)),
        out_dir=out,
        family=args.family,
        seed_estimand=args.seed_estimand.replace("-", "_"),
    )
    for item in files.missing:
        print(f"xbias: warning: {item}", file=sys.stderr)
    for label, path in (("html", files.html), ("markdown", files.markdown), ("csv", files.csv)):
        if path:
            print(f"{label}: {path}")
    if args.model_card:
        card = update_model_card(
            args.model_card, run.results, args.card_model, repo_id, dataset_ids
        )
        print(card.summary())
        if not dataset_ids:
            print(
                "xbias: warning: the card's dataset.type values are the local "
                "dataset names (eec, xweat, ...), which name no Hub dataset: "
                "give --dataset-namespace ORG once the datasets are pushed",
                file=sys.stderr,
            )
    if args.eval_results:
        print(
            write_eval_results(
                args.eval_results,
                run,
                args.dataset_namespace,
                model=args.card_model,
                source_url=args.source_url,
            ).summary()
        )
    if args.details:
        print(write_details(args.run_dir, args.details).summary())
    if args.push:
        print(
            f"pushed {args.model_card} to {args.push}: "
            f"{push_model_card(args.model_card, args.push)}"
        )


def _check_targets_apart(
    whole: dict[str, str | Path | None], others: dict[str, str | Path | None]
) -> None:
    """Refuse a report's targets that lie inside a folder it writes whole (the report folder,
    ``--details``): the folder would then hold a file its marker does not list, and the next report
    would refuse it or lose the file.

    Raises:
        ConfigError: one line naming both targets.
    """
    from ..errors import ConfigError

    places = {
        name: Path(os.path.abspath(path)) for name, path in {**whole, **others}.items() if path
    }
    for outer in whole:
        for inner, path in places.items():
            if inner != outer and outer in places and path.is_relative_to(places[outer]):
                raise ConfigError(
                    f"{inner} {path} lies inside {outer} {places[outer]}, "
                    "which is written whole: give a path outside it"
                )
