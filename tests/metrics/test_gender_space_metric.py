"""The `gender_space` evaluate module, and the role-labelled entry point it wraps."""

import math

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats.gender_space import (
    clustering_accuracy,
    direct_bias,
    gender_space_measures,
    gender_subspace,
    knn_profession_bias,
    svm_classification_accuracy,
)

DIM = 16


def _world(seed=0, runs=2):
    """Planted rows: pairs differ by 2g, biased words carry +-g, professions a graded share of g."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(DIM)
    g /= np.linalg.norm(g)
    noise = lambda *shape: rng.standard_normal((*shape, DIM)) / math.sqrt(DIM)  # noqa: E731
    base = noise(6)
    pair_male, pair_female = base + g, base - g
    random_first, random_second = noise(runs, 6), noise(runs, 6)
    strength = np.linspace(-0.5, 0.5, 8)
    professions = noise(runs, 8) + strength[:, None] * g
    male, female = noise(runs, 12) + g, noise(runs, 12) - g
    rows, roles, words, run_ids, bias = [], [], [], [], []

    def add(vectors, role, names, run=0, values=None):
        rows.extend(vectors)
        roles.extend([role] * len(vectors))
        words.extend(names)
        run_ids.extend([run] * len(vectors))
        bias.extend(values if values is not None else [None] * len(vectors))

    add(pair_male, "pair_male", [f"m{i}" for i in range(6)])
    add(pair_female, "pair_female", [f"f{i}" for i in range(6)])
    for run in range(runs):
        add(random_first[run], "random_first", [f"r{i}" for i in range(6)], run)
        add(random_second[run], "random_second", [f"s{i}" for i in range(6)], run)
        add(professions[run], "neutral", [f"job{i}" for i in range(8)], run, list(strength))
        add(male[run], "male", [f"male{i}" for i in range(12)], run)
        add(female[run], "female", [f"female{i}" for i in range(12)], run)
    arrays = dict(
        pair=(pair_male, pair_female),
        random=(random_first, random_second),
        professions=professions,
        biased=np.concatenate([male, female], axis=1),
        is_male=np.arange(24) < 12,
        strength=strength,
        g=g,
    )
    return [r.tolist() for r in rows], roles, words, run_ids, bias, arrays


def _flat(value, prefix=""):
    """Nested dicts/lists -> {path: number}, for pytest.approx."""
    if isinstance(value, dict):
        return {
            k: v for key, item in value.items() for k, v in _flat(item, f"{prefix}/{key}").items()
        }
    if isinstance(value, list):
        return {
            k: v for i, item in enumerate(value) for k, v in _flat(item, f"{prefix}/{i}").items()
        }
    return {prefix: value}


OPTIONS = dict(n_components=4, n_cluster_words=8, n_train=10, k=5, seed=3)


def test_role_rows_give_the_separate_measures():
    """Independent: the same numbers from the five separate functions on the arrays."""
    rows, roles, words, runs, bias, a = _world()
    result = gender_space_measures(
        rows,
        roles,
        word=words,
        run=runs,
        bias=[np.nan if b is None else b for b in bias],
        **OPTIONS,
    )
    subspace = gender_subspace(*a["pair"], *a["random"], n_components=4)
    np.testing.assert_allclose(
        result.subspace.explained_variance_ratio, subspace.explained_variance_ratio
    )
    np.testing.assert_allclose(
        result.subspace.baseline_explained_variance_ratio,
        subspace.baseline_explained_variance_ratio,
    )
    assert abs(result.subspace.direction @ a["g"]) > 0.99
    expected_direct = direct_bias(
        a["professions"].reshape(-1, DIM), subspace.direction, word_index=np.tile(np.arange(8), 2)
    )
    assert result.direct_bias.value == pytest.approx(expected_direct.value)
    assert result.direct_bias.n_words == 8 and result.direct_bias.n_vectors == 16
    rng = np.random.default_rng(3)
    top = np.r_[0:8, 12:20]
    expected_clustering = clustering_accuracy(a["biased"][:, top], a["is_male"][top], seed=rng)
    expected_classification = svm_classification_accuracy(
        a["biased"], a["is_male"], n_train=10, seed=rng
    )
    np.testing.assert_allclose(result.clustering.values, expected_clustering.values)
    np.testing.assert_allclose(result.classification.values, expected_classification.values)
    expected_knn = knn_profession_bias(
        a["professions"], a["biased"], a["is_male"], a["strength"], k=5
    )
    np.testing.assert_allclose(result.knn.correlations, expected_knn.correlations)
    assert result.knn.min > 0.5


def test_absent_roles_give_none_and_bad_rows_are_errors():
    rows, roles, words, runs, bias, _ = _world()
    only_pairs = [i for i, role in enumerate(roles) if role.startswith("pair")]
    result = gender_space_measures(
        [rows[i] for i in only_pairs], [roles[i] for i in only_pairs], n_components=3
    )
    assert result.direct_bias is result.clustering is result.knn is None
    assert result.to_dict()["knn"] is None and "gender subspace" in result.summary()
    with pytest.raises(InputError, match="unknown role"):
        gender_space_measures(rows, ["teacher"] + roles[1:])
    shuffled = list(words)
    first, second = shuffled.index("male0"), shuffled.index("male1")
    shuffled[first], shuffled[second] = "male1", "male0"
    with pytest.raises(InputError, match="run 1 do not list the same words"):
        gender_space_measures(
            rows,
            roles,
            word=shuffled[: len(words) // 2] + words[len(words) // 2 :],
            run=runs,
            **OPTIONS,
        )


@pytest.fixture(scope="module")
def gender_space_metric(registered_metrics, tmp_path_factory):
    import os

    import evaluate

    previous = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("elsewhere"))
    try:
        yield evaluate.load("gender_space")
    finally:
        os.chdir(previous)


def test_metric_loads_from_another_cwd_and_matches_the_library(gender_space_metric):
    rows, roles, words, runs, bias, _ = _world(seed=1)
    result = gender_space_metric.compute(
        embeddings=rows, roles=roles, words=words, runs=runs, bias=bias, **OPTIONS
    )
    expected = gender_space_measures(
        rows,
        roles,
        word=words,
        run=runs,
        bias=[np.nan if b is None else b for b in bias],
        **OPTIONS,
    ).to_dict()
    assert _flat(result) == pytest.approx(_flat(expected))
    example = gender_space_metric.compute(
        embeddings=[[1.0, 0.1], [1.0, -0.1], [0.9, 0.3], [0.9, 0.1], [0.2, 1.0], [0.3, 0.8]],
        roles=["pair_male", "pair_female", "pair_male", "pair_female", "neutral", "neutral"],
        n_components=2,
    )
    assert round(example["subspace"]["first_component_ratio"], 3) == 0.988
    assert round(example["direct_bias"]["value"], 3) == 0.921


def test_metric_k_larger_than_candidates(gender_space_metric):
    rows, roles, words, runs, bias, _ = _world(seed=2)
    with pytest.raises(
        InputError, match=r"k=25 nearest neighbours asked but the candidate set has only 24"
    ):
        gender_space_metric.compute(
            embeddings=rows, roles=roles, words=words, runs=runs, bias=bias, **{**OPTIONS, "k": 25}
        )


# ---- issue 14: the caller's row in errors, a zero direction, scale-free vectors ------------------
def test_a_ragged_row_is_named_by_its_row_role_and_word(gender_space_metric):
    rows, roles, words, runs, bias, _ = _world()
    rows[7] = rows[7][:5]  # the second pair_female row, word "f1"
    message = rf"row 7 \(role pair_female, word 'f1'\) has 5 values where the other rows have {DIM}"
    with pytest.raises(InputError, match=message):
        gender_space_measures(rows, roles, word=words, run=runs)
    with pytest.raises(InputError, match=message):
        gender_space_metric.compute(embeddings=rows, roles=roles, words=words, runs=runs)


def test_a_zero_row_is_named_by_its_row_role_and_word():
    rows, roles, words, runs, _, _ = _world()
    rows[20] = [0.0] * DIM  # run 0's third random_second row, word "s2"
    with pytest.raises(
        InputError, match=r"vectors row\(s\) 20 \(role random_second, word 's2'\) are zero vectors"
    ):
        gender_space_measures(rows, roles, word=words, run=runs, **OPTIONS)


def test_a_zero_direction_is_a_clear_error(gender_space_metric):
    rows, roles, words, runs, _, _ = _world()
    with pytest.raises(InputError, match="direction is the zero vector") as caught:
        gender_space_measures(rows, roles, word=words, run=runs, direction=[0.0] * DIM, **OPTIONS)
    assert "[[]]" not in str(caught.value)
    with pytest.raises(InputError, match="direction is the zero vector"):
        gender_space_metric.compute(
            embeddings=rows, roles=roles, words=words, runs=runs, direction=[0] * DIM
        )
    with pytest.raises(InputError, match="direction is the zero vector"):
        direct_bias(np.ones((3, DIM)), np.zeros(DIM))


def test_every_measure_is_scale_free_per_row():
    rows, roles, words, runs, bias, _ = _world(seed=3)
    scales = 10.0 ** np.random.default_rng(0).uniform(-250, 250, size=len(rows))
    scaled = [[value * scale for value in row] for row, scale in zip(rows, scales, strict=True)]
    bias = [np.nan if b is None else b for b in bias]
    plain = _flat(
        gender_space_measures(rows, roles, word=words, run=runs, bias=bias, **OPTIONS).to_dict()
    )
    rescaled = _flat(
        gender_space_measures(scaled, roles, word=words, run=runs, bias=bias, **OPTIONS).to_dict()
    )
    numbers = {path for path, value in plain.items() if not isinstance(value, str)}
    assert len(numbers) > 50 and rescaled.keys() == plain.keys()
    assert {path: rescaled[path] for path in numbers} == pytest.approx(
        {path: plain[path] for path in numbers}, rel=1e-9
    )
    assert all(rescaled[path] == plain[path] for path in plain.keys() - numbers)
