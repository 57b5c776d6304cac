#!/bin/bash
# The installed size of xbias's pinned runtime dependencies, two ways, each in a fresh venv (the README's
# numbers): the CPU route (torch from PyTorch's CPU wheel index) and the default route (PyPI alone, which on
# Linux resolves torch to the CUDA build and its nvidia-* packages). Needs the network and about 8 GB of disk;
# takes minutes. Usage: scripts/install_sizes.sh [WORK_DIR]   (default: a new temporary folder)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d)}
TORCH_INDEX=${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
mkdir -p "$WORK" && cd "$WORK" || exit 1
REQS=$(python3 -c "import tomllib; print(' '.join(tomllib.load(open('$ROOT/pyproject.toml', 'rb'))['project']['dependencies']))")
TORCH=$(tr ' ' '\n' <<<"$REQS" | grep '^torch==')

# CPU route: torch from the CPU index first, then the rest (pip keeps the torch it has).
python3 -m venv cpu
cpu/bin/pip install -q "$TORCH" --index-url "$TORCH_INDEX" >cpu.log 2>&1 && cpu/bin/pip install -q $REQS >>cpu.log 2>&1
echo "cpu rc=$?"
du -sm cpu
cpu/bin/pip list 2>/dev/null | grep -i -E "^torch |nvidia"

# Default route: PyPI alone, ignoring any local pip configuration or wheel cache.
python3 -m venv pypi
PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= PIP_CONSTRAINT= pypi/bin/pip install -q --index-url https://pypi.org/simple \
    $REQS >pypi.log 2>&1
echo "pypi rc=$?"
du -sm pypi
pypi/bin/pip list 2>/dev/null | grep -i -E "^torch |nvidia|cuda"
