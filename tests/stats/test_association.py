"""RND, MAC, ECT, RIPA and RNSB: examples worked by hand, planted biases, and clear errors."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from eval_harness.errors import InputError
from eval_harness.stats.association import (
    embedding_coherence,
    kl_from_uniform,
    mean_average_cosine,
    relational_inner_product,
    relative_negative_sentiment,
    relative_norm_distance,
)
from eval_harness.suites.xweat.measures import association_from_roles

SQRT2 = math.sqrt(2)

# ----------------------------------------------------------------------------------- worked by hand


def test_rnd_by_hand_without_normalising():
    # mean X = (1, 1), mean Y = (-1, 0).
    # a1 = (1, 1): |a1 - (1,1)| = 0, |a1 - (-1,0)| = sqrt(4 + 1)  -> -sqrt(5)
    # a2 = (-1, 1): |a2 - (1,1)| = 2, |a2 - (-1,0)| = 1           -> +1
    result = relative_norm_distance(
        [[2, 0], [0, 2]], [[-3, 0], [1, 0]], [[1, 1], [-1, 1]], normalize=False
    )
    assert result.per_word == pytest.approx((-math.sqrt(5), 1.0))
    assert result.value == pytest.approx(1 - math.sqrt(5))
    assert result.mean == pytest.approx((1 - math.sqrt(5)) / 2)


def test_rnd_by_hand_with_unit_vectors():
    # Normalised: X = {(1,0), (0,1)} -> mean (1/2, 1/2); Y = {(-1,0), (1,0)} -> mean (0, 0).
    # a1 = (1,1)/sqrt2: |a1 - (1/2,1/2)| = sqrt2 (1/sqrt2 - 1/2) = 1 - 1/sqrt2; |a1| = 1
    # a2 = (-1,1)/sqrt2: |a2 - (1/2,1/2)|^2 = (1/sqrt2 + 1/2)^2 + (1/sqrt2 - 1/2)^2 = 3/2; |a2| = 1
    result = relative_norm_distance([[2, 0], [0, 2]], [[-3, 0], [1, 0]], [[1, 1], [-1, 1]])
    assert result.value == pytest.approx((1 - 1 / SQRT2 - 1) + (math.sqrt(1.5) - 1))


def test_mac_by_hand():
    # t1 = (1,0): A1 = {(1,0), (1,1)} distances 0, 1 - 1/sqrt2 -> mean (1 - 1/sqrt2)/2; A2 =
    # {(0,1)}: 1
    # t2 = (0,1): A1 distances 1, 1 - 1/sqrt2 -> mean (2 - 1/sqrt2)/2; A2: 0
    # MAC = [(1 - 1/sqrt2)/2 + 1 + (2 - 1/sqrt2)/2 + 0] / 4 = (5 - sqrt2) / 8
    result = mean_average_cosine([[[1, 0]], [[0, 1]]], [[[1, 0], [1, 1]], [[0, 1]]])
    assert result.value == pytest.approx((5 - SQRT2) / 8)
    assert result.by_target_set == pytest.approx(
        ((1 - 1 / SQRT2) / 2 / 2 + 0.5, ((2 - 1 / SQRT2) / 2) / 2)
    )
    assert result.by_attribute_set == pytest.approx(((3 - SQRT2) / 4, 0.5))


def test_ect_by_hand():
    # mean X along 0 deg, mean Y along 45 deg; attributes at 0, 20, 80, 110 deg.
    # cos to X: cos 0, cos 20, cos 80, cos 110 -> ranks 4, 3, 2, 1
    # cos to Y: cos 45, cos 25, cos 35, cos 65  -> ranks 2, 4, 3, 1
    # rank differences 2, -1, -1, 0: rho = 1 - 6 * 6 / (4 * (16 - 1)) = 0.4
    angles = np.deg2rad([0, 20, 80, 110])
    result = embedding_coherence(
        [[1, 0], [3, 0]], [[1, 1]], np.column_stack([np.cos(angles), np.sin(angles)])
    )
    assert result.value == pytest.approx(0.4)
    assert result.similarities_y == pytest.approx(np.cos(np.deg2rad([45, 25, 35, 65])))


def test_ripa_by_hand():
    # One pair: b = ((3,1) - (1,1)) / 2 = (1, 0); scores are the first coordinates.
    one = relational_inner_product([[3, 1]], [[1, 1]], [[2, 5], [-1, 3]])
    assert one.scores == pytest.approx((2.0, -1.0)) and one.value == pytest.approx(0.5)
    # Two pairs with differences (3,1), (1,3): D^T D = [[10, 6], [6, 10]], top eigenvector
    # (1,1)/sqrt2 (eigenvalue 16 of 16 + 4), so w = (2,5) scores 7/sqrt2 and 80% of the pairs'
    # variance lies along b.
    pca = relational_inner_product([[3, 1], [1, 3]], [[0, 0], [0, 0]], [[2, 5]])
    assert pca.value == pytest.approx(7 / SQRT2) and pca.explained_variance == pytest.approx(
        16 / 20
    )
    # WEFE's mean over pairs: ((2,5).(3,1) + (2,5).(1,3)) / sqrt10 / 2 = (11 + 17) / (2 sqrt10).
    pair_mean = relational_inner_product(
        [[3, 1], [1, 3]], [[0, 0], [0, 0]], [[2, 5]], relation="pair_mean"
    )
    assert pair_mean.value == pytest.approx(28 / (2 * math.sqrt(10)))


def test_ripa_orients_the_relation_towards_x():
    flipped = relational_inner_product([[1, 1]], [[3, 1]], [[2, 5]])
    assert flipped.value == pytest.approx(-2.0)


def test_kl_from_uniform_by_hand():
    # (0.3, 0.6) -> (1/3, 2/3): 1/3 ln(2/3) + 2/3 ln(4/3)
    assert kl_from_uniform([0.3, 0.6]) == pytest.approx(
        math.log(2 / 3) / 3 + 2 * math.log(4 / 3) / 3
    )
    # (0.2, 0.4, 0.6) -> (1/6, 2/6, 3/6): 1/6 ln(1/2) + 1/3 ln(1) + 1/2 ln(3/2)
    assert kl_from_uniform([0.2, 0.4, 0.6]) == pytest.approx(math.log(0.5) / 6 + math.log(1.5) / 2)
    assert kl_from_uniform([0.5, 0.5]) == 0.0
    assert kl_from_uniform([1.0, 0.0]) == pytest.approx(math.log(2))  # the maximum, ln k


def test_rnsb_equals_an_independent_logistic_fit_and_the_kl_by_hand():
    rng = np.random.default_rng(3)
    positive, negative = rng.normal(size=(6, 3)) + 0.5, rng.normal(size=(7, 3)) - 0.5
    groups = [rng.normal(size=(3, 3)), rng.normal(size=(4, 3)) - 0.3]
    C = 0.7
    result = relative_negative_sentiment(groups, positive, negative, train_fraction=1.0, C=C)

    # Independent fit: minimise scikit-learn's objective 1/2 |w|^2 + C sum log(1 + exp(-t (w.v +
    # c))), t = +-1.
    vectors = np.vstack([positive, negative])
    signs = np.r_[-np.ones(6), np.ones(7)]  # negative class = +1

    def objective(theta):
        margins = signs * (vectors @ theta[:3] + theta[3])
        return 0.5 * theta[:3] @ theta[:3] + C * np.logaddexp(0, -margins).sum()

    theta = minimize(objective, np.zeros(4), method="BFGS", options={"gtol": 1e-10}).x
    p_negative = [1 / (1 + np.exp(-(g @ theta[:3] + theta[3]))) for g in groups]
    means = np.array([p.mean() for p in p_negative])
    share = means / means.sum()
    expected = share[0] * math.log(2 * share[0]) + share[1] * math.log(2 * share[1])
    assert result.value == pytest.approx(expected, rel=1e-5)
    assert result.mean_negative_probability == pytest.approx(tuple(means), rel=1e-5)
    assert result.negative_share == pytest.approx(tuple(share), rel=1e-5)
    assert result.n_seeds == 1 and result.std == 0 and result.holdout_accuracy is None

    words = relative_negative_sentiment(
        groups, positive, negative, unit="word", train_fraction=1.0, C=C
    )
    all_p = np.concatenate(p_negative)
    word_share = all_p / all_p.sum()
    assert words.value == pytest.approx(
        float(np.sum(word_share * np.log(len(all_p) * word_share))), rel=1e-5
    )


# ----------------------------------------------------------------------------------- planted biases


def _direction(rng, dim):
    vector = rng.normal(size=dim)
    return vector / np.linalg.norm(vector)


def test_rnd_planted_and_null():
    rng = np.random.default_rng(0)
    dim, e = 50, _direction(rng, 50)
    x, y, attributes = (rng.normal(size=(n, dim)) for n in (30, 30, 200))
    null = relative_norm_distance(x, y, attributes)
    planted = relative_norm_distance(x + 3 * e, y, attributes + 3 * e)
    assert abs(null.mean) < 0.02
    assert planted.mean < -0.05  # the attributes moved to X's side: nearer X's centroid
    assert relative_norm_distance(y, x + 3 * e, attributes + 3 * e).mean == pytest.approx(
        -planted.mean
    )


def test_mac_planted_and_null():
    rng = np.random.default_rng(1)
    dim, e = 300, _direction(rng, 300)
    targets = [rng.normal(size=(20, dim)), rng.normal(size=(20, dim))]
    attributes = [rng.normal(size=(20, dim)), rng.normal(size=(20, dim))]
    null = mean_average_cosine(targets, attributes)
    planted = mean_average_cosine(
        [targets[0] + 20 * e, targets[1]], [attributes[0] + 20 * e, attributes[1]]
    )  # first target set and first attribute set share a direction
    assert null.value == pytest.approx(1.0, abs=0.01)  # orthogonal: no association
    assert planted.by_target_set[0] < 0.85 and planted.by_attribute_set[0] < 0.85
    assert planted.by_target_set[1] == pytest.approx(1.0, abs=0.01)


def test_ect_planted_and_null():
    rng = np.random.default_rng(2)
    dim = 50
    centre, towards_a, towards_b = (5 * _direction(rng, dim) for _ in range(3))
    attributes = np.vstack(
        [towards_a + rng.normal(size=(15, dim)), towards_b + rng.normal(size=(15, dim))]
    )
    x, y = centre + 0.3 * rng.normal(size=(10, dim)), centre + 0.3 * rng.normal(size=(10, dim))
    null = embedding_coherence(x, y, attributes)
    planted = embedding_coherence(x + towards_a, y + towards_b, attributes)
    assert null.value > 0.95  # both groups rank the attributes alike
    assert planted.value < 0.0  # X prefers A's words, Y B's


def test_ripa_planted_and_null():
    rng = np.random.default_rng(4)
    dim, e = 50, _direction(rng, 50)
    x_pairs = rng.normal(size=(5, dim)) + 2 * e
    y_pairs = x_pairs - 4 * e + 0.1 * rng.normal(size=(5, dim))
    words = rng.normal(size=(400, dim))
    null = relational_inner_product(x_pairs, y_pairs, words)
    assert abs(null.value) < 3 * null.std / math.sqrt(400)
    assert null.explained_variance > 0.9
    assert relational_inner_product(x_pairs, y_pairs, words + 0.5 * e).value == pytest.approx(
        null.value + 0.5, abs=0.02
    )
    assert relational_inner_product(x_pairs, y_pairs, words - 0.5 * e).value == pytest.approx(
        null.value - 0.5, abs=0.02
    )


def test_rnsb_planted_and_null():
    # Large groups, so that a group's mean P(negative) is not decided by a few words' noise.
    rng = np.random.default_rng(5)
    dim, e = 10, _direction(rng, 10)
    positive, negative = (
        rng.normal(size=(100, dim)) + 1.5 * e,
        rng.normal(size=(100, dim)) - 1.5 * e,
    )
    x, y = rng.normal(size=(300, dim)), rng.normal(size=(300, dim))
    null = relative_negative_sentiment([x, y], positive, negative, seed=0)
    planted = relative_negative_sentiment([x, y - 1.0 * e], positive, negative, seed=0)
    assert null.value < 0.002
    # Two groups: KL = s ln 2s + (1 - s) ln 2(1 - s) with s Y's share; s = 0.6 gives 0.020.
    assert planted.value > 0.015 and planted.value > 10 * null.value
    assert planted.negative_share[1] > 0.58  # Y is the group classified negative
    assert planted.holdout_accuracy > 0.85
    assert (
        planted.n_seeds == 10
        and len(planted.per_seed) == 10
        and planted.min <= planted.value <= planted.max
    )


def test_rnsb_is_deterministic_per_seed_and_varies_across_seeds():
    rng = np.random.default_rng(6)
    groups = [rng.normal(size=(10, 8)), rng.normal(size=(10, 8)) - 0.5]
    positive, negative = rng.normal(size=(12, 8)) + 1, rng.normal(size=(12, 8)) - 1
    first = relative_negative_sentiment(groups, positive, negative, seed=7, n_seeds=4)
    assert relative_negative_sentiment(groups, positive, negative, seed=7, n_seeds=4) == first
    other = relative_negative_sentiment(groups, positive, negative, seed=8, n_seeds=4)
    assert other.per_seed != first.per_seed
    assert first.std == pytest.approx(np.std(first.per_seed, ddof=1))


# ------------------------------------------------------------------------------ role-labelled input


def _weat_shaped(seed=0, dim=6):
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(size=(n, dim)) for n in (5, 5, 6, 7))
    roles = ["X"] * 5 + ["Y"] * 5 + ["A"] * 6 + ["B"] * 7
    return (x, y, a, b), np.vstack([x, y, a, b]).tolist(), roles


@pytest.mark.parametrize(
    "measure,function",
    [
        ("rnd", relative_norm_distance),
        ("ect", embedding_coherence),
        ("ripa", relational_inner_product),
    ],
)
def test_roles_compute_one_attribute_set_measures_once_per_set(measure, function):
    (x, y, a, b), embeddings, roles = _weat_shaped()
    results = association_from_roles(measure, embeddings, roles)
    assert list(results) == ["A", "B"]
    assert results["A"] == function(x, y, a) and results["B"] == function(x, y, b)
    only_a = association_from_roles(measure, embeddings[:16], roles[:16])
    assert list(only_a) == ["A"]


def test_roles_for_mac_and_rnsb():
    (x, y, a, b), embeddings, roles = _weat_shaped()
    assert association_from_roles("mac", embeddings, roles) == {
        "A+B": mean_average_cosine([x, y], [a, b])
    }
    extra = embeddings + [[1.0] * 6]
    mac = association_from_roles("mac", extra, roles + ["C"])["A+B+C"]
    assert mac.attribute_set_sizes == (6, 7, 1)
    rnsb = association_from_roles("rnsb", embeddings, roles, n_seeds=3, seed=1)
    assert rnsb == {"A+B": relative_negative_sentiment([x, y], a, b, n_seeds=3, seed=1)}


def test_clear_errors():
    _, embeddings, roles = _weat_shaped()
    with pytest.raises(InputError, match="unknown measure"):
        association_from_roles("weat", embeddings, roles)
    with pytest.raises(InputError, match="do not apply to measure 'rnd'"):
        association_from_roles("rnd", embeddings, roles, relation="pca")
    with pytest.raises(InputError, match="unknown role"):
        association_from_roles("rnd", embeddings, ["Z"] + roles[1:])
    with pytest.raises(InputError, match="needs rows with role"):
        association_from_roles("rnsb", embeddings[:16], roles[:16])
    with pytest.raises(InputError, match="one role per row"):
        association_from_roles("ect", embeddings, roles[:-1])
    with pytest.raises(InputError, match="pairs"):
        relational_inner_product([[1, 0], [0, 1]], [[0, 0]], [[1, 1]])
    with pytest.raises(InputError, match="same vector"):
        relational_inner_product([[1, 0]], [[1, 0]], [[1, 1]])
    with pytest.raises(InputError, match="same dimension"):
        relative_norm_distance([[1, 0]], [[0, 1]], [[1, 1, 1]])
    with pytest.raises(InputError, match="NaN"):
        embedding_coherence([[1, 0]], [[0, 1]], [[np.nan, 1], [1, 1]])
    with pytest.raises(InputError, match="all zeros"):
        relative_norm_distance([[0, 0]], [[0, 1]], [[1, 1]])
    with pytest.raises(InputError, match="at least 2"):
        embedding_coherence([[1, 0]], [[0, 1]], [[1, 1]])
    with pytest.raises(InputError, match="empty"):
        mean_average_cosine([np.zeros((0, 2))], [[[1, 0]]])
    with pytest.raises(InputError, match="train_fraction"):
        relative_negative_sentiment(
            [[[1, 0]], [[0, 1]]], [[1, 1], [2, 2]], [[-1, -1], [-2, -1]], train_fraction=0
        )
    with pytest.raises(InputError, match="held-out split"):
        relative_negative_sentiment([[[1, 0]], [[0, 1]]], [[1, 1]], [[-1, -1], [-2, -1]])
    with pytest.raises(InputError, match="n_seeds"):
        relative_negative_sentiment([[[1, 0]], [[0, 1]]], [[1, 1]], [[-1, -1]], n_seeds=0)
