"""CEAT: sampled WEAT effect sizes (checked against the weat module) combined by random effects."""

import itertools

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats.ceat import ceat, ceat_samples
from eval_harness.stats.meta_analysis import random_effects
from eval_harness.stats.weat import effect_size, word_associations


def _contexts(rng, words, n_contexts, dim, shift=None):
    shift = np.zeros(dim) if shift is None else shift
    return {word: rng.normal(size=(n_contexts, dim)) + shift for word in words}


def _sets(seed=0, n_contexts=5, dim=8, bias=0.0, n_words=3):
    rng = np.random.default_rng(seed)
    e = rng.normal(size=dim)
    e = 2 * e / np.linalg.norm(e)
    x, y, a, b = ([f"{name}{i}" for i in range(n_words)] for name in "xyab")
    return (
        _contexts(rng, x, n_contexts, dim, bias * e),
        _contexts(rng, y, n_contexts, dim),
        _contexts(rng, a, n_contexts, dim, bias * e),
        _contexts(rng, b, n_contexts, dim),
    )


def _weat_effect_and_variance(x, y, a, b):
    """The weat module's effect size (ddof=1) and the associations' variance, for one vector per
    word."""
    associations = word_associations(np.vstack([x, y]), a, b)
    s_x, s_y = associations[: len(x)], associations[len(x) :]
    return effect_size(s_x, s_y, ddof=1), associations.var(ddof=1)


def test_one_context_per_word_reproduces_weat():
    x, y, a, b = _sets(n_contexts=1)
    effects, variances = ceat_samples(x, y, a, b, n_samples=5, seed=0)
    expected_effect, expected_variance = _weat_effect_and_variance(
        *(np.vstack(list(words.values())) for words in (x, y, a, b))
    )
    assert effects == pytest.approx(np.full(5, expected_effect))
    assert variances == pytest.approx(np.full(5, expected_variance))


def test_every_sample_is_one_of_the_enumerated_context_choices():
    # Two contexts per word, two words per set: 2^8 = 256 possible samples, each computed with the
    # weat module.
    x, y, a, b = (
        {k: v for k, v in list(words.items())[:2]} for words in _sets(seed=1, n_contexts=2)
    )
    sets = [list(words.values()) for words in (x, y, a, b)]
    possible = []
    for choice in itertools.product([0, 1], repeat=8):
        picked = [
            vectors[c] for vectors, c in zip([v for s in sets for v in s], choice, strict=True)
        ]
        possible.append(
            _weat_effect_and_variance(*(np.vstack(picked[i : i + 2]) for i in range(0, 8, 2)))
        )
    possible = np.array(possible)
    effects, variances = ceat_samples(x, y, a, b, n_samples=3000, seed=2)
    distance = np.abs(effects[:, None] - possible[None, :, 0]) + np.abs(
        variances[:, None] - possible[None, :, 1]
    )
    assert distance.min(axis=1).max() < 1e-9  # every sample is a real combination
    assert (
        len(np.unique(distance.argmin(axis=1))) > 200
    )  # and the draws range over (nearly) all 256


def test_combines_by_random_effects_and_is_deterministic_per_seed():
    x, y, a, b = _sets(seed=3)
    result = ceat(x, y, a, b, n_samples=500, seed=11)
    effects, variances = ceat_samples(x, y, a, b, n_samples=500, seed=11)
    assert result.meta == random_effects(effects, variances)
    assert result.sample_effect_mean == pytest.approx(effects.mean())
    assert ceat(x, y, a, b, n_samples=500, seed=11) == result
    assert (
        ceat(x, y, a, b, n_samples=500, seed=12).meta.combined_effect != result.meta.combined_effect
    )
    flat = result.to_dict()
    assert flat["combined_effect"] == result.meta.combined_effect and flat["n_samples"] == 500
    assert (result.n_x, result.min_contexts, result.max_contexts) == (3, 5, 5)


def test_planted_bias_and_null():
    null = ceat(*_sets(seed=4, bias=0.0, n_words=12, n_contexts=20), n_samples=2000, seed=0)
    planted = ceat(*_sets(seed=4, bias=1.0, n_words=12, n_contexts=20), n_samples=2000, seed=0)
    assert abs(null.meta.combined_effect) < 0.1
    assert planted.meta.combined_effect > 1.0 and planted.meta.p_value < 1e-6
    assert (
        planted.meta.tau2 > 0 and 0 < planted.meta.i2 < 1
    )  # samples differ by more than their variances


def test_clear_errors():
    x, y, a, b = _sets()
    with pytest.raises(InputError, match="no context vectors"):
        ceat(x, y, {**a, "a4": np.zeros((0, 8))}, b, n_samples=10)
    with pytest.raises(InputError, match="same dimension"):
        ceat(x, y, {**a, "a4": np.ones((2, 9))}, b, n_samples=10)
    with pytest.raises(InputError, match="n_samples"):
        ceat(x, y, a, b, n_samples=1)
    with pytest.raises(InputError, match="mapping"):
        ceat(list(x.values()), y, a, b)
    with pytest.raises(InputError, match="zero"):
        ceat(x, y, {**a, "a4": np.zeros((1, 8))}, b, n_samples=10)
