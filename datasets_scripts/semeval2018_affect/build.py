"""Build the `semeval2018_affect` dataset into a Hub-ready folder (parquet per config + README.md
card).

    python datasets_scripts/semeval2018_affect/build.py [--out DIR] [--source-dir DIR]
        [--push-to-hub REPO_ID [--private]]

The same as `xbias datasets build semeval2018_affect ...`: writes DIR/semeval2018_affect (default:
the xbias cache). Source files come from --source-dir, else $XBIAS_SOURCE_DIR, else are downloaded
from their canonical addresses.
"""

import sys

from eval_harness.cli import main

if __name__ == "__main__":
    sys.exit(main(["datasets", "build", "semeval2018_affect", *sys.argv[1:]]))
