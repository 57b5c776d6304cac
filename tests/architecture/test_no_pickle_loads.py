"""No pickle is loaded anywhere in eval_harness/: no ``joblib.load``, ``pickle.load(s)``,
``pickle.Unpickler``, ``pandas.read_pickle``, ``np.load(..., allow_pickle=True)`` or ``torch.load``
without ``weights_only=True`` (unpickling runs whatever code the file names; a cache or a run folder
may come from someone else).

The package's source is read with ``ast`` (an import alias such as ``from joblib import load as
read`` is followed); the scanner is tested on planted snippets first, so that a pass means
something."""

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "eval_harness"
# (module, function) pairs that unpickle whatever they are given.
UNPICKLERS = {
    ("joblib", "load"),
    ("pickle", "load"),
    ("pickle", "loads"),
    ("pickle", "Unpickler"),
    ("_pickle", "load"),
    ("_pickle", "loads"),
    ("cloudpickle", "load"),
    ("cloudpickle", "loads"),
    ("dill", "load"),
    ("dill", "loads"),
    ("pandas", "read_pickle"),
    ("numpy", "load"),  # only with allow_pickle=True
    ("torch", "load"),  # unless weights_only=True
}
MODULE_ALIASES = {"np": "numpy", "pd": "pandas"}


def _keyword_is_true(call: ast.Call, name: str) -> bool:
    return any(
        keyword.arg == name
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is True
        for keyword in call.keywords
    )


def _has_kwargs(call: ast.Call) -> bool:
    return any(keyword.arg is None for keyword in call.keywords)


def pickle_loads(source: str) -> list[str]:
    """``"line: call"`` of every call in ``source`` that may unpickle."""
    tree = ast.parse(source)
    names: dict[
        str, tuple[str, str]
    ] = {}  # local name -> (module, function), from `from m import f [as g]`
    modules: dict[str, str] = dict(MODULE_ALIASES)  # local name -> module, from `import m [as n]`
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = (node.module.split(".")[0], alias.name)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            target = (
                modules.get(function.value.id, function.value.id).split(".")[0],
                function.attr,
            )
        elif isinstance(function, ast.Name) and function.id in names:
            target = names[function.id]
        else:
            continue
        if target not in UNPICKLERS:
            continue
        if target == ("numpy", "load") and not (
            _keyword_is_true(node, "allow_pickle") or _has_kwargs(node)
        ):
            continue
        if target == ("torch", "load") and _keyword_is_true(node, "weights_only"):
            continue
        found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize(
    ("snippet", "caught"),
    [
        ("import joblib\njoblib.load(path)", True),
        ("from joblib import load as read\nread(path)", True),
        ("import pickle\npickle.loads(data)", True),
        ("import pickle as p\np.Unpickler(stream).load()", True),
        ("import pandas as pd\npd.read_pickle(path)", True),
        ("import numpy as np\nnp.load(path, allow_pickle=True)", True),
        ("import numpy\nnumpy.load(path, **options)", True),
        ("import numpy as np\nnp.load(path)", False),
        ("import numpy as np\nnp.load(path, allow_pickle=False)", False),
        ("import torch\ntorch.load(path)", True),
        ("import torch\ntorch.load(path, weights_only=False)", True),
        ("import torch\ntorch.load(path, weights_only=True)", False),
        ("import json\njson.load(stream)", False),
        ("from joblib import Parallel\nParallel(n_jobs=2)", False),
    ],
)
def test_the_scanner_finds_what_unpickles_and_nothing_else(snippet, caught):
    assert bool(pickle_loads(snippet)) is caught


def test_eval_harness_loads_no_pickle():
    files = sorted(PACKAGE_ROOT.rglob("*.py"))
    assert len(files) > 50
    found = [
        f"{path.relative_to(PACKAGE_ROOT.parent)}:{hit}"
        for path in files
        for hit in pickle_loads(path.read_text())
    ]
    assert found == []
