"""Build the `xweat` dataset into a Hub-ready folder (parquet per config + README.md card).

    python datasets_scripts/xweat/build.py [--out DIR] [--source-dir DIR] [--push-to-hub REPO_ID]

Writes DIR/xweat (default: the xbias cache). Source files come from --source-dir,
else $XBIAS_SOURCE_DIR, else are downloaded from their canonical addresses.
The same build runs as `xbias datasets build xweat`.
"""

import sys

from eval_harness.data.builders import run_build_script

if __name__ == "__main__":
    sys.exit(run_build_script("xweat"))
