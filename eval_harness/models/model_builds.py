"""Model folders that xbias builds once into its cache (from GGUF files, from packaged weights).

:func:`build_once` builds such a folder with the storage kit (:func:`eval_harness.io.build_folder`),
so it is safe to share between runs and processes:

- the build runs in a staging folder beside the final one; the kit's marker (``.xbias-build.json``:
  the source's digest and the sha256 of every file) is written LAST, then the folder is renamed into
  place. A crash leaves a staging folder, never a half-built model where a finished one is looked
  for;
- a file lock keeps two processes (accelerate ranks) from building the same folder at once;
- a later use verifies the marker (every file's sha256) and builds again only when a file is missing
  or changed, or the folder was built from another source. A folder built by an older xbias (its
  marker was ``xbias-build.json``) is built again.
"""

import importlib.util
import logging
from collections.abc import Callable
from pathlib import Path

from eval_harness.io import build_folder
from eval_harness.paths import cache_root

logger = logging.getLogger(__name__)


def models_root() -> Path:
    """Where built model folders live: ``cache_root()/"models"``."""
    return cache_root() / "models"


def build_once(
    final: Path, source_digest: str, build: Callable[[Path], None], message: str | None = None
) -> Path:
    """``final`` when it is a verified build of ``source_digest``, else ``build(staging)`` then
    moved there.

    ``build`` writes the model's files into the (empty, existing) folder it is given; ``message``
    is logged before a build starts (what is built, how long it takes).
    """

    def logged_build(staging: Path) -> None:
        if message:
            logger.info(message)  # a build takes minutes: say what is happening
        build(staging)

    build_folder(final, logged_build, {"source_digest": source_digest})
    return Path(final)


def package_folder(distribution: str) -> Path | None:
    """The installed folder of a distribution's import package (``a-b==1`` -> ``a_b``), or None; not
    imported."""
    module = distribution.split("==", 1)[0].replace("-", "_")
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))
