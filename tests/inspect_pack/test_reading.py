"""The judge's numbers read from a provider's top log-probabilities (no model, no Inspect): against
a direct computation from the probabilities they were made of, as each provider spells tokens; and
the bounds a top-k truncation records, checked on random answer distributions truncated at every
k."""

import math

import numpy as np
import pytest
from helpers.judge_numerals import direct_reading

from eval_harness.inspect_pack.reading import read_numerals
from eval_harness.models.judge_definition import numeral_of_token

LOW, HIGH = 0, 9


@pytest.mark.parametrize(
    "space", [" ", "Ġ", "▁"]
)  # decoded text (vLLM, OpenAI); byte-level BPE; SentencePiece
def test_every_spelling_of_every_numeral_counts_once_as_the_judge_counts_it(space):
    rng = np.random.default_rng(7)
    texts = [
        *map(str, range(10)),
        *(f" {n}" for n in range(10)),
        "The",
        " The",
        "\n7",
        "07",
        "10",
        "x",
    ]
    p = rng.dirichlet(np.ones(len(texts)))
    top = sorted(
        ((text.replace(" ", space, 1), math.log(q)) for text, q in zip(texts, p, strict=True)),
        key=lambda t: -t[1],
    )
    reading = read_numerals(top, LOW, HIGH)
    expected, mass = direct_reading(dict(zip(texts, p, strict=True)), LOW, HIGH)
    assert reading.expected == pytest.approx(
        expected, abs=1e-12
    ) and reading.numeral_mass == pytest.approx(mass, rel=1e-12)
    assert (
        reading.found == reading.candidates == 20
        and reading.missing_mass_bound == 0.0 == reading.score_error_bound
    )


def test_tokens_that_are_not_a_numeral_of_the_scale_are_not_read_as_one():
    for token in ("\n7", "07", "10", "-1", "٣", "7.", "", "Ġ", "▁10", " 7 "):
        assert numeral_of_token(token, LOW, HIGH) is None, token
    assert [numeral_of_token(token, LOW, HIGH) for token in ("7", " 7", "Ġ7", "▁7")] == [7] * 4
    assert (
        read_numerals([("The", -0.1), ("Ġa", -3.0)], LOW, HIGH) is None
    )  # no numeral: nothing to read


def test_a_top_k_truncation_stays_within_the_bounds_it_records():
    """Random answer distributions over 200 tokens (the 20 numeral spellings among them), returned
    as their top k for k from 1 to 200 in steps of 3: the mass read is at most the true one and at
    least it less the recorded bound; the expected value read is within its recorded bound of the
    true one."""
    rng = np.random.default_rng(3)
    texts = [
        *map(str, range(10)),
        *(f" {n}" for n in range(10)),
        *(f"w{index}" for index in range(180)),
    ]
    worst = 0.0
    for _ in range(12):
        p = rng.dirichlet(np.full(len(texts), 0.3))
        ranked = sorted(
            ((text, math.log(q)) for text, q in zip(texts, p, strict=True)), key=lambda t: -t[1]
        )
        expected, mass = direct_reading(dict(zip(texts, p, strict=True)), LOW, HIGH)
        for k in range(1, len(texts) + 1, 3):
            reading = read_numerals(ranked[:k], LOW, HIGH)
            if reading is None:
                continue
            assert reading.numeral_mass <= mass * (1 + 1e-12)
            assert mass <= reading.numeral_mass + reading.missing_mass_bound + 1e-12
            assert abs(reading.expected - expected) <= reading.score_error_bound + 1e-12
            worst = max(
                worst, abs(reading.expected - expected) / max(reading.score_error_bound, 1e-300)
            )
    assert (
        worst > 0.01
    )  # the bound is met by real truncation errors, not only by trivially exact readings
