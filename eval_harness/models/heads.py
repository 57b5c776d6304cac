"""Regression heads fitted on feature matrices.

- :class:`RidgeHead` (the default probe head): ridge regression on standardised features, in closed
  form, its penalty chosen by efficient leave-one-out (below). It has no seed: the same features
  give the same head, so the numbers it predicts carry no training noise and nothing chaotic that
  could amplify the last-bit differences between CPU kernels.
- :class:`MlpHead`: the paper's probe, a two-layer feed-forward regressor
  ``y = w2 · relu(W1 · z + b1) + b2`` on standardised features ``z = (x - mean) / sd``,
  trained with Adam on the squared error in shuffled mini-batches; after each epoch the
  validation Pearson r is measured, the best epoch's weights are kept and training stops after
  ``patience`` epochs without improvement (early stopping on validation). It trains and predicts
  in float32 on one CPU thread whatever the process's thread count, so that one seed gives the same
  bits in any process layout (:mod:`eval_harness.models.reproducible`).
- :class:`SvrHead`: an epsilon-SVR whose kernel, C and gamma are chosen on the validation split
  from a small grid (the authors' baseline), by validation Pearson r (``scoring="pearson"``, the
  default) or by R² (``scoring="r2"``, what scikit-learn's ``GridSearchCV`` maximises for a
  regressor by default). Grid points are fitted in parallel (joblib) and the grid's validation
  scores are cached on disk, keyed by a hash of the data, the grid and the scoring, so a second
  run fits only the chosen point. Sparse matrices (TF-IDF) stay sparse.

Pearson r of two vectors: ``r = sum((x - x̄)(y - ȳ)) / sqrt(sum((x - x̄)²) sum((y - ȳ)²))``; it
is reported as 0.0 when either vector is constant (no linear association can be measured).
Ridge with efficient leave-one-out: with standardised features ``Z`` (n × p, centred by the training
means) and centred targets ``y_c``, and the thin SVD ``Z = U S V'``, the ridge fit at penalty ``a``
is
``beta_a = V diag(s / (s² + a)) U' y_c`` (intercept: the mean of ``y``), its hat matrix
``H_a = 1/n + U diag(s² / (s² + a)) U'``, and the exact leave-one-out residuals are
``e_i / (1 - h_ii)`` (Allen's PRESS; no refit per row). The penalty minimises their mean square over
a log-spaced grid (:data:`RIDGE_PENALTIES`). Protocol ``"train+validation"`` (the default) fits on
both splits and reports as validation r the Pearson r of the validation rows' leave-one-out
predictions (each predicted by a head that never saw it); ``"validation"`` fits on train alone and
chooses the penalty by validation Pearson r.

R² of predictions ``p`` of observations ``y``: ``R² = 1 - sum((y - p)²) / sum((y - ȳ)²)`` (1 is
perfect, 0 is no better than predicting ȳ, negative is worse); 0.0 when ``y`` is constant.
"""

import hashlib
import itertools
import json
import math
import os
import warnings
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from eval_harness.errors import InputError
from eval_harness.io import atomic_write_json, read_json
from eval_harness.models.registry import HEADS
from eval_harness.models.reproducible import single_thread
from eval_harness.paths import cache_root
from eval_harness.stats.blas import single_blas_thread

# Ridge penalties on standardised features: from nearly unpenalised least squares to nearly the mean
# alone.
RIDGE_PENALTIES = tuple(float(a) for a in np.logspace(-2, 6, 41))
RIDGE_PROTOCOLS = ("train+validation", "validation")
DEFAULT_SVR_GRID = {
    "kernel": ["linear", "rbf"],
    "C": [0.3, 1.0, 3.0, 10.0],
    "gamma": ["scale", 0.3, 1.0],
}


def pearson_r(predicted: np.ndarray, observed: np.ndarray) -> float:
    """Pearson correlation of two equal-length vectors (0.0 when either is constant)."""
    predicted = np.asarray(predicted, dtype=np.float64).ravel()
    observed = np.asarray(observed, dtype=np.float64).ravel()
    if predicted.shape != observed.shape or predicted.size < 2:
        raise InputError(
            "pearson_r needs two vectors of one length >= "
            f"2, got {predicted.size} and {observed.size}"
        )
    centred_p, centred_o = predicted - predicted.mean(), observed - observed.mean()
    denominator = np.sqrt((centred_p @ centred_p) * (centred_o @ centred_o))
    return float(centred_p @ centred_o / denominator) if denominator > 0 else 0.0


def r_squared(predicted: np.ndarray, observed: np.ndarray) -> float:
    """Coefficient of determination of ``predicted`` for ``observed`` (0.0 when ``observed`` is
    constant)."""
    predicted = np.asarray(predicted, dtype=np.float64).ravel()
    observed = np.asarray(observed, dtype=np.float64).ravel()
    if predicted.shape != observed.shape or predicted.size < 2:
        raise InputError(
            "r_squared needs two vectors of one length >= "
            f"2, got {predicted.size} and {observed.size}"
        )
    residual = observed - predicted
    centred = observed - observed.mean()
    total = centred @ centred
    return float(1.0 - (residual @ residual) / total) if total > 0 else 0.0


VALIDATION_SCORES = {"pearson": pearson_r, "r2": r_squared}


class _Head:
    """What both heads share: options, the fitted state, and ``state()`` to save and reload: plain
    values, arrays and trusted scikit-learn estimators (what :mod:`eval_harness.models.saved_state`
    writes)."""

    kind: ClassVar[str]
    # A head whose fitting draws random numbers (initialisation, shuffling) takes a ``seed``, so
    # that the sweep's seeds train different heads (registry.py's HeadDescription says which).
    selected: dict
    _state: dict | None

    def options(self) -> dict:
        """The constructor arguments (what a saved model records to be rebuilt)."""
        return {spec.name: getattr(self, spec.name) for spec in fields(self) if spec.init}

    def state(self) -> dict:
        """Everything needed to predict again: kind, options, what was selected, the fitted
        parameters."""
        return {
            "kind": self.kind,
            "options": self.options(),
            "selected": self.selected,
            "fitted": self._fitted(),
        }

    @classmethod
    def from_state(cls, state: dict) -> "_Head":
        head = cls(**state["options"])
        head.selected = state["selected"]
        head._state = state["fitted"]
        return head

    def _fitted(self) -> dict:
        if self._state is None:
            raise InputError(
                "this head is not fitted yet; call fit() (or load a saved model) first"
            )
        return self._state


@dataclass
class RidgeHead(_Head):
    """Closed-form ridge regression on standardised features, its penalty chosen by efficient
    leave-one-out (see module docstring). Deterministic: no seed, computed in float64."""

    kind: ClassVar[str] = "ridge"

    penalties: tuple[float, ...] = RIDGE_PENALTIES
    protocol: str = "train+validation"
    selected: dict = field(default_factory=dict, init=False)
    _state: dict | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if self.protocol not in RIDGE_PROTOCOLS:
            raise InputError(
                f"ridge protocol must be one of {RIDGE_PROTOCOLS}, got {self.protocol!r}"
            )
        penalties = (
            np.asarray(self.penalties, dtype=np.float64) if len(self.penalties) else np.zeros(0)
        )
        if (
            penalties.ndim != 1
            or not penalties.size
            or not np.all(np.isfinite(penalties))
            or np.any(penalties <= 0)
        ):
            raise InputError(
                "ridge penalties must be a non-empty list "
                f"of positive numbers, got {self.penalties!r}"
            )
        self.penalties = tuple(float(a) for a in penalties)

    def fit(self, x_train, y_train, x_validation, y_validation) -> "RidgeHead":
        with (
            single_blas_thread()
        ):  # the same bits whatever the process's thread count (models/reproducible.py)
            return self._fit(x_train, y_train, x_validation, y_validation)

    def _fit(self, x_train, y_train, x_validation, y_validation) -> "RidgeHead":
        x_train, x_validation = _dense(x_train, np.float64), _dense(x_validation, np.float64)
        y_train, y_validation = (
            np.asarray(y_train, np.float64),
            np.asarray(y_validation, np.float64),
        )
        if self.protocol == "validation":
            fit = _ridge_path(x_train, y_train, self.penalties)
            scores = [
                pearson_r(fit.predict(x_validation, k), y_validation)
                for k in range(len(self.penalties))
            ]
            best = int(np.argmax(scores))
            self.selected = {"penalty": self.penalties[best], "validation_r": float(scores[best])}
        else:
            x, y = np.concatenate([x_train, x_validation]), np.concatenate([y_train, y_validation])
            fit = _ridge_path(x, y, self.penalties)
            press = fit.loo_residuals(y)
            best = int(np.argmin(np.mean(press**2, axis=0)))
            held_out = y - press[:, best]  # each row predicted by the head fitted without it
            validation_r = pearson_r(held_out[len(y_train) :], y_validation)
            self.selected = {
                "penalty": self.penalties[best],
                "validation_r": validation_r,
                "held_out_validation_r": validation_r,
                "loo_r": pearson_r(held_out, y),
            }
        self._state = fit.state(best)
        return self

    @classmethod
    def from_state(cls, state: dict) -> "RidgeHead":
        """A fitted ridge head from its saved state, checked: standardiser and weights one finite
        vector each, of one length, every scale positive, a finite intercept.

        Raises:
            InputError: a state that is not one a fit makes (the cache then fits the head again).
        """
        head = super().from_state(state)
        fitted = head._fitted()
        try:
            vectors = [
                np.asarray(fitted[name], dtype=np.float64) for name in ("mean", "scale", "coef")
            ]
            intercept = float(fitted["intercept"])
        except (KeyError, TypeError, ValueError):
            raise InputError(
                "a ridge head's state lacks its mean, scale, coef or intercept"
            ) from None
        shapes = {vector.shape for vector in vectors}
        if len(shapes) != 1 or len(next(iter(shapes))) != 1:
            raise InputError(
                f"a ridge head's mean, scale and coef are not three vectors of one length: {shapes}"
            )
        if not all(np.isfinite(vector).all() for vector in vectors) or not math.isfinite(intercept):
            raise InputError(
                "a ridge head's state holds a weight that is not finite (NaN or infinite)"
            )
        if not (vectors[1] > 0).all():
            raise InputError("a ridge head's state holds a scale that is not positive")
        return head

    def predict(self, x) -> np.ndarray:
        state = self._fitted()
        x = _dense(x, np.float64)
        if x.ndim != 2 or x.shape[1] != len(state["coef"]):
            raise InputError(
                f"this ridge head takes {len(state['coef'])} features "
                f"per text, got an array of shape {x.shape} (a saved "
                "head from another featuriser? delete its cache entry)"
            )
        z = (x - state["mean"]) / state["scale"]
        with single_blas_thread():
            return z @ state["coef"] + float(state["intercept"])


@dataclass(frozen=True)
class _RidgePath:
    """Ridge fits of one standardised design at every penalty, through one thin SVD (module
    docstring)."""

    mean: np.ndarray
    scale: np.ndarray
    u: np.ndarray
    singular: np.ndarray
    vt: np.ndarray
    y_mean: float
    uty: np.ndarray
    penalties: np.ndarray

    def coef(self, k: int) -> np.ndarray:
        s = self.singular
        return self.vt.T @ (s / (s**2 + self.penalties[k]) * self.uty)

    def predict(self, x: np.ndarray, k: int) -> np.ndarray:
        return ((x - self.mean) / self.scale) @ self.coef(k) + self.y_mean

    def loo_residuals(self, y: np.ndarray) -> np.ndarray:
        """Exact leave-one-out residuals ``(y_i - ŷ_i) / (1 - h_ii)``, one column per penalty."""
        shrink = self.singular**2 / (
            self.singular[None, :] ** 2 + self.penalties[:, None]
        )  # (k, r)
        fitted = self.y_mean + self.u @ (shrink * self.uty).T  # (n, k)
        leverage = 1.0 / len(y) + (self.u**2) @ shrink.T
        return (y[:, None] - fitted) / (1.0 - leverage)

    def state(self, k: int) -> dict:
        return {
            "mean": self.mean,
            "scale": self.scale,
            "coef": self.coef(k),
            "intercept": np.float64(self.y_mean),
        }


def _ridge_path(x: np.ndarray, y: np.ndarray, penalties: tuple[float, ...]) -> _RidgePath:
    if len(x) < 3:
        raise InputError(f"a ridge head needs at least 3 training rows, got {len(x)}")
    mean, scale = _standardiser(x)
    z = (x - mean) / scale
    u, singular, vt = np.linalg.svd(z, full_matrices=False)
    keep = (
        singular > singular[0] * max(z.shape) * np.finfo(np.float64).eps
    )  # drop null directions (constant columns)
    u, singular, vt = u[:, keep], singular[keep], vt[keep]
    y_mean = float(y.mean())
    return _RidgePath(
        mean, scale, u, singular, vt, y_mean, u.T @ (y - y_mean), np.asarray(penalties, np.float64)
    )


@dataclass
class MlpHead(_Head):
    """Two-layer feed-forward regressor with early stopping on validation Pearson r (see module
    docstring)."""

    kind: ClassVar[str] = "mlp"

    hidden_size: int = 128
    learning_rate: float = 1e-3
    max_epochs: int = 100
    patience: int = 10
    batch_size: int = 32
    weight_decay: float = 1e-4
    dropout: float = 0.1
    seed: int = 0
    selected: dict = field(default_factory=dict, init=False)
    _state: dict | None = field(default=None, init=False, repr=False)

    def fit(self, x_train, y_train, x_validation, y_validation) -> "MlpHead":
        import torch

        x_train, x_validation = _dense(x_train), _dense(x_validation)
        y_train = np.asarray(y_train, dtype=np.float32)
        mean, scale = x_train.mean(0), x_train.std(0)
        scale[scale < 1e-8] = 1.0
        inputs = torch.from_numpy((x_train - mean) / scale)
        validation_inputs = torch.from_numpy((x_validation - mean) / scale)
        # Seeded without touching the caller's random state; one thread, so that the bits (and the
        # epoch early stopping picks) do not depend on the process's thread count
        # (models/reproducible.py).
        with torch.random.fork_rng(devices=[]), single_thread():
            torch.manual_seed(self.seed)
            best_weights, best_epoch, epoch, best_r = self._train(
                inputs,
                torch.from_numpy(y_train),
                validation_inputs,
                np.asarray(y_validation, dtype=np.float64),
            )
        self._state = {
            "mean": mean,
            "scale": scale,
            "weights": {name: tensor.numpy() for name, tensor in best_weights.items()},
        }
        self.selected = {"best_epoch": best_epoch, "epochs_run": epoch, "validation_r": best_r}
        return self

    def _train(self, inputs, targets, validation_inputs, y_validation):
        """Adam on the squared error; keep the epoch with the best validation r; stop after
        ``patience`` worse ones."""
        import torch

        generator = torch.Generator().manual_seed(self.seed)
        network = _network(inputs.shape[1], self.hidden_size, self.dropout)
        with torch.no_grad():
            network[-1].bias.fill_(float(targets.mean()))  # start at the mean intensity
        optimiser = torch.optim.Adam(
            network.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
        )
        best_r, best_epoch, best_weights = -np.inf, 0, None
        for epoch in range(1, self.max_epochs + 1):
            network.train()
            for batch in torch.randperm(len(inputs), generator=generator).split(self.batch_size):
                optimiser.zero_grad()
                loss = torch.nn.functional.mse_loss(
                    network(inputs[batch]).squeeze(1), targets[batch]
                )
                loss.backward()
                optimiser.step()
            network.eval()
            with torch.no_grad():
                r = pearson_r(network(validation_inputs).squeeze(1).numpy(), y_validation)
            if r > best_r:
                best_r, best_epoch = r, epoch
                best_weights = {
                    name: tensor.clone() for name, tensor in network.state_dict().items()
                }
            elif epoch - best_epoch >= self.patience:
                break
        return best_weights, best_epoch, epoch, best_r

    def predict(self, x) -> np.ndarray:
        import torch

        state = self._fitted()
        weights = state["weights"]
        network = _network(weights["0.weight"].shape[1], weights["0.weight"].shape[0], self.dropout)
        network.load_state_dict({name: torch.from_numpy(array) for name, array in weights.items()})
        network.eval()
        with torch.no_grad(), single_thread():
            inputs = torch.from_numpy((_dense(x) - state["mean"]) / state["scale"])
            return network(inputs).squeeze(1).numpy().astype(np.float64)


@dataclass
class SvrHead(_Head):
    """epsilon-SVR with kernel, C and gamma chosen on validation Pearson r or R² (see module
    docstring)."""

    kind: ClassVar[str] = "svr"

    grid: dict = field(
        default_factory=lambda: {key: list(values) for key, values in DEFAULT_SVR_GRID.items()}
    )
    epsilon: float = 0.1
    n_jobs: int = -1
    cache_grid: bool = True
    scoring: str = "pearson"
    selected: dict = field(default_factory=dict, init=False)
    _state: dict | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if self.scoring not in VALIDATION_SCORES:
            raise InputError(
                f"SVR scoring must be one of {sorted(VALIDATION_SCORES)}, got {self.scoring!r}"
            )

    def fit(self, x_train, y_train, x_validation, y_validation) -> "SvrHead":
        from joblib import Parallel, delayed

        y_train = np.asarray(y_train, dtype=np.float64)
        y_validation = np.asarray(y_validation, dtype=np.float64)
        scaler = None if sp.issparse(x_train) else _standardiser(x_train)
        x_train, x_validation = _scaled(x_train, scaler), _scaled(x_validation, scaler)
        points = self.grid_points()
        cache_path = self._cache_path(x_train, y_train, x_validation, y_validation, points)
        scores = _read_scores(cache_path, len(points)) if cache_path is not None else None
        if scores is None:
            jobs = min(
                len(points), _cpu_count() if self.n_jobs in (-1, None) else max(1, self.n_jobs)
            )
            # Threads: libsvm fits without the GIL, and no process start-up or matrix copies are
            # paid.
            scores = Parallel(n_jobs=jobs, prefer="threads")(
                delayed(_svr_validation_r)(
                    point,
                    self.epsilon,
                    x_train,
                    y_train,
                    x_validation,
                    y_validation,
                    scoring=self.scoring,
                )
                for point in points
            )
            if cache_path is not None:
                _write_scores(cache_path, scores)
        best = int(np.argmax(scores))
        model = _svr(points[best], self.epsilon).fit(x_train, y_train)
        self._state = {"model": model, "scaler": scaler}
        validation_r = pearson_r(model.predict(x_validation), y_validation)
        self.selected = {**points[best], "validation_r": validation_r, "grid_points": len(points)}
        if self.scoring != "pearson":
            self.selected[f"validation_{self.scoring}"] = float(scores[best])
        return self

    def refit(self, x, y) -> "SvrHead":
        """Fit the selected setting again on ``(x, y)`` (e.g. train + validation, as the authors'
        grid search)."""
        point = {key: self.selected[key] for key in ("kernel", "C", "gamma")}
        scaler = None if sp.issparse(x) else _standardiser(x)
        model = _svr(point, self.epsilon).fit(_scaled(x, scaler), np.asarray(y, dtype=np.float64))
        self._state = {"model": model, "scaler": scaler}
        return self

    def predict(self, x) -> np.ndarray:
        state = self._fitted()
        return state["model"].predict(_scaled(x, state["scaler"])).astype(np.float64)

    def grid_points(self) -> list[dict]:
        """The grid's distinct settings (gamma is not varied for the linear kernel, which ignores
        it)."""
        unknown = set(self.grid) - {"kernel", "C", "gamma"}
        if unknown or not self.grid.get("kernel") or not self.grid.get("C"):
            raise InputError(
                "SVR grid takes non-empty 'kernel' and 'C' "
                f"lists and a 'gamma' list; got {self.grid}"
            )
        points = []
        gammas = self.grid.get("gamma", ["scale"])
        for kernel, c, gamma in itertools.product(self.grid["kernel"], self.grid["C"], gammas):
            point = {"kernel": kernel, "C": c, "gamma": "scale" if kernel == "linear" else gamma}
            if point not in points:
                points.append(point)
        return points

    def _cache_path(self, x_train, y_train, x_validation, y_validation, points) -> Path | None:
        if not self.cache_grid:
            return None
        key = {"points": points, "epsilon": self.epsilon, "scoring": self.scoring}
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode())
        for array in (x_train, y_train, x_validation, y_validation):
            _hash_matrix(digest, array)
        return cache_root() / "svr-grid" / f"{digest.hexdigest()}.json"


def make_head(kind: str, options: dict | None = None):
    """A head by its name in :data:`~eval_harness.models.registry.HEADS` (``"ridge"``, ``"mlp"``,
    ``"svr"``) with its options.

    Raises:
        ConfigError: an unknown head (the message lists them).
        InputError: an option the head does not take.
    """
    head_class = HEADS.get(kind)
    allowed = {name for name, spec in head_class.__dataclass_fields__.items() if spec.init}
    unknown = set(options or {}) - allowed
    if unknown:
        raise InputError(
            f"unknown option(s) {sorted(unknown)} for the {kind!r} head; allowed: {sorted(allowed)}"
        )
    return head_class(**(options or {}))


def head_from_state(state: dict):
    """Rebuild a fitted head from :meth:`state` output (the kind is recorded in it)."""
    return HEADS.get(state["kind"]).from_state(state)


def _network(inputs: int, hidden: int, dropout: float):
    import torch

    return torch.nn.Sequential(
        torch.nn.Linear(inputs, hidden),
        torch.nn.ReLU(),
        torch.nn.Dropout(dropout),
        torch.nn.Linear(hidden, 1),
    )


def _dense(x, dtype=np.float32) -> np.ndarray:
    return np.asarray(x.toarray() if sp.issparse(x) else x, dtype=dtype)


def _standardiser(x) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)
    scale = x.std(0)
    scale[scale < 1e-8] = 1.0
    return x.mean(0), scale


def _scaled(x, scaler):
    return x if scaler is None else (np.asarray(x, dtype=np.float64) - scaler[0]) / scaler[1]


def _svr(point: dict, epsilon: float):
    from sklearn.svm import SVR

    return SVR(kernel=point["kernel"], C=point["C"], gamma=point["gamma"], epsilon=epsilon)


def _svr_validation_r(
    point, epsilon, x_train, y_train, x_validation, y_validation, scoring="pearson"
) -> float:
    """Validation score of one grid point fitted on train: Pearson r, or R² with
    ``scoring="r2"``."""
    predicted = _svr(point, epsilon).fit(x_train, y_train).predict(x_validation)
    return VALIDATION_SCORES[scoring](predicted, y_validation)


def _hash_matrix(digest, array: Any) -> None:
    if sp.issparse(array):
        array = array.tocsr()
        for part in (array.data, array.indices, array.indptr, np.asarray(array.shape)):
            digest.update(np.ascontiguousarray(part).tobytes())
    else:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.shape}{array.dtype}".encode())
        digest.update(array.tobytes())


def _read_scores(path: Path, points: int) -> list[float] | None:
    """The grid's cached validation scores in ``path``, or None when there is no entry; an entry
    that fails its checksum, holds another number of scores or a score that is not finite is named
    in one warning and computed again (a hand-edited score would otherwise choose another SVR for
    every record of a run)."""
    if not os.path.lexists(path):
        return None
    entry = read_json(
        path
    )  # the read rule: a regular file, bounded; None when it is not one, or not JSON
    try:
        scores = [float(score) for score in entry["scores"]]
        intact = entry["sha256"] == _scores_digest(path, scores)
    except (ValueError, KeyError, TypeError):
        intact = False
    if intact and len(scores) == points and all(math.isfinite(score) for score in scores):
        return scores
    warnings.warn(
        f"SVR grid-score cache entry {path} is damaged or edited (checksum, "
        "count or a score that is not finite); the grid is fitted again",
        RuntimeWarning,
        stacklevel=3,
    )
    return None


def _write_scores(path: Path, scores: list[float]) -> None:
    scores = [float(score) for score in scores]
    atomic_write_json(path, {"scores": scores, "sha256": _scores_digest(path, scores)})


def _scores_digest(path: Path, scores: list[float]) -> str:
    """The checksum of an SVR grid-score entry: its key (the file's name) and its scores, exactly
    (repr)."""
    return hashlib.sha256(f"{path.stem}\n{[repr(score) for score in scores]}".encode()).hexdigest()


def _cpu_count() -> int:
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )
