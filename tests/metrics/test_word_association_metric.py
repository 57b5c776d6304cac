"""The `word_association` evaluate module: loads offline by bare name and returns eval_harness's numbers."""

import math

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats import association


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
    [("rnd", {}), ("mac", {}), ("ect", {}), ("ripa", {"relation": "pair_mean"}), ("rnsb", {"n_seeds": 3})],
)
def test_every_measure_matches_the_library(metric, measure, options):
    _, embeddings, roles = _rows()
    result = metric.compute(embeddings=embeddings, roles=roles, measure=measure, **options)
    expected = association.association_from_roles(measure, embeddings, roles, **options)
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
