"""Orthogonal Procrustes recovers a known rotation and agrees with scipy's independent solver."""

import numpy as np
import pytest
from scipy.linalg import orthogonal_procrustes as scipy_procrustes
from scipy.stats import special_ortho_group

from eval_harness.errors import InputError
from eval_harness.stats.alignment import orthogonal_procrustes


def _rotated_pairs(n=200, dim=20, noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    rotation = special_ortho_group.rvs(dim, random_state=seed)
    source = rng.normal(size=(n, dim))
    target = source @ rotation.T + noise * rng.normal(size=(n, dim))
    return source, target, rotation


def test_recovers_a_known_rotation_exactly_without_noise():
    source, target, rotation = _rotated_pairs()
    alignment = orthogonal_procrustes(source, target)
    np.testing.assert_allclose(alignment.rotation, rotation, atol=1e-10)
    np.testing.assert_allclose(alignment.apply(source), target, atol=1e-10)
    assert alignment.mean_cosine_after == pytest.approx(1.0)
    assert abs(alignment.mean_cosine_before) < 0.3  # unrelated coordinates before the map


def test_recovers_a_known_rotation_under_noise():
    source, target, rotation = _rotated_pairs(n=500, noise=0.3, seed=1)
    alignment = orthogonal_procrustes(source, target)
    np.testing.assert_allclose(alignment.rotation.T @ alignment.rotation, np.eye(20), atol=1e-10)
    # Error of the estimate shrinks like noise / sqrt(n): well under 0.1 per entry here.
    assert np.abs(alignment.rotation - rotation).max() < 0.1
    assert alignment.mean_cosine_after > 0.9


def test_matches_scipy_and_minimises_the_residual():
    source, target, _ = _rotated_pairs(n=60, dim=8, noise=1.0, seed=2)
    alignment = orthogonal_procrustes(source, target)
    # scipy solves min ||A R - B|| (R = W^T) from SVD(A^T B): an independent derivation of the same
    # optimum.
    scipy_rotation, _ = scipy_procrustes(source, target)
    np.testing.assert_allclose(alignment.rotation, scipy_rotation.T, atol=1e-10)
    best = np.linalg.norm(alignment.apply(source) - target)
    for seed in range(20):
        other = special_ortho_group.rvs(8, random_state=100 + seed)
        assert np.linalg.norm(source @ other.T - target) > best


def test_orthogonal_map_keeps_cosines_within_the_source_space():
    source, target, _ = _rotated_pairs(n=50, dim=10, noise=0.5, seed=3)
    mapped = orthogonal_procrustes(source, target).apply(source[:5])

    def cosines(m):
        unit = m / np.linalg.norm(m, axis=1, keepdims=True)
        return unit @ unit.T

    np.testing.assert_allclose(cosines(mapped), cosines(source[:5]), atol=1e-12)


def test_bad_input():
    source, target, _ = _rotated_pairs(n=10, dim=4)
    with pytest.raises(InputError, match="same shape"):
        orthogonal_procrustes(source, target[:, :3])
    with pytest.raises(InputError, match="no dictionary pairs"):
        orthogonal_procrustes(source[:0], target[:0])
    source[1, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        orthogonal_procrustes(source, target)
    with pytest.raises(InputError, match="dimension 4"):
        orthogonal_procrustes(target, target).apply(np.ones((2, 3)))
