"""``xbias run -q`` on the demo's transformers models (the e5 encoder, the SmolLM2 judge) prints
nothing on stderr but warnings and errors: no progress bar, no step, no transformers load report
(slow: loads both)."""

import subprocess
import sys

import pytest
import yaml

pytestmark = pytest.mark.slow


def test_quiet_run_of_the_demos_models_prints_nothing_on_stderr(tmp_path):
    demo = yaml.safe_load(open("configs/demo.yaml", encoding="utf-8"))
    models = [model for model in demo["models"] if model["type"] in ("encoder", "llm")]
    assert {model["path"] for model in models} == {
        "pypi:multilingual-e5-small",
        "pypi:smollm2-135m-instruct",
    }
    config = {
        "seeds": [0],
        "models": models,
        # word vectors of both models, and nothing trained: what loads them, quickly
        "suites": {
            "xweat": {"languages": ["en"], "tests": ["T1"], "n_bootstrap": 0, "permutations": 100}
        },
    }
    (tmp_path / "quiet.yaml").write_text(yaml.safe_dump(config))
    command = [
        sys.executable,
        "-m",
        "eval_harness.cli",
        "run",
        "-q",
        "--config",
        str(tmp_path / "quiet.yaml"),
        "--out",
        str(tmp_path / "run"),
    ]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    assert finished.returncode == 0, finished.stderr[-2000:]
    lines = finished.stderr.splitlines()
    assert all(line.startswith(("xbias: warning: ", "xbias: error: ")) for line in lines), (
        finished.stderr[-2000:]
    )
    assert "results:" in finished.stdout
