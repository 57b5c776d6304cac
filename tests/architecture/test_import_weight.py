"""Light entry points stay light: `xbias list` and reading a config import no model library (lazy registries and
package exports; see docs/architecture.md). Checked by what a fresh interpreter has imported, not by timing."""

from helpers.imports import imported_after

HEAVY = ("torch", "transformers", "accelerate", "datasets", "statsmodels", "sklearn", "evaluate")


def test_xbias_list_imports_no_model_or_statistics_library():
    loaded = imported_after("from eval_harness.cli import main\nmain(['list'])")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_reading_and_validating_a_config_imports_no_model_library():
    loaded = imported_after(
        "from eval_harness.runner import load_config, plan_units\nplan_units(load_config('configs/demo.yaml'))"
    )
    assert not loaded & {"torch", "transformers", "accelerate"}, sorted(loaded & {"torch", "transformers"})
