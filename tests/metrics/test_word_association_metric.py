"""The `word_association` evaluate module: loads offline by bare name and returns eval_harness's
numbers."""

import math

import numpy as np
import pytest

from eval_harness.errors import DuplicateWordsWarning, InputError
from eval_harness.suites.xweat import measures


@pytest.fixture(scope="module")
def metric(load_metric_elsewhere):
    return load_metric_elsewhere("word_association")


def _rows(seed=0):
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(size=(n, 6)) for n in (5, 5, 4, 6))
    roles = ["X"] * 5 + ["Y"] * 5 + ["A"] * 4 + ["B"] * 6
    return (x, y, a, b), np.vstack([x, y, a, b]).tolist(), roles


def test_the_card_example_by_hand(metric):
    result = metric.compute(
        embeddings=[[2.0, 0.0], [0.0, 2.0], [-3.0, 0.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 1.0]],
        roles=["X", "X", "Y", "Y", "A", "A"],
        measure="rnd",
        normalize=False,
    )
    assert result["measure"] == "rnd" and list(result["results"]) == ["A"]
    assert result["results"]["A"]["value"] == pytest.approx(1 - math.sqrt(5))


@pytest.mark.parametrize(
    "measure,options",
    [
        ("rnd", {}),
        ("mac", {}),
        ("ect", {}),
        ("ripa", {"relation": "pair_mean"}),
        ("rnsb", {"n_seeds": 3}),
    ],
)
def test_every_measure_matches_the_library(metric, measure, options):
    _, embeddings, roles = _rows()
    result = metric.compute(embeddings=embeddings, roles=roles, measure=measure, **options)
    expected = measures.association_from_roles(measure, embeddings, roles, **options)
    assert result["measure"] == measure
    assert result["results"].keys() == expected.keys()
    for label, values in result["results"].items():
        assert values == expected[label].to_dict()  # float64 rows round-trip through Arrow exactly


def test_clear_errors(metric):
    _, embeddings, roles = _rows()
    with pytest.raises(InputError, match="give measure="):
        metric.compute(embeddings=embeddings, roles=roles)
    with pytest.raises(InputError, match="do not apply"):
        metric.compute(embeddings=embeddings, roles=roles, measure="ect", unit="word")
    with pytest.raises(InputError, match="unknown role"):
        metric.compute(embeddings=embeddings, roles=["Z"] + roles[1:], measure="rnd")


def test_a_word_listed_six_times_counts_once_with_a_warning(metric):
    """ "rose" x6 among the targets: the RND of "rose" once, computed here by hand (Garg's sum on
    unit vectors)."""
    (x, y, a, _), _, _ = _rows(4)
    embeddings = np.vstack([x, np.repeat(x[:1], 5, axis=0), y, a]).tolist()
    roles = ["X"] * 10 + ["Y"] * 5 + ["A"] * 4
    words = (
        [f"x{i}" for i in range(5)]
        + ["x0"] * 5
        + [f"y{i}" for i in range(5)]
        + [f"a{i}" for i in range(4)]
    )
    with pytest.warns(DuplicateWordsWarning, match="set X: 'x0' x6"):
        result = metric.compute(embeddings=embeddings, roles=roles, measure="rnd", words=words)

    def unit(rows):
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    attributes = unit(a)
    once = (
        np.linalg.norm(attributes - unit(x).mean(0), axis=1)
        - np.linalg.norm(attributes - unit(y).mean(0), axis=1)
    ).sum()
    assert result["results"]["A"]["value"] == pytest.approx(once, abs=1e-12)
    assert result["results"]["A"]["n_x"] == 5
