"""The floor plan holds: the package's imports (read with ast, function-level ones included) form no cycle and
follow the dependency rule of docs/architecture.md."""

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "eval_harness"
PACKAGE = "eval_harness"

# layer -> the layers it may import (besides itself). Modules at the package root (errors, paths, io)
# are layers of their own.
ALLOWED = {
    "errors": set(),
    "paths": set(),
    "io": set(),
    "thread_policy": set(),
    "shipped": {"errors"},
    "registry": {"errors"},
    "lazy": {"registry"},
    "stats": {"errors"},
    "data": {"stats", "errors", "paths", "io", "lazy", "registry"},
    "models": {"data", "stats", "errors", "paths", "io", "lazy", "registry"},
    "runner": {"models", "data", "stats", "errors", "paths", "io", "shipped", "registry"},
    "suites": {"runner.suite", "data", "stats", "errors", "paths", "io", "lazy", "registry"},
    "report": {"runner", "stats", "errors", "paths", "io"},
    "metric_modules": {"errors", "paths", "io", "shipped"},
    "cli": {
        "runner",
        "models",
        "data",
        "report",
        "stats",
        "errors",
        "paths",
        "io",
        "metric_modules",
        "shipped",
        "thread_policy",
    },
    "__init__": set(),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(name: str) -> bool:
    return (PACKAGE_ROOT.parent / name.replace(".", "/") / "__init__.py").is_file()


def is_module(name: str) -> bool:
    return is_package(name) or (PACKAGE_ROOT.parent / (name.replace(".", "/") + ".py")).is_file()


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path) -> set[str]:
    """The package modules ``path`` imports (``from a.b import c`` is ``a.b.c`` when that is a module, else
    ``a.b``), anywhere in the file but under ``if TYPE_CHECKING:``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_lines(tree)
    found = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skipped:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            targets = [f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}") else base for alias in node.names]
        else:
            continue
        found.update(target for target in targets if target == PACKAGE or target.startswith(PACKAGE + "."))
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    return {module_name(path): imports_of(path) for path in sorted(PACKAGE_ROOT.rglob("*.py"))}


def layer(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts:
        return "__init__"
    if parts[0] == "runner" and len(parts) > 1 and parts[1] == "suite":
        return "runner.suite"
    return parts[0]


def allowed(importer: str, imported: str) -> bool:
    source, target = layer(importer), layer(imported)
    source_layer = "runner" if source == "runner.suite" else source
    target_layer = "runner" if target == "runner.suite" else target
    if source_layer == target_layer:
        return True
    permitted = ALLOWED[source_layer]
    return target in permitted or target_layer in permitted


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for neighbour in sorted(graph.get(node, ())):
            if state.get(neighbour) == 1:
                return stack[stack.index(neighbour) :] + [neighbour]
            if neighbour not in state:
                found = visit(neighbour)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_every_import_follows_the_dependency_rule():
    graph = import_graph()
    assert set(map(layer, graph)) - {"runner.suite"} <= set(ALLOWED), "a new top-level module needs a rule here"
    forbidden = sorted(
        f"{importer} imports {imported}"
        for importer, targets in graph.items()
        for imported in targets
        if not allowed(importer, imported)
    )
    assert not forbidden, "\n".join(forbidden)


def test_the_runner_never_imports_a_concrete_suite():
    graph = import_graph()
    assert not [
        (importer, imported)
        for importer, targets in graph.items()
        if layer(importer) in ("runner", "runner.suite")
        for imported in targets
        if layer(imported) == "suites"
    ]


@pytest.mark.parametrize(
    ("importer", "imported", "expected"),
    [
        ("eval_harness.stats.weat", "eval_harness.data.loaders", False),
        ("eval_harness.suites.eec.suite", "eval_harness.runner.sweep", False),
        ("eval_harness.suites.eec.suite", "eval_harness.runner.suite", True),
        ("eval_harness.suites.eec.suite", "eval_harness.models.factory", False),
        ("eval_harness.report.build", "eval_harness.models.encoder", False),
        ("eval_harness.models.factory", "eval_harness.runner.config", False),
        ("eval_harness.data.eec", "eval_harness.io", True),
    ],
)
def test_the_rule_checker_itself(importer, imported, expected):
    assert allowed(importer, imported) is expected


def test_the_cycle_finder_itself():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
