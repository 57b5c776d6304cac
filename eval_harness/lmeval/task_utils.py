"""The ``utils.py`` of an xbias task pack for lm-evaluation-harness (copied as it is into the pack,
beside ``judge_rule.py``, a copy of the judge's scoring rule ``eval_harness/stats/judge.py``; it
imports nothing of xbias there, so lm-eval runs the tasks without xbias installed).

``process_results`` gives lm-eval's own table a per-document ``score`` (the judge's expected numeral
on [0, 1]) and ``numeral_mass``, by the judge's rule itself (``numeral_statistics``). xbias never
reads these: ``xbias lm-eval import`` recomputes both from the logged log-likelihoods; a test checks
that the two agree.

A document's choices are the scale's numeral spellings (``choice_numerals``: the numeral of each),
each after the white space the judge's prompt ends with, and that white space alone (numeral -1):
every choice's log-likelihood carries the white space's own, which the last choice measures and
removes. (lm-eval would move a prompt's trailing white space into the choices anyway; the pack does
it openly.)
"""

import importlib.util
from pathlib import Path

import numpy as np

RULE_FILE = "judge_rule.py"


def _numeral_statistics():
    """The judge's rule: the pack's copy beside this file, or (in xbias's source tree) the rule
    itself."""
    path = Path(__file__).with_name(RULE_FILE)
    if not path.exists():
        from eval_harness.stats.judge import numeral_statistics

        return numeral_statistics
    spec = importlib.util.spec_from_file_location("xbias_judge_rule", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.numeral_statistics


numeral_statistics = _numeral_statistics()


def process_results(doc, results):
    """``{"score": E, "numeral_mass": mass}`` of one document from its choices' ``(loglik,
    is_greedy)``."""
    numerals = np.array(doc["choice_numerals"])
    logliks = np.array([float(result[0]) for result in results])
    scored = numerals >= 0
    shift = logliks[~scored].sum()  # the white space's own log-likelihood (0 without that choice)
    low, high = int(numerals[scored].min()), int(numerals[scored].max())
    expected, mass, _ = numeral_statistics(
        (logliks[scored] - shift)[None, :], numerals[scored], low, high
    )
    return {"score": float(expected[0]), "numeral_mass": float(mass[0])}
