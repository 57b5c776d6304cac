"""The sweep's seed reaches the probe head: two seeds train different heads, one seed the same head
twice.

Before, the seed only chose the ``max_train`` subsample while the MLP head's initialisation and
shuffling read ``head_options["seed"]`` (default 0), so ``seeds: [0, 1, 2]`` trained the same probe
three times.
"""

import numpy as np
import pytest
from helpers.anger_words import WORDS, anger_splits

from eval_harness.data import TextSplit
from eval_harness.models import EmotionRegressor
from eval_harness.models.regressors import StaticMlpRegressor
from eval_harness.models.static import StaticVectors


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


@pytest.fixture(scope="module")
def splits() -> dict[str, TextSplit]:
    return anger_splits()


@pytest.fixture(scope="module")
def vectors() -> StaticVectors:
    return StaticVectors(WORDS, np.random.default_rng(1).normal(size=(len(WORDS), 6)))


def _fitted(vectors, splits, **options) -> StaticMlpRegressor:
    model = StaticMlpRegressor(
        vectors, head_options={"hidden_size": 8, "max_epochs": 4, "patience": 2}, **options
    )
    model.fit_splits(splits, "en", "anger")
    return model


def _weights(model) -> np.ndarray:
    return np.concatenate(
        [w.ravel() for w in model.regression_head.state()["fitted"]["weights"].values()]
    )


def test_the_models_seed_seeds_the_head_unless_head_options_give_one(vectors):
    assert StaticMlpRegressor(vectors, seed=7).regression_head.seed == 7
    assert StaticMlpRegressor(vectors).regression_head.seed == 0
    given = StaticMlpRegressor(vectors, seed=7, head_options={"seed": 3})
    assert given.regression_head.seed == 3
    assert given.head_options == {"seed": 3}  # the options stay as given (they rebuild the model)
    # an SVR head has no seed of its own: nothing is added to its options
    assert "seed" not in StaticMlpRegressor(vectors, seed=7, head="svr").regression_head.options()


def test_two_seeds_train_different_heads_and_one_seed_the_same(vectors, splits):
    seed_0, seed_0_again, seed_1 = (_fitted(vectors, splits, seed=s) for s in (0, 0, 1))
    np.testing.assert_array_equal(_weights(seed_0), _weights(seed_0_again))
    assert not np.allclose(_weights(seed_0), _weights(seed_1))
    texts = ["angry mad calm", "glad happy fine"]
    assert not np.allclose(seed_0.predict(texts), seed_1.predict(texts))
    # the identity, and so the trained-model cache, tells the seeds apart
    assert seed_0.identity() != seed_1.identity()


def test_a_saved_seeded_head_reloads_with_its_seed(vectors, splits, tmp_path):
    model = _fitted(vectors, splits, seed=5)
    model.save(tmp_path / "model")

    class Resources:
        def static_vectors(self, source, **options):
            return vectors

    reloaded = EmotionRegressor.load(tmp_path / "model", Resources())
    assert reloaded.regression_head.seed == 5
    texts = ["rage rage calm", "peace ok"]
    np.testing.assert_allclose(reloaded.predict(texts), model.predict(texts), atol=1e-7)
