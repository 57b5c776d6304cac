"""The XWEAT suite on the multilingual e5-small across the seven XWEAT languages: cold vs warm
cache.

Each run is ``xbias run`` in a fresh process (start-up and model loading included, as a user sees
it), the e5 folder as an encoder (mean pooling, ``"query: "`` prefix), the paper's tests T1, T2,
T6-T9:

- cold: an empty cache — every word of every language embedded (template word vectors by default);
- warm: the same config with ``--force`` (every unit recomputed) over the cache the cold run filled.

The model is ``pypi:multilingual-e5-small`` (built once into the xbias cache) unless ``--model``
names a folder. It prints wall times, the cold/warm ratio and the largest difference between the two
runs' values.
Measured on the shared 2-core machine: 7 languages, template: cold 53 s, warm 63 s (0.84x); 49 pairs
(``--cross-lingual``), static: cold 21 s, warm 19 s (1.11x); 49 pairs, template: ~345 s. The warm
cache saves nothing because the xweat suite does not put word vectors in the embedding cache, and in
template mode each task (language pair) embeds both of its languages' words again.
Run: ``.venv/bin/python bench/xweat_multilingual.py [--model E5_DIR] [--languages en,de,...]
[--cross-lingual] [--word-mode template|static] [--permutations 9999]`` (prints; asserts nothing).
"""

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()  # before torch loads OpenMP, as `xbias run` does

import yaml
from sweep import PYTHON, largest_difference, records, run

XWEAT_LANGUAGES = "en,de,es,it,hr,ru,tr"
PAPER_TESTS = "T1,T2,T6,T7,T8,T9"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", default="pypi:multilingual-e5-small", help="an e5 folder or pypi: name"
    )
    parser.add_argument("--languages", default=XWEAT_LANGUAGES)
    parser.add_argument("--tests", default=PAPER_TESTS)
    parser.add_argument(
        "--cross-lingual", action="store_true", help="also every ordered language pair"
    )
    parser.add_argument("--word-mode", default="template", choices=("template", "static"))
    parser.add_argument("--permutations", type=int, default=9_999)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="xbias-bench-xweat-"))
    languages = args.languages.split(",")
    config = work / "xweat.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "models": [
                    {
                        "name": "e5",
                        "path": args.model,
                        "type": "encoder",
                        "options": {"pooling": "mean", "prefix": "query: "},
                    }
                ],
                "suites": {
                    "xweat": {
                        "languages": languages,
                        "tests": args.tests.split(","),
                        "cross_lingual": args.cross_lingual,
                        "word_mode": args.word_mode,
                        "permutations": args.permutations,
                    }
                },
            }
        )
    )
    n_pairs = len(languages) ** 2 if args.cross_lingual else len(languages)
    print(
        f"XWEAT suite: multilingual e5-small ({args.word_mode} word vectors), {n_pairs} "
        f"language pair(s) of {args.languages}, tests {args.tests}, {args.permutations} "
        f"permutations; {os.cpu_count()} CPU cores; work folder {work}"
    )
    subprocess.run(
        [PYTHON, "-m", "eval_harness.cli", "datasets", "build", "xweat"],
        check=True,
        capture_output=True,
    )
    out, cache = work / "run", work / "cache"
    times, outputs = {}, {}
    for state in ("cold", "warm"):
        times[state] = run(config, out, cache, processes=1, force=state == "warm")
        outputs[state] = records(out)
        print(f"  {state} cache: {times[state]:7.1f} s")
    print(f"cold / warm cache: {times['cold'] / times['warm']:.2f}x")
    print(
        "largest |value difference| warm vs cold: "
        f"{largest_difference(outputs['cold'], outputs['warm']):.2g}"
    )


if __name__ == "__main__":
    main()
