"""The ``xbias`` command, one module per subcommand (``run.py``, ``report.py``, ...); ``main.py`` assembles the
parser and is the entry point, ``common.py`` holds what the commands share."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
