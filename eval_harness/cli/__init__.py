"""The ``xbias`` command, one module per subcommand (``run.py``, ``report.py``, ...).

``main.py`` assembles the parser and is the entry point; ``common.py`` holds what they share:
one-line errors and exit codes, the log, clean stops on a signal, xbias's warnings as one line."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
