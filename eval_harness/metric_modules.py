"""Make ``evaluate.load("<name>")`` find the project's metrics by bare name, offline.

evaluate 0.4.6 has no registry: for a bare name it tries ``./<name>/<name>.py``,
then the Hub, then its modules cache
(``$HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-metric--<name>/<hash>/<name>.py``,
newest hash wins). :func:`register_metrics` writes each ``metrics/<name>/`` script
(with its card) into that cache under the hash of its content, exactly where
evaluate looks when the Hub is unreachable or ``HF_EVALUATE_OFFLINE=1`` is set.
Re-registering after an edit adds a newer hash, so the newest script wins.
"""

import hashlib
import os
import shutil
from pathlib import Path

from .errors import InputError

METRICS_DIR = Path(__file__).resolve().parent.parent / "metrics"


def metric_names(metrics_dir: Path = METRICS_DIR) -> list[str]:
    """Names of the metric modules in ``metrics_dir`` (folders holding ``<name>/<name>.py``)."""
    if not metrics_dir.is_dir():
        return []
    return sorted(p.name for p in metrics_dir.iterdir() if (p / f"{p.name}.py").is_file())


def evaluate_modules_dir() -> Path:
    """evaluate's dynamic-modules folder, honouring ``HF_MODULES_CACHE`` and ``HF_HOME`` as evaluate does."""
    if os.environ.get("HF_MODULES_CACHE"):
        base = Path(os.environ["HF_MODULES_CACHE"])
    else:
        hf_home = os.environ.get("HF_HOME") or os.path.join(
            os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache")), "huggingface"
        )
        base = Path(hf_home) / "modules"
    return base.expanduser() / "evaluate_modules"


def register_metrics(names: list[str] | None = None, metrics_dir: Path = METRICS_DIR) -> list[Path]:
    """Copy metric scripts into evaluate's modules cache; return the script paths written.

    Args:
        names: metrics to register (default: all in ``metrics_dir``).
        metrics_dir: the project's ``metrics/`` folder.
    """
    available = metric_names(metrics_dir)
    names = available if names is None else names
    unknown = sorted(set(names) - set(available))
    if unknown:
        raise InputError(f"unknown metric(s) {unknown}; available: {available}")
    root = evaluate_modules_dir()
    written = []
    for name in names:
        source_dir = metrics_dir / name
        script = (source_dir / f"{name}.py").read_bytes()
        digest = hashlib.sha256(script).hexdigest()
        target = root / "metrics" / f"evaluate-metric--{name}" / digest
        target.mkdir(parents=True, exist_ok=True)
        # evaluate imports the cached script as a package path: every level needs an __init__.py.
        for level in (root, root / "metrics", target.parent, target):
            (level / "__init__.py").touch()
        for item in source_dir.iterdir():
            if item.is_file() and item.suffix in {".py", ".md", ".txt"}:
                shutil.copyfile(item, target / item.name)
        # Newest mtime wins in evaluate's cache lookup: make this version the newest.
        os.utime(target / f"{name}.py")
        written.append(target / f"{name}.py")
    return written
