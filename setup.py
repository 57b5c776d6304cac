"""Build step of the xbias distribution (the metadata is in pyproject.toml).

The repository's top-level ``metrics/<name>/`` folders (the evaluate modules), ``configs/*.yaml``
(the sweep configs), ``README.md`` and ``docs/*.md`` are the source of truth. A wheel ships copies
of them inside the import package, under ``eval_harness/_shipped/``, where
:mod:`eval_harness.shipped` finds them in an installed copy; a checkout (and an editable install)
reads the top-level folders directly, so nothing is committed twice.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# (source folder in the repository, destination inside the import package, files shipped)
SHIPPED_ROOT = "eval_harness/_shipped"
SHIPPED = (
    ("metrics", f"{SHIPPED_ROOT}/metrics", ("*/*.py", "*/*.md", "*/*.txt")),
    ("configs", f"{SHIPPED_ROOT}/configs", ("*.yaml",)),
    # The documentation a user without the repository reads (`xbias --help` says where it is).
    (".", SHIPPED_ROOT, ("README.md",)),
    ("docs", f"{SHIPPED_ROOT}/docs", ("*.md",)),
)


class BuildPyWithShippedFolders(build_py):
    """``build_py`` that also copies ``metrics/``, ``configs/``, the README and ``docs/`` into the
    package being built."""

    def run(self):
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's folders
            return
        shutil.rmtree(Path(self.build_lib) / SHIPPED_ROOT, ignore_errors=True)
        for source, destination, patterns in SHIPPED:
            target_root = Path(self.build_lib) / destination
            for pattern in patterns:
                for path in sorted((ROOT / source).glob(pattern)):
                    target = target_root / path.relative_to(ROOT / source)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, target)


setup(cmdclass={"build_py": BuildPyWithShippedFolders})
