"""Build the `eec` dataset into a Hub-ready folder (parquet per config + README.md card).

    python datasets_scripts/eec/build.py [--out DIR] [--source-dir DIR] [--push-to-hub REPO_ID]

Writes DIR/eec (default: the xbias cache). Source files come from --source-dir,
else $XBIAS_SOURCE_DIR, else are downloaded from their canonical addresses.
The same build runs as `xbias datasets build eec`.
"""

import sys

from eval_harness.data.builders import run_build_script

if __name__ == "__main__":
    sys.exit(run_build_script("eec"))
