"""Emotion-intensity regressors, one per (language, dimension), trained on SemEval-2018 Task 1.

Every model here answers the same interface (:class:`EmotionRegressor`):

- ``fit(language, dimension) -> RegressorScores``: train on the SemEval-2018 ``train`` split of
  ``load_semeval(language, dimension)``, select hyperparameters on ``validation``, and report
  Pearson r (the task's official metric) on ``validation`` and ``test``;
- ``predict(texts) -> np.ndarray`` of intensities (clipped to [0, 1], the scale of the data);
- ``save(directory)`` / ``EmotionRegressor.load(directory)``: a second run reloads, never retrains.
  A save is ``regressor.json`` (type, source, identity, scores) and, for a trained model, its fitted
  head and featuriser as ``state.json`` + ``state.safetensors``
  (:mod:`eval_harness.models.saved_state`: plain values and arrays, rebuilt by us; never a pickle).

The trained ones are a featuriser plus a head (:mod:`eval_harness.models.heads`):

- :class:`ProbeRegressor` (type ``"encoder"``) — the paper's method: a frozen
  :class:`TransformerEncoder` (last layer [CLS] by default) and a head: closed-form ridge by default
  (deterministic, no seed), the paper's two-layer feed-forward head (``head="mlp"``) or an SVR grid
  (``head="svr"``). With an embedding cache, the texts of all
  five dimensions of a language are encoded in one pass, once, and every dimension's fit reads
  its rows from the cache (``share_dimensions=True``).
- :class:`SvmTfidfRegressor` (``"svm_tfidf"``) — the paper's baseline: TF-IDF over word 1-2-grams
  (min_df 2, sparse) and an SVR with kernel, C and gamma chosen on validation. Its default grid
  (:data:`~eval_harness.models.heads.DEFAULT_SVR_GRID`, chosen by validation Pearson r, no refit)
  is ours; ``preset="camara2022"`` is the authors' protocol, which reproduces the paper's Table 2
  (all 12 en/es/ar cells within 0.01): the vectoriser fitted on train, the SVR grid
  C ∈ {0.1, 1, 10, 100} × gamma ∈ {1, 0.1, 0.01, 0.001} × kernel ∈ {rbf, poly, sigmoid} chosen by
  validation R² (``GridSearchCV``'s default scoring over a ``PredefinedSplit``) and refitted on
  train + validation with the train vectoriser, Pearson r reported on the SVR's raw (unclipped)
  output (:data:`SVM_TFIDF_PRESETS`).
- :class:`StaticVectorRegressor` (``"static_vectors"``): a text is the mean of the static vectors of
  its words (any file :class:`StaticVectors` reads), then the ridge head;
  :class:`StaticMlpRegressor` (``"static_mlp"``, the earlier name) is the paper's fastText baseline
  with the MLP head.

Tweets are cleaned as the authors' code does before training and prediction
(``preprocess="tweet"``: @mentions removed, ``&amp;`` unescaped, white space collapsed).
"""

import copy
import inspect
import json
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from eval_harness.data.emotion_splits import (
    PREPROCESSORS,
    SPLITS,
    SemEvalSplits,
    TextSplit,
    preprocess_text,
)
from eval_harness.errors import InputError, ModelLoadError, XBiasError
from eval_harness.io import atomic_write_json, read_json
from eval_harness.models.heads import head_from_state, make_head, pearson_r
from eval_harness.models.registry import (
    ENCODER_OPTIONS,
    PROBE_ENCODER_OPTIONS,
    VECTOR_OPTIONS,
    model_type,
    refitting_heads,
)
from eval_harness.models.saved_state import load_state, save_state

# 2: the fitted state in state.json + state.safetensors (1 was a pickle, model.joblib: never read).
SAVE_FORMAT = 2
SAVED_META = "regressor.json"
SAVED_STATE = "state"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class RegressorScores:
    """Quality of one fitted regressor: Pearson r on SemEval validation and test, and what was
    selected."""

    model_type: str
    language: str
    dimension: str
    pearson_validation: float
    pearson_test: float
    n_train: int
    n_validation: int
    n_test: int
    selected: dict = field(default_factory=dict)

    def __post_init__(self):
        # In key order: a restored model's selection (read back from its saved JSON, written with
        # sorted keys) then gives the very bytes of a freshly trained one's in results.jsonl, not
        # only equal values.
        object.__setattr__(self, "selected", _in_key_order(self.selected))

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        chosen = ", ".join(f"{key}={value}" for key, value in self.selected.items())
        return (
            f"{self.model_type} {self.language}/{self.dimension}: Pearson r "
            f"validation {self.pearson_validation:.3f}, test {self.pearson_test:.3f} "
            f"(n = {self.n_train}/{self.n_validation}/{self.n_test})"
            + (f"; selected {chosen}" if chosen else "")
        )


class EmotionRegressor:
    """Interface of every emotion model: fit(language, dimension) / predict(texts) / save / load."""

    model_type: ClassVar[str]
    # Constructor parameters that are collaborators (what the model is built on) or settings that do
    # not change a number (where and how fast it runs): not part of the model's options.
    SOURCE_PARAMETERS: ClassVar[frozenset[str]] = frozenset(
        {"encoder", "vectors", "model", "tokenizer", "name", "folder", "source", "lm", "cache"}
    )
    RUNTIME_PARAMETERS: ClassVar[frozenset[str]] = frozenset({"batch_size", "device", "progress"})
    language: str | None = None
    dimension: str | None = None
    scores: RegressorScores | None = None

    def __init__(
        self, *, preprocess: str | None = "tweet", max_train: int | None = None, seed: int = 0
    ):
        if preprocess not in PREPROCESSORS:
            raise InputError(f"preprocess must be one of {PREPROCESSORS}, got {preprocess!r}")
        if max_train is not None and (not isinstance(max_train, int) or max_train < 2):
            raise InputError(f"max_train must be None or an integer >= 2, got {max_train!r}")
        self.preprocess = preprocess
        self.max_train = max_train
        self.seed = seed

    def __repr__(self) -> str:
        fitted = f", fitted on {self.language}/{self.dimension}" if self.dimension else ""
        return f"{type(self).__name__}({self.source_name()!r}{fitted})"

    # ---- what subclasses provide
    def _fit(self, splits: Mapping[str, TextSplit]) -> dict:
        """Train on ``splits`` (already cleaned); return what was selected (hyperparameters)."""
        raise NotImplementedError

    def _raw_predict(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def source_name(self) -> str:
        """The id/path of what the model is built on (encoder, vectors...)."""
        return ""

    def source_fingerprint(self) -> str:
        """Content hash of what the model is built on (weights, vectors); part of
        :meth:`identity`."""
        return ""

    @classmethod
    def build(cls, source: str | None, options: Mapping[str, Any], resources) -> "EmotionRegressor":
        """An unfitted model on ``source`` (loaded through ``resources``, a ``ModelResources``) with
        ``options``."""
        return cls(**options)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """Refuse option values this model would refuse once built (InputError), where that can be
        told without loading its source; called before a run writes anything. By default nothing is
        checked here."""

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The constructor's option parameters, following ``**kwargs`` up to the base classes that
        take them."""
        names: list[str] = []
        for klass in cls.__mro__:
            if "__init__" not in vars(klass):
                continue
            parameters = inspect.signature(vars(klass)["__init__"]).parameters.values()
            for parameter in parameters:
                named = parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD)
                excluded = cls.SOURCE_PARAMETERS | cls.RUNTIME_PARAMETERS | {"self"}
                if named and parameter.name not in excluded and parameter.name not in names:
                    names.append(parameter.name)
            if not any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters):
                break
        return tuple(names)

    def options(self) -> dict:
        """The options that, with the source, rebuild this model unfitted (scikit-learn's
        ``get_params``
        convention: every option parameter of the constructor is kept as the attribute of that
        name)."""
        return {name: getattr(self, name) for name in self.option_names()}

    def _save_state(self, directory: Path) -> None:
        return None

    def _restore_state(self, directory: Path) -> None:
        """Read what :meth:`_save_state` wrote (the model's ``language``/``dimension`` are already
        set)."""

    @classmethod
    def rebuild(
        cls, source: str | None, options: Mapping[str, Any], resources
    ) -> "EmotionRegressor":
        """The unfitted model a save describes: its source and the options of its identity
        (:meth:`build`, unless the identity records options in another shape than a config gives
        them)."""
        return cls.build(source, options, resources)

    clip_output: ClassVar[bool] = True
    # predict() runs a neural network itself (a harness shares it out over its ranks).
    heavy_predict: ClassVar[bool] = False

    # ---- the interface
    def fit(
        self, language: str, dimension: str, semeval: SemEvalSplits | None = None
    ) -> RegressorScores:
        """Train on SemEval-2018 (language, dimension), select on validation, score on validation
        and test.

        ``semeval``: where the splits come from (a run's models share one, so each is loaded once);
        default: read now."""
        splits = (semeval or SemEvalSplits()).splits(
            language,
            dimension,
            preprocess=self.preprocess,
            max_train=self.max_train,
            seed=self.seed,
        )
        return self.fit_splits(splits, language, dimension)

    def fit_splits(
        self, splits: Mapping[str, TextSplit], language: str, dimension: str
    ) -> RegressorScores:
        """:meth:`fit` on given train/validation/test splits (texts already cleaned)."""
        missing = [name for name in SPLITS if name not in splits]
        if missing:
            raise InputError(f"fit_splits needs splits {SPLITS}; missing {missing}")
        for name in ("validation", "test"):
            if len(splits[name]) < 2:
                raise InputError(
                    f"the {name} split has {len(splits[name])} texts; Pearson r needs at least 2"
                )
        self.language, self.dimension = language, dimension
        selected = self._fit(splits)
        validation, test = splits["validation"], splits["test"]
        # A model refitted on train + validation has seen the validation texts: report the held-out
        # r.
        validation_r = selected.get("held_out_validation_r")
        if validation_r is None:
            validation_r = pearson_r(
                self._scored_output(self._raw_predict(validation.texts)), validation.intensity
            )
        self.scores = RegressorScores(
            model_type=self.model_type,
            language=language,
            dimension=dimension,
            pearson_validation=validation_r,
            pearson_test=pearson_r(
                self._scored_output(self._raw_predict(test.texts)), test.intensity
            ),
            n_train=len(splits["train"]),
            n_validation=len(splits["validation"]),
            n_test=len(splits["test"]),
            selected=_jsonable(selected),
        )
        return self.scores

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Intensity scores ``(len(texts),)`` float64 for the fitted (language, dimension)."""
        if self.dimension is None:
            raise InputError(
                f"{type(self).__name__} is not fitted; call "
                "fit(language, dimension) or load() first"
            )
        if isinstance(texts, str):
            raise InputError("predict() takes a list of texts, not one string; wrap it in a list")
        texts = list(texts)
        if not texts:
            raise InputError("predict() got an empty list of texts")
        bad = [index for index, text in enumerate(texts) if not isinstance(text, str)]
        if bad:
            raise InputError(
                f"predict() needs strings; {len(bad)} items are not, e.g. at index {bad[:5]}"
            )
        return self._output(
            self._raw_predict([preprocess_text(text, self.preprocess) for text in texts])
        )

    def identity(self, language: str | None = None, dimension: str | None = None) -> dict:
        """What makes two models the same: type, source content, options, language and dimension."""
        return {
            "type": self.model_type,
            "source_fingerprint": self.source_fingerprint(),
            "options": _jsonable(self.options()),
            "language": language or self.language,
            "dimension": dimension or self.dimension,
        }

    def save(self, directory: str | Path) -> Path:
        """Write ``regressor.json`` (+ state files) into ``directory``; returns the folder."""
        if self.scores is None:
            raise InputError("nothing to save: the model is not fitted")
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self._save_state(directory)
        meta = {
            "format": SAVE_FORMAT,
            "type": self.model_type,
            "source": self.source_name(),
            "identity": self.identity(),
            "scores": self.scores.to_dict(),
        }
        atomic_write_json(directory / SAVED_META, meta, indent=2)
        return directory

    def restore(self, directory: str | Path) -> "EmotionRegressor":
        """Give this unfitted model the fitted state saved in ``directory`` by a model of the same
        identity (type, source content, options), for the language and dimension saved there;
        returns the model.

        Raises:
            ModelLoadError: no save there, a save of another format or another model, or unreadable
            state.
        """
        directory = Path(directory)
        meta = read_saved_meta(directory)
        try:
            saved, scores = meta["identity"], RegressorScores(**meta["scores"])
            fingerprint, language, dimension = (
                saved["source_fingerprint"],
                saved["language"],
                saved["dimension"],
            )
        except (KeyError, TypeError) as error:
            raise ModelLoadError(
                f"{directory / SAVED_META} does not describe a saved model ({error!r})"
            ) from None
        if self.source_fingerprint() != fingerprint:
            raise ModelLoadError(
                f"the model saved in {directory} was built on "
                f"{meta.get('source')!r} with fingerprint "
                f"{str(fingerprint)[:12]}..., but that source now has fingerprint "
                f"{self.source_fingerprint()[:12]}...; delete the folder to retrain"
            )
        if self.identity(language, dimension) != saved:
            raise ModelLoadError(
                f"the model saved in {directory} is another model (other type or options)"
            )
        self.language, self.dimension = language, dimension
        self._restore_state(directory)
        self.scores = scores
        return self

    @staticmethod
    def load(directory: str | Path, resources=None) -> "EmotionRegressor":
        """Reload a saved model of any type (``resources`` shares encoders/vectors; see
        ``ModelResources``).

        Raises:
            ModelLoadError: no save there, one of another format or type, or a source that changed.
        """
        from eval_harness.models.registry import model_type
        from eval_harness.models.resources import ModelResources
        from eval_harness.registry import resolve

        meta = read_saved_meta(directory)
        model_class = resolve(model_type(meta["type"]).emotion_model_for({}))
        model = model_class.rebuild(
            meta["source"], dict(meta["identity"]["options"]), resources or ModelResources()
        )
        return model.restore(directory)

    def _output(self, raw: np.ndarray) -> np.ndarray:
        raw = np.asarray(raw, dtype=np.float64)
        return np.clip(raw, 0.0, 1.0) if self.clip_output else raw

    def _scored_output(self, raw: np.ndarray) -> np.ndarray:
        """The output whose Pearson r :meth:`fit_splits` reports: what :meth:`predict` returns, by
        default."""
        return self._output(raw)


class FeatureRegressor(EmotionRegressor):
    """A featuriser (texts -> matrix) plus a head fitted on train and selected on validation (the
    head's own protocol: ridge fits on train + validation with leave-one-out).

    ``head``: the head the factory resolved for the model's type
    (:meth:`~eval_harness.models.registry.ModelType.head_for`), or None for this class's type's
    default."""

    def __init__(
        self,
        head: str | None = None,
        head_options: dict | None = None,
        refit_on_validation: bool = False,
        **common,
    ):
        super().__init__(**common)
        described = model_type(self.model_type).head_for({"head": head})
        if described is None:
            raise InputError(f"model type {self.model_type!r} has no default head; give head")
        self.head_description = described
        self.head = described.name
        self.head_options = dict(head_options or {})
        # The head's own randomness (an MLP's initialisation and shuffling) follows the model's
        # seed, so that the sweep's seeds train different heads; a seed in head_options still wins.
        # head_options stays as given.
        seed = {"seed": self.seed} if described.seeded else {}
        self.regression_head = make_head(self.head, {**seed, **self.head_options})
        if refit_on_validation and not described.refits:
            raise InputError(
                f"refit_on_validation needs a head that refits on train + validation "
                f"({', '.join(refitting_heads())}), not {self.head!r}"
            )
        self.refit_on_validation = refit_on_validation

    def features(self, texts: list[str]):
        raise NotImplementedError

    def _fit_featuriser(self, texts: list[str]) -> None:
        """Learn what the featuriser needs from training texts (nothing, for a frozen one)."""

    def _refit_featuriser(self, texts: list[str]) -> None:
        """Before the refit on train + validation: learn the featuriser again from ``texts`` (by
        default)."""
        self._fit_featuriser(texts)

    def _fit(self, splits: Mapping[str, TextSplit]) -> dict:
        train, validation = splits["train"], splits["validation"]
        self._fit_featuriser(train.texts)
        self.regression_head.fit(
            self.features(train.texts),
            train.intensity,
            self.features(validation.texts),
            validation.intensity,
        )
        selected = {"head": self.head, **self.regression_head.selected}
        if self.refit_on_validation:
            # The authors' protocol (GridSearchCV over a PredefinedSplit refits on train +
            # validation):
            # the chosen setting is refitted on both; the validation r reported is the held-out one.
            texts = train.texts + validation.texts
            self._refit_featuriser(texts)
            self.regression_head.refit(
                self.features(texts), np.concatenate([train.intensity, validation.intensity])
            )
            selected["held_out_validation_r"] = self.regression_head.selected["validation_r"]
        return selected

    def _raw_predict(self, texts: list[str]) -> np.ndarray:
        return self.regression_head.predict(self.features(texts))

    def _save_state(self, directory: Path) -> None:
        state = {"head": self.regression_head.state(), "featuriser": self._featuriser_state()}
        save_state(directory, SAVED_STATE, state)

    def _featuriser_state(self) -> Any:
        return None

    def _restore_state(self, directory: Path) -> None:
        state = load_state(directory, SAVED_STATE)
        try:
            self.regression_head = head_from_state(state["head"])
            featuriser = state["featuriser"]
        except (KeyError, TypeError, XBiasError) as error:
            raise ModelLoadError(
                f"the state saved in {directory} is not a fitted head ({error})"
            ) from None
        self._set_featuriser_state(featuriser)

    def _set_featuriser_state(self, state: Any) -> None:
        return None


class ProbeRegressor(FeatureRegressor):
    """The paper's probe on frozen encoder vectors ([CLS], last layer): a ridge head by default, the
    paper's feed-forward head with ``head="mlp"``, or an SVR grid."""

    model_type = "encoder"

    def __init__(
        self,
        encoder,
        head: str | None = None,
        head_options: dict | None = None,
        share_dimensions: bool = True,
        **common,
    ):
        super().__init__(head, head_options, **common)
        self.encoder = encoder
        self.share_dimensions = share_dimensions
        self._rows: dict[str, int] | None = None
        self._matrix: np.ndarray | None = None

    def source_name(self) -> str:
        return self.encoder.name

    def source_fingerprint(self) -> str:
        return self.encoder.fingerprint

    @classmethod
    def build(cls, source, options, resources) -> "ProbeRegressor":
        options = dict(options)
        encoder_options = {name: options.pop(name) for name in ENCODER_OPTIONS if name in options}
        return cls(resources.encoder(source, **encoder_options), **options)

    def options(self) -> dict:
        encoder_options = {key: getattr(self.encoder, key) for key in PROBE_ENCODER_OPTIONS}
        return {**super().options(), **encoder_options}

    def features(self, texts: list[str]) -> np.ndarray:
        if self._rows is not None and all(text in self._rows for text in texts):
            return self._matrix[[self._rows[text] for text in texts]]
        return self.encoder.encode(texts)

    def fit(
        self, language: str, dimension: str, semeval: SemEvalSplits | None = None
    ) -> RegressorScores:
        # With a cache, one encoding of every text of the dimensions the run fits (all five, or the
        # one asked for) serves all their fits: the texts two dimensions share are encoded once, in
        # one pass.
        semeval = semeval or SemEvalSplits()
        shared = (
            self.share_dimensions
            and dimension in semeval.dimensions
            and len(semeval.dimensions) > 1
        )
        if shared and self.encoder.cache is not None and self.max_train is None:
            texts = sorted(set(semeval.language_texts(language, self.preprocess)))
            self._rows = {text: row for row, text in enumerate(texts)}
            self._matrix = self.encoder.encode(texts)
        try:
            return super().fit(language, dimension, semeval)
        finally:
            self._rows = self._matrix = None


CAMARA2022_SVR_GRID = {
    "C": [0.1, 1, 10, 100],
    "gamma": [1, 0.1, 0.01, 0.001],
    "kernel": ["rbf", "poly", "sigmoid"],
}

SVM_TFIDF_PRESETS: dict[str, dict[str, Any]] = {
    # Câmara et al. 2022 (Table 2, SVM-tfidf): their scikit-learn code fits
    # TfidfVectorizer(ngram_range=(1, 2), min_df=2) on train, runs GridSearchCV(SVR(), grid,
    # cv=PredefinedSplit(train | validation)) with its default scoring (R²) on the train-vectorised
    # matrix, and so refits the best SVR on train + validation; Pearson r is of SVR.predict as it is
    # (predict() still clips to [0, 1] for the EEC's Beta regression).
    "camara2022": {
        "ngram_range": (1, 2),
        "min_df": 2,
        "max_features": None,
        "head": "svr",
        "head_options": {"grid": CAMARA2022_SVR_GRID, "scoring": "r2", "epsilon": 0.1},
        "refit_on_validation": True,
        "refit_vectorizer": False,
        "score_raw_output": True,
        "preprocess": "tweet",
        "max_train": None,
    }
}


class SvmTfidfRegressor(FeatureRegressor):
    """The paper's baseline: TF-IDF word 1-2-grams (min_df 2) and an SVR grid chosen on validation.

    ``preset`` names a bundle of the options below (:data:`SVM_TFIDF_PRESETS`; ``"camara2022"`` is
    the authors' protocol). Options left unset take the preset's value; an option given with a
    preset must agree with it (a different value is an InputError), except those the preset does not
    pin: ``seed`` (the SVR is deterministic) and the SVR head's ``n_jobs`` and ``cache_grid`` (how,
    not what, it fits). ``refit_vectorizer`` (with ``refit_on_validation``): learn the TF-IDF
    vocabulary and idf again on train + validation before the refit (default), or keep the train
    ones (False, as the authors' code). ``score_raw_output``: report validation/test Pearson r of
    the SVR's raw output, as the authors do, instead of the predictions clipped to [0, 1] that
    :meth:`predict` returns (default); a few predictions above 1 move r: English fear, 3 of 986 test
    tweets, .524 raw, .554 clipped.
    """

    model_type = "svm_tfidf"
    # The TF-IDF settings' defaults; the head's is the type's default_head (models/registry.py).
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "ngram_range": (1, 2),
        "min_df": 2,
        "max_features": None,
        "refit_vectorizer": True,
        "score_raw_output": False,
    }

    def __init__(
        self,
        ngram_range: Sequence[int] | None = None,
        min_df: int | None = None,
        max_features: int | None = None,
        head: str | None = None,
        head_options: dict | None = None,
        refit_vectorizer: bool | None = None,
        score_raw_output: bool | None = None,
        preset: str | None = None,
        **common,
    ):
        given = {
            name: value
            for name, value in {
                "ngram_range": ngram_range,
                "min_df": min_df,
                "max_features": max_features,
                "head": head,
                "refit_vectorizer": refit_vectorizer,
                "score_raw_output": score_raw_output,
            }.items()
            if value is not None
        }
        options = {
            **self.DEFAULTS,
            **_preset_options(preset, {**given, **common}, head_options),
            **given,
        }
        head_options = {**options.pop("head_options", {}), **(head_options or {})}
        for name in ("refit_on_validation", "preprocess", "max_train"):
            if name in options:
                common[name] = options.pop(name)
        _check_tfidf_options(options["ngram_range"], options["min_df"], options["max_features"])
        super().__init__(options.get("head"), head_options, **common)
        self.preset = preset
        self.ngram_range = tuple(options["ngram_range"])
        self.min_df = options["min_df"]
        self.max_features = options["max_features"]
        self.refit_vectorizer = options["refit_vectorizer"]
        self.score_raw_output = options["score_raw_output"]
        self.vectorizer = None

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """Check every option's value before a run writes anything: a model-free baseline is cheap
        to build, and building it checks them all (the preset, the head and its options, the TF-IDF
        settings)."""
        cls(**options)

    def source_name(self) -> str:
        return "tfidf"

    def source_fingerprint(self) -> str:
        return "tfidf"

    def _fit_featuriser(self, texts):
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.vectorizer = TfidfVectorizer(
            ngram_range=self.ngram_range,
            min_df=self.min_df,
            max_features=self.max_features,
            dtype=np.float64,
        )
        self.vectorizer.fit(texts)

    def _refit_featuriser(self, texts):
        if self.refit_vectorizer:
            self._fit_featuriser(texts)

    def _scored_output(self, raw):
        return np.asarray(raw, dtype=np.float64) if self.score_raw_output else self._output(raw)

    def features(self, texts):
        return self.vectorizer.transform(texts)

    def _featuriser_state(self):
        return self.vectorizer

    def _set_featuriser_state(self, state):
        self.vectorizer = state


class StaticVectorRegressor(FeatureRegressor):
    """Static word vectors as an emotion model: the mean static vector of a text's words, then a
    head (ridge)."""

    model_type = "static_vectors"

    def __init__(
        self,
        vectors,
        source: str = "glove",
        head: str | None = None,
        head_options: dict | None = None,
        vector_options: dict | None = None,
        **common,
    ):
        super().__init__(head, head_options, **common)
        self.vectors = vectors
        self.source = source
        self.vector_options = dict(vector_options or {})
        self._fingerprint = None

    def source_name(self) -> str:
        return self.source

    def source_fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = static_vectors_fingerprint(self.vectors)
        return self._fingerprint

    @classmethod
    def build(cls, source, options, resources) -> "StaticVectorRegressor":
        options = dict(options)
        vector_options = {**options.pop("vector_options", {})}
        vector_options.update(
            {name: options.pop(name) for name in VECTOR_OPTIONS if name in options}
        )
        vectors = resources.static_vectors(source, **vector_options)
        return cls(vectors, str(source), vector_options=vector_options, **options)

    def features(self, texts):
        """Mean vector of a text's words (``\\w+`` tokens) that the vectors know; zeros when none is
        known."""
        matrix = np.zeros((len(texts), self.vectors.dim), dtype=np.float32)
        unknown = 0
        for index, text in enumerate(texts):
            words = _WORD.findall(text)
            vectors, found = self.vectors.lookup(words) if words else (None, np.zeros(0, bool))
            if found.any():
                matrix[index] = vectors[found].mean(0)
            else:
                unknown += 1
        if unknown > len(texts) // 2:
            warnings.warn(
                f"{unknown} of {len(texts)} texts have no "
                f"word in the static vectors {self.source!r}",
                RuntimeWarning,
                stacklevel=2,
            )
        return matrix


class StaticMlpRegressor(StaticVectorRegressor):
    """The paper's fastText baseline as it was: static vectors with the MLP head (type
    ``static_mlp``)."""

    model_type = "static_mlp"


def _is_int(value: Any) -> bool:
    """A Python int that is not a bool: what scikit-learn takes for a count (2.0 would be a
    proportion)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_tfidf_options(ngram_range: Any, min_df: Any, max_features: Any) -> None:
    """The TF-IDF settings scikit-learn would refuse deep inside a fit, refused here with the
    allowed values."""
    if not (
        isinstance(ngram_range, list | tuple)
        and len(ngram_range) == 2
        and all(_is_int(n) for n in ngram_range)
        and 1 <= ngram_range[0] <= ngram_range[1]
    ):
        raise InputError(
            "ngram_range must be two whole numbers [n_min, n_max] with "
            f"1 <= n_min <= n_max, e.g. [1, 2]; got {ngram_range!r}"
        )
    fraction = isinstance(min_df, float) and 0 < min_df <= 1
    if not (fraction or (_is_int(min_df) and min_df >= 1)):
        raise InputError(
            "min_df must be a whole number >= 1 (texts a term must occur "
            f"in) or a fraction in (0, 1] (of the texts); got {min_df!r}"
        )
    if max_features is not None and not (_is_int(max_features) and max_features >= 1):
        raise InputError(
            f"max_features must be a whole number >= 1, or null for no limit; got {max_features!r}"
        )


def _preset_options(
    preset: str | None, given: Mapping[str, Any], head_options: Mapping | None
) -> dict[str, Any]:
    """The options ``preset`` pins ({} for none); InputError for an unknown preset or a given option
    it contradicts."""
    if preset is None:
        return {}
    if preset not in SVM_TFIDF_PRESETS:
        raise InputError(
            f"unknown svm_tfidf preset {preset!r}; presets: {sorted(SVM_TFIDF_PRESETS)}"
        )
    pinned = SVM_TFIDF_PRESETS[preset]
    conflicts = [
        f"{name}={given[name]!r} (the preset has {pinned[name]!r})"
        for name in pinned
        if name in given and _as_json(given[name]) != _as_json(pinned[name])
    ]
    conflicts += [
        f"head_options.{name}={value!r} (the preset has {pinned['head_options'][name]!r})"
        for name, value in (head_options or {}).items()
        if name in pinned["head_options"]
        and _as_json(value) != _as_json(pinned["head_options"][name])
    ]
    if conflicts:
        raise InputError(
            f"svm_tfidf preset {preset!r} contradicts the option(s) "
            f"given with it: {'; '.join(conflicts)}; drop those options "
            "to use the preset, or drop the preset to set them yourself"
        )
    return copy.deepcopy(pinned)


def _as_json(value: Any) -> Any:
    """``value`` as a saved config holds it (tuples become lists), to compare a reloaded option with
    a preset's."""
    return json.loads(json.dumps(value))


def static_vectors_fingerprint(vectors) -> str:
    """sha256 of a StaticVectors' words, matrix and lowercasing."""
    import hashlib

    digest = hashlib.sha256(
        f"{vectors.lowercase}|{vectors.matrix.shape}|{vectors.matrix.dtype}".encode()
    )
    digest.update("\n".join(vectors.words).encode())
    digest.update(np.ascontiguousarray(vectors.matrix).tobytes())
    return digest.hexdigest()


def read_saved_meta(directory: str | Path) -> dict:
    """The ``regressor.json`` of a saved model of this xbias's save format.

    Raises:
        ModelLoadError: there is none, it is unreadable, or of another format or an unknown type.
    """
    from eval_harness.models.registry import MODEL_TYPES

    directory = Path(directory)
    meta = read_json(directory / SAVED_META)
    if not isinstance(meta, dict):
        raise ModelLoadError(
            f"no saved emotion model in {directory} ({SAVED_META} missing or unreadable)"
        )
    if meta.get("format") != SAVE_FORMAT or meta.get("type") not in MODEL_TYPES:
        raise ModelLoadError(
            f"{directory / SAVED_META} has format {meta.get('format')} "
            f"/ type {meta.get('type')!r}; this xbias reads format "
            f"{SAVE_FORMAT}, types {', '.join(MODEL_TYPES)}"
        )
    if not isinstance(meta.get("identity"), dict) or not isinstance(
        meta["identity"].get("options"), dict
    ):
        raise ModelLoadError(f"{directory / SAVED_META} records no identity with options")
    return meta


def _in_key_order(value: Any) -> Any:
    """``value`` with every mapping in it rebuilt in sorted key order (as
    ``json.dumps(sort_keys=True)`` writes it)."""
    if isinstance(value, dict):
        return {key: _in_key_order(value[key]) for key in sorted(value)}
    return value


def _jsonable(value: Any) -> Any:
    return json.loads(
        json.dumps(value, default=lambda item: item.item() if hasattr(item, "item") else str(item))
    )
