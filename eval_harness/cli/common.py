"""What the commands of ``xbias`` and its entry point share: errors on one line (exit code 2), the
log, clean stops on a signal, xbias's warnings as one line, the exit, and comma-separated names."""

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

# The logger of the whole package: `xbias -v` / `-q` set its level.
PACKAGE_LOGGER = "eval_harness"
# The package's own folder: a warning raised from a file below it is xbias's (one line).
PACKAGE_DIR = Path(__file__).resolve().parent.parent


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors (an unknown option, a bad value, -v with -q) are a
    :class:`~eval_harness.errors.ConfigError`: one line and exit code 2, like every error a user can
    cause, rather than the usage block argparse prints (``xbias CMD --help`` shows that)."""

    def error(self, message: str):
        from ..errors import ConfigError

        raise ConfigError(f"{self.prog}: {message} (see {self.prog} --help)")


def names(text: str) -> list[str]:
    """The comma-separated names of ``text``, stripped, the empty ones left out."""
    return [part.strip() for part in text.split(",") if part.strip()]


def configure_logging(verbosity: int = 0) -> None:
    """The package's log on stderr, one line a message (``xbias: ...``; ``xbias: warning: ...``):
    INFO by default, DEBUG with ``verbosity`` 1 (``--verbose``), WARNING with -1 (``--quiet``). Rank
    0 only under accelerate."""
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


# The longest error line printed: its start (what is wrong) and its end (the fix) are kept, the
# middle cut.
MAX_ERROR_LENGTH = 1000


def one_line(message: str) -> str:
    """``message`` on one line of at most :data:`MAX_ERROR_LENGTH` characters, whatever a value it
    quotes holds (each message cuts what it echoes: :func:`~eval_harness.errors.shown`; this is the
    last guard)."""
    line = " ".join(part.strip() for part in message.splitlines())
    if len(line) <= MAX_ERROR_LENGTH:
        return line
    return f"{line[: MAX_ERROR_LENGTH * 3 // 4]} [...] {line[-MAX_ERROR_LENGTH // 4 :]}"


@contextmanager
def signals_stop_cleanly(speaks: bool = True) -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler's time limit) stops a command as Ctrl-C does: a
    KeyboardInterrupt that carries ``signum``, so ``xbias run`` writes what it finished and says
    ``interrupted`` in run.json. (A second signal interrupts that clean-up; every file is written
    atomically, so none is left half-written.)

    Afterwards SIGINT gets its previous handler back, and SIGTERM too unless that was the default
    action: then a SIGTERM that lands once the command has finished (while the interpreter shuts
    down) still prints its one line and exits 143, rather than killing the process without a
    word."""

    def stop(signum, frame):
        interrupt = KeyboardInterrupt()
        interrupt.signum = signum
        raise interrupt

    if (
        threading.current_thread() is not threading.main_thread()
    ):  # only the main thread may set handlers
        yield
        return
    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            late = signum == signal.SIGTERM and handler == signal.SIG_DFL
            signal.signal(
                signum, functools.partial(_stopped_after_the_command, speaks) if late else handler
            )


def _stopped_after_the_command(speaks: bool, signum: int, frame) -> None:
    if speaks:
        name = signal.Signals(signum).name
        os.write(
            2,
            f"xbias: stopped by {name} after the command "
            "had finished (what it wrote is whole)\n".encode(),
        )
    os._exit(128 + signum)


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """xbias's warnings as one line (``xbias: warning: ...``); other libraries' as Python prints
    them."""
    if Path(filename).resolve().is_relative_to(PACKAGE_DIR):
        logging.getLogger(PACKAGE_LOGGER).warning("%s", message)
    else:
        print(
            warnings.formatwarning(message, category, filename, lineno, line),
            end="",
            file=file or sys.stderr,
        )


def exit_with(code: int) -> None:
    """Leave with ``code``. Under ``accelerate launch`` (several ranks) skip the interpreter's
    teardown once everything is written: gloo's threads can abort it ("terminate called without an
    active exception", a known torch issue on CPU ranks) and turn a finished run into a failed
    launch."""
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
