"""Each bench's ``--help`` opens with the first paragraph of its docstring, whole: a sentence, not a
line cut where the docstring wraps (read from the source, so no bench's heavy imports run)."""

import ast

import pytest
from helpers import PROJECT_ROOT

BENCHES = sorted((PROJECT_ROOT / "bench").glob("*.py"))


def help_description(tree: ast.Module) -> str | None:
    """The ``description`` given to ``argparse.ArgumentParser`` in ``tree``, evaluated against the
    module's docstring (None: the bench takes no arguments)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("ArgumentParser"):
            (value,) = [keyword.value for keyword in node.keywords if keyword.arg == "description"]
            code = compile(ast.Expression(value), "<description>", "eval")
            return eval(code, {"__doc__": ast.get_docstring(tree, clean=False)})
    return None


@pytest.mark.parametrize("bench", BENCHES, ids=[path.name for path in BENCHES])
def test_the_help_opens_with_the_docstrings_first_paragraph_whole(bench):
    tree = ast.parse(bench.read_text(encoding="utf-8"))
    description = help_description(tree)
    if description is None:
        assert "argparse" not in bench.read_text(encoding="utf-8")
        return
    assert description.rstrip().endswith((".", ")")), description
    words = " ".join(description.split())
    assert " ".join(ast.get_docstring(tree).split()).startswith(words)
