"""``xbias metrics register`` and ``unregister``: the metric modules in evaluate's modules cache."""

import argparse
import logging

from .common import PACKAGE_LOGGER


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``metrics register`` and ``metrics unregister`` to the ``commands`` of ``xbias``."""
    metrics = commands.add_parser("metrics", help="evaluate metric modules").add_subparsers(
        dest="action", required=True
    )
    register = metrics.add_parser(
        "register",
        parents=[verbosity],
        help="make evaluate.load('<name>') work offline by bare name",
    )
    register.add_argument("names", nargs="*", help="metrics to register (default: all)")
    register.set_defaults(func=_cmd_metrics_register)
    unregister = metrics.add_parser(
        "unregister", parents=[verbosity], help="remove the registrations (undo register)"
    )
    unregister.add_argument("names", nargs="*", help="metrics to unregister (default: all)")
    unregister.set_defaults(func=_cmd_metrics_unregister)


def _cmd_metrics_register(args: argparse.Namespace) -> None:
    from ..metric_modules import register_metrics, registration_line

    done = register_metrics(args.names or None)
    for registration in done:  # where each copy is, with -v
        logging.getLogger(PACKAGE_LOGGER).debug(registration.summary())
    line = registration_line(done)
    if line:  # nothing when nothing changed: `make install` runs this every time
        print(line)


def _cmd_metrics_unregister(args: argparse.Namespace) -> None:
    from ..metric_modules import unregister_metrics

    removed = unregister_metrics(args.names or None)
    print(f"removed {len(removed)} registration(s) from evaluate's modules cache")
    for path in removed:
        print(f"  {path}")
