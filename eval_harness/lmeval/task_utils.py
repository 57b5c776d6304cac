"""The ``utils.py`` of an xbias task pack for lm-evaluation-harness (copied as it is into the pack; it imports
nothing but the standard library, so lm-eval runs the tasks without xbias installed).

``process_results`` gives lm-eval's own table a per-document ``score`` (the judge's expected numeral on [0, 1])
and ``numeral_mass``. xbias never reads these: ``xbias lm-eval import`` recomputes both from the logged
log-likelihoods with the judge's own function (``eval_harness.stats.judge.numeral_statistics``); a test checks
that the two agree.

A document's choices are the scale's numeral spellings (``choice_numerals``: the numeral of each), each after the
white space the judge's prompt ends with, and that white space alone (numeral -1): every choice's log-likelihood
carries the white space's own, which the last choice measures and removes. (lm-eval would move a prompt's
trailing white space into the choices anyway; the pack does it openly.)
"""

import math


def process_results(doc, results):
    """``{"score": E, "numeral_mass": mass}`` of one document from its choices' ``(loglik, is_greedy)``."""
    numerals = list(doc["choice_numerals"])
    logliks = [float(result[0]) for result in results]
    shift = logliks[numerals.index(-1)] if -1 in numerals else 0.0
    low, high = min(n for n in numerals if n >= 0), max(numerals)
    p = [0.0] * (high - low + 1)
    for numeral, loglik in zip(numerals, logliks, strict=True):
        if numeral >= 0:
            p[numeral - low] += math.exp(loglik - shift)
    mass = sum(p)
    expected = sum((low + k) * p_k for k, p_k in enumerate(p)) / mass if mass > 0 else float("nan")
    return {"score": (expected - low) / (high - low), "numeral_mass": mass}
