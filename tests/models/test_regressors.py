"""Emotion regressors: heads on planted data, the four model types on SemEval-2018, save/reload,
config errors."""

import numpy as np
import pytest
import scipy.stats
import torch
from helpers.small_semeval import small_semeval
from helpers.tiny_models import build_tiny_bert, build_tiny_classifier
from transformers import AutoModelForSequenceClassification, AutoTokenizer

import eval_harness.models.heads as heads
from eval_harness.data import TextSplit, clean_tweet
from eval_harness.errors import ConfigError, InputError
from eval_harness.models import (
    MODEL_TYPES,
    ClassifierScorer,
    EmbeddingCache,
    EmotionRegressor,
    MlpHead,
    ModelResources,
    ProbeRegressor,
    SvrHead,
    TransformerEncoder,
    build_emotion_model,
    fit_or_load,
    pearson_r,
)
from eval_harness.models.classifier import resolve_label


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


def saved_folders(directory):
    """The saved models in a fit_or_load directory (beside each, the storage kit keeps a hidden lock
    file)."""
    return [path for path in directory.iterdir() if not path.name.startswith(".")]


def planted(n, dim, rng, nonlinear=False):
    x = rng.normal(size=(n, dim))
    signal = np.sin(2 * x[:, 0]) + x[:, 1] ** 2 if nonlinear else x @ np.linspace(1, -1, dim)
    return x, 1 / (1 + np.exp(-signal)) + rng.normal(scale=0.02, size=n)


def test_pearson_r_matches_scipy_and_is_zero_for_a_constant():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=50), rng.normal(size=50)
    assert pearson_r(x, y) == pytest.approx(scipy.stats.pearsonr(x, y)[0], abs=1e-12)
    assert pearson_r(np.ones(5), np.arange(5.0)) == 0.0
    with pytest.raises(InputError):
        pearson_r([1.0], [2.0])


def test_clean_tweet_removes_mentions_and_entities_like_the_authors_code():
    assert (
        clean_tweet("@united  you lost my bag &amp; my   patience #angry")
        == "you lost my bag & my patience #angry"
    )


def test_mlp_head_learns_a_planted_signal_and_stops_early():
    rng = np.random.default_rng(1)
    x, y = planted(300, 8, rng)
    head = MlpHead(hidden_size=16, learning_rate=1e-2, max_epochs=200, patience=5, seed=3)
    head.fit(x[:200], y[:200], x[200:250], y[200:250])
    assert pearson_r(head.predict(x[250:]), y[250:]) > 0.95
    selected = head.selected
    assert selected["epochs_run"] < 200 and selected["epochs_run"] - selected["best_epoch"] == 5
    again = MlpHead(hidden_size=16, learning_rate=1e-2, max_epochs=200, patience=5, seed=3)
    again.fit(x[:200], y[:200], x[200:250], y[200:250])
    np.testing.assert_array_equal(
        again.predict(x[250:]), head.predict(x[250:])
    )  # seeded: reproducible
    restored = MlpHead.from_state(head.state())
    np.testing.assert_array_equal(restored.predict(x[250:]), head.predict(x[250:]))


def test_svr_head_picks_the_kernel_the_data_needs_and_caches_its_grid(monkeypatch):
    rng = np.random.default_rng(2)
    x, y = planted(300, 2, rng, nonlinear=True)
    grid = {"kernel": ["linear", "rbf"], "C": [1.0, 10.0], "gamma": [0.5]}
    head = SvrHead(grid=grid, n_jobs=2).fit(x[:200], y[:200], x[200:], y[200:])
    assert (
        head.selected["kernel"] == "rbf" and head.selected["grid_points"] == 4
    )  # linear ignores gamma
    linear_r = pearson_r(
        SvrHead(grid={"kernel": ["linear"], "C": [1.0]}, cache_grid=False)
        .fit(x[:200], y[:200], x[200:], y[200:])
        .predict(x[200:]),
        y[200:],
    )
    assert head.selected["validation_r"] > linear_r + 0.3

    def grid_must_not_run(*args, **kwargs):
        raise AssertionError("the grid ran again although its scores are cached")

    monkeypatch.setattr(heads, "_svr_validation_r", grid_must_not_run)
    cached = SvrHead(grid=grid, n_jobs=1).fit(x[:200], y[:200], x[200:], y[200:])
    assert cached.selected == head.selected


def test_head_options_are_checked():
    with pytest.raises(ConfigError, match="unknown head 'forest'; heads: mlp, ridge, svr"):
        ProbeRegressor(None, head="forest")
    with pytest.raises(InputError, match=r"unknown option\(s\) \['hidden'\]"):
        heads.make_head("mlp", {"hidden": 3})


# ------------------------------------------------------------------ probe over a frozen encoder


def test_probe_fits_predicts_saves_and_reloads_without_retraining(tiny_bert, tmp_path, monkeypatch):
    config = {
        "type": "encoder",
        "path": str(tiny_bert),
        "options": {"max_train": 200, "head": "mlp", "head_options": {"max_epochs": 5}},
    }
    resources = ModelResources(cache=EmbeddingCache(tmp_path / "embeddings"))
    model = fit_or_load(config, "en", "anger", tmp_path / "en-anger", resources)
    assert (
        model.scores.n_train == 200
        and model.scores.n_validation == 388
        and model.scores.n_test == 1002
    )
    texts = ["she feels angry", "he is happy", "this is a doctor"]
    predictions = model.predict(texts)
    assert predictions.shape == (3,) and predictions.dtype == np.float64
    assert ((0 <= predictions) & (predictions <= 1)).all()

    def no_training(*args, **kwargs):
        raise AssertionError("a saved model was retrained")

    monkeypatch.setattr(ProbeRegressor, "fit", no_training)
    reloaded = fit_or_load(
        config, "en", "anger", tmp_path / "en-anger", ModelResources(EmbeddingCache(tmp_path / "e"))
    )
    np.testing.assert_allclose(reloaded.predict(texts), predictions, atol=1e-6)
    assert reloaded.scores == model.scores
    changed = {
        **config,
        "options": {**config["options"], "seed": 1},
    }  # another model: trained, not reloaded
    with pytest.raises(AssertionError, match="retrained"):
        fit_or_load(changed, "en", "anger", tmp_path / "en-anger", resources)


def test_probe_encodes_the_language_once_for_all_dimensions(tiny_bert, tmp_path, monkeypatch):
    import eval_harness.data.emotion_splits as emotion_splits

    monkeypatch.setattr(emotion_splits, "load_semeval", small_semeval)
    encoder = TransformerEncoder.from_pretrained(
        tiny_bert, batch_size=64, cache=EmbeddingCache(tmp_path / "embeddings")
    )
    head_options = {"max_epochs": 1}
    ProbeRegressor(encoder, head="mlp", head_options=head_options).fit("en", "anger")
    passes = encoder.stats.forward_passes
    assert passes > 0
    ProbeRegressor(encoder, head="mlp", head_options=head_options).fit("en", "valence")
    assert encoder.stats.forward_passes == passes  # every valence text was encoded in the first fit


def test_probe_with_an_svr_head(tiny_bert):
    encoder = TransformerEncoder.from_pretrained(tiny_bert, pooling="mean")
    rng = np.random.default_rng(0)
    words = ["angry", "furious", "happy", "glad", "sad", "afraid"]
    texts = [" ".join(rng.choice(words, size=4)) for _ in range(120)]
    y = np.array([text.count("angry") + text.count("furious") for text in texts]) / 4.0
    split = {
        name: TextSplit(texts[i::3], y[i::3])
        for i, name in enumerate(("train", "validation", "test"))
    }
    probe = ProbeRegressor(
        encoder, head="svr", head_options={"grid": {"kernel": ["rbf"], "C": [1.0, 10.0]}}
    )
    scores = probe.fit_splits(split, "en", "anger")
    assert scores.selected["head"] == "svr" and scores.selected["C"] in (1.0, 10.0)
    assert scores.pearson_test > 0.5  # even random tiny-BERT vectors tell the anger words apart


# ------------------------------------------------------------------ classifier used as is


@pytest.fixture(scope="module")
def tiny_classifier(tmp_path_factory):
    return build_tiny_classifier(
        tmp_path_factory.mktemp("tiny") / "classifier", labels=("Joy", "ANGER", "sadness")
    )


def test_label_mapping_is_case_insensitive_and_overridable():
    labels = {0: "LABEL_0", 1: "Angry", 2: "joy"}
    assert resolve_label(labels, "anger") == 1
    assert resolve_label(labels, "joy") == 2
    assert resolve_label(labels, "fear", {"fear": "label_0"}) == 0
    assert resolve_label(labels, "fear", {"fear": 2}) == 2
    with pytest.raises(
        InputError, match=r"labels \['LABEL_0', 'Angry', 'joy'\]; none maps to 'sadness'.*label_map"
    ):
        resolve_label(labels, "sadness")


def test_classifier_scores_are_the_mapped_labels_probability(tiny_classifier):
    model = build_emotion_model(
        {"type": "classifier", "path": str(tiny_classifier), "options": {"preprocess": None}}
    )
    assert isinstance(model, ClassifierScorer) and model.select_label("anger") == 1
    texts = ["she feels angry", "he is very happy and glad", "a"]
    direct_model = AutoModelForSequenceClassification.from_pretrained(tiny_classifier).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_classifier)
    with torch.no_grad():
        expected = [
            torch.softmax(direct_model(**tokenizer(text, return_tensors="pt")).logits[0], -1)[
                1
            ].item()
            for text in texts
        ]
    np.testing.assert_allclose(model.predict(texts), expected, atol=1e-6)


def test_classifier_with_an_unmappable_label_is_a_clear_error(tiny_classifier):
    model = build_emotion_model({"type": "classifier", "path": str(tiny_classifier)})
    with pytest.raises(InputError, match=r"\['Joy', 'ANGER', 'sadness'\]; none maps to 'fear'"):
        model.fit("en", "fear")


def test_a_regression_head_gives_its_raw_output(tmp_path):
    folder = build_tiny_classifier(tmp_path / "regression", labels=None)
    model = build_emotion_model(
        {"type": "classifier", "path": str(folder), "options": {"preprocess": None}}
    )
    model.select_label("valence")
    direct_model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    with torch.no_grad():
        expected = (
            direct_model(**tokenizer("she is happy", return_tensors="pt")).logits[0, 0].item()
        )
    assert model.predict(["she is happy"])[0] == pytest.approx(expected, abs=1e-6)


def test_classifier_fit_scores_on_semeval_and_reloads(tiny_classifier, tmp_path):
    config = {"type": "classifier", "path": str(tiny_classifier)}
    model = fit_or_load(config, "en", "sadness", tmp_path / "clf")
    assert model.scores.selected == {"label": "sadness", "label_index": 2, "output": "probability"}
    assert (model.scores.n_train, model.scores.n_validation, model.scores.n_test) == (
        1533,
        397,
        975,
    )
    assert -1 <= model.scores.pearson_test <= 1
    (saved,) = saved_folders(tmp_path / "clf")  # one folder per model identity
    reloaded = EmotionRegressor.load(saved)
    np.testing.assert_allclose(reloaded.predict(["so sad"]), model.predict(["so sad"]))


# ------------------------------------------------------------------ baselines and the factory


@pytest.mark.slow
def test_svm_tfidf_on_semeval_english_anger_reaches_the_papers_range(tmp_path):
    """Test Pearson r 0.496 selecting on validation (0.556 refitting on train + validation, as the
    authors' GridSearchCV does); the paper reports 0.533 for this cell."""
    model = fit_or_load({"type": "svm_tfidf"}, "en", "anger", tmp_path / "svm")
    assert model.scores.pearson_test >= 0.45
    assert model.scores.selected["kernel"] in ("linear", "rbf")
    anger = model.predict(
        ["I am furious, this is outrageous and I hate it", "What a lovely calm morning"]
    )
    assert anger[0] > anger[1]
    (saved,) = saved_folders(tmp_path / "svm")
    reloaded = EmotionRegressor.load(saved)
    np.testing.assert_array_equal(reloaded.predict(["so angry"]), model.predict(["so angry"]))


@pytest.mark.slow
def test_static_mlp_with_glove_on_semeval_english_anger():
    """GloVe 6B 50d mean vectors + MLP: test Pearson r 0.33 (the paper's fastText baseline: 0.44
    with 300d vectors)."""
    model = build_emotion_model({"type": "static_mlp", "id": "glove"})
    scores = model.fit("en", "anger")
    assert scores.pearson_test > 0.25


def test_the_factory_rejects_bad_configs(tiny_bert):
    assert {"encoder", "classifier", "svm_tfidf", "static_mlp"} <= set(MODEL_TYPES)
    with pytest.raises(ConfigError, match="unknown model type 'bert'"):
        build_emotion_model({"type": "bert"})
    with pytest.raises(ConfigError, match="needs 'id'"):
        build_emotion_model({"type": "encoder"})
    with pytest.raises(
        ConfigError, match=r"unknown option\(s\) 'hiden_size' for model type 'encoder'"
    ):
        build_emotion_model(
            {"type": "encoder", "path": str(tiny_bert), "options": {"hiden_size": 3}}
        )
    with pytest.raises(ConfigError, match="unknown key"):
        build_emotion_model({"type": "svm_tfidf", "model": "x"})
    with pytest.raises(InputError, match="not fitted"):
        build_emotion_model({"type": "svm_tfidf"}).predict(["a"])
