"""`make install` is quiet when there is nothing to do: a second run prints nothing, of `xbias
metrics register` least of all (issue 43). The environment is a stand-in whose `xbias` is this
checkout's CLI and whose install stamp is current, so that make runs only the registration step,
into a temporary HF_HOME."""

import os
import shutil
import subprocess
import sys

import pytest
from helpers import PROJECT_ROOT


@pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
def test_a_second_make_install_prints_nothing(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    xbias = venv / "bin" / "xbias"
    xbias.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m eval_harness.cli "$@"\n')
    xbias.chmod(0o755)
    (
        venv / ".xbias-installed"
    ).touch()  # newer than pyproject.toml and constraints.txt: nothing to install
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf-home"), "PYTHONPATH": str(PROJECT_ROOT)}
    env.pop("HF_MODULES_CACHE", None)

    def make_install() -> str:
        done = subprocess.run(
            ["make", "--no-print-directory", "install", f"VENV={venv}"],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    first = make_install()
    assert (
        first.startswith("registered for evaluate.load(NAME): eec_bias (measurement)")
        and first.count("\n") == 1
    )
    assert make_install() == ""
