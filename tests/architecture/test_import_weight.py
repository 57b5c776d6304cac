"""Light entry points stay light: `xbias list`, `xbias --help` and reading and checking a config
import no model library and neither pandas nor scipy (lazy registries and package exports, scipy and
pandas imported where they are used, the fit's option checks in stats/fit_options.py; see
docs/architecture.md). Checked by what a fresh interpreter has imported, not by timing."""

import pytest
from helpers.imports import imported_after

MODEL_LIBRARIES = (
    "torch",
    "transformers",
    "accelerate",
    "datasets",
    "statsmodels",
    "sklearn",
    "evaluate",
)
HEAVY = (*MODEL_LIBRARIES, "pandas", "scipy", "pyarrow", "matplotlib")


@pytest.mark.parametrize(
    "command",
    [
        "from eval_harness.cli import main\nmain(['list'])",
        "from eval_harness.cli import main\ntry:\n    "
        "main(['--help'])\nexcept SystemExit:\n    pass",
        "from eval_harness.runner import load_config, "
        "plan_units\nplan_units(load_config('configs/demo.yaml'))",
    ],
    ids=["xbias list", "xbias --help", "checking a config"],
)
def test_light_commands_import_no_model_library_pandas_or_scipy(command):
    loaded = imported_after(command)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
