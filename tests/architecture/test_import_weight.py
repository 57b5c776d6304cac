"""Light entry points stay light: `xbias list` and reading a config import no model library (lazy registries and
package exports; see docs/architecture.md). Checked by what a fresh interpreter has imported, not by timing."""

import json
import subprocess
import sys

from helpers import PROJECT_ROOT

HEAVY = ("torch", "transformers", "accelerate", "datasets", "statsmodels", "sklearn", "evaluate")


def imported_after(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    return set(json.loads(finished.stdout.strip().splitlines()[-1]))


def test_xbias_list_imports_no_model_or_statistics_library():
    loaded = imported_after("from eval_harness.cli import main\nmain(['list'])")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_reading_and_validating_a_config_imports_no_model_library():
    loaded = imported_after(
        "from eval_harness.runner import load_config, plan_units\nplan_units(load_config('configs/demo.yaml'))"
    )
    assert not loaded & {"torch", "transformers", "accelerate"}, sorted(loaded & {"torch", "transformers"})
