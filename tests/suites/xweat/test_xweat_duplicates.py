"""Word lists enter the xweat suite once, as WordSets: a word listed twice counts once (one warning)
in WEAT, the association measures and SEAT; on GloVe, "rose" x6 in T1's flowers gives the RND of
"rose" once, computed directly, not the per-copy number."""

import warnings

import numpy as np
import pytest

from eval_harness.errors import DuplicateWordsWarning
from eval_harness.models.static import StaticVectors, load_packaged_glove
from eval_harness.stats.weat import weat
from eval_harness.suites.xweat import WordSet, load_word_sets, run_xweat
from eval_harness.suites.xweat.measures import run_association
from eval_harness.suites.xweat.seat import PrecomputedSentences, run_seat


def test_a_word_set_keeps_each_word_once_in_order_with_one_warning_naming_set_and_copies():
    with pytest.warns(DuplicateWordsWarning) as caught:
        word_set = WordSet("X", "flowers", "en", ("rose", "tulip", "rose", "iris", "rose"))
    assert word_set.words == ("rose", "tulip", "iris")
    assert [str(w.message) for w in caught] == [
        "duplicate words collapsed, each word counts once "
        "(as in WEFE): set X (flowers, en): 'rose' x3"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert WordSet("X", "flowers", "en", ["rose", "Rose"]).words == (
            "rose",
            "Rose",
        )  # no warning


@pytest.fixture(scope="module")
def glove_t1():
    glove, sets = load_packaged_glove(), load_word_sets("en")["T1"]
    assert "rose" in sets["X"].words
    return glove, sets


def vectors_of(glove, words) -> np.ndarray:
    rows, found = glove.embed_words(list(words), "en")
    return np.asarray(rows, dtype=np.float64)[np.asarray(found)]


def direct_rnd(x: np.ndarray, y: np.ndarray, attributes: np.ndarray) -> float:
    """Garg et al.'s RND on unit vectors: sum over a of |a - mean x| - |a - mean y|."""
    x, y, attributes = (
        rows / np.linalg.norm(rows, axis=1, keepdims=True) for rows in (x, y, attributes)
    )
    return float(
        (
            np.linalg.norm(attributes - x.mean(0), axis=1)
            - np.linalg.norm(attributes - y.mean(0), axis=1)
        ).sum()
    )


def test_glove_t1_rnd_with_rose_six_times_equals_rose_once_not_the_per_copy_number(glove_t1):
    glove, sets = glove_t1
    listed = sets["X"].words + ("rose",) * 5
    with pytest.warns(DuplicateWordsWarning, match="'rose' x6"):
        flowers = WordSet("X", sets["X"].name, "en", listed)
    result = run_association(glove, "T1", {"X": flowers, "Y": sets["Y"]}, sets, measures=["rnd"])
    x, y = vectors_of(glove, sets["X"].words), vectors_of(glove, sets["Y"].words)
    x_per_copy = vectors_of(glove, listed)
    for role in "AB":
        attributes = vectors_of(glove, sets[role].words)
        once, per_copy = direct_rnd(x, y, attributes), direct_rnd(x_per_copy, y, attributes)
        assert result.results["rnd"][role].value == pytest.approx(once, rel=1e-9)
        assert (
            abs(per_copy - once) > 1.0
        )  # A: 0.019 once, -1.414 per copy; B: 1.943 once, 0.662 per copy


class FixedTemplates:
    """SEAT templates of one kind for every word: ``patterns`` hold ``{}`` where the word goes."""

    source = "test"

    def __init__(self, *patterns: str):
        self.patterns = patterns

    def sentences(self, word: str) -> list[str]:
        return [pattern.format(word) for pattern in self.patterns]


def test_weat_and_seat_in_the_suite_see_each_word_once():
    rng = np.random.default_rng(2)
    names = {role: [f"{role.lower()}{i}" for i in range(6)] for role in "XYAB"}
    words = [word for listed in names.values() for word in listed]
    vectors = StaticVectors(words, rng.normal(size=(len(words), 10)))
    once = {role: WordSet(role, f"set {role}", "en", tuple(names[role])) for role in "XYAB"}
    with pytest.warns(DuplicateWordsWarning, match="set A \\(set A, en\\): 'a0' x4"):
        doubled = dict(once, A=WordSet("A", "set A", "en", tuple(names["A"]) + ("a0",) * 3))
    (clean,) = run_xweat(vectors, [("en", "en")], word_sets={"en": {"T1": once}}, permutations=99)
    (collapsed,) = run_xweat(
        vectors, [("en", "en")], word_sets={"en": {"T1": doubled}}, permutations=99
    )
    assert collapsed.weat.effect_size == clean.weat.effect_size and collapsed.weat.n_a == 6
    # SEAT: the sentences of each word once
    templates = FixedTemplates("This is {}.", "That is {}.")
    encoder = PrecomputedSentences(
        {s: rng.normal(size=10) for w in words for s in templates.sentences(w)}
    )
    seat_once = run_seat(encoder, "T1", once, once, {"en": templates}, permutations=99)
    seat_doubled = run_seat(encoder, "T1", doubled, doubled, {"en": templates}, permutations=99)
    assert seat_doubled.n_sentences == seat_once.n_sentences == (12, 12, 12, 12)
    assert seat_doubled.weat.effect_size == seat_once.weat.effect_size


def test_seat_default_effect_size_divides_by_the_sample_standard_deviation():
    """May et al.'s code (sentbias/weat.py) divides by np.std(..., ddof=1): computed here
    directly."""
    rng = np.random.default_rng(9)
    names = {role: [f"{role.lower()}{i}" for i in range(5)] for role in "XYAB"}
    sets = {role: WordSet(role, f"set {role}", "en", tuple(names[role])) for role in "XYAB"}
    templates = FixedTemplates("A {}.", "The {}.", "One {}.")
    table = {
        s: rng.normal(size=12) + 0.3 * ("x" in s)
        for w in sum(names.values(), [])
        for s in templates.sentences(w)
    }
    result = run_seat(
        PrecomputedSentences(table), "T1", sets, sets, {"en": templates}, permutations=99
    )
    rows = {
        role: np.array([table[s] for w in names[role] for s in templates.sentences(w)])
        for role in "XYAB"
    }
    unit = {role: m / np.sqrt((m * m).sum(axis=1, keepdims=True)) for role, m in rows.items()}
    s = {
        role: (unit[role] @ unit["A"].T).mean(1) - (unit[role] @ unit["B"].T).mean(1)
        for role in "XY"
    }
    pooled = np.concatenate([s["X"], s["Y"]])
    sample_sd = np.sqrt(((pooled - pooled.mean()) ** 2).sum() / (len(pooled) - 1))
    expected = (s["X"].mean() - s["Y"].mean()) / sample_sd
    assert result.weat.ddof == 1
    assert result.weat.effect_size == pytest.approx(expected, rel=1e-12)
    # and WEAT on words keeps XWEAT's population deviation
    assert weat(rows["X"], rows["Y"], rows["A"], rows["B"], permutations=9).ddof == 0
    population = expected * np.sqrt(
        len(pooled) / (len(pooled) - 1)
    )  # the same numerator over a smaller SD
    assert weat(
        rows["X"], rows["Y"], rows["A"], rows["B"], permutations=9
    ).effect_size == pytest.approx(population, rel=1e-12)
