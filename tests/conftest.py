"""Shared test set-up: offline Hugging Face, a temporary HF_HOME, source data, registered metrics.

The environment is set when this file is imported, before any test module imports
``datasets``/``evaluate``/``transformers`` (they read ``HF_HOME`` at import time).
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from eval_harness.thread_policy import apply_thread_policy

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"

# The suite's processes (and the xbias processes they start) under xbias run's thread policy: idle
# OpenMP threads sleep. With two workers on two cores, spinning threads took the cores from the
# working ones, and the real-model tests ran 1.5 times longer (docs/development.md).
if not apply_thread_policy():
    raise RuntimeError("torch was imported before tests/conftest.py: its OpenMP missed the policy")

_HF_HOME = tempfile.mkdtemp(prefix="xbias-test-hf-home-")
os.environ.update(
    HF_HOME=_HF_HOME,
    HF_HUB_OFFLINE="1",
    HF_DATASETS_OFFLINE="1",
    HF_EVALUATE_OFFLINE="1",
    TRANSFORMERS_OFFLINE="1",
    HF_HUB_DISABLE_TELEMETRY="1",
    TOKENIZERS_PARALLELISM="false",
)
# Each test's runs keep their features in their own run folder (cache/embeddings), so a test
# computes what it checks; the tests of the user's feature cache
# (tests/models/test_feature_cache.py) point it at a folder of their own.
os.environ["XBIAS_FEATURE_CACHE"] = "off"
for _variable in ("HF_MODULES_CACHE", "HF_DATASETS_CACHE", "XBIAS_CACHE_DIR"):
    os.environ.pop(_variable, None)
if "XBIAS_SOURCE_DIR" not in os.environ and SHARED_DATA.is_dir():
    os.environ["XBIAS_SOURCE_DIR"] = str(SHARED_DATA)


def pytest_unconfigure(config):
    shutil.rmtree(_HF_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def source_dir() -> Path:
    """The folder with the source data files (``$XBIAS_SOURCE_DIR``)."""
    path = os.environ.get("XBIAS_SOURCE_DIR")
    if not path or not Path(path).is_dir():
        pytest.fail(
            "XBIAS_SOURCE_DIR is not set to the source-data "
            "folder (make test sets it to ../shared/data)"
        )
    return Path(path)


@pytest.fixture(scope="session")
def multilingual_e5() -> Path:
    """The packaged multilingual e5-small converted once per test process into the session's xbias
    cache, where ``pypi:multilingual-e5-small`` resolves to it too: every real-model e5 test shares
    this one build."""
    from helpers.multilingual_e5 import build_multilingual_e5

    from eval_harness.models.model_builds import models_root

    return build_multilingual_e5(models_root())


@pytest.fixture(scope="session")
def registered_metrics():
    """The project's metrics registered in the temporary HF_HOME, as `make install` does for the
    user's."""
    from eval_harness.metric_modules import register_metrics

    return register_metrics()


@pytest.fixture(scope="session")
def load_metric_elsewhere(registered_metrics, tmp_path_factory):
    """``load(name)``: ``evaluate.load(name)`` by bare name from a directory that holds no
    ``./<name>/``.

    So evaluate must find the module where ``register_metrics`` put it, as a user's would.
    """
    import evaluate

    def load(name):
        previous = os.getcwd()
        os.chdir(tmp_path_factory.mktemp("elsewhere"))
        try:
            return evaluate.load(name)
        finally:
            os.chdir(previous)

    return load
