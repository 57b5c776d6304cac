"""The `weat` evaluate module: loads offline by bare name from any cwd and returns eval_harness's numbers."""

import numpy as np
import pytest

from eval_harness.errors import InputError
from eval_harness.stats.weat import weat


@pytest.fixture(scope="module")
def weat_metric(load_metric_elsewhere):
    return load_metric_elsewhere("weat")


def _rows(seed=0):
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(size=(n, 6)) for n in (5, 6, 4, 4))
    x += 0.8 * a.mean(axis=0)
    embeddings = [*x, *y, *a, *b]
    roles = ["X"] * 5 + ["Y"] * 6 + ["A"] * 4 + ["B"] * 4
    return (x, y, a, b), [row.tolist() for row in embeddings], roles


def test_metric_loads_from_another_cwd_and_matches_the_library(weat_metric):
    sets, embeddings, roles = _rows()
    result = weat_metric.compute(embeddings=embeddings, roles=roles)
    expected = weat(*sets).to_dict()
    assert result.keys() == expected.keys()
    assert result == pytest.approx(expected)
    assert result["p_value_method"] == "exact" and result["n_permutations"] == 462  # C(11, 5)


def test_metric_passes_every_option_through(weat_metric):
    sets, embeddings, roles = _rows(seed=1)
    options = dict(similarity="csls", permutations=500, exact_limit=0, alternative="two-sided", ddof=1, seed=3)
    result = weat_metric.compute(embeddings=embeddings, roles=roles, **options)
    assert result == pytest.approx(weat(*sets, **options).to_dict())
    assert result["p_value_method"] == "monte_carlo" and result["n_permutations"] == 500
    assert result["similarity"] == "csls" and result["ddof"] == 1 and result["alternative"] == "two-sided"


def test_metric_rejects_bad_roles_and_dimensions(weat_metric):
    _, embeddings, roles = _rows()
    with pytest.raises(InputError, match="unknown role"):
        weat_metric.compute(embeddings=embeddings, roles=["Z"] + roles[1:])
    with pytest.raises(InputError, match="one common length"):
        weat_metric.compute(embeddings=[embeddings[0][:3]] + embeddings[1:], roles=roles)
    with pytest.raises(InputError, match="permutations"):
        weat_metric.compute(embeddings=embeddings, roles=roles, permutations=0)
