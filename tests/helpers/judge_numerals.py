"""The judge's rule written out for tests, from the probabilities an answer was made of: each
numeral's spellings (``"7"``, ``" 7"``) summed, the mass, and the expected numeral mapped to [0,
1]."""

from collections.abc import Mapping


def direct_reading(probabilities: Mapping[str, float], low: int, high: int) -> tuple[float, float]:
    """``(expected on [0, 1], numeral mass)`` of an answer whose first token is each text with its
    probability."""
    spellings = {text: n for n in range(low, high + 1) for text in (str(n), f" {n}")}
    by_numeral = dict.fromkeys(range(low, high + 1), 0.0)
    for text, p in probabilities.items():
        if text in spellings:
            by_numeral[spellings[text]] += p
    mass = sum(by_numeral.values())
    return (sum(n * p for n, p in by_numeral.items()) / mass - low) / (high - low), mass
