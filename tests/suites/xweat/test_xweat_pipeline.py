"""XWEAT runner: coverage rule, language pairs, seeds; English GloVe; a fake aligned multilingual
space."""

import numpy as np
import pytest
from scipy.stats import special_ortho_group

from eval_harness.errors import InputError
from eval_harness.models.static import AlignedStaticSpaces, StaticVectors, load_packaged_glove
from eval_harness.stats.alignment import orthogonal_procrustes
from eval_harness.stats.weat import weat
from eval_harness.suites.xweat import (
    WordSet,
    cross_lingual_matrix,
    language_pairs,
    load_word_sets,
    run_test,
    run_xweat,
    xweat_dictionaries,
)


# ---- fast: a tiny random vocabulary --------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    vectors = StaticVectors.from_arrays(words, rng.normal(size=(60, 8)))

    def sets(language="en", missing=(0, 0, 0, 0), sizes=(5, 5, 5, 5), offset=0):
        out, start = {}, offset
        for role, size, n_missing in zip("XYAB", sizes, missing, strict=True):
            listed = [f"w{start + i}" for i in range(size - n_missing)] + [
                f"oov{role}{i}" for i in range(n_missing)
            ]
            out[role] = WordSet(role, f"set_{role}", language, tuple(listed))
            start += size
        return out

    return vectors, sets


def test_coverage_rule_runs_at_80_percent_and_skips_below(tiny):
    vectors, sets = tiny
    at_threshold = sets(missing=(1, 0, 0, 1))  # 4 of 5 = 80 % in X and B
    result = run_test(vectors, "T0", at_threshold, at_threshold)
    assert result.status == "ok" and result.skip_reason is None
    assert [c.n_found for c in result.coverage] == [4, 5, 5, 4]
    assert result.coverage[0].missing == ("oovX0",)
    found = [vectors.lookup([w for w in at_threshold[r].words if w in vectors])[0] for r in "XYAB"]
    assert result.weat == weat(*found)

    below = sets(missing=(0, 2, 0, 0))  # 3 of 5 = 60 % in Y
    skipped = run_test(vectors, "T0", below, below)
    assert skipped.status == "skipped" and skipped.weat is None
    assert (
        "set Y (set_Y, en) keeps 3 of 5 words (60%), below the 80% coverage rule"
        in skipped.skip_reason
    )
    assert "oovY0, oovY1" in skipped.skip_reason
    record = skipped.to_dict()
    assert record["status"] == "skipped" and record["weat"] is None
    assert (
        record["coverage"][1]["missing"] == ["oovY0", "oovY1"]
        and record["coverage"][1]["fraction"] == 0.6
    )
    # The threshold is a parameter; an empty set is skipped even at 0.
    assert run_test(vectors, "T0", below, below, min_coverage=0.6).status == "ok"
    empty = sets(missing=(5, 0, 0, 0))
    assert "keeps 0 of 5" in run_test(vectors, "T0", empty, empty, min_coverage=0.0).skip_reason


def test_language_pairs_are_every_ordered_pair():
    languages = ["en", "de", "tr"]
    assert language_pairs(languages) == [("en", "en"), ("de", "de"), ("tr", "tr")]
    cross = language_pairs(languages, monolingual=False, cross_lingual=True)
    assert (
        len(cross) == 6 and len(set(cross)) == 6 and all(first != second for first, second in cross)
    )
    assert len(language_pairs(languages, cross_lingual=True)) == 9


def test_unit_seeds_do_not_depend_on_what_else_runs(tiny):
    vectors, sets = tiny
    big = sets(sizes=(13, 13, 5, 5))  # C(26, 13) > 1e6: Monte Carlo
    word_sets = {"en": {"T1": big, "T2": sets(offset=30)}}
    both = run_xweat(vectors, [("en", "en")], word_sets=word_sets, permutations=2_000, seed=7)
    alone = run_xweat(
        vectors, [("en", "en")], tests=["T1"], word_sets=word_sets, permutations=2_000, seed=7
    )
    assert [r.test for r in both] == ["T1", "T2"] and both[0].weat.p_value_method == "monte_carlo"
    assert alone[0] == both[0]
    other_seed = run_xweat(
        vectors, [("en", "en")], tests=["T1"], word_sets=word_sets, permutations=2_000, seed=8
    )
    assert other_seed[0].weat.p_value != both[0].weat.p_value


def test_runner_rejects_bad_requests(tiny):
    vectors, sets = tiny
    word_sets = {"en": {"T1": sets()}}
    with pytest.raises(InputError, match=r"test\(s\) \['T9'\] missing"):
        run_xweat(vectors, [("en", "en")], tests=["T9"], word_sets=word_sets)
    with pytest.raises(InputError, match="min_coverage"):
        run_xweat(vectors, [("en", "en")], word_sets=word_sets, min_coverage=80)
    with pytest.raises(InputError, match="no result for test"):
        cross_lingual_matrix([], "T1")


# ---- slow: real GloVe 6B 50d with the xweat dataset's English lists ------------------------------
@pytest.fixture(scope="module")
def glove():
    return load_packaged_glove()


@pytest.fixture(scope="module")
def english_sets(source_dir):
    return load_word_sets("en")


@pytest.mark.slow
def test_english_glove_runs_t1_to_t10_with_t3_skipped_by_the_coverage_rule(glove, english_sets):
    results = {
        r.test: r for r in run_xweat(glove, [("en", "en")], word_sets={"en": english_sets}, seed=0)
    }
    assert list(results) == [f"T{i}" for i in range(1, 11)]
    # GloVe 6B lacks 12 of the 50 African-American names of T3 (38/50 = 76 % < 80 %).
    assert results["T3"].status == "skipped"
    assert (
        "set Y (african_american_names, en) keeps 38 of 50 words (76%)" in results["T3"].skip_reason
    )
    assert all(results[f"T{i}"].status == "ok" for i in (1, 2, 4, 5, 6, 7, 8, 9, 10))
    for name in ("T1", "T2", "T6", "T7", "T8"):
        assert results[name].weat.effect_size > 0.8
    # A looser threshold runs all ten, T3 on its 48 + 38 found names.
    loose = {
        r.test: r
        for r in run_xweat(glove, [("en", "en")], word_sets={"en": english_sets}, min_coverage=0.75)
    }
    assert all(r.status == "ok" for r in loose.values()) and loose["T3"].weat.n_y == 38
    assert loose["T3"].weat.effect_size > 0.5


# ---- slow: GloVe English plus rotated copies as fake languages, aligned with Procrustes ----------
@pytest.fixture(scope="module")
def fake_multilingual(glove, english_sets):
    words, matrix = glove.words, glove.matrix
    spaces = {"en": glove}
    for seed, language in enumerate(("xx", "yy"), start=1):
        rotation = special_ortho_group.rvs(glove.dim, random_state=seed).astype(np.float32)
        vocabulary, rows = words, matrix @ rotation.T
        if language == "yy":
            # yy's vocabulary lacks 8 flower names: with GloVe's 2 missing, T1's X keeps 15/25 = 60
            # %.
            dropped = {w.lower() for w in english_sets["T1"]["X"].words[:8]}
            keep = [i for i, w in enumerate(words) if w not in dropped]
            vocabulary, rows = [words[i] for i in keep], rows[keep]
        spaces[language] = StaticVectors.from_arrays(vocabulary, rows, lowercase=True)
    # Dictionary: frequent words (ranks 100-5100) translate to themselves; it never mentions test
    # words.
    dictionary = [(w, w) for w in words[100:5100]]
    aligned = AlignedStaticSpaces.fit(spaces, {"xx": dictionary, "yy": dictionary}, pivot="en")
    word_sets = {
        language: {
            t: {r: WordSet(r, s.name, language, s.words) for r, s in english_sets[t].items()}
            for t in english_sets
        }
        for language in ("en", "xx", "yy")
    }
    return spaces, aligned, word_sets


@pytest.mark.slow
def test_cross_lingual_matrix_for_every_ordered_pair_with_the_coverage_rule(fake_multilingual):
    _, aligned, word_sets = fake_multilingual
    assert aligned.alignments["xx"].mean_cosine_after == pytest.approx(1.0, abs=1e-5)
    languages = ["en", "xx", "yy"]
    pairs = language_pairs(languages, cross_lingual=True)
    results = run_xweat(
        aligned, pairs, tests=["T1", "T2", "T6"], word_sets=word_sets, permutations=20_000
    )
    assert {(r.target_language, r.attribute_language) for r in results} == {
        (a, b) for a in languages for b in languages
    }
    assert len(results) == 27
    english = {
        r.test: r.weat.effect_size
        for r in results
        if r.target_language == r.attribute_language == "en"
    }

    t2 = cross_lingual_matrix(results, "T2")
    assert list(t2.index) == languages and list(t2.columns) == languages
    # Exact rotations are recovered: every pair reproduces the English effect size.
    np.testing.assert_allclose(t2.to_numpy(), english["T2"], atol=1e-4)

    t1 = cross_lingual_matrix(results, "T1")
    assert (
        t1.loc["yy"].isna().all()
    )  # flowers (targets) in yy keep 60 %: skipped for every attribute language
    assert (
        not t1.drop(index="yy").isna().any().any()
    )  # yy as attribute language keeps every attribute word
    np.testing.assert_allclose(t1.drop(index="yy").to_numpy(), english["T1"], atol=1e-4)
    skipped = next(
        r
        for r in results
        if r.test == "T1" and r.target_language == "yy" and r.attribute_language == "en"
    )
    assert "set X (flowers, yy) keeps 15 of 25 words (60%)" in skipped.skip_reason
    assert skipped.cross_lingual and "skipped" in skipped.summary()


@pytest.mark.slow
def test_without_alignment_cross_lingual_results_are_meaningless(fake_multilingual):
    spaces, _, word_sets = fake_multilingual
    identity = orthogonal_procrustes(np.eye(spaces["en"].dim), np.eye(spaces["en"].dim))
    unaligned = AlignedStaticSpaces(spaces, {"xx": identity, "yy": identity}, pivot="en")
    mono, cross = run_xweat(
        unaligned, [("en", "en"), ("en", "xx")], tests=["T2"], word_sets=word_sets
    )
    assert mono.weat.effect_size > 1.0
    assert abs(cross.weat.effect_size - mono.weat.effect_size) > 0.5


@pytest.mark.slow
def test_xweat_translations_make_alignment_dictionaries(source_dir):
    dictionaries = xweat_dictionaries(["en", "de", "ru"])
    assert set(dictionaries) == {"de", "ru"}
    assert ("piano", "Klavier") in dictionaries["de"]
    # Both gendered forms of a word are pairs of their own (educator: Erzieher / Erzieherin).
    assert {("educator", "Erzieher"), ("educator", "Erzieherin")} <= set(dictionaries["de"])
    assert all(english and form for english, form in dictionaries["ru"])
    assert len(dictionaries["de"]) > 250


def test_a_target_set_that_keeps_one_word_is_skipped_with_the_reason(tiny):
    """An effect size needs two words in each target set: a test whose X keeps one word is skipped,
    not d = +-2."""
    vectors, sets = tiny
    one_left = sets(missing=(4, 0, 0, 0))
    skipped = run_test(vectors, "T0", one_left, one_left, min_coverage=0.0)
    assert skipped.status == "skipped" and skipped.weat is None
    assert (
        "target set X keeps 1 word(s); an effect size needs at least two in each"
        in skipped.skip_reason
    )
