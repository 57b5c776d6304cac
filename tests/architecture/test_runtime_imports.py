"""The dependency rule at run time: a process that imports one module of a method, of the report or of the
contract holds, of the package, only modules of the layers that module's row of docs/architecture.md allows
(and those rows allow, and so on). Importing a suite loads no ``runner.sweep``, no ``runner.store`` and no
``models.*``; the contract loads nothing of the runner; no such module loads a model library."""

import pytest
from helpers.imports import modules_after_each
from helpers.layers import PACKAGE, PACKAGE_ROOT, layer, reachable_layers

CHECKED = ("contract", "suites", "report")
# Third-party libraries the checked modules may use, imported once before the children fork (time only).
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


@pytest.mark.parametrize("module", checked_modules())
def test_importing_a_module_loads_only_what_its_layer_allows(loaded, module):
    ours = {name for name in loaded[module] if name.startswith(PACKAGE + ".")}  # the root package always loads
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


def test_the_check_itself_sees_a_forbidden_module():
    (modules,) = modules_after_each(["eval_harness.runner.sweep"]).values()
    assert "eval_harness.models.packaged" in modules and "models" not in reachable_layers("suites.<method>")
