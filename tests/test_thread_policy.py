"""One thread policy for `xbias run` and every bench: idle OpenMP threads sleep, set before torch
loads OpenMP."""

import ast
import json
import os
import subprocess
import sys

import pytest
from helpers import PROJECT_ROOT

from eval_harness.thread_policy import THREAD_POLICY, apply_thread_policy, thread_policy_summary

BENCHES = sorted((PROJECT_ROOT / "bench").glob("*.py"))
# What a bench may import before the policy: the standard library and the policy module itself.
STDLIB = set(sys.stdlib_module_names)


def test_the_policy_is_passive_wait_and_an_explicit_environment_wins(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    apply_thread_policy()
    assert THREAD_POLICY == {"OMP_WAIT_POLICY": "PASSIVE"}
    assert thread_policy_summary() == "OMP_WAIT_POLICY=PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    apply_thread_policy()
    assert thread_policy_summary() == "OMP_WAIT_POLICY=ACTIVE"


def test_it_says_whether_it_came_in_time_for_torch():
    script = (
        "import json, os, sys\n"
        "from eval_harness.thread_policy import apply_thread_policy\n"
        "early = apply_thread_policy()\n"
        "import torch\n"
        "print(json.dumps([early, apply_thread_policy(), os.environ['OMP_WAIT_POLICY']]))"
    )
    environment = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"}
    finished = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_ROOT,
        env=environment,
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    assert json.loads(finished.stdout.strip().splitlines()[-1]) == [True, False, "PASSIVE"]


def module_statements(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node
        for node in tree.body
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    ]


def imported_roots(node) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name.split(".")[0] for alias in node.names}
    if isinstance(node, ast.ImportFrom):
        return {(node.module or "").split(".")[0]} if not node.level else {"."}
    return set()


@pytest.mark.parametrize("bench", BENCHES, ids=[path.name for path in BENCHES])
def test_every_bench_applies_the_policy_before_importing_anything_but_the_standard_library(bench):
    statements = module_statements(bench)
    calls = [
        index
        for index, node in enumerate(statements)
        if isinstance(node, ast.Expr) and ast.unparse(node.value) == "apply_thread_policy()"
    ]
    assert calls, f"{bench.name} does not call apply_thread_policy() at module level"
    before = statements[: calls[0]]
    early = set().union(*map(imported_roots, before)) - STDLIB - {"eval_harness"}
    assert not early, f"{bench.name} imports {sorted(early)} before the thread policy"
    policy_imports = [node for node in before if isinstance(node, ast.ImportFrom) and node.module]
    assert [node.module for node in policy_imports if node.module.startswith("eval_harness")] == [
        "eval_harness.thread_policy"
    ]
