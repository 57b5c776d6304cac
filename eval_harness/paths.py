"""Where xbias keeps what it builds (datasets, caches), with one override each."""

import os
from pathlib import Path


def cache_root() -> Path:
    """Root of xbias's caches: ``$XBIAS_CACHE_DIR``, else ``$HF_HOME/xbias``, else
    ``~/.cache/huggingface/xbias``."""
    if os.environ.get("XBIAS_CACHE_DIR"):
        return Path(os.environ["XBIAS_CACHE_DIR"]).expanduser()
    hf_home = os.environ.get("HF_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache", "huggingface"
    )
    return Path(hf_home) / "xbias"


def datasets_dir() -> Path:
    """Default output folder of the dataset builders (one sub-folder per dataset)."""
    return cache_root() / "datasets"
