"""The dependency rule at run time: a process that imports one module of a method, of the report, of
the contract or of ``xbias compare`` holds, of the package, only modules of the layers that module's
row of docs/architecture.md allows (and those rows allow, and so on), besides the packages above
them (Python runs a package's ``__init__`` before any of its modules; what that loads is checked
like the rest). Importing a suite loads no ``runner.sweep``, no ``runner.store`` and no
``models.*``; importing one of the report's building blocks loads no suite, not even the registry,
and nothing of the report's assembly; the contract loads nothing of the runner; no such module loads
a model library; ``compare`` loads no method but those its row names (the eec method, whose
``paired`` package holds the paired difference), none of ``eec_crosslingual``."""

import pytest
from helpers.imports import modules_after_each
from helpers.layers import (
    ALLOWED,
    METHOD_LAYER,
    PACKAGE,
    PACKAGE_ROOT,
    layer,
    method_package,
    reachable_layers,
)

CHECKED = ("contract", "suites", "report", "compare")
# Third-party libraries the checked modules may use, imported once before the children fork (time
# only).
PRELOAD = ("numpy", "scipy.stats", "pandas", "yaml", "matplotlib.figure")
MODEL_LIBRARIES = ("torch", "transformers", "accelerate")


def checked_modules() -> list[str]:
    found = []
    for folder in CHECKED:
        for path in sorted((PACKAGE_ROOT / folder).rglob("*.py")):
            parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


@pytest.fixture(scope="module")
def loaded() -> dict[str, set[str]]:
    return modules_after_each(checked_modules(), PRELOAD)


def packages_above(names: set[str]) -> set[str]:
    """The packages above any of ``names`` (``eval_harness.report`` above
    ``eval_harness.report.kit.tables``)."""
    return {name.rsplit(".", depth)[0] for name in names for depth in range(1, name.count("."))}


def kit_modules() -> list[str]:
    """The report's building blocks: the modules of the layer ``report.kit`` (the package
    ``report/kit/``)."""
    return [name for name in checked_modules() if layer(name) == "report.kit"]


@pytest.mark.parametrize("module", checked_modules())
def test_importing_a_module_loads_only_what_its_layer_allows(loaded, module):
    ours = {
        name for name in loaded[module] if name.startswith(PACKAGE + ".")
    }  # the root package always loads
    ours -= packages_above(ours)
    outside = sorted(name for name in ours if layer(name) not in reachable_layers(layer(module)))
    assert not outside, f"importing {module} ({layer(module)}) loads {outside}"
    libraries = sorted({name.split(".")[0] for name in loaded[module]} & set(MODEL_LIBRARIES))
    assert not libraries, f"importing {module} loads the model libraries {libraries}"


def test_a_suite_loads_neither_the_sweep_nor_the_store_nor_a_model(loaded):
    for suite in (
        "eval_harness.suites.eec.suite",
        "eval_harness.suites.xweat.suite",
        "eval_harness.suites.gender_space.suite",
    ):
        modules = loaded[suite]
        assert "eval_harness.suites" in modules and "eval_harness.contract.suite" in modules
        assert not {"eval_harness.runner.sweep", "eval_harness.runner.store"} & modules
        assert not [name for name in modules if name.startswith("eval_harness.models")], suite


def test_compare_loads_only_the_methods_its_row_names(loaded):
    for module in (name for name in checked_modules() if layer(name) == "compare"):
        methods = {method_package(name) for name in loaded[module] if layer(name) == METHOD_LAYER}
        assert methods and methods <= ALLOWED["compare"], (
            f"importing {module} loads the methods {sorted(methods)}"
        )
        crosslingual = sorted(
            name
            for name in loaded[module]
            if name.startswith("eval_harness.suites.eec_crosslingual")
        )
        assert not crosslingual, f"importing {module} loads {crosslingual}"


def test_the_compare_check_itself_sees_another_method(loaded):
    methods = {
        method_package(name) for name in loaded["eval_harness.suites.eec_crosslingual.report"]
    }
    assert "suites.eec_crosslingual" in methods - ALLOWED["compare"]


@pytest.mark.parametrize("module", kit_modules())
def test_a_building_block_of_the_report_loads_no_suite_and_nothing_of_the_assembly(loaded, module):
    assert module in loaded, (
        f"docs/architecture.md names {module} a building block, but there is no such module"
    )
    suites = sorted(
        name
        for name in loaded[module]
        if name == f"{PACKAGE}.suites" or name.startswith(f"{PACKAGE}.suites.")
    )
    assert not suites, f"importing {module} loads {suites}"
    assembly = sorted(
        name
        for name in loaded[module]
        if name.startswith(f"{PACKAGE}.report.") and layer(name) != "report.kit"
    )
    assert not assembly, f"importing {module} loads the report's assembly: {assembly}"


def test_the_report_has_building_blocks_and_the_methods_import_only_them():
    kit = kit_modules()
    assert {
        f"{PACKAGE}.report.kit.document",
        f"{PACKAGE}.report.kit.tables",
        f"{PACKAGE}.report.kit.plots",
    } <= set(kit)
    assert (
        layer(f"{PACKAGE}.report.kit.tables") == "report.kit"
        and layer(f"{PACKAGE}.report.build") == "report"
    )
    assert "report" not in reachable_layers("suites.<method>") and "report.kit" in reachable_layers(
        "report"
    )


def test_the_check_itself_sees_a_forbidden_module():
    (modules,) = modules_after_each(["eval_harness.runner.sweep"]).values()
    assert "eval_harness.models.packaged" in modules and "models" not in reachable_layers(
        "suites.<method>"
    )
