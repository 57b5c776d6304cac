"""The docstring examples of eval_harness/stats and of the metrics run; the stats API has them.

A stats function is public API when code outside ``eval_harness/stats`` (the rest of the package
or a metric module) imports it: other layers depend on those, so each has a runnable ``Examples``
section (docs/development.md, "Docstring examples").
"""

import ast
import doctest
import functools
import importlib
import importlib.util
import inspect
import pkgutil
from pathlib import Path

import pytest

import eval_harness.stats
from eval_harness.shipped import metrics_dir

PACKAGE = Path(eval_harness.stats.__file__).resolve().parent.parent
STATS = "eval_harness.stats"
STATS_MODULES = sorted(module.name for module in pkgutil.iter_modules(eval_harness.stats.__path__))
METRIC_FILES = sorted(metrics_dir().glob("*/*.py"))
METRICS = [path.stem for path in METRIC_FILES if path.stem == path.parent.name]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def run_examples(tests: list[doctest.DocTest]) -> tuple[int, str]:
    """Run the doctests; return how many examples ran and the failures' report ("" if none)."""
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    for test in tests:
        runner.run(test, out=report.append)
    return runner.summarize(verbose=False).attempted, "".join(report)


@pytest.mark.parametrize("name", STATS_MODULES)
def test_stats_examples_run(name):
    module = importlib.import_module(f"{STATS}.{name}")
    _, failures = run_examples(doctest.DocTestFinder().find(module))
    assert not failures, failures


@pytest.mark.parametrize("name", METRICS)
def test_metric_examples_run(name, registered_metrics, monkeypatch, tmp_path):
    # The examples load the metric by bare name, as a user does once it is registered: from a folder
    # without ./<name>/, evaluate finds it only where registered_metrics put it.
    monkeypatch.chdir(tmp_path)
    path = metrics_dir() / name / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"doctest_metric_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    attempted, failures = run_examples(doctest.DocTestFinder().find(module))
    assert not failures, failures
    assert attempted > 0, f"{path} has no docstring example"


@functools.cache
def stats_api() -> frozenset[tuple[str, str]]:
    """The stats functions that code outside eval_harness/stats imports, as (module, name) pairs."""
    api = set()
    outside = [path for path in PACKAGE.rglob("*.py") if path.parent != PACKAGE / "stats"]
    for path in outside + METRIC_FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for module_name, name in imported_names(node, path, tree):
                    api |= defining_module(module_name, name)
    return frozenset(api)


def imported_names(node: ast.ImportFrom, path: Path, tree: ast.Module) -> list[tuple[str, str]]:
    """The (stats module, name) pairs one import brings in (a whole module: the names read)."""
    module = absolute_module(node, path)
    if module.startswith(f"{STATS}."):
        return [(module.rsplit(".", 1)[1], alias.name) for alias in node.names]
    if module != STATS:
        return []
    found = []
    for alias in node.names:
        local = alias.asname or alias.name
        for attribute in ast.walk(tree):
            if not isinstance(attribute, ast.Attribute):
                continue
            if isinstance(attribute.value, ast.Name) and attribute.value.id == local:
                found.append((alias.name, attribute.attr))
    return found


def absolute_module(node: ast.ImportFrom, path: Path) -> str:
    """The dotted module an import names, a relative one resolved from the importing file."""
    if not node.level:
        return node.module or ""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)[: -node.level]
    return ".".join([*parts, node.module or ""])


def defining_module(module_name: str, name: str) -> set[tuple[str, str]]:
    """``{(module, name)}`` of the stats module that defines the public function ``name``.

    A re-export counts for its home; anything else (a class, a constant, a private name) gives an
    empty set.
    """
    value = getattr(importlib.import_module(f"{STATS}.{module_name}"), name, None)
    if name.startswith("_") or not inspect.isfunction(value):
        return set()
    if not value.__module__.startswith(STATS):
        return set()
    return {(value.__module__.rsplit(".", 1)[1], name)}


def has_example(module_name: str, name: str) -> bool:
    """Whether the docstring of the stats function ``module_name.name`` holds a doctest example."""
    module = importlib.import_module(f"{STATS}.{module_name}")
    tests = doctest.DocTestFinder(recurse=False).find(getattr(module, name), name, module=module)
    return any(test.examples for test in tests)


def test_the_stats_api_is_what_other_layers_import():
    api = stats_api()
    # Known callers: the eec suite's verdict and TOST, the weat metric, lmeval's relative import of
    # the judge's numerals, the eec metric's `from eval_harness.stats import betareg`.
    for known in [("verdict", "verdict"), ("equivalence", "tost"), ("weat", "weat_from_roles")]:
        assert known in api
    assert ("judge", "numeral_statistics") in api and ("betareg", "fit_intersectional") in api
    # The re-export betareg.clusters_from_columns counts for its home module.
    assert ("fit_options", "clusters_from_columns") in api
    assert ("betareg", "clusters_from_columns") not in api
    # A function only stats itself calls is not API.
    assert ("beta_likelihood", "log_likelihood") not in api


def test_every_stats_api_function_has_an_example():
    missing = sorted(f"{module}.{name}" for module, name in stats_api())
    missing = [qualified for qualified in missing if not has_example(*qualified.split("."))]
    assert not missing, f"public stats functions without a docstring example: {', '.join(missing)}"


def test_a_wrong_example_is_reported():
    wrong = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "wrong", None, 0)
    attempted, failures = run_examples([wrong])
    assert attempted == 1 and "Expected:\n    3\nGot:\n    2" in failures
