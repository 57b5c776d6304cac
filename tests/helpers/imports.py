"""What a fresh interpreter has imported after running some code: the import-weight and layer tests
read it (not timings)."""

import json
import subprocess
import sys

from helpers import PROJECT_ROOT


def modules_after(code: str) -> set[str]:
    """Every module name in ``sys.modules`` of a fresh interpreter (run in the project root) after
    ``code``."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    finished = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_ROOT,
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    return set(json.loads(finished.stdout.strip().splitlines()[-1]))


def imported_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter has imported after ``code`` (``torch``,
    ``numpy``...)."""
    return {name.split(".")[0] for name in modules_after(code)}


_EACH = """
import json, os, sys
for name in PRELOAD:
    __import__(name)
results = {}
for module in MODULES:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child imports one module into a process that has imported nothing of the package
        os.close(read)
        try:
            __import__(module)
            payload = {"modules": sorted(sys.modules)}
        except BaseException as error:
            payload = {"error": f"{type(error).__name__}: {error}"}
        with os.fdopen(write, "w") as pipe:
            pipe.write(json.dumps(payload))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        results[module] = json.loads(pipe.read())
    os.waitpid(pid, 0)
print(json.dumps(results))
"""  # noqa: E501


def modules_after_each(modules: list[str], preload: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """For each of ``modules``: every module name in ``sys.modules`` after importing it alone into a
    process that has imported none of the package. One interpreter imports ``preload`` (third-party
    libraries, to save their import time), then forks a child per module; what a child adds beyond
    ``preload`` is that module's doing."""
    script = f"PRELOAD = {list(preload)!r}\nMODULES = {list(modules)!r}\n{_EACH}"
    finished = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=PROJECT_ROOT,
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    results = json.loads(finished.stdout.strip().splitlines()[-1])
    errors = {module: result["error"] for module, result in results.items() if "error" in result}
    assert not errors, errors
    return {module: set(result["modules"]) for module, result in results.items()}
