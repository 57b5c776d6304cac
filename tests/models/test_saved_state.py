"""Fitted regressors are saved without pickles and reload to exactly the predictions they made
before saving.

- every trained type (SVM-tfidf with its default grid and with the camara2022 preset, the
  static-vector MLP and SVR, the encoder probe with an MLP and an SVR head) reloads from
  state.json + state.safetensors and predicts the same numbers to the last bit;
- the state files hold plain values, arrays and trusted estimators only; a file naming another
  class, an object dtype or another scikit-learn version is refused, and saving anything else is
  refused;
- fit_or_load: an older xbias's pickle (model.joblib) is trained again, never read; an older format
  without one, a corrupted folder and an unreadable state are trained again with one warning each;
- a warm fit_or_load loads the encoder's weights once (issue 25: the config's options and the save's
  differ).
"""

import json
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers.anger_words import WORDS, anger_splits
from helpers.tiny_models import build_tiny_bert
from sklearn.svm import SVR

import eval_harness.models.regressors as regressors
from eval_harness.data.emotion_splits import SemEvalSplits
from eval_harness.errors import InputError, ModelLoadError
from eval_harness.io import BUILD_MARKER, read_json, verify_checksums, write_checksums
from eval_harness.models import (
    EmotionRegressor,
    ModelResources,
    build_emotion_model,
    fit_or_load,
    loading,
)
from eval_harness.models.saved_state import load_state, save_state
from eval_harness.models.static import StaticVectors

UNSEEN = [
    "rage rage calm",
    "peace ok",
    "furious and mad",
    "nothing known here",
    "happy happy sad afraid",
]
SPLITS = anger_splits()
SMALL_GRID = {
    "grid": {"kernel": ["linear", "rbf"], "C": [1.0, 3.0], "gamma": ["scale", 0.5]},
    "n_jobs": 1,
}


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


class VectorResources(ModelResources):
    """Resources whose static vectors are the test's."""

    def static_vectors(self, source, **options):
        return StaticVectors(WORDS, np.random.default_rng(1).normal(size=(len(WORDS), 6)))


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


def config(kind: str, tiny_bert) -> dict:
    mlp = {"hidden_size": 8, "max_epochs": 6, "patience": 3}
    return {
        "svm_tfidf": {"type": "svm_tfidf", "options": {"min_df": 1, "head_options": SMALL_GRID}},
        "svm_tfidf_camara2022": {"type": "svm_tfidf", "options": {"preset": "camara2022"}},
        "static_mlp": {"type": "static_mlp", "path": "vectors", "options": {"head_options": mlp}},
        "static_svr": {
            "type": "static_mlp",
            "path": "vectors",
            "options": {"head": "svr", "head_options": SMALL_GRID},
        },
        "static_ridge": {"type": "static_vectors", "path": "vectors", "options": {}},
        "probe_ridge": {
            "type": "encoder",
            "path": str(tiny_bert),
            "options": {"pooling": "mean", "share_dimensions": False},
        },
        # share_dimensions off: with it, a probe encodes every SemEval text of the language first
        "probe_mlp": {
            "type": "encoder",
            "path": str(tiny_bert),
            "options": {
                "pooling": "mean",
                "head": "mlp",
                "head_options": mlp,
                "share_dimensions": False,
            },
        },
        "probe_svr": {
            "type": "encoder",
            "path": str(tiny_bert),
            "options": {
                "head": "svr",
                "head_options": SMALL_GRID,
                "refit_on_validation": True,
                "share_dimensions": False,
            },
        },
    }[kind]


KINDS = [
    "svm_tfidf",
    "svm_tfidf_camara2022",
    "static_mlp",
    "static_svr",
    "static_ridge",
    "probe_mlp",
    "probe_svr",
    "probe_ridge",
]


@pytest.mark.parametrize("kind", KINDS)
def test_a_reloaded_regressor_predicts_exactly_what_it_predicted_before_saving(
    kind, tiny_bert, tmp_path
):
    resources = VectorResources()
    model = build_emotion_model(config(kind, tiny_bert), resources)
    model.fit_splits(SPLITS, "en", "anger")
    texts = SPLITS["test"].texts + UNSEEN
    before = model.predict(texts)
    model.save(tmp_path / "saved")
    assert sorted(path.name for path in (tmp_path / "saved").iterdir()) == [
        "regressor.json",
        "state.json",
        "state.safetensors",
    ]
    reloaded = EmotionRegressor.load(tmp_path / "saved", VectorResources())
    assert (
        reloaded is not model
        and reloaded.identity() == model.identity()
        and reloaded.scores == model.scores
    )
    np.testing.assert_array_equal(reloaded.predict(texts), before)  # to the last bit
    assert np.ptp(before) > 0  # a model that predicts something


def test_the_state_is_plain_json_and_arrays_with_trusted_estimators_only(tmp_path):
    model = build_emotion_model(config("svm_tfidf", None))
    model.fit_splits(SPLITS, "en", "anger")
    model.save(tmp_path)
    text = (tmp_path / "state.json").read_text()
    assert '"$estimator": ["SVR"' in text and '"$estimator": ["TfidfVectorizer"' in text
    assert '"$estimator": ["TfidfTransformer"' in text
    from safetensors.numpy import load_file

    arrays = load_file(tmp_path / "state.safetensors")
    assert arrays and all(array.dtype.kind in "biuf" for array in arrays.values())


@pytest.mark.parametrize(
    ("planted", "message"),
    [
        ({"$estimator": ["os.system", {}]}, "not a trusted estimator"),
        ({"$estimator": ["SVR", {"_sklearn_version": "0.0.1"}]}, "scikit-learn 0.0.1"),
        ({"$dtype": "object"}, "unknown saved value"),
        ({"$scalar": ["object", 1]}, "unknown saved value"),
        ({"$pickle": "gASV"}, "unknown saved value"),
        ({"$sparse": ["coo_matrix", [1, 1], "a0", "a0", "a0"]}, "coo_matrix"),
    ],
)
def test_a_state_naming_anything_else_is_refused(tmp_path, planted, message):
    save_state(tmp_path, "state", {"head": np.zeros(3)})
    document = read_json(tmp_path / "state.json")
    document["tree"]["head"] = planted
    (tmp_path / "state.json").write_text(json.dumps(document))
    with pytest.raises(ModelLoadError, match=message):
        load_state(tmp_path, "state")


def test_values_of_other_kinds_are_refused_when_saving(tmp_path):
    for value in (np.array(["a", None], dtype=object), {1, 2}, lambda: 0, SVR().__class__):
        with pytest.raises(InputError, match="cannot save"):
            save_state(tmp_path, "state", {"x": value})


def test_the_saved_values_come_back_as_they_were(tmp_path):
    state = {
        "numbers": [1, 2.5, float("nan"), float("-inf"), True, None, "s"],
        "tuple": (np.float32(0.1), np.int64(7), np.float64),
        "$keyed": {1: "one", (2, 3): "pair"},
        "csr": sp.csr_matrix(np.eye(3)),
        "csc_array": sp.csc_array(np.arange(6.0).reshape(2, 3)),
        "arrays": [
            np.zeros((0, 4), np.float32),
            np.array(3.0),
            np.arange(4, dtype=np.int32),
            np.array([True]),
        ],
    }
    save_state(tmp_path, "state", state)
    back = load_state(tmp_path, "state")
    numbers = back["numbers"]
    assert numbers[:2] == [1, 2.5] and np.isnan(numbers[2]) and numbers[3:] == state["numbers"][3:]
    assert (
        back["tuple"] == state["tuple"]
        and type(back["tuple"][0]) is np.float32
        and back["tuple"][2] is np.float64
    )
    assert back["$keyed"] == state["$keyed"]
    assert type(back["csr"]) is sp.csr_matrix and (back["csr"] != state["csr"]).nnz == 0
    assert (
        type(back["csc_array"]) is sp.csc_array
        and (back["csc_array"] != state["csc_array"]).nnz == 0
    )
    for got, expected in zip(back["arrays"], state["arrays"], strict=True):
        assert (
            got.dtype == expected.dtype
            and got.shape == expected.shape
            and np.array_equal(got, expected)
        )


# ------------------------------------------------------------------ fit_or_load and older formats


@pytest.fixture
def svm_config(monkeypatch):
    """An svm_tfidf config trained on the test's splits; ``fits`` counts the trainings."""
    monkeypatch.setattr(SemEvalSplits, "splits", lambda self, *args, **kwargs: SPLITS)
    fits = []
    original = regressors.SvmTfidfRegressor.fit

    def counted(self, language, dimension, semeval=None):
        fits.append((language, dimension))
        return original(self, language, dimension, semeval)

    monkeypatch.setattr(regressors.SvmTfidfRegressor, "fit", counted)
    return config("svm_tfidf", None), fits


def caught_warnings(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = action()
    return result, [
        str(warning.message) for warning in caught if "cached regressor" in str(warning.message)
    ]


def test_fit_or_load_reloads_a_verified_save_and_retrains_what_is_not_one(svm_config, tmp_path):
    svm, fits = svm_config
    first = fit_or_load(svm, "en", "anger", tmp_path / "regressors")
    (folder,) = [
        path for path in (tmp_path / "regressors").iterdir() if not path.name.startswith(".")
    ]
    stamp = verify_checksums(folder)["stamp"]
    assert stamp == {"identity": first.identity()} and len(fits) == 1
    reloaded, messages = caught_warnings(
        lambda: fit_or_load(svm, "en", "anger", tmp_path / "regressors")
    )
    assert len(fits) == 1 and not messages
    np.testing.assert_array_equal(reloaded.predict(UNSEEN), first.predict(UNSEEN))

    def retrained(damage, expected):
        damage()
        model, messages = caught_warnings(
            lambda: fit_or_load(svm, "en", "anger", tmp_path / "regressors")
        )
        assert len(messages) == 1 and expected in messages[0] and "trained again" in messages[0], (
            messages
        )
        assert (
            verify_checksums(folder, stamp) is not None and not (folder / "model.joblib").exists()
        )
        np.testing.assert_array_equal(model.predict(UNSEEN), first.predict(UNSEEN))

    # an older xbias's folder: a pickle beside format-1 metadata and checksums.json (never
    # unpickled: if it were, loading this one would raise, since it is not a regressor state)
    def older_with_a_pickle():
        (folder / "model.joblib").write_bytes(pickle.dumps({"not": "a state"}))
        (folder / BUILD_MARKER).rename(folder / "checksums.json")

    retrained(older_with_a_pickle, "holds a pickle (model.joblib")
    # a pickle planted in a current folder, resealed with the project's checksum writer
    retrained(
        lambda: (
            (folder / "model.joblib").write_bytes(b"\x80\x04."),
            write_checksums(folder, stamp),
        ),
        "pickle",
    )
    retrained(
        lambda: (folder / BUILD_MARKER).rename(folder / "checksums.json"), "of an older format"
    )
    retrained(lambda: (folder / "state.safetensors").write_bytes(b"damaged"), "corrupted")
    retrained(
        lambda: ((folder / "state.json").write_text("{}"), write_checksums(folder, stamp)),
        "cannot be read",
    )
    assert len(fits) == 6


def test_a_warm_fit_or_load_loads_the_encoder_weights_once(tiny_bert, tmp_path, monkeypatch):
    monkeypatch.setattr(SemEvalSplits, "splits", lambda self, *args, **kwargs: SPLITS)
    loads = []
    original = loading.load_pretrained

    def counted(*args, **kwargs):
        loads.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(loading, "load_pretrained", counted)
    # the options a config gives (two encoder options of four): a save records all four
    probe = {
        "type": "encoder",
        "path": str(tiny_bert),
        "options": {
            "pooling": "mean",
            "share_dimensions": False,
            "head": "mlp",
            "head_options": {"max_epochs": 2},
        },
    }
    cold = fit_or_load(probe, "en", "anger", tmp_path / "regressors", ModelResources())
    assert len(loads) == 1
    resources = ModelResources()  # a new process's
    warm = fit_or_load(probe, "en", "anger", tmp_path / "regressors", resources)
    assert (
        len(loads) == 2
    )  # the warm run loaded the encoder once, not once more to restore the probe
    (folder,) = [
        path for path in (tmp_path / "regressors").iterdir() if not path.name.startswith(".")
    ]
    again = EmotionRegressor.load(
        folder, resources
    )  # rebuilt from the save's options: the same weights
    assert len(loads) == 2 and again.encoder.model is warm.encoder.model
    np.testing.assert_array_equal(warm.predict(UNSEEN), cold.predict(UNSEEN))
    np.testing.assert_array_equal(again.predict(UNSEEN), cold.predict(UNSEEN))
