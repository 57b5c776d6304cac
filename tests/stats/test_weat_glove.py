"""WEAT on real vectors (GloVe 6B 50d from PyPI): the numbers mean something.

Results with the found (lowercased) words, cosine, ddof=0, seed 0 (C(16, 8) tests exact, larger ones
Monte Carlo with 100,000 draws):

| test | sets (found / listed) | effect size | p |
|---|---|---|---|
| T1 flowers/insects, pleasant/unpleasant | 23/25, 25, 25, 25 | 1.084 | 6e-05 (MC) |
| T2 instruments/weapons, pleasant/unpleasant | 25, 25, 25, 25 | 1.560 | 1e-05 (MC) |
| T3 EA/AA names (50 each), pleasant/unpleasant | 48/50, 38/50, 25, 25 | 1.099 | 1e-05 (MC) |
| T4 EA/AA names (18 each), pleasant/unpleasant | 18, 18, 25, 25 | 0.973 | 0.0014 (MC) |
| T5 EA/AA names, pleasant/unpleasant (8 each) | 18, 18, 8, 8 | 1.087 | 0.00035 (MC) |
| T6 male/female names, career/family | 8, 8, 8, 8 | 1.764 | 7.8e-05 (exact) |
| T7 math/arts, male/female terms | 8, 8, 8, 8 | 1.544 | 0.00023 (exact) |
| T8 science/arts, male/female terms | 8, 8, 8, 8 | 1.534 | 0.00039 (exact) |
| T9 mental/physical disease, temporary/permanent | 6, 6, 7, 7 | 1.187 | 0.023 (exact) |
| T10 young/old names, pleasant/unpleasant | 8, 8, 8, 8 | 1.022 | 0.010 (exact) |

Caliskan et al. (GloVe 840B) report 1.50, 1.53, 1.41, 1.50, 1.28, 1.81, 1.06, 1.24, 1.38, 1.21.
"""

import json
import math

import numpy as np
import pytest

from eval_harness.models.static import load_packaged_glove
from eval_harness.stats.weat import weat

pytestmark = pytest.mark.slow

LARGE_AND_POSITIVE = ("T1", "T2", "T6", "T7", "T8")


@pytest.fixture(scope="module")
def glove():
    return load_packaged_glove()


@pytest.fixture(scope="module")
def weat_tests(source_dir):
    # The English lists straight from the source file: independent of the dataset builder.
    return {
        test["test"]: test
        for test in json.loads((source_dir / "xweat/weat_tests_en.json").read_text())["tests"]
    }


def _found_vectors(glove, test):
    sets = [*test["targets"].values(), *test["attributes"].values()]
    embedded = [glove.embed_words(words) for words in sets]  # lowercased lookups
    return [vectors[found] for vectors, found in embedded]


@pytest.fixture(scope="module")
def results(glove, weat_tests):
    return {name: weat(*_found_vectors(glove, test), seed=0) for name, test in weat_tests.items()}


def test_all_ten_tests_run_on_lowercased_glove(results):
    assert sorted(results, key=lambda name: int(name[1:])) == [f"T{i}" for i in range(1, 11)]
    for result in results.values():
        assert math.isfinite(result.effect_size) and 0 < result.p_value <= 1
        assert result.n_x >= 6 and result.n_a >= 7


@pytest.mark.parametrize("name", LARGE_AND_POSITIVE)
def test_known_biases_have_large_positive_effect_sizes(results, name):
    result = results[name]
    assert result.effect_size > 0.8  # "large" in Caliskan et al.'s reading
    assert result.p_value < 0.01


def test_the_effect_size_reverses_when_the_targets_swap(glove, weat_tests):
    x, y, a, b = _found_vectors(glove, weat_tests["T2"])
    forward, swapped = weat(x, y, a, b, seed=0), weat(y, x, a, b, seed=0)
    assert swapped.effect_size == pytest.approx(-forward.effect_size)
    assert swapped.p_value > 0.99  # one-sided: "Y more pleasant than X" is not supported


def test_ddof_one_rescales_by_the_bessel_factor(glove, weat_tests):
    x, y, a, b = _found_vectors(glove, weat_tests["T6"])
    population, sample = weat(x, y, a, b), weat(x, y, a, b, ddof=1)
    n = len(x) + len(y)
    assert sample.effect_size == pytest.approx(population.effect_size * math.sqrt((n - 1) / n))
    assert sample.p_value == population.p_value


def test_lowercasing_is_what_finds_the_capitalised_names(glove, weat_tests):
    names = weat_tests["T6"]["targets"]["male_names"]
    assert names[0][0].isupper()
    assert glove.embed_words(names)[1].all()
    cased = type(glove).from_arrays(glove.words, glove.matrix, lowercase=False)
    assert not cased.embed_words(names)[1].any()
    assert np.array_equal(glove.embed_words(["john"])[0], glove.embed_words(["John"])[0])
