"""``xbias run`` with the xweat suite on the real multilingual e5-small, in all seven XWEAT
languages.

The sweep runs in-process through the CLI (``eval_harness.cli.main``) with a config file, the e5
folder as an ``encoder`` (mean pooling, ``"query: "`` prefix as the e5 card says) and the paper's
final tests T1, T2, T6-T9 (Lauscher & Glavaš 2019 keep those in every language).

- Every language and every ordered pair: the whole 7-language cross-lingual sweep (7 + 42 language
  pairs x 6 tests) in ``static`` word mode (input embeddings; ~15 s). In template mode the suite
  embeds each language's words again for every pair (~7 s a pair on 2 cores: 343 s for the whole
  sweep), too slow for the test suite; bench/xweat_multilingual.py times it.
- The numbers mean something: the suite's default ``template`` word mode on en, de and their two
  pairs, T1 (flowers/insects vs pleasant/unpleasant) and T2 (instruments/weapons vs
  pleasant/unpleasant).
  Measured (seed 0, 9,999 Monte-Carlo permutations): en T1 1.14 (p 1e-4), en T2 1.25 (p 1e-4),
  de T1 0.79 (p 0.002), de T2 0.70 (p 0.008), en-de T1 1.16 (p 1e-4), en-de T2 1.24 (p 1e-4),
  de-en T1 0.73 (p 0.005), de-en T2 0.64 (p 0.013). Static word mode is much weaker (en T1 0.50,
  en T2 0.22), which is why the meaning check uses template mode.
"""

import json

import pytest
import yaml
from helpers.multilingual_e5 import E5_OPTIONS

from eval_harness.cli import main
from eval_harness.data import XWEAT_LANGUAGES

pytestmark = pytest.mark.slow

PAPER_TESTS = ["T1", "T2", "T6", "T7", "T8", "T9"]


def xbias_run(tmp_path, model, suite: dict) -> dict[tuple[str, str, str], dict]:
    """``xbias run --config`` with e5 and the xweat ``suite``; records by (language, test,
    metric)."""
    config = tmp_path / "xweat.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "models": [
                    {"name": "e5", "path": str(model), "type": "encoder", "options": E5_OPTIONS}
                ],
                "suites": {"xweat": {"tests": PAPER_TESTS, "permutations": 9_999, **suite}},
            }
        )
    )
    out = tmp_path / "run"
    assert main(["run", "--config", str(config), "--out", str(out), "--no-progress"]) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    by_key = {(r["language"], r["test"], r["metric"]): r for r in records}
    assert len(by_key) == len(records)
    return by_key


def test_every_language_and_every_ordered_pair_has_results_with_full_coverage(
    multilingual_e5, tmp_path
):
    records = xbias_run(
        tmp_path,
        multilingual_e5,
        {"languages": list(XWEAT_LANGUAGES), "cross_lingual": True, "word_mode": "static"},
    )
    pairs = [(first, second) for first in XWEAT_LANGUAGES for second in XWEAT_LANGUAGES]
    assert len(pairs) == 49
    for first, second in pairs:
        language = first if first == second else f"{first}-{second}"
        for test in PAPER_TESTS:
            effect = records[(language, test, "effect_size")]
            assert (effect["targets_language"], effect["attributes_language"]) == (first, second)
            assert (
                effect["model"] == "e5"
                and effect["suite"] == "xweat"
                and effect["config"] == language
            )
            # A skipped test says why; an encoder embeds every word, so none is skipped and coverage
            # is whole.
            if effect["status"] == "skipped":
                assert effect["value"] is None and effect["note"]
            assert effect["status"] == "ok", effect.get("note")
            assert -2 <= effect["value"] <= 2 and 0 < effect["p_value"] <= 1
            coverage = records[(language, test, "coverage")]
            assert coverage["value"] == 1.0 and not coverage["missing"]
    assert len(records) == 49 * len(PAPER_TESTS) * 3  # effect_size, statistic, coverage


def test_template_word_vectors_show_the_flower_and_instrument_biases_across_languages(
    multilingual_e5, tmp_path
):
    records = xbias_run(
        tmp_path,
        multilingual_e5,
        {"languages": ["en", "de"], "cross_lingual": True, "tests": ["T1", "T2"]},
    )
    effect = {
        (language, test): records[(language, test, "effect_size")]
        for language in ("en", "de", "en-de", "de-en")
        for test in ("T1", "T2")
    }
    assert len({record["value"] for record in effect.values()}) == 8  # each unit its own number
    for language in ("en", "en-de"):  # English targets: large effects (measured 1.14-1.25)
        for test in ("T1", "T2"):
            assert (
                effect[(language, test)]["value"] > 0.8
                and effect[(language, test)]["p_value"] < 0.01
            )
    for language in ("de", "de-en"):  # German targets: medium effects (measured 0.64-0.79)
        for test in ("T1", "T2"):
            assert (
                effect[(language, test)]["value"] > 0.4
                and effect[(language, test)]["p_value"] < 0.05
            )
