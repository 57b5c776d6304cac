"""The xweat suite's effect-size records carry the uncertainty of d: the bootstrap interval and the
words whose removal moves d most, named by word (a word the vectors lack must not shift the
names)."""

import numpy as np
import pytest

from eval_harness.contract import Unit
from eval_harness.models.static import StaticVectors
from eval_harness.stats.weat import weat
from eval_harness.suites.xweat import SUITE, WordSet, run_xweat, xweat_records


@pytest.fixture(scope="module")
def planted():
    """X words lean towards A and Y words towards B, except one X word, "odd", that leans hard
    towards B; X also lists a word the vectors lack, so the found X words are not the listed ones
    position by position."""
    rng = np.random.default_rng(4)
    direction = rng.normal(size=16)
    direction /= np.linalg.norm(direction)
    lean = {"X": 0.6, "Y": -0.6, "A": 2.0, "B": -2.0}
    names = {role: [f"{role.lower()}{i}" for i in range(8)] for role in "XYAB"}
    names["X"][3] = "odd"
    words, rows = [], []
    for role, listed in names.items():
        for word in listed:
            words.append(word)
            rows.append(rng.normal(size=16) + (-3.0 if word == "odd" else lean[role]) * direction)
    vectors = StaticVectors(words, np.array(rows))
    listed = {role: tuple(names[role]) for role in "XYAB"}
    listed["X"] = ("unknownword", *listed["X"])
    sets = {
        "en": {"T1": {role: WordSet(role, f"set {role}", "en", listed[role]) for role in "XYAB"}}
    }
    return vectors, sets, names


def test_the_effect_size_record_carries_the_bootstrap_interval_and_the_influential_words(planted):
    vectors, sets, names = planted
    (result,) = run_xweat(
        vectors,
        [("en", "en")],
        word_sets=sets,
        seed=0,
        permutations=999,
        n_bootstrap=2000,
        influence=True,
    )
    effect, statistic, _ = xweat_records(result)
    bootstrap = result.weat.bootstrap
    assert (effect["ci_low"], effect["ci_high"], effect["bootstrap_std_err"]) == (
        bootstrap.ci_low,
        bootstrap.ci_high,
        bootstrap.std_err,
    )
    assert effect["ci_low"] < effect["value"] < effect["ci_high"]
    assert (effect["n_bootstrap"], effect["confidence_level"]) == (2000, 0.95)
    assert "ci_low" not in statistic and "influential_words" not in statistic

    # independently: drop each found word in turn and run WEAT on what is left
    found = {
        role: [vectors.matrix[vectors.words.index(word)] for word in names[role]] for role in "XYAB"
    }
    d = weat(*(np.array(found[role]) for role in "XYAB"), permutations=1).effect_size
    changes = []
    for role in "XYAB":
        for index, word in enumerate(names[role]):
            kept = {
                r: np.array([v for i, v in enumerate(found[r]) if (r, i) != (role, index)])
                for r in "XYAB"
            }
            changes.append(
                (word, role, weat(*(kept[r] for r in "XYAB"), permutations=1).effect_size - d)
            )
    top = sorted(changes, key=lambda item: -abs(item[2]))[:3]
    listed = effect["influential_words"]
    assert [(w["word"], w["role"]) for w in listed] == [(word, role) for word, role, _ in top]
    assert [w["change"] for w in listed] == pytest.approx(
        [change for _, _, change in top], abs=1e-9
    )
    assert (
        listed[0]["word"] == "odd" and listed[0]["change"] > 0
    )  # without the planted bad seed, d grows
    # the sign's stability: over every leave-one-word-out d computed here, and over the bootstrap's
    # replicates
    assert effect["stability_words_loo_sign"] == pytest.approx(
        np.mean([np.sign(d + c) == np.sign(d) for *_, c in changes])
    )
    assert effect["stability_words_sign"] == pytest.approx(
        np.mean(np.sign(bootstrap.replicates) == np.sign(d))
    )
    assert 0.5 < effect["stability_words_sign"] <= 1.0


def test_the_suite_computes_the_uncertainty_by_default_and_can_switch_it_off(planted):
    vectors, sets, _ = planted

    class Words:
        def embed_words(self, words, language=None):
            return vectors.embed_words(words, language)

    unit = Unit(
        model="static",
        suite="xweat",
        language="en",
        dataset="xweat",
        config="en",
        test="T1",
        seed=0,
    )
    options = {**SUITE.options, "permutations": 999}
    assert options["n_bootstrap"] >= 1000 and options["influence"] is True
    effect = SUITE.evaluate(
        unit, {"sets": sets, "embedder": Words(), "options": options}, ctx=None
    )[0]
    assert effect["n_bootstrap"] == options["n_bootstrap"] and len(effect["influential_words"]) == 3
    off = {**options, "n_bootstrap": 0, "influence": False}
    plain = SUITE.evaluate(unit, {"sets": sets, "embedder": Words(), "options": off}, ctx=None)[0]
    assert "ci_low" not in plain and "influential_words" not in plain
    assert plain["value"] == effect["value"] and plain["p_value"] == effect["p_value"]


def test_the_findings_tables_show_how_often_the_word_resamples_keep_the_sign_of_d(planted):
    import pandas as pd

    from eval_harness.contract.records import make_record
    from eval_harness.report import annotate
    from eval_harness.report.kit.tables import findings_table
    from eval_harness.report.sections import report_sections
    from eval_harness.suites.xweat.records import XWEAT_RECORDS

    vectors, sets, _ = planted
    (result,) = run_xweat(
        vectors,
        [("en", "en")],
        word_sets=sets,
        seed=0,
        permutations=999,
        n_bootstrap=500,
        influence=True,
    )
    unit = Unit(
        model="static",
        suite="xweat",
        language="en",
        dataset="xweat",
        config="en",
        test="T1",
        seed=0,
    )
    records = [make_record(unit, record, XWEAT_RECORDS) for record in xweat_records(result)]
    effect = records[0]
    table = findings_table(annotate(pd.DataFrame.from_records(records)), report_sections())
    (cell,) = table.loc[table["metric"] == "effect_size", "stability (sign/verdict kept)"]
    words, left_out = effect["stability_words_sign"], effect["stability_words_loo_sign"]
    assert cell == f"words {words:.0%} · one word left out {left_out:.0%}"
