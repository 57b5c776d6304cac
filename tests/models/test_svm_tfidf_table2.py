"""The SVM-tfidf preset ``camara2022``: the authors' protocol, checked against scikit-learn's
GridSearchCV, and the paper's Table 2 (Câmara et al. 2022, SVM-tfidf row, test Pearson r) reproduced
on SemEval-2018."""

import itertools

import numpy as np
import pytest
import scipy.stats
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import make_scorer, r2_score
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.svm import SVR

from eval_harness.errors import ConfigError, InputError
from eval_harness.models import EmotionRegressor, SvmTfidfRegressor, build_emotion_model
from eval_harness.models.heads import r_squared
from eval_harness.models.regressors import TextSplit

# Câmara et al. 2022, "Mapping the Multilingual Margins", Table 2, row SVM-tfidf: test Pearson r.
TABLE2_SVM_TFIDF = {
    ("en", "anger"): 0.533,
    ("en", "fear"): 0.523,
    ("en", "joy"): 0.538,
    ("en", "sadness"): 0.504,
    ("es", "anger"): 0.398,
    ("es", "fear"): 0.638,
    ("es", "joy"): 0.551,
    ("es", "sadness"): 0.598,
    ("ar", "anger"): 0.366,
    ("ar", "fear"): 0.381,
    ("ar", "joy"): 0.475,
    ("ar", "sadness"): 0.456,
}
# The grid of the paper's section on baselines, written out by hand.
PAPER_GRID = {
    "C": [0.1, 1, 10, 100],
    "gamma": [1, 0.1, 0.01, 0.001],
    "kernel": ["rbf", "poly", "sigmoid"],
}


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


def pearson(observed, predicted):
    return scipy.stats.pearsonr(observed, predicted)[0]


def synthetic_splits(seed):
    """Texts of 4-9 words of 30; intensity = 3 mean(word weights) - 1 in [0, 1], + noise; only
    validation has zzz."""
    rng = np.random.default_rng(seed)
    words = [f"w{index}" for index in range(30)]
    weights = dict(zip(words, rng.uniform(0, 1, size=30), strict=True))

    def split(n, extra=()):
        texts, intensity = [], []
        for _ in range(n):
            chosen = list(rng.choice(words, size=rng.integers(4, 10))) + list(extra)
            texts.append(" ".join(chosen))
            intensity.append(
                np.clip(np.mean([weights.get(word, 0.5) for word in chosen]) * 3 - 1, 0, 1)
            )
        return TextSplit(texts, np.asarray(intensity) + rng.normal(scale=0.02, size=n))

    return {"train": split(90), "validation": split(30, extra=("zzz",)), "test": split(30)}


def test_r_squared_is_scikit_learns_and_zero_for_a_constant_target():
    rng = np.random.default_rng(0)
    observed, predicted = rng.normal(size=40), rng.normal(size=40)
    assert r_squared(predicted, observed) == pytest.approx(r2_score(observed, predicted), abs=1e-12)
    assert r_squared(np.arange(4.0), np.ones(4)) == 0.0


def test_the_camara2022_preset_is_the_papers_protocol():
    model = SvmTfidfRegressor(preset="camara2022")
    options = model.options()
    assert options["preset"] == "camara2022"
    assert (tuple(options["ngram_range"]), options["min_df"], options["max_features"]) == (
        (1, 2),
        2,
        None,
    )
    assert options["preprocess"] == "tweet" and options["max_train"] is None
    # GridSearchCV refits on all of its (train + validation) rows, which the train vectoriser turned
    # into features.
    assert options["refit_on_validation"] is True and options["refit_vectorizer"] is False
    assert options["score_raw_output"] is True
    assert (
        model.regression_head.scoring == "r2" and model.regression_head.epsilon == 0.1
    )  # GridSearchCV's default scoring, SVR's epsilon
    points = [
        (point["C"], point["gamma"], point["kernel"])
        for point in model.regression_head.grid_points()
    ]
    assert len(points) == 48
    assert sorted(points) == sorted(
        itertools.product(PAPER_GRID["C"], PAPER_GRID["gamma"], PAPER_GRID["kernel"])
    )


def test_the_preset_equals_gridsearchcv_over_a_predefined_split_refitted_on_train_and_validation():
    splits = synthetic_splits(0)
    train, validation, test = splits["train"], splits["validation"], splits["test"]
    model = SvmTfidfRegressor(preset="camara2022", head_options={"n_jobs": 1})
    scores = model.fit_splits(splits, "en", "anger")

    # The authors' recipe, written with scikit-learn alone.
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2).fit(train.texts)
    features = vectorizer.transform(train.texts + validation.texts)
    intensity = np.concatenate([train.intensity, validation.intensity])
    folds = PredefinedSplit([-1] * len(train) + [0] * len(validation))
    search = GridSearchCV(SVR(), PAPER_GRID, cv=folds, n_jobs=1).fit(features, intensity)
    # On these data validation Pearson r would choose another setting, so the test tells the
    # scorings apart.
    by_pearson = GridSearchCV(
        SVR(), PAPER_GRID, cv=folds, n_jobs=1, scoring=make_scorer(pearson)
    ).fit(features, intensity)
    assert by_pearson.best_params_ != search.best_params_

    assert {key: scores.selected[key] for key in PAPER_GRID} == search.best_params_
    assert scores.selected["validation_r2"] == pytest.approx(search.best_score_, abs=1e-10)
    assert (
        model.vectorizer.vocabulary_ == vectorizer.vocabulary_
        and "zzz" not in model.vectorizer.vocabulary_
    )
    # The paper's r is of SVR.predict as it is; predict() clips to [0, 1] (the EEC's Beta regression
    # needs it).
    raw_test = search.predict(vectorizer.transform(test.texts))
    assert ((raw_test < 0) | (raw_test > 1)).any()  # so that raw and clipped r differ here
    np.testing.assert_allclose(model.predict(test.texts), np.clip(raw_test, 0, 1), atol=1e-10)
    assert scores.pearson_test == pytest.approx(pearson(raw_test, test.intensity), abs=1e-10)
    assert scores.pearson_test != pytest.approx(
        pearson(np.clip(raw_test, 0, 1), test.intensity), abs=1e-6
    )
    # The validation r reported is the held-out one: the chosen SVR fitted on train alone.
    held_out = SVR(**search.best_params_).fit(vectorizer.transform(train.texts), train.intensity)
    validation_r = scipy.stats.pearsonr(
        held_out.predict(vectorizer.transform(validation.texts)), validation.intensity
    )
    assert scores.pearson_validation == pytest.approx(validation_r[0], abs=1e-10)


def test_a_saved_preset_model_reloads_and_is_not_a_plain_svm_tfidf(tmp_path):
    model = SvmTfidfRegressor(preset="camara2022", head_options={"n_jobs": 1})
    model.fit_splits(synthetic_splits(1), "es", "joy")
    model.save(tmp_path / "svm")
    reloaded = EmotionRegressor.load(tmp_path / "svm")
    assert reloaded.options() == model.options()
    texts = ["w1 w2 w3", "w4 w5"]
    np.testing.assert_array_equal(reloaded.predict(texts), model.predict(texts))
    # fit_or_load reuses a saved model only when identities are equal: a plain svm_tfidf is another
    # model.
    plain = build_emotion_model({"type": "svm_tfidf"})
    from_config = build_emotion_model({"type": "svm_tfidf", "options": {"preset": "camara2022"}})
    assert from_config.identity("es", "joy") != plain.identity("es", "joy")
    assert from_config.identity("es", "joy")["options"]["preset"] == "camara2022"


def test_unknown_presets_and_options_that_contradict_the_preset_are_errors():
    with pytest.raises(
        InputError, match=r"unknown svm_tfidf preset 'camara'; presets: \['camara2022'\]"
    ):
        SvmTfidfRegressor(preset="camara")
    with pytest.raises(
        InputError, match=r"min_df=3 \(the preset has 2\).*refit_on_validation=False"
    ):
        SvmTfidfRegressor(preset="camara2022", min_df=3, refit_on_validation=False)
    with pytest.raises(InputError, match=r"head_options.scoring='pearson'"):
        build_emotion_model(
            {
                "type": "svm_tfidf",
                "options": {"preset": "camara2022", "head_options": {"scoring": "pearson"}},
            }
        )
    with pytest.raises(
        ConfigError, match=r"unknown option\(s\) 'presets' for model type 'svm_tfidf'"
    ):
        build_emotion_model({"type": "svm_tfidf", "options": {"presets": "camara2022"}})
    # Options that agree with the preset, or that it does not pin (how the grid runs, the seed), are
    # accepted.
    model = SvmTfidfRegressor(
        preset="camara2022", min_df=2, seed=3, head_options={"n_jobs": 1, "cache_grid": False}
    )
    head = model.regression_head
    assert (model.seed, head.n_jobs, head.cache_grid, head.scoring) == (3, 1, False, "r2")
    with pytest.raises(InputError, match="scoring must be one of"):
        SvmTfidfRegressor(head_options={"scoring": "spearman"})


@pytest.mark.slow
@pytest.mark.parametrize(("language", "dimension"), list(TABLE2_SVM_TFIDF))
def test_the_preset_reproduces_table_2_of_camara_2022(language, dimension):
    """Ours (test Pearson r): en .532/.524/.536/.503, es .406/.636/.550/.598, ar
    .366/.379/.477/.457."""
    scores = SvmTfidfRegressor(preset="camara2022").fit(language, dimension)
    assert scores.pearson_test == pytest.approx(TABLE2_SVM_TFIDF[language, dimension], abs=0.01)
