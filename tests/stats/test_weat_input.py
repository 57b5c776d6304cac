"""WEAT input errors name the caller's row, role and word; seeds are checked; any vector scale gives
the same test."""

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats.weat import weat, weat_from_roles


def _sets(seed=0, sizes=(5, 6, 4, 4), dim=8):
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(size=(n, dim)) for n in sizes)
    return x + 0.7 * a.mean(axis=0), y, a, b


def test_a_zero_vector_in_weat_names_its_set_row_and_word():
    x, y, a, b = _sets()
    b[1] = 0.0
    with pytest.raises(
        InputError, match=r"set B: row\(s\) \[1\] \('ugly'\) are all zeros"
    ) as caught:
        weat(x, y, a, b, words={"B": ["bad", "ugly", "evil", "awful"]})
    assert "right" not in str(caught.value)  # not the stacked A u B matrix of the implementation
    with pytest.raises(InputError, match=r"set B: row\(s\) \[1\] are all zeros"):
        weat(x, y, a, b)


def test_a_zero_vector_in_row_input_names_the_callers_row_role_and_word():
    x, y, a, b = _sets()
    rows = [
        *a,
        *x,
        *b,
        *y,
    ]  # roles interleaved: the caller's row numbers differ from positions within a set
    roles = ["A"] * 4 + ["X"] * 5 + ["B"] * 4 + ["Y"] * 6
    words = [f"w{i}" for i in range(len(rows))]
    rows[10] = np.zeros(8)  # the second B word
    with pytest.raises(
        InputError, match=r"embeddings row\(s\) 10 \(role B, word 'w10'\) are all zeros"
    ):
        weat_from_roles([row.tolist() for row in rows], roles, words=words)
    with pytest.raises(InputError, match=r"embeddings row\(s\) 10 \(role B\) are all zeros"):
        weat_from_roles([row.tolist() for row in rows], roles)
    rows[10] = np.full(8, np.inf)
    with pytest.raises(
        InputError, match=r"embeddings row\(s\) 10 \(role B, word 'w10'\) contain NaN or inf"
    ):
        weat_from_roles([row.tolist() for row in rows], roles, words=words)


def test_a_ragged_row_is_named_with_its_role():
    x, y, a, b = _sets()
    rows = [row.tolist() for row in (*x, *y, *a, *b)]
    rows[7] = rows[7][:5]
    roles = ["X"] * 5 + ["Y"] * 6 + ["A"] * 4 + ["B"] * 4
    with pytest.raises(
        InputError, match=r"row 7 \(role Y\) has 5 values where the other rows have 8"
    ):
        weat_from_roles(rows, roles)
    with pytest.raises(InputError, match="one role per row|one word per row"):
        weat_from_roles(rows, roles, words=["w"] * 3)


@pytest.mark.parametrize("seed", ["abc", -1, 1.5, True, [1, "a"]])
def test_a_bad_seed_is_an_input_error_whether_or_not_it_is_used(seed):
    x, y, a, b = _sets()
    for exact_limit in (0, 10**6):  # Monte Carlo draws with it; the exact test does not
        with pytest.raises(InputError, match="seed must be a non-negative integer"):
            weat(x, y, a, b, seed=seed, exact_limit=exact_limit, permutations=100)


def test_numpy_seeds_are_accepted():
    x, y, a, b = _sets()
    draws = {"exact_limit": 0, "permutations": 500}
    by_int = weat(x, y, a, b, seed=np.int64(3), **draws)
    assert by_int.p_value == weat(x, y, a, b, seed=3, **draws).p_value
    assert by_int.p_value == weat(x, y, a, b, seed=np.random.SeedSequence(3), **draws).p_value


@pytest.mark.parametrize("scale", [1e-200, 1e200, 1e-300, 1e300])
@pytest.mark.parametrize("exact", [True, False])
def test_weat_is_scale_free_from_1e_minus_300_to_1e300(scale, exact):
    x, y, a, b = _sets(seed=4)
    options = {"seed": 5, "permutations": 2000, "exact_limit": 10**6 if exact else 0}
    for similarity in ("cosine", "euclidean", "csls"):
        plain = weat(x, y, a, b, similarity=similarity, **options)
        scaled = weat(*(s * scale for s in (x, y, a, b)), similarity=similarity, **options)
        assert scaled.effect_size == pytest.approx(plain.effect_size, rel=1e-9)
        assert scaled.statistic == pytest.approx(plain.statistic, rel=1e-9)
        assert scaled.p_value == plain.p_value


def test_each_row_may_have_its_own_scale():
    x, y, a, b = _sets(seed=6)
    rng = np.random.default_rng(0)
    scaled = [s * 10.0 ** rng.uniform(-280, 280, size=(len(s), 1)) for s in (x, y, a, b)]
    plain, rescaled = (
        weat(x, y, a, b, n_bootstrap=50, seed=1),
        weat(*scaled, n_bootstrap=50, seed=1),
    )
    assert rescaled.effect_size == pytest.approx(plain.effect_size, rel=1e-9)
    assert rescaled.p_value == plain.p_value
    np.testing.assert_allclose(rescaled.bootstrap.replicates, plain.bootstrap.replicates, rtol=1e-9)


@pytest.mark.parametrize(
    "sizes", [(1, 1, 4, 4), (1, 5, 4, 4), (5, 1, 4, 4)], ids=["one-each", "X-one", "Y-one"]
)
def test_an_effect_size_needs_two_words_in_each_target_set(sizes):
    """Guards: WEAT with one word per set returned d = -2.0, p = 1.0. With one word in each target
    set the pooled standard deviation (ddof 0) of the two associations s_x, s_y is |s_x - s_y| / 2,
    so d = +-2 whatever the vectors (checked here by hand); a set of one word is now an error naming
    the sizes."""
    x, y, a, b = _sets(sizes=sizes)
    if sizes[:2] == (1, 1):
        cosines = lambda word, rows: (  # noqa: E731
            rows @ word / (np.linalg.norm(rows, axis=1) * np.linalg.norm(word))
        )
        s = np.array([cosines(word, a).mean() - cosines(word, b).mean() for word in (x[0], y[0])])
        assert abs((s[0] - s[1]) / np.std(s)) == pytest.approx(
            2.0
        )  # what main returned: no information
    n_x, n_y = sizes[:2]
    with pytest.raises(
        InputError, match=f"at least two words in each target set; X has {n_x}, Y has {n_y}"
    ):
        weat(x, y, a, b, permutations=100)
    rows, roles = [*x, *y, *a, *b], ["X"] * n_x + ["Y"] * n_y + ["A"] * 4 + ["B"] * 4
    with pytest.raises(InputError, match="at least two words in each target set"):
        weat_from_roles([row.tolist() for row in rows], roles, permutations=100)


def test_two_words_in_each_target_set_is_enough():
    x, y, a, b = _sets(sizes=(2, 2, 4, 4))
    assert np.isfinite(weat(x, y, a, b, permutations=100).effect_size)
