"""The `weat` evaluate module: loads offline by bare name from any cwd and returns eval_harness's
numbers."""

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
    options = dict(
        similarity="csls", permutations=500, exact_limit=0, alternative="two-sided", ddof=1, seed=3
    )
    result = weat_metric.compute(embeddings=embeddings, roles=roles, **options)
    assert result == pytest.approx(weat(*sets, **options).to_dict())
    assert result["p_value_method"] == "monte_carlo" and result["n_permutations"] == 500
    assert (
        result["similarity"] == "csls"
        and result["ddof"] == 1
        and result["alternative"] == "two-sided"
    )


def test_metric_rejects_bad_roles_and_dimensions(weat_metric):
    _, embeddings, roles = _rows()
    with pytest.raises(InputError, match="unknown role"):
        weat_metric.compute(embeddings=embeddings, roles=["Z"] + roles[1:])
    with pytest.raises(InputError, match="one common length"):
        weat_metric.compute(embeddings=[embeddings[0][:3]] + embeddings[1:], roles=roles)
    with pytest.raises(InputError, match="permutations"):
        weat_metric.compute(embeddings=embeddings, roles=roles, permutations=0)


# ---- issue 12 section 4 and issue 14: bootstrap, influence, words; the caller's rows in errors ---
def _words(roles):
    return [f"{role.lower()}{i}" for i, role in enumerate(roles)]


def test_metric_returns_the_librarys_bootstrap_and_influence(weat_metric):
    sets, embeddings, roles = _rows()
    words = _words(roles)
    options = {"n_bootstrap": 400, "confidence_level": 0.9, "influence": True, "seed": 2}
    result = weat_metric.compute(embeddings=embeddings, roles=roles, words=words, **options)
    by_role = {role: [w for w, r in zip(words, roles, strict=True) if r == role] for role in "XYAB"}
    expected = weat(*sets, words=by_role, **options).to_dict()
    assert result.keys() == expected.keys() and {"bootstrap", "influence"} <= result.keys()
    assert result["bootstrap"] == pytest.approx(expected["bootstrap"])
    assert result["influence"]["words"] == expected["influence"]["words"]
    assert result["influence"]["words"][0]["word"] in words
    assert result["bootstrap"]["ci_low"] < result["effect_size"] < result["bootstrap"]["ci_high"]


def test_metric_names_the_callers_row_of_a_zero_vector(weat_metric):
    _, embeddings, roles = _rows()
    words = _words(roles)
    embeddings[13] = [0.0] * 6  # the third A row
    with pytest.raises(
        InputError, match=r"embeddings row\(s\) 13 \(role A, word 'a13'\) are all zeros"
    ):
        weat_metric.compute(embeddings=embeddings, roles=roles, words=words)
    with pytest.raises(InputError, match=r"embeddings row\(s\) 13 \(role A\) are all zeros"):
        weat_metric.compute(embeddings=embeddings, roles=roles)


def test_metric_rejects_a_bad_seed_and_bad_bootstrap_options(weat_metric):
    _, embeddings, roles = _rows()
    with pytest.raises(InputError, match="seed must be a non-negative integer"):
        weat_metric.compute(embeddings=embeddings, roles=roles, seed="abc")
    with pytest.raises(InputError, match="n_bootstrap must be"):
        weat_metric.compute(embeddings=embeddings, roles=roles, n_bootstrap=1)
    with pytest.raises(InputError, match="influence must be True or False"):
        weat_metric.compute(embeddings=embeddings, roles=roles, influence="yes")
