"""`xbias --help` and every subcommand's help read as plain text (no reStructuredText markup from
docstrings)."""

import re

import pytest

from eval_harness.cli import build_parser

MARKUP = re.compile(r"``|:(class|func|mod|meth|data):`")


def subcommand_helps():
    parser = build_parser()
    yield "xbias", parser.format_help()
    for action in parser._subparsers._group_actions:
        for name, subparser in action.choices.items():
            yield f"xbias {name}", subparser.format_help()
            for nested in (
                getattr(subparser, "_subparsers", None)._group_actions
                if subparser._subparsers
                else []
            ):
                for nested_name, nested_parser in nested.choices.items():
                    yield f"xbias {name} {nested_name}", nested_parser.format_help()


@pytest.mark.parametrize(("command", "text"), list(subcommand_helps()))
def test_help_is_plain_text(command, text):
    assert not MARKUP.search(text), f"{command} --help shows markup: {MARKUP.search(text).group(0)}"
    assert text.strip()


def test_the_top_level_help_says_what_xbias_is_and_shows_examples():
    text = build_parser().format_help()
    assert (
        "bias in language models" in text
        and "examples:" in text
        and "xbias run --config demo" in text
    )
