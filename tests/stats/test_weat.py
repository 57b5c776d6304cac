"""WEAT statistics against an independent brute-force implementation written here, plus the null and
bad input."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from eval_harness.errors import InputError
from eval_harness.stats.weat import permutation_test, similarity_matrix, weat, weat_from_roles


# ---- the independent reference: plain loops over words and itertools.combinations ----------------
def _cosine(u, v):
    return sum(p * q for p, q in zip(u, v, strict=True)) / math.sqrt(
        sum(p * p for p in u) * sum(q * q for q in v)
    )


def _brute_similarity(u, v, kind, pool=None, k=10):
    if kind == "cosine":
        return _cosine(u, v)
    if kind == "euclidean":
        unit_u, unit_v = u / np.linalg.norm(u), v / np.linalg.norm(v)
        return 1 / (1 + math.sqrt(sum((p - q) ** 2 for p, q in zip(unit_u, unit_v, strict=True))))

    # csls as in XWEAT: mean cosine to the k nearest other vectors of the pooled test vocabulary.
    def radius(w):
        others = sorted((_cosine(w, o) for o in pool if o is not w), reverse=True)
        return sum(others[:k]) / len(others[:k])

    return 2 * _cosine(u, v) - radius(u) - radius(v)


def _brute_weat(x, y, a, b, kind="cosine", ddof=0, alternative="greater"):
    # One list of row objects, so that csls can leave a vector itself out of its neighbourhood by
    # identity.
    pool = list(x) + list(y) + list(a) + list(b)
    n_words = len(x) + len(y)
    words, a, b = pool[:n_words], pool[n_words : n_words + len(a)], pool[n_words + len(a) :]

    def association(w):
        return sum(_brute_similarity(w, p, kind, pool) for p in a) / len(a) - sum(
            _brute_similarity(w, q, kind, pool) for q in b
        ) / len(b)

    s = [association(w) for w in words]
    n_x = len(x)

    def statistic(x_indices):
        return sum(s[i] for i in x_indices) - sum(s[i] for i in range(len(s)) if i not in x_indices)

    observed = statistic(tuple(range(n_x)))
    all_stats = [statistic(c) for c in itertools.combinations(range(len(s)), n_x)]
    if alternative == "greater":
        extreme = sum(t >= observed for t in all_stats)
    else:
        centre = (len(x) - len(y)) * sum(s) / len(s)
        extreme = sum(abs(t - centre) >= abs(observed - centre) for t in all_stats)
    mean_x, mean_y = sum(s[:n_x]) / n_x, sum(s[n_x:]) / len(y)
    mean_all = sum(s) / len(s)
    std = math.sqrt(sum((v - mean_all) ** 2 for v in s) / (len(s) - ddof))
    return observed, (mean_x - mean_y) / std, extreme / len(all_stats), len(all_stats)


def _random_sets(seed, sizes=(6, 6, 7, 5), dim=12, shift=0.0):
    """Random X, Y, A, B; ``shift`` moves X towards A's mean direction (a real association)."""
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(size=(n, dim)) for n in sizes)
    a_direction = np.ones(dim) / math.sqrt(dim)
    return x + shift * a_direction, y, a + 2 * a_direction, b


# ---- must show: identical statistic, effect size and exact p-value -------------------------------
@pytest.mark.parametrize("similarity", ["cosine", "euclidean", "csls"])
@pytest.mark.parametrize(
    ("sizes", "ddof", "alternative"),
    [
        ((6, 6, 7, 5), 0, "greater"),
        ((4, 7, 5, 5), 1, "greater"),
        ((5, 5, 4, 6), 0, "two-sided"),
        ((3, 8, 6, 6), 1, "two-sided"),
    ],
)
def test_matches_brute_force_exactly(similarity, sizes, ddof, alternative):
    x, y, a, b = _random_sets(seed=sum(sizes) + ddof, sizes=sizes, shift=0.7)
    statistic, effect, p_exact, n_partitions = _brute_weat(
        x, y, a, b, similarity, ddof, alternative
    )
    result = weat(x, y, a, b, similarity=similarity, ddof=ddof, alternative=alternative)
    assert result.p_value_method == "exact" and result.n_permutations == n_partitions
    assert result.statistic == pytest.approx(statistic, rel=1e-12, abs=1e-12)
    assert result.effect_size == pytest.approx(effect, rel=1e-12)
    assert result.p_value == p_exact  # the same count over the same partitions: identical
    assert result.mc_std_err is None
    assert (result.n_x, result.n_y, result.n_a, result.n_b) == sizes


def test_exact_p_value_can_be_small_and_is_never_zero():
    # Every X association above every Y association: only the observed partition reaches T_obs.
    assert permutation_test([0.3, 0.2, 0.25, 0.4], [-0.1, 0.0, 0.1]).p_value == 1 / math.comb(7, 4)
    x, y, a, b = _random_sets(seed=3, sizes=(7, 7, 8, 8), shift=6.0)
    result = weat(x, y, a, b)
    assert result.p_value < 0.01 and result.effect_size > 1.5
    assert (result.p_value * 3432) == pytest.approx(
        round(result.p_value * 3432)
    )  # a count over C(14, 7)


def test_ties_count_and_the_observed_partition_is_one_of_the_enumerated():
    # Integer associations: brute force in exact integer arithmetic; many partitions tie with the
    # observed one.
    s_x, s_y = [3, 1, 2, 2], [2, 1, 0, 2]
    observed = sum(s_x) - sum(s_y)
    pooled = s_x + s_y
    stats_all = [
        2 * sum(pooled[i] for i in c) - sum(pooled) for c in itertools.combinations(range(8), 4)
    ]
    expected = sum(t >= observed for t in stats_all) / len(stats_all)
    assert sum(t == observed for t in stats_all) > 1  # the test really has ties
    assert permutation_test(np.array(s_x) / 10, np.array(s_y) / 10).p_value == pytest.approx(
        expected, abs=0
    )
    # Identical associations everywhere: every partition ties, p = 1 (exact and Monte Carlo).
    assert permutation_test([0.1] * 5, [0.1] * 5).p_value == 1.0
    assert (
        permutation_test([0.1] * 5, [0.1] * 5, exact_limit=0, permutations=50, seed=0).p_value
        == 1.0
    )


# ---- must show: Monte-Carlo p within 4 Monte-Carlo standard errors of the exact one --------------
@pytest.mark.parametrize(
    ("sizes", "shift", "alternative", "seed"),
    [
        ((8, 8, 8, 8), 0.6, "greater", 1),
        ((8, 8, 8, 8), 0.0, "two-sided", 2),
        ((5, 10, 6, 7), 0.5, "greater", 3),
        ((6, 9, 7, 7), 0.4, "two-sided", 4),
    ],
)
def test_monte_carlo_p_is_within_four_standard_errors_of_exact(sizes, shift, alternative, seed):
    x, y, a, b = _random_sets(seed=seed, sizes=sizes, shift=shift)
    exact = weat(x, y, a, b, alternative=alternative)
    monte_carlo = weat(
        x, y, a, b, alternative=alternative, exact_limit=0, permutations=20_000, seed=seed
    )
    assert exact.p_value_method == "exact" and monte_carlo.p_value_method == "monte_carlo"
    assert monte_carlo.n_permutations == 20_000
    assert 0.001 < exact.p_value < 0.999  # a case where the Monte-Carlo error is not trivially zero
    assert abs(monte_carlo.p_value - exact.p_value) <= 4 * monte_carlo.mc_std_err
    assert monte_carlo.mc_std_err == pytest.approx(
        math.sqrt(monte_carlo.p_value * (1 - monte_carlo.p_value) / 20_000)
    )
    assert monte_carlo.statistic == exact.statistic and monte_carlo.effect_size == exact.effect_size


def test_monte_carlo_is_reproducible_from_the_seed_and_draws_fixed_size_subsets():
    x, y, a, b = _random_sets(seed=5, sizes=(13, 13, 10, 10), shift=0.2)
    first = weat(x, y, a, b, permutations=3_000, seed=11)
    assert first.p_value_method == "monte_carlo"  # C(26, 13) = 10,400,600 > 1e6
    assert weat(x, y, a, b, permutations=3_000, seed=11) == first
    assert (
        weat(x, y, a, b, permutations=3_000, seed=np.random.default_rng(11)).p_value
        == first.p_value
    )
    assert weat(x, y, a, b, permutations=3_000, seed=12).p_value != first.p_value
    # With all-equal associations except one large one, P(T_i >= T_obs) is the chance that the large
    # word lands in X_i: |X| / (|X| + |Y|) exactly. A sampler that drew subsets of the wrong size
    # would miss it.
    s_x, s_y = np.zeros(3), np.r_[1.0, np.zeros(8)]
    result = permutation_test(s_y, s_x, exact_limit=0, permutations=200_000, seed=0)
    assert abs(result.p_value - 9 / 12) < 4 * result.mc_std_err


# ---- similarities against their definitions ------------------------------------------------------
@pytest.mark.parametrize("similarity", ["cosine", "euclidean", "csls"])
def test_similarity_matrix_matches_the_definitions(similarity):
    rng = np.random.default_rng(7)
    left, right = rng.normal(size=(9, 5)), rng.normal(size=(8, 5))  # pool of 17 > k + 1
    pool = list(left) + list(right)
    left, right = pool[: len(left)], pool[len(left) :]
    expected = [[_brute_similarity(u, v, similarity, pool) for v in right] for u in left]
    np.testing.assert_allclose(
        similarity_matrix(left, right, similarity), expected, rtol=1e-12, atol=1e-12
    )


def test_csls_uses_all_other_vectors_when_the_pool_is_smaller_than_k():
    rng = np.random.default_rng(8)
    left, right = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    pool = list(left) + list(right)  # 5 vectors: each has only 4 others
    expected = [[_brute_similarity(u, v, "csls", pool, k=4) for v in pool[3:]] for u in pool[:3]]
    np.testing.assert_allclose(
        similarity_matrix(left, right, "csls", csls_k=10), expected, rtol=1e-12
    )


def test_csls_is_an_affine_map_of_cosine_in_weat():
    x, y, a, b = _random_sets(seed=9, sizes=(7, 7, 6, 9), shift=0.5)
    cosine, csls = weat(x, y, a, b), weat(x, y, a, b, similarity="csls")
    assert csls.effect_size == pytest.approx(cosine.effect_size, rel=1e-10)
    assert csls.p_value == cosine.p_value
    assert csls.statistic == pytest.approx(2 * cosine.statistic, rel=1e-10)


# ---- must show: under the null, Monte-Carlo p-values are uniform ---------------------------------
def _null_and_biased_p_values(shift, n_seeds=300):
    p_values = []
    for seed in range(n_seeds):
        x, y, a, b = _random_sets(seed=1000 + seed, sizes=(10, 10, 10, 10), dim=16, shift=shift)
        result = weat(x, y, a, b, exact_limit=0, permutations=2_000, seed=seed)
        p_values.append(result.p_value)
    return np.array(p_values)


def test_null_monte_carlo_p_values_are_uniform():
    null = _null_and_biased_p_values(shift=0.0)
    assert stats.kstest(null, "uniform").pvalue > 0.01
    # The KS check has power here: a modest real association makes the p-values pile up near 0.
    biased = _null_and_biased_p_values(shift=0.8, n_seeds=100)
    assert stats.kstest(biased, "uniform").pvalue < 0.01


# ---- result object -------------------------------------------------------------------------------
def test_result_to_dict_and_summary():
    x, y, a, b = _random_sets(seed=10)
    result = weat(x, y, a, b)
    record = result.to_dict()
    assert set(record) >= {
        "statistic",
        "effect_size",
        "p_value",
        "p_value_method",
        "n_permutations",
        "mc_std_err",
        "n_x",
        "n_y",
        "n_a",
        "n_b",
        "similarity",
        "ddof",
        "alternative",
    }
    assert all(isinstance(v, float | int | str | type(None)) for v in record.values())
    text = result.summary()
    assert "exact" in text and f"{result.effect_size:.3f}" in text
    with pytest.raises(AttributeError):
        result.p_value = 0.0


def test_weat_from_roles_groups_rows_by_role():
    x, y, a, b = _random_sets(seed=12)
    rows = [*x, *a, *y, *b]
    roles = ["X"] * len(x) + ["A"] * len(a) + ["Y"] * len(y) + ["B"] * len(b)
    order = np.random.default_rng(0).permutation(len(rows))  # row order must not matter
    shuffled = weat_from_roles([rows[i].tolist() for i in order], [roles[i] for i in order])
    assert shuffled.to_dict() == pytest.approx(weat(x, y, a, b).to_dict())


# ---- must show: bad input gets a clear error -----------------------------------------------------
def test_bad_input_raises_input_error():
    x, y, a, b = _random_sets(seed=13)
    with pytest.raises(InputError, match="same dimension"):
        weat(x, y, a[:, :-1], b)
    with pytest.raises(InputError, match="one common length"):
        weat_from_roles([[1.0, 2.0], [1.0], [0.0, 1.0], [1.0, 1.0]], ["X", "Y", "A", "B"])
    with pytest.raises(InputError, match=r"unknown role\(s\) \['C'\]"):
        weat_from_roles([[1.0, 2.0]] * 5, ["X", "Y", "A", "B", "C"])
    with pytest.raises(InputError, match="set Y is empty"):
        weat(x, y[:0], a, b)
    with pytest.raises(InputError, match="set B is empty"):
        weat_from_roles([[1.0, 2.0], [0.0, 1.0], [1.0, 1.0]], ["X", "Y", "A"])
    nan_a = a.copy()
    nan_a[2, 3] = np.nan
    with pytest.raises(InputError, match=r"set A: row\(s\) \[2\] contain NaN"):
        weat(x, y, nan_a, b)
    for bad in (0, -3, 2.5, True, "100"):
        with pytest.raises(InputError, match="permutations must be"):
            weat(x, y, a, b, permutations=bad)
    with pytest.raises(InputError, match="similarity"):
        weat(x, y, a, b, similarity="dot")
    with pytest.raises(InputError, match="alternative"):
        weat(x, y, a, b, alternative="less")
    with pytest.raises(InputError, match="ddof"):
        weat(x, y, a, b, ddof=2)
    with pytest.raises(InputError, match="exact_limit"):
        weat(x, y, a, b, exact_limit=-1)
    zero_x = x.copy()
    zero_x[0] = 0
    with pytest.raises(InputError, match="all zeros"):
        weat(zero_x, y, a, b)
    with pytest.raises(InputError, match="standard deviation 0"):
        weat(np.ones((3, 4)), np.ones((3, 4)), a[:, :4], b[:, :4])
    with pytest.raises(InputError, match="one role per row"):
        weat_from_roles([[1.0, 2.0]] * 4, ["X", "Y", "A"])


def test_permutations_given_as_an_integral_float_are_accepted():
    x, y, a, b = _random_sets(seed=14)
    assert weat(x, y, a, b, permutations=1e3, exact_limit=0, seed=0).n_permutations == 1000
