"""The multilingual e5-small encoder for tests: the project's ``pypi:multilingual-e5-small`` build.

intfloat/multilingual-e5-small (12 layers, 384 dims, all seven XWEAT languages) rebuilt offline from
two PyPI packages by :mod:`eval_harness.models.multilingual_e5` (a few seconds, into the test
session's temporary xbias cache). The e5 card: prefix inputs with ``"query: "`` and mean-pool.
"""

from pathlib import Path

from eval_harness.models.multilingual_e5 import multilingual_e5_folder
from eval_harness.models.packaged import E5_ENCODER_OPTIONS

E5_OPTIONS = dict(E5_ENCODER_OPTIONS)


def build_multilingual_e5(root: Path) -> Path:
    """The built e5 folder under ``root`` (built once; reused when it is already there and
    verified)."""
    return multilingual_e5_folder(root=root, progress=False)
