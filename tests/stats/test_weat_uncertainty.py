"""WEAT effect-size uncertainty: the bootstrap and leave-one-word-out influence against
recomputation from vectors."""

import json
import math
from dataclasses import fields

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats.weat import (
    WEATResult,
    bootstrap_effect_size,
    bootstrap_generator,
    bootstrap_resamples,
    leave_one_out_influence,
    similarity_matrix,
    weat,
)

SIZES = (5, 4, 4, 3)


def _sets(seed, sizes=SIZES, dim=10, shift=0.8):
    """Random X, Y, A, B with X moved towards A (a real but noisy association)."""
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(size=(n, dim)) for n in sizes)
    return x + shift * a.mean(axis=0), y, a, b


def _test_matrix(x, y, a, b, similarity="cosine"):
    return similarity_matrix(np.vstack([x, y]), np.vstack([a, b]), similarity)


def _pure_python_cosine_effect_size(x, y, a, b, ddof):
    """Caliskan et al.'s d with plain loops, independent of the module's matrix code."""

    def cosine(u, v):
        return sum(p * q for p, q in zip(u, v, strict=True)) / math.sqrt(
            sum(p * p for p in u) * sum(q * q for q in v)
        )

    def association(w):
        return sum(cosine(w, p) for p in a) / len(a) - sum(cosine(w, q) for q in b) / len(b)

    s_x, s_y = [association(w) for w in x], [association(w) for w in y]
    pooled = s_x + s_y
    mean = sum(pooled) / len(pooled)
    spread = math.sqrt(sum((v - mean) ** 2 for v in pooled) / (len(pooled) - ddof))
    return (sum(s_x) / len(s_x) - sum(s_y) / len(s_y)) / spread


# ---- the bootstrap equals WEAT recomputed from the resampled vectors -----------------------------
@pytest.mark.parametrize("similarity", ["cosine", "euclidean", "csls"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_bootstrap_replicates_equal_weat_recomputed_from_resampled_vectors(similarity, ddof):
    x, y, a, b = _sets(seed=3 + ddof)
    n_bootstrap, seed = 120, 11
    ours = bootstrap_effect_size(
        _test_matrix(x, y, a, b, similarity), len(x), len(a), n_bootstrap, 0.9, ddof=ddof, seed=seed
    )
    brute = []
    for ix, iy, ia, ib in bootstrap_resamples(SIZES, n_bootstrap, seed):
        for row in range(len(ix)):
            # A full WEAT on the resampled vectors: similarities recomputed (for csls, on the
            # resampled pool).
            result = weat(
                x[ix[row]], y[iy[row]], a[ia[row]], b[ib[row]], similarity=similarity, ddof=ddof
            )
            brute.append(result.effect_size)
    brute = np.array(brute)
    assert ours.n_bootstrap == n_bootstrap and ours.n_undefined == 0
    np.testing.assert_allclose(ours.replicates, brute, rtol=0, atol=1e-10)
    low, high = np.quantile(brute, [0.05, 0.95])
    assert ours.ci_low == pytest.approx(low, abs=1e-10) and ours.ci_high == pytest.approx(
        high, abs=1e-10
    )
    assert ours.std_err == pytest.approx(brute.std(ddof=1), abs=1e-10)
    assert ours.confidence_level == 0.9


def test_bootstrap_replicates_equal_a_pure_python_effect_size():
    x, y, a, b = _sets(seed=5)
    ours = bootstrap_effect_size(_test_matrix(x, y, a, b), len(x), len(a), 40, seed=2)
    blocks = list(bootstrap_resamples(SIZES, 40, 2))
    brute = [
        _pure_python_cosine_effect_size(x[ix[r]], y[iy[r]], a[ia[r]], b[ib[r]], ddof=0)
        for ix, iy, ia, ib in blocks
        for r in range(len(ix))
    ]
    np.testing.assert_allclose(ours.replicates, brute, rtol=0, atol=1e-10)


def test_bootstrap_blocks_cover_every_replicate_with_draws_inside_each_set():
    blocks = list(bootstrap_resamples((3, 700, 2, 5), 2500, seed=0))
    assert (
        sum(len(block[0]) for block in blocks) == 2500 and len(blocks) > 1
    )  # several vectorised blocks
    for block in blocks:
        for indices, size in zip(block, (3, 700, 2, 5), strict=True):
            assert indices.shape[1] == size and indices.min() >= 0 and indices.max() < size


def test_weat_bootstrap_is_that_of_its_similarity_matrix_with_the_derived_stream():
    x, y, a, b = _sets(seed=6)
    result = weat(x, y, a, b, similarity="csls", n_bootstrap=300, confidence_level=0.8, seed=4)
    direct = bootstrap_effect_size(
        _test_matrix(x, y, a, b, "csls"), len(x), len(a), 300, 0.8, seed=bootstrap_generator(4)
    )
    np.testing.assert_array_equal(result.bootstrap.replicates, direct.replicates)
    assert result.bootstrap.to_dict() == direct.to_dict()


# ---- determinism, and the permutation test is untouched ------------------------------------------
def test_bootstrap_is_deterministic_per_seed_and_leaves_the_permutation_test_alone():
    x, y, a, b = _sets(seed=7, sizes=(12, 12, 6, 6))
    plain = weat(x, y, a, b, exact_limit=0, permutations=2000, seed=9)
    first = weat(
        x, y, a, b, exact_limit=0, permutations=2000, seed=9, n_bootstrap=500, influence=True
    )
    again = weat(
        x, y, a, b, exact_limit=0, permutations=2000, seed=9, n_bootstrap=500, influence=True
    )
    other = weat(x, y, a, b, exact_limit=0, permutations=2000, seed=10, n_bootstrap=500)
    np.testing.assert_array_equal(first.bootstrap.replicates, again.bootstrap.replicates)
    assert first.to_dict() == again.to_dict()
    assert not np.array_equal(first.bootstrap.replicates, other.bootstrap.replicates)
    fewer = weat(x, y, a, b, exact_limit=0, permutations=2000, seed=9, n_bootstrap=100)
    np.testing.assert_array_equal(fewer.bootstrap.replicates, first.bootstrap.replicates[:100])
    for name in ("statistic", "effect_size", "p_value", "mc_std_err", "n_permutations"):
        assert getattr(first, name) == getattr(plain, name)
    # A Generator seed: the bootstrap draws after the permutation test, from the same generator.
    from_generator = weat(
        x, y, a, b, exact_limit=0, permutations=2000, seed=np.random.default_rng(9), n_bootstrap=50
    )
    assert from_generator.p_value == plain.p_value


# ---- leave-one-word-out against WEAT recomputed on the reduced sets ------------------------------
@pytest.mark.parametrize("similarity", ["cosine", "euclidean", "csls"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_leave_one_out_equals_weat_recomputed_without_each_word(similarity, ddof):
    x, y, a, b = _sets(seed=21 + ddof)
    words = {
        role: [f"{role}{i}" for i in range(len(s))]
        for role, s in zip("XYAB", (x, y, a, b), strict=True)
    }
    influence = weat(
        x, y, a, b, similarity=similarity, ddof=ddof, influence=True, words=words
    ).influence
    full = weat(x, y, a, b, similarity=similarity, ddof=ddof).effect_size
    assert influence.effect_size == pytest.approx(full, abs=1e-12)
    assert len(influence.words) == sum(SIZES) and influence.skipped == ()
    sets = {"X": x, "Y": y, "A": a, "B": b}
    for item in influence.words:
        reduced = dict(sets, **{item.role: np.delete(sets[item.role], item.index, axis=0)})
        expected = weat(*reduced.values(), similarity=similarity, ddof=ddof).effect_size
        assert item.effect_size_without == pytest.approx(expected, abs=1e-10)
        assert item.change == pytest.approx(expected - full, abs=1e-10)
        assert item.word == f"{item.role}{item.index}"
    changes = [abs(item.change) for item in influence.words]
    assert changes == sorted(changes, reverse=True)


def test_leave_one_out_skips_the_only_word_of_a_set():
    x, y, a, b = _sets(seed=30, sizes=(4, 3, 1, 2))
    influence = leave_one_out_influence(_test_matrix(x, y, a, b), 4, 1, words={"A": ["good"]})
    assert {(item.role, item.index) for item in influence.words} == {
        *(("X", i) for i in range(4)),
        *(("Y", i) for i in range(3)),
        ("B", 0),
        ("B", 1),
    }
    assert influence.skipped == ("A[0] 'good': the only word of A",)


def test_a_planted_word_that_drives_the_effect_size_is_named_first():
    rng = np.random.default_rng(1)
    dim = 300
    a, b = rng.normal(size=(8, dim)), rng.normal(size=(8, dim))
    y = rng.normal(size=(6, dim))
    # X is Y plus one word close to A: without it X = Y and d = 0, so that one word carries all of
    # d.
    planted = 3 * a.mean(axis=0) + 0.1 * rng.normal(size=dim)
    x = np.vstack([y[:3], planted, y[3:]])
    words = {"X": ["x0", "x1", "x2", "planted", "x3", "x4", "x5"], "Y": [f"x{i}" for i in range(6)]}
    result = weat(x, y, a, b, influence=True, n_bootstrap=2000, words=words, seed=0)
    assert result.effect_size > 0.4
    first, second = result.influence.words[:2]
    assert (first.role, first.index, first.word) == ("X", 3, "planted")
    assert abs(first.effect_size_without) < 1e-9 and first.change == pytest.approx(
        -result.effect_size
    )
    assert abs(first.change) > 2 * abs(second.change)
    # Whether the bootstrap draws that word decides d*, so the interval spans 0.
    assert result.bootstrap.ci_low < 0 < result.effect_size < result.bootstrap.ci_high
    assert "X[3] 'planted'" in result.summary()


# ---- output --------------------------------------------------------------------------------------
def test_default_output_is_unchanged_and_the_extras_are_json_when_asked():
    x, y, a, b = _sets(seed=40)
    default = weat(x, y, a, b).to_dict()
    # Exactly the fields it always had: no bootstrap or influence keys (not even None) unless asked.
    assert set(default) == {field.name for field in fields(WEATResult)} - {"bootstrap", "influence"}
    assert len(default) == 13
    full = weat(x, y, a, b, n_bootstrap=100, influence=True).to_dict()
    assert set(full) == set(default) | {"bootstrap", "influence"}
    assert set(full["bootstrap"]) == {
        "confidence_level",
        "ci_low",
        "ci_high",
        "std_err",
        "n_bootstrap",
        "n_undefined",
    }
    assert set(full["influence"]["words"][0]) == {
        "role",
        "index",
        "word",
        "effect_size_without",
        "change",
    }
    assert json.loads(json.dumps(full)) == full
    assert {key: full[key] for key in default} == default


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"n_bootstrap": 1}, "n_bootstrap must be"),
        ({"n_bootstrap": -5}, "n_bootstrap must be"),
        ({"n_bootstrap": 2.5}, "n_bootstrap must be"),
        ({"n_bootstrap": True}, "n_bootstrap must be"),
        ({"n_bootstrap": 10, "confidence_level": 95}, "not a percentage"),
        ({"n_bootstrap": 10, "confidence_level": 1.0}, "confidence_level"),
        ({"n_bootstrap": 10, "confidence_level": "0.95"}, "confidence_level"),
        ({"influence": "no"}, "influence must be True or False"),
        ({"words": {"X": ["only one"]}}, r"words\['X'\] has 1 words but set X has 5 rows"),
        ({"words": {"Z": []}}, "words must map roles"),
    ],
)
def test_bad_uncertainty_options_raise_input_errors(options, message):
    x, y, a, b = _sets(seed=41)
    with pytest.raises(InputError, match=message):
        weat(x, y, a, b, **options)


def test_bootstrap_counts_replicates_whose_effect_size_is_undefined():
    # X = {x0, x1} with different associations, Y = {y0}, a copy of x0.
    a, b = np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]])
    x = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    y = np.array([[1.0, 0.0, 1.0]])
    boot = bootstrap_effect_size(_test_matrix(x, y, a, b), 2, 1, 400, seed=0)
    # A replicate drawing x0 twice pools three equal associations (x0, x0, y0 = x0): undefined,
    # probability 1/4.
    assert 60 < boot.n_undefined < 140 and len(boot.replicates) == 400 - boot.n_undefined
    assert np.isfinite(boot.replicates).all()
