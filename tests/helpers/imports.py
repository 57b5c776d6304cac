"""What a fresh interpreter has imported after running some code: the import-weight and layer tests read it
(not timings)."""

import json
import subprocess
import sys

from helpers import PROJECT_ROOT


def modules_after(code: str) -> set[str]:
    """Every module name in ``sys.modules`` of a fresh interpreter (run in the project root) after ``code``."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    return set(json.loads(finished.stdout.strip().splitlines()[-1]))


def imported_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter has imported after ``code`` (``torch``, ``numpy``...)."""
    return {name.split(".")[0] for name in modules_after(code)}
