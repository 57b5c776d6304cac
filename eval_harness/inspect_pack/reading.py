"""The judge's numbers from the log-probabilities an Inspect provider returns for the answer's first
token.

A provider returns the ``k`` most likely tokens at that position (``top_logprobs``) with their
log-probabilities. The judge's candidates are the single-token spellings of the scale's numerals
(``"7"``, ``" 7"``: :func:`~eval_harness.models.judge_definition.numeral_spellings`); those among
the ``k`` are read with the judge's own rule (:func:`~eval_harness.stats.judge.numeral_statistics`),
so with every candidate among them the numbers are xbias's judge's.

A candidate outside the top ``k`` is missing, and each missing one has at most the probability
``p_k`` of the ``k``-th token. With ``c`` candidate spellings (two per numeral) of which ``f`` were
returned, the mass left out is ``m <= b = (c - f) p_k``, so

- the numeral mass read, ``M_k``, is a lower bound: the judge's is in ``[M_k, M_k + b]``;
- the expected value read, ``E_k`` (on [0, 1]), is that of the numerals returned. The judge's is
  ``E = (M_k E_k + m E_m) / (M_k + m)`` with ``E_m`` in [0, 1], so ``|E - E_k| <= m / (M_k + m) <= b
  / (M_k + b)``.

Both bounds are recorded with every score (``missing_mass_bound``, ``score_error_bound``); they are
0 when every candidate was returned. (``c`` counts both spellings of each numeral; a tokenizer for
which one is not a single token makes the bound larger than it needs to be, never smaller.)
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..models.judge_definition import numeral_of_token, numeral_spellings, token_spelling
from ..stats.judge import numeral_statistics


@dataclass(frozen=True)
class NumeralReading:
    """What one answer's top log-probabilities say: the judge's numbers (``expected`` on [0, 1],
    ``numeral_mass``, ``argmax``), how many candidates were returned of how many, and the bounds of
    the module docstring."""

    expected: float
    numeral_mass: float
    argmax: int
    found: int
    candidates: int
    missing_mass_bound: float
    score_error_bound: float

    def record(self) -> dict:
        """The judge's numbers as a run's samples hold them (``value`` is the expected value)."""
        return {
            "value": self.expected,
            "expected": self.expected,
            "numeral_mass": self.numeral_mass,
            "argmax": self.argmax,
        }


def read_numerals(
    top_logprobs: Sequence[tuple[str, float]], low: int, high: int
) -> NumeralReading | None:
    """The judge's reading of ``top_logprobs`` (``(token, log-probability)``, most likely first, as
    a provider returns them) on the scale ``low..high``; None when no numeral is among them."""
    owners, logprobs, seen = [], [], set()
    for token, logprob in top_logprobs:
        numeral, spelling = numeral_of_token(token, low, high), token_spelling(token)
        # A spelling counts once (the judge reads one token per spelling); a non-finite one is no
        # answer.
        if numeral is None or spelling in seen or not np.isfinite(logprob):
            continue
        seen.add(spelling)
        owners.append(numeral)
        logprobs.append(float(logprob))
    if not owners:
        return None
    expected, mass, argmax = numeral_statistics(np.array([logprobs]), owners, low, high)
    candidates = len(numeral_spellings(low)) * (high - low + 1)
    smallest = min(float(logprob) for _, logprob in top_logprobs)
    bound = (candidates - len(owners)) * float(np.exp(smallest))
    return NumeralReading(
        expected=float(expected[0]),
        numeral_mass=float(mass[0]),
        argmax=int(argmax[0]),
        found=len(owners),
        candidates=candidates,
        missing_mass_bound=bound,
        score_error_bound=bound / (float(mass[0]) + bound),
    )
