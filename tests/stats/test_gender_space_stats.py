"""eval_harness.stats.gender_space against independent computations and planted structure."""

import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.decomposition import PCA

from eval_harness.errors import InputError
from eval_harness.stats.gender_space import (
    clustering_accuracy,
    direct_bias,
    gender_projection,
    gender_subspace,
    knn_profession_bias,
    most_biased,
    random_pair_indices,
    svm_classification_accuracy,
    unit_rows,
)

DIM = 50


def _unit(v):
    return v / np.linalg.norm(v)


def _planted_space(rng, n_per_gender, strength, dim=DIM):
    """Random unit-ish word vectors; male words carry +strength*g, female words -strength*g."""
    g = _unit(rng.standard_normal(dim))
    base = rng.standard_normal((2 * n_per_gender, dim)) / math.sqrt(dim)
    is_male = np.arange(2 * n_per_gender) < n_per_gender
    vectors = base + np.where(is_male, strength, -strength)[:, None] * g
    return vectors, is_male, g


def _planted_pairs(rng, n_pairs, g, noise=0.15, dim=DIM):
    """Definitional pairs: a shared random meaning, +-g for the male/female word, plus noise."""
    meaning = rng.standard_normal((n_pairs, dim)) / math.sqrt(dim)
    male = meaning + 0.5 * g + noise * rng.standard_normal((n_pairs, dim)) / math.sqrt(dim)
    female = meaning - 0.5 * g + noise * rng.standard_normal((n_pairs, dim)) / math.sqrt(dim)
    return male, female


# ---------------------------------------------------------------------------- gender subspace


def test_subspace_matches_bolukbasi_pca_of_pair_centred_vectors():
    """Independent: sklearn PCA over {a - mu, b - mu} (Bolukbasi et al.'s construction)."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((12, 20))
    b = rng.standard_normal((12, 20))
    result = gender_subspace(a, b, n_components=8)

    a_unit = a / np.linalg.norm(a, axis=1, keepdims=True)
    b_unit = b / np.linalg.norm(b, axis=1, keepdims=True)
    centre = (a_unit + b_unit) / 2
    stacked = np.vstack([a_unit - centre, b_unit - centre])
    pca = PCA(n_components=stacked.shape[1]).fit(stacked)
    np.testing.assert_allclose(
        result.explained_variance_ratio, pca.explained_variance_ratio_[:8], atol=1e-10
    )
    assert abs(result.direction @ pca.components_[0]) == pytest.approx(1.0, abs=1e-10)
    # signed toward `first`: the mean difference projects positively
    assert ((a_unit - b_unit) @ result.direction).mean() > 0
    assert result.n_differences == 12


def test_more_components_than_the_pairs_have_is_an_error_not_silently_fewer():
    """Guards: n_components=100 silently reported 5. n pair differences in d dimensions span at most
    min(n, d)
    components (numpy's rank of the stacked differences, computed here): more is an error naming
    both; unset is "up to 10, as many as there are"."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((5, 20)), rng.standard_normal((5, 20))
    assert np.linalg.matrix_rank(a - b) == 5
    with pytest.raises(
        InputError, match="n_components=100 is more than the 5 principal components that 5 pair"
    ):
        gender_subspace(a, b, n_components=100)
    assert len(gender_subspace(a, b, n_components=5).explained_variance_ratio) == 5
    assert len(gender_subspace(a, b).explained_variance_ratio) == 5  # unset: as many as there are
    many = rng.standard_normal((30, 20)), rng.standard_normal((30, 20))
    assert len(gender_subspace(*many).explained_variance_ratio) == 10  # unset: up to 10
    for bad in (0, True, 2.5):
        with pytest.raises(InputError, match="n_components must be a whole number >= 1"):
            gender_subspace(a, b, n_components=bad)


def test_planted_direction_recovered_and_beats_random_pairs():
    rng = np.random.default_rng(2)
    _, _, g = _planted_space(rng, 5, 0.0)
    male, female = _planted_pairs(rng, 10, g)
    pool = rng.standard_normal((400, DIM))
    draws = [random_pair_indices(len(pool), 10, seed=rng) for _ in range(20)]
    result = gender_subspace(
        male,
        female,
        baseline_first=np.stack([pool[d[:, 0]] for d in draws]),
        baseline_second=np.stack([pool[d[:, 1]] for d in draws]),
    )
    assert result.direction @ g > 0.99  # recovered, and pointing toward the male words
    assert result.first_component_ratio > 0.8
    assert result.baseline_first_component_ratio < 0.35
    assert result.n_baseline_draws == 20
    assert np.all(np.diff(result.explained_variance_ratio) <= 1e-12)
    assert result.explained_variance_ratio.sum() <= 1 + 1e-12
    json.dumps(result.to_dict())
    assert "random-pair baseline (20 draws)" in result.summary()


def test_random_pair_indices_are_distinct_words():
    pairs = random_pair_indices(30, 15, seed=0)
    assert pairs.shape == (15, 2) and len(np.unique(pairs)) == 30
    with pytest.raises(InputError, match="cannot draw 16 random pairs"):
        random_pair_indices(30, 16)


def test_subspace_bad_input():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 5, 4))
    with pytest.raises(InputError, match="same shape"):
        gender_subspace(a, b[:4])
    with pytest.raises(InputError, match="at least 2 pair differences"):
        gender_subspace(a[:1], b[:1])
    with pytest.raises(InputError, match="zero vector"):
        gender_subspace(np.vstack([a[:4], np.zeros(4)]), b)
    with pytest.raises(InputError, match="NaN"):
        gender_subspace(np.vstack([a[:4], [np.nan] * 4]), b)
    with pytest.raises(InputError, match="both baseline"):
        gender_subspace(a, b, baseline_first=a)


# ---------------------------------------------------------------------------- direct bias


def test_direct_bias_brute_force_with_contexts():
    rng = np.random.default_rng(4)
    vectors = rng.standard_normal((9, 6))
    g = rng.standard_normal(6)
    words = np.array(["a", "a", "b", "c", "c", "c", "d", "e", "e"])
    for c in (1.0, 0.5, 3.0):
        expected_terms = {}
        for word, v in zip(words, vectors, strict=True):
            cosine = float(v @ g) / (math.sqrt(float(v @ v)) * math.sqrt(float(g @ g)))
            expected_terms.setdefault(word, []).append(abs(cosine) ** c)
        expected = sum(sum(t) / len(t) for t in expected_terms.values()) / len(expected_terms)
        result = direct_bias(vectors, g, c=c, word_index=words)
        assert result.value == pytest.approx(expected, rel=1e-12)
        assert (result.n_words, result.n_vectors) == (5, 9)
    plain = direct_bias(vectors, g)
    assert plain.n_words == 9 and 0 <= plain.value <= 1
    with pytest.raises(InputError, match="c must be positive"):
        direct_bias(vectors, g, c=0)
    with pytest.raises(InputError, match="dimension"):
        direct_bias(vectors, g[:5])


def test_direct_bias_planted_extremes():
    rng = np.random.default_rng(5)
    g = _unit(rng.standard_normal(DIM))
    assert direct_bias(np.vstack([g, -2 * g]), g).value == pytest.approx(1.0)
    orthogonal = rng.standard_normal((20, DIM))
    orthogonal -= np.outer(orthogonal @ g, g)
    assert direct_bias(orthogonal, g).value == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------------------- biased words


def test_projection_and_most_biased_against_direct_computation():
    rng = np.random.default_rng(6)
    vectors = rng.standard_normal((40, 8))
    he, she = rng.standard_normal((2, 8))
    bias = gender_projection(vectors, he, she)
    axis = he / np.linalg.norm(he) - she / np.linalg.norm(she)
    for v, value in zip(vectors, bias, strict=True):
        assert value == pytest.approx(float(v @ axis) / (np.linalg.norm(v) * np.linalg.norm(axis)))
    male, female = most_biased(bias, 5)
    assert list(male) == sorted(range(40), key=lambda i: -bias[i])[:5]
    assert list(female) == sorted(range(40), key=lambda i: bias[i])[:5]
    with pytest.raises(InputError, match=r"only \d+ male- and \d+ female-biased"):
        most_biased(bias, 40)


# ---------------------------------------------------------------------- clustering / classification


def test_planted_clustering_recovered_and_noise_is_near_chance():
    rng = np.random.default_rng(7)
    vectors, is_male, _ = _planted_space(rng, 100, 0.8)
    result = clustering_accuracy(vectors, is_male, n_runs=3)
    assert result.values.tolist() == [1.0, 1.0, 1.0]
    # the better of the two matchings: flipped labels score the same
    assert clustering_accuracy(vectors, ~is_male).mean == 1.0
    noise = clustering_accuracy(rng.standard_normal((200, DIM)), is_male)
    assert 0.5 <= noise.mean < 0.65
    draws = np.stack([_planted_space(np.random.default_rng(s), 100, 0.8)[0] for s in range(3)])
    assert clustering_accuracy(draws, is_male).values.shape == (3,)
    assert result.to_dict()["n_male"] == 100
    with pytest.raises(InputError, match="n_runs=2 but 3 context draws"):
        clustering_accuracy(draws, is_male, n_runs=2)
    with pytest.raises(InputError, match="rows per draw"):
        clustering_accuracy(vectors[:-1], is_male)


def test_planted_classification_and_noise():
    rng = np.random.default_rng(8)
    vectors, is_male, _ = _planted_space(rng, 150, 0.4)
    result = svm_classification_accuracy(vectors, is_male, n_train=100, n_runs=4)
    assert result.min > 0.95 and len(result.values) == 4
    assert result.n_words == 200 and result.n_male + result.n_female == 200
    noise = svm_classification_accuracy(
        rng.standard_normal((300, DIM)), is_male, n_train=100, n_runs=4
    )
    assert 0.35 < noise.mean < 0.65
    with pytest.raises(InputError, match="n_train=299"):
        svm_classification_accuracy(vectors, is_male, n_train=299)
    with pytest.raises(InputError, match="need at least 2 of each"):
        svm_classification_accuracy(vectors, np.arange(300) == 0, n_train=10)


# ---------------------------------------------------------------------------- kNN


def test_knn_matches_brute_force_neighbours_and_pearson():
    rng = np.random.default_rng(9)
    candidates = rng.standard_normal((60, 10))
    is_male = rng.random(60) < 0.5
    professions = rng.standard_normal((8, 10))
    professions[0] = (
        candidates[3] * 2.0
    )  # profession 0 is candidate 3: excluded from its own neighbours
    bias = rng.standard_normal(8)
    exclude = np.full(8, -1)
    exclude[0] = 3
    result = knn_profession_bias(professions, candidates, is_male, bias, k=7, exclude=exclude)

    shares = []
    for i, p in enumerate(professions):
        similarity = [
            (float(p @ c) / (np.linalg.norm(p) * np.linalg.norm(c)), j)
            for j, c in enumerate(candidates)
            if j != exclude[i]
        ]
        top = [j for _, j in sorted(similarity, reverse=True)[:7]]
        shares.append(sum(is_male[j] for j in top) / 7)
    np.testing.assert_allclose(result.male_share, shares)
    n = len(bias)
    r = np.corrcoef(shares, bias)[0, 1]
    t = r * math.sqrt((n - 2) / (1 - r**2))
    assert result.correlations[0] == pytest.approx(r, rel=1e-10)
    assert result.p_values[0] == pytest.approx(2 * scipy_stats.t.sf(abs(t), n - 2), rel=1e-8)


def test_knn_planted_bias_correlates():
    rng = np.random.default_rng(10)
    candidates, is_male, g = _planted_space(rng, 200, 0.5)
    bias = np.linspace(-1, 1, 30)
    professions = rng.standard_normal((30, DIM)) / math.sqrt(DIM) + 0.5 * bias[:, None] * g
    draws = np.stack(
        [professions + 0.05 * rng.standard_normal(professions.shape) for _ in range(3)]
    )
    result = knn_profession_bias(draws, candidates, is_male, bias, k=20)
    assert len(result.correlations) == 3
    assert result.min > 0.7 and result.max_p_value < 1e-4
    json.dumps(result.to_dict())
    assert "largest p" in result.summary()


def test_knn_bad_input():
    rng = np.random.default_rng(11)
    candidates = rng.standard_normal((10, 4))
    is_male = np.arange(10) < 5
    professions = rng.standard_normal((5, 4))
    bias = rng.standard_normal(5)
    with pytest.raises(InputError, match=r"k=11 nearest neighbours .* only 10 word"):
        knn_profession_bias(professions, candidates, is_male, bias, k=11)
    with pytest.raises(InputError, match=r"only 9 word"):
        knn_profession_bias(
            professions, candidates, is_male, bias, k=10, exclude=[0, -1, -1, -1, -1]
        )
    with pytest.raises(InputError, match="same male-neighbour share"):
        knn_profession_bias(professions, candidates, is_male, bias, k=10)
    with pytest.raises(InputError, match="at least 3 professions"):
        knn_profession_bias(professions[:2], candidates, is_male, bias[:2], k=3)
    with pytest.raises(
        InputError, match="profession_vectors has 2 draws but the other input has 3"
    ):
        knn_profession_bias(
            np.stack([professions] * 2), np.stack([candidates] * 3), is_male, bias, k=3
        )


def test_unit_rows_rejects_zero_vectors():
    with pytest.raises(InputError, match="1 zero vector"):
        unit_rows(np.array([[1.0, 0.0], [0.0, 0.0]]))
    np.testing.assert_allclose(np.linalg.norm(unit_rows(np.array([[3.0, 4.0]])), axis=1), [1.0])


def test_knn_refuses_a_similarity_matrix_too_large_to_allocate():
    """20,000 professions by 20,000 candidates is 4e8 float64 entries (3 GiB): refused before the
    product."""
    n = 20_000
    is_male = np.arange(n) % 2 == 0
    bias = np.linspace(-1.0, 1.0, n)
    vectors = np.ones((n, 2)) + np.arange(n)[:, None] * [0.0, 1e-3]
    with pytest.raises(
        InputError, match=r"profession-by-candidate similarity matrix would be 20,000 x 20,000"
    ):
        knn_profession_bias(vectors, vectors, is_male, bias, k=5)
