"""``xbias inspect tasks`` and ``import``: the EEC judge as Inspect tasks, and Inspect's logs of
them as a run folder."""

import argparse


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``inspect tasks`` and ``inspect import`` to the ``commands`` of ``xbias``."""
    inspect_commands = commands.add_parser(
        "inspect", help="the EEC judge as Inspect tasks, and Inspect's logs of them as a run folder"
    ).add_subparsers(dest="inspect_command", required=True)
    inspect_tasks = inspect_commands.add_parser(
        "tasks",
        parents=[verbosity],
        help="write xbias_eec.py: one Inspect task per EEC config x emotion",
    )
    inspect_tasks.add_argument("--out", required=True, help="the folder to write xbias_eec.py into")
    inspect_tasks.set_defaults(func=_cmd_inspect_tasks)
    inspect_import = inspect_commands.add_parser(
        "import", parents=[verbosity], help="Inspect logs of xbias tasks as an xbias run folder"
    )
    inspect_import.add_argument(
        "logs", nargs="+", help="Inspect logs (.eval or .json), one per task, of one prompt"
    )
    inspect_import.add_argument("--out", required=True, help="the run folder to write")
    inspect_import.add_argument(
        "--name", help="the model's name in the run (default: Inspect's model name)"
    )
    inspect_import.add_argument(
        "--force", action="store_true", help="replace the results already in --out"
    )
    inspect_import.set_defaults(func=_cmd_inspect_import)


def _inspect_ai() -> None:
    """Refuse the ``inspect`` commands in one line when inspect-ai is not installed."""
    from importlib.util import find_spec

    from ..errors import ConfigError

    if find_spec("inspect_ai") is None:
        raise ConfigError("xbias inspect needs inspect-ai: pip install 'xbias[inspect]'")


def _cmd_inspect_tasks(args: argparse.Namespace) -> None:
    _inspect_ai()
    from ..inspect_pack.tasks import write_task_file

    path = write_task_file(args.out)
    print(
        f"wrote {path} (inspect list tasks {path}; inspect eval {path}@TASK --model PROVIDER/MODEL)"
    )


def _cmd_inspect_import(args: argparse.Namespace) -> None:
    _inspect_ai()
    from ..inspect_pack.importer import import_logs

    print(import_logs(args.logs, args.out, name=args.name, force=args.force).summary())
