"""Runs of the xweat suite with its association measures, on tiny models, for the suite and report
tests.

- :func:`write_corpus`: a sentence file with four sentences per word of the tests (``"the {word} is
  very here ."``...), for CEAT; words in ``leave_out`` get none.
- :func:`write_static_vectors`: a small GloVe-format vector file holding every word of the tests
  (random, seeded), a ``static_mlp`` model without sentence or context vectors.
- :func:`xweat_config`: a config with the xweat suite on tests T1 and T7 and small settings.
- :func:`hand_seed`: a measure's seed in a unit, derived as the suite documents it.
"""

import json
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

TESTS = ("T1", "T7")
FILLERS = ("very", "not", "so", "a")
# German SEAT templates a user would write (none are packaged).
DE_TEMPLATES = ["Das ist {word}.", "{word} ist hier."]


def words_of_tests(language: str, tests: Sequence[str] = TESTS) -> list[str]:
    """Every word of ``tests`` in ``language``, sorted."""
    from eval_harness.suites.xweat import load_word_sets

    sets = load_word_sets(language)
    return sorted(
        {word for test in tests for word_set in sets[test].values() for word in word_set.words}
    )


def write_corpus(
    path: Path,
    languages: Sequence[str] = ("en",),
    tests: Sequence[str] = TESTS,
    leave_out: Iterable[str] = (),
) -> Path:
    """Four sentences per word of ``tests`` in ``languages``, one per line (none for the words in
    ``leave_out``)."""
    skipped = set(leave_out)
    words = sorted(
        {word for language in languages for word in words_of_tests(language, tests)} - skipped
    )
    path.write_text(
        "\n".join(f"the {word} is {filler} here ." for word in words for filler in FILLERS) + "\n"
    )
    return path


def write_static_vectors(
    path: Path, languages: Sequence[str] = ("en",), dim: int = 8, seed: int = 0
) -> Path:
    """A GloVe-format file (no header) with a random vector for every word of the tests in
    ``languages``."""
    words = sorted({word for language in languages for word in words_of_tests(language)})
    vectors = np.random.default_rng(seed).normal(size=(len(words), dim))
    lines = [
        word + " " + " ".join(f"{value:.6f}" for value in row)
        for word, row in zip(words, vectors, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def encoder_model(folder: Path, name: str = "tiny") -> dict:
    return {"name": name, "path": str(folder), "type": "encoder", "options": {"pooling": "mean"}}


def static_model(path: Path, name: str = "static") -> dict:
    return {"name": name, "path": str(path), "type": "static_mlp"}


def xweat_config(models: list[dict], seeds: Sequence[int] = (0,), **suite):
    """A parsed config: the xweat suite on T1 and T7 in English, 999 permutations, 200 CEAT samples
    of at most 3 contexts per word, an encoder's input-embedding word vectors (``word_mode:
    static``: no forward pass for the hundreds of words of a language's tests); ``suite`` overrides
    or adds settings."""
    from eval_harness.runner import parse_config

    settings = {
        "languages": ["en"],
        "tests": list(TESTS),
        "word_mode": "static",
        "permutations": 999,
        "ceat_samples": 200,
        "contexts_per_word": 3,
        **suite,
    }
    return parse_config({"models": models, "suites": {"xweat": settings}, "seeds": list(seeds)})


def run_records(config, out: Path) -> list[dict]:
    """Run ``config`` into ``out`` and return its records."""
    from eval_harness.runner import run_sweep

    run_sweep(config, out, progress=False)
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def hand_seed(test: str, targets: str, attributes: str, measure: str, seed: int = 0) -> int:
    """The documented derivation: SeedSequence(seed, spawn_key=(crc32(test|L1|L2),
    crc32(measure)))."""
    keys = (zlib.crc32(f"{test}|{targets}|{attributes}".encode()), zlib.crc32(measure.encode()))
    return int(np.random.SeedSequence(seed, spawn_key=keys).generate_state(1, dtype=np.uint32)[0])
