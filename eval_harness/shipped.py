"""Where the metric modules, the sweep configs and the documentation are, in a checkout and in an
installed copy.

The repository's top-level ``metrics/<name>/``, ``configs/*.yaml``, ``README.md`` and ``docs/*.md``
are the source of truth. A checkout (and an
editable install) reads them there; a wheel carries copies under ``eval_harness/_shipped/`` (made by
the build step in ``setup.py``), which an installed copy reads. ``--config demo`` names a packaged
config.
"""

import functools
from pathlib import Path

from .errors import ConfigError

PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT_ROOT = PACKAGE_DIR.parent
SHIPPED_DIR = PACKAGE_DIR / "_shipped"
CONFIG_SUFFIXES = (".yaml", ".yml")


@functools.cache  # where the package runs from does not change in a process: stat the checkout once
def _folder(name: str) -> Path:
    """``<checkout>/<name>`` when this package runs from a checkout, else the copy shipped in the
    package."""
    checkout = CHECKOUT_ROOT / name
    # A checkout has pyproject.toml beside the package; an installed copy's parent is site-packages.
    if (CHECKOUT_ROOT / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return SHIPPED_DIR / name


def metrics_dir() -> Path:
    """The folder holding one ``<name>/<name>.py`` evaluate module per metric."""
    return _folder("metrics")


def configs_dir() -> Path:
    """The folder holding the packaged sweep configs (``demo.yaml``, ``camara2022.yaml``, ...)."""
    return _folder("configs")


def docs_dir() -> Path:
    """The folder of the documentation (architecture.md, models.md, llm.md, run_folder.md,
    model_card.md, ...)."""
    return _folder("docs")


@functools.cache
def readme_path() -> Path:
    """The project's README.md (the checkout's, or the copy an installed package carries)."""
    checkout = CHECKOUT_ROOT / "README.md"
    return (
        checkout
        if _folder("docs") == CHECKOUT_ROOT / "docs" and checkout.is_file()
        else SHIPPED_DIR / "README.md"
    )


def packaged_configs() -> dict[str, Path]:
    """The packaged sweep configs, name (as ``--config NAME`` takes it) -> file."""
    folder = configs_dir()
    if not folder.is_dir():
        return {}
    return {path.stem: path for path in sorted(folder.iterdir()) if path.suffix in CONFIG_SUFFIXES}


def config_names() -> list[str]:
    """Names of the packaged sweep configs."""
    return sorted(packaged_configs())


def find_config(source: str | Path) -> Path:
    """The YAML file a ``--config`` value means: an existing file, else a packaged config's name.

    A file wins over a packaged config of the same name; ``demo`` and ``demo.yaml`` both name the
    packaged ``demo`` when no such file exists.

    Raises:
        ConfigError: ``source`` is neither an existing file nor the name of a packaged config.
    """
    path = Path(source).expanduser()
    if path.is_file():
        return path
    text = str(source)
    packaged = packaged_configs()
    if path.name == text:  # a bare name, not a path
        name = path.stem if path.suffix in CONFIG_SUFFIXES else text
        if name in packaged:
            return packaged[name]
    raise ConfigError(
        f"config file {text!r} does not exist, and no packaged config has that name; "
        f"packaged configs: {', '.join(packaged) or 'none'}"
    )
