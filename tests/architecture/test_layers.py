"""The floor plan holds: the package's imports form no cycle and follow the dependency rule, read
from its one copy, the table in docs/architecture.md.

An edge is an ``import`` (read with ast, function-level ones included, those under ``if
TYPE_CHECKING:`` not), a lazy ``"eval_harness.module:object"`` reference written as a string (the
registries' entries), a literal ``importlib.import_module("eval_harness....")``, or an entry of a
package's ``lazy_exports`` table. Every edge must follow the rule; the cycle check reads the imports
alone (a lazy reference is imported on first use, so it can form no import cycle: that is what it is
for). The only import of a computed module name is the registry's own
:func:`eval_harness.registry.resolve`.
"""

import ast
import re
from pathlib import Path

import pytest
from helpers.layers import (
    ALLOWED,
    ALLOWED_NAMED,
    ARCHITECTURE,
    EVERYTHING,
    MEMBERS,
    METHOD_LAYER,
    PACKAGE,
    PACKAGE_ROOT,
    RULE_HEADING,
    layer,
    layer_members,
    method_package,
    rule_table,
)

REFERENCE = re.compile(r"^(eval_harness(?:\.\w+)*):[\w.]+$")
RESOLVER = "eval_harness.registry"


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


def _is_import_call(node: ast.AST) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    return name in ("import_module", "__import__")


def _lazy_export_targets(tree: ast.Module, package: str) -> set[str]:
    """The submodules a package's ``lazy_exports(__name__, TABLE)`` names in its module-level dict
    ``TABLE``."""
    tables = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "lazy_exports"
            and len(node.args) == 2
        ):
            table = tables.get(getattr(node.args[1], "id", ""))
            for value in table.values if table is not None else ():
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.add(f"{package}.{value.value.partition(':')[0]}")
    return found


def edges_of(path: Path) -> tuple[set[str], set[str], list[str]]:
    """``(imports, references, computed)`` of ``path``: the package modules it imports (``from a.b
    import c`` is ``a.b.c`` when that is a module, else ``a.b``) anywhere but under ``if
    TYPE_CHECKING:``; those it names lazily (``"module:object"`` strings, literal ``import_module``
    arguments, ``lazy_exports`` tables); and the lines that import a module whose name is
    computed."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_lines(tree)
    imports, references, computed = set(), _lazy_export_targets(tree, package), []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skipped:
            continue
        if isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            imports.update(
                f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}") else base
                for alias in node.names
            )
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and REFERENCE.match(node.value)
        ):
            references.add(REFERENCE.match(node.value).group(1))
        elif _is_import_call(node):
            argument = node.args[0] if node.args else None
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                references.add(argument.value)
            else:
                computed.append(f"{name}:{node.lineno}")

    def ours(targets: set[str]) -> set[str]:
        return {
            target for target in targets if target == PACKAGE or target.startswith(PACKAGE + ".")
        } - {name}

    return ours(imports), ours(references), computed


def graphs() -> tuple[dict[str, set[str]], dict[str, set[str]], list[str]]:
    """The import graph, the reference graph (module -> modules) and every computed import of the
    package."""
    imports, references, computed = {}, {}, []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        module_imports, module_references, module_computed = edges_of(path)
        imports[module_name(path)] = module_imports
        references[module_name(path)] = module_references
        computed += module_computed
    return imports, references, computed


def allowed(importer: str, imported: str, lazily: bool = False) -> bool:
    """Whether ``importer`` may import ``imported`` (``lazily``: name it by reference): its row
    names the layer of ``imported``, or (a method's module) that method's package
    (``suites.eec``)."""
    source, target = layer(importer), layer(imported)
    names = (ALLOWED_NAMED if lazily else ALLOWED)[source]
    return source == target or bool(names & {target, EVERYTHING, method_package(imported)})


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
    imports, _, _ = graphs()
    cycle = find_cycle(imports)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_every_layer_of_the_package_has_a_rule_in_the_architecture_document():
    imports, _, _ = graphs()
    layers = set(map(layer, imports))
    assert layers <= set(ALLOWED), (
        f"layers without a row in {ARCHITECTURE.name}: {sorted(layers - set(ALLOWED))}"
    )
    named = {name for names in ALLOWED_NAMED.values() for name in names} - {EVERYTHING}
    methods = {
        name
        for name in named
        if name != METHOD_LAYER and layer(f"{PACKAGE}.{name}") == METHOD_LAYER
    }
    assert named - methods <= set(ALLOWED), (
        f"the table allows layers it does not define: {sorted(named - set(ALLOWED))}"
    )
    absent = sorted(name for name in methods if not is_package(f"{PACKAGE}.{name}"))
    assert not absent, f"the table names methods the package does not have: {absent}"


@pytest.mark.parametrize("kind", ["imports", "references"])
def test_every_import_and_every_reference_follows_the_dependency_rule(kind):
    imports, references, _ = graphs()
    graph = imports if kind == "imports" else references
    forbidden = sorted(
        f"{importer} {'imports' if kind == 'imports' else 'names'} {imported}"
        for importer, targets in graph.items()
        for imported in targets
        if not allowed(importer, imported, lazily=kind == "references")
    )
    assert not forbidden, "\n".join(forbidden)


def test_only_the_registry_imports_a_computed_module_name():
    _, _, computed = graphs()
    assert all(place.startswith(RESOLVER + ":") for place in computed), computed


def test_every_reference_names_a_module_of_the_package():
    _, references, _ = graphs()
    absent = sorted(
        f"{module} names {target}"
        for module, ts in references.items()
        for target in ts
        if not is_module(target)
    )
    assert not absent, absent


@pytest.mark.parametrize(
    ("importer", "imported", "expected"),
    [
        ("eval_harness.stats.weat", "eval_harness.data.loaders", False),
        ("eval_harness.suites.eec.suite", "eval_harness.runner.sweep", False),
        ("eval_harness.suites.eec.suite", "eval_harness.contract.suite", True),
        ("eval_harness.suites.eec.suite", "eval_harness.models.factory", False),
        ("eval_harness.suites.eec.report", "eval_harness.report.kit.document", True),
        ("eval_harness.report.kit.tables", "eval_harness.report.build", False),
        ("eval_harness.suites.eec.report", "eval_harness.report.findings", False),
        ("eval_harness.suites.eec.report", "eval_harness.report.sections", False),
        ("eval_harness.report.kit.tables", "eval_harness.report.sections", False),
        ("eval_harness.report.kit.tables", "eval_harness.suites", False),
        ("eval_harness.report.kit.tables", "eval_harness.report.kit.method_section", True),
        ("eval_harness.report.findings", "eval_harness.report.kit.families", True),
        ("eval_harness.report.build", "eval_harness.suites", True),
        ("eval_harness.report.build", "eval_harness.suites.eec.report", False),
        ("eval_harness.report.build", "eval_harness.models.encoder", False),
        ("eval_harness.runner.sweep", "eval_harness.suites.eec", False),
        ("eval_harness.runner.sweep", "eval_harness.report.build", False),
        ("eval_harness.contract.suite", "eval_harness.runner.sweep", False),
        ("eval_harness.suites", "eval_harness.suites.eec", False),
        ("eval_harness.models.factory", "eval_harness.runner.config", False),
        ("eval_harness.data.eec", "eval_harness.io", True),
        ("eval_harness.cli", "eval_harness.models.factory", True),
        ("eval_harness.compare.output", "eval_harness.suites.eec.paired.plots", True),
        ("eval_harness.compare.contrasts", "eval_harness.suites.eec.planner", True),
        ("eval_harness.compare.output", "eval_harness.suites.eec_crosslingual.plots", False),
        ("eval_harness.compare.output", "eval_harness.suites.xweat.report", False),
        (
            "eval_harness.suites.eec_crosslingual.report",
            "eval_harness.suites.eec.paired.plots",
            True,
        ),
    ],
)
def test_the_rule_checker_itself(importer, imported, expected):
    assert allowed(importer, imported) is expected


def test_a_lazy_reference_may_name_what_an_import_may_not():
    assert allowed("eval_harness.suites", "eval_harness.suites.eec.suite", lazily=True)
    assert not allowed("eval_harness.runner.plan", "eval_harness.suites.eec.suite", lazily=True)


def test_the_table_reader_itself():
    text = (
        f"intro\n\n{RULE_HEADING}\n\n| layer | may import | may name | never |\n|---|---|---|---|\n"
        "| `a`, `b` | `c` — never `d` | `e` | `d` |\n| "
        "`c` | nothing | | |\n| `e` | anything | | |\n\n"
        "## Next\n| `x` | `y` | | |\n"
    )
    imports, references = rule_table(text)
    assert imports == {"a": {"c"}, "b": {"c"}, "c": set(), "e": {EVERYTHING}}
    assert references == {"a": {"c", "e"}, "b": {"c", "e"}, "c": set(), "e": {EVERYTHING}}
    cut = text.replace("| `c` | nothing |", "| `c.kit` = `c.x`, `c.y` | nothing |")
    assert rule_table(cut)[0]["c.kit"] == set() and layer_members(cut) == {
        "c.x": "c.kit",
        "c.y": "c.kit",
    }


def test_a_layer_cut_out_of_a_package_holds_its_members_and_their_submodules_only():
    assert MEMBERS, "the table names no layer by its modules"
    for member, layer_name in MEMBERS.items():
        assert is_module(f"{PACKAGE}.{member}"), (
            f"{ARCHITECTURE.name}: {layer_name} names {member}, no module"
        )
        assert layer(f"{PACKAGE}.{member}") == layer_name
    assert (
        layer("eval_harness.report.kit.tables") == "report.kit"
        and layer("eval_harness.report") == "report"
    )


def test_the_edge_reader_sees_references_and_importlib():
    source = PACKAGE_ROOT / "suites" / "__init__.py"
    imports, references, computed = edges_of(source)
    assert (
        "eval_harness.registry" in imports
        and "eval_harness.suites.eec" in references
        and not computed
    )
    _, references, computed = edges_of(PACKAGE_ROOT / "registry.py")
    assert computed and all(place.startswith(RESOLVER + ":") for place in computed)
    _, references, _ = edges_of(PACKAGE_ROOT / "runner" / "__init__.py")
    assert "eval_harness.runner.sweep" in references  # a lazy_exports table


def test_the_cycle_finder_itself():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
