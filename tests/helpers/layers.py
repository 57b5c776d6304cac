"""The dependency rule as the tests read it: the table of docs/architecture.md (its only copy), and
which layer a module of the package belongs to (tests/architecture/)."""

import re

from helpers import PROJECT_ROOT

PACKAGE_ROOT = PROJECT_ROOT / "eval_harness"
PACKAGE = "eval_harness"
ARCHITECTURE = PROJECT_ROOT / "docs" / "architecture.md"
RULE_HEADING = "## The dependency rule"
EVERYTHING = "anything"
METHOD_LAYER = "suites.<method>"


def _names(cell: str) -> set[str]:
    """The backticked layer names of a table cell before its dash; ``anything`` stands for every
    layer."""
    before = cell.split("—")[0]
    return (
        {EVERYTHING}
        if before.strip().startswith(EVERYTHING)
        else set(re.findall(r"`([^`]+)`", before))
    )


def _rows(text: str) -> list[list[str]]:
    """The cells of the dependency rule's table rows (those whose first cell names a layer)."""
    section = text.split(RULE_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in section.splitlines()
    ]
    return [cells for cells in rows if len(cells) >= 3 and cells[0].startswith("`")]


def rule_table(text: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The dependency rule's table of docs/architecture.md: layer -> the layers it may import
    (besides itself), and layer -> those it may also name lazily.

    A row is ``| `layer`[, `layer`...] | `imported`, ... [— why] | `named`, ... [— why] | never |``:
    the backticked names of a cell before its dash; ``nothing`` for none, ``anything`` for every
    layer. A layer cut out of a package is ``| `layer` = `module`, ... |``
    (:func:`layer_members`)."""
    imports, references = {}, {}
    for cells in _rows(text):
        for layer_name in re.findall(r"`([^`]+)`", cells[0].split("=")[0]):
            imports[layer_name] = _names(cells[1])
            references[layer_name] = _names(cells[1]) | _names(cells[2])
    return imports, references


def layer_members(text: str) -> dict[str, str]:
    """Module -> its layer, for the layers a row names as ``| `layer` = `package.module`, ... |``
    (the report's building blocks, ``report.kit``, which are modules of ``report``); a member's
    submodules belong to it too."""
    members = {}
    for cells in _rows(text):
        if "=" in cells[0]:
            named, listed = cells[0].split("=", 1)
            (layer_name,) = re.findall(r"`([^`]+)`", named)
            members.update(dict.fromkeys(re.findall(r"`([^`]+)`", listed), layer_name))
    return members


ALLOWED, ALLOWED_NAMED = rule_table(ARCHITECTURE.read_text(encoding="utf-8"))
MEMBERS = layer_members(ARCHITECTURE.read_text(encoding="utf-8"))


def layer(module: str) -> str:
    """A module's layer: the layer a row names it (or a package above it) a member of
    (:func:`layer_members`), else its top-level package or root module below ``eval_harness``; the
    suite registry ``eval_harness.suites`` is ``suites`` and everything below it (the methods)
    ``suites.<method>``."""
    parts = module.split(".")[1:]
    if not parts:
        return PACKAGE
    for end in range(len(parts), 1, -1):
        if ".".join(parts[:end]) in MEMBERS:
            return MEMBERS[".".join(parts[:end])]
    if parts[0] == "suites" and len(parts) > 1:
        return METHOD_LAYER
    return parts[0]


def method_package(module: str) -> str | None:
    """The method a module belongs to, as a row of the table names it: ``suites.eec`` for
    ``eval_harness.suites.eec.paired.fit``; None for a module of no method (the suite registry
    included)."""
    parts = module.split(".")[1:]
    return f"suites.{parts[1]}" if len(parts) > 1 and parts[0] == "suites" else None


def as_layer(name: str) -> str:
    """A name of the table as a layer: one method's package (``suites.eec``) is of the layer of
    every method."""
    return METHOD_LAYER if name.startswith("suites.") else name


def reachable_layers(start: str) -> set[str]:
    """The layers a module of layer ``start`` may end up loading: those its row allows, theirs, and
    so on (a row that names one method's package reaches what the methods' row allows)."""
    seen, todo = {start}, [start]
    while todo:
        for name in map(as_layer, ALLOWED[todo.pop()]):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return set(ALLOWED) if EVERYTHING in seen else seen
