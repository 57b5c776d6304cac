"""Fitted state (heads, featurisers) saved as JSON plus safetensors, and read back without
unpickling anything.

A fitted head or featuriser is a tree of plain values: numbers, strings, None, lists, tuples, dicts,
numpy arrays and scalars, scipy sparse matrices, and a few scikit-learn estimators (the SVR, the
TF-IDF vectoriser). :func:`save_state` writes the tree as ``<name>.json`` (its structure and every
small value) and ``<name>.safetensors`` (every array, exactly: safetensors holds raw bytes with a
dtype and a shape). :func:`load_state` builds the same tree again from those two files and nothing
else.

Why not pickle (``joblib``): unpickling runs whatever code the file names, so a planted
``model.joblib`` in a shared cache or a run folder someone sent runs as the user who reads it. Here
reading can only make the value kinds above. An estimator is made from a class in
:data:`TRUSTED_ESTIMATORS`, looked up by the short name the file gives (never imported from a name
in the file), and given its saved attributes (``__setstate__``, what unpickling would have called,
with plain values only). The attributes are scikit-learn's own, so a state saved under another
scikit-learn version is refused (a :class:`ModelLoadError`; the cache trains the model again) rather
than trusted to mean the same.

The JSON tree: a JSON scalar, list or object stands for itself (an object whose keys are all
strings, none starting with ``$``); every other value is an object with one ``$`` key: ``{"$array":
"a0"}`` (an entry of the safetensors file), ``{"$tuple": [...]}``, ``{"$float": "nan"}`` (a
non-finite float), ``{"$scalar": ["float64", 0.5]}`` (a numpy scalar), ``{"$dtype": "float64"}`` (a
numpy scalar type), ``{"$sparse": ["csr_matrix", [rows, columns], data, indices, indptr]}``,
``{"$dict": [[key, value], ...]}`` (other keys) and ``{"$estimator": ["SVR", {attribute: value}]}``.
"""

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from eval_harness.errors import InputError, ModelLoadError
from eval_harness.io import (
    MAX_CACHE_ENTRY_BYTES,
    atomic_write_bytes,
    atomic_write_json,
    read_bytes,
    read_json,
)
from eval_harness.registry import Registry

STATE_FORMAT = 1
# The estimators a saved state may hold: short name -> class (lazy references, resolved by us).
TRUSTED_ESTIMATORS = Registry(
    "trusted estimator",
    builtins={
        "SVR": "sklearn.svm:SVR",
        "TfidfVectorizer": "sklearn.feature_extraction.text:TfidfVectorizer",
        "TfidfTransformer": "sklearn.feature_extraction.text:TfidfTransformer",
    },
)
# numpy dtype kinds kept in arrays and scalars: bool, signed and unsigned integers, floats.
_NUMERIC_KINDS = "biuf"
# scipy sparse classes kept (compressed rows or columns: data, indices, indptr), by name.
_SPARSE_CLASSES = {
    cls.__name__: cls for cls in (sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.csc_array)
}


def save_state(folder: str | Path, name: str, state: Any) -> None:
    """Write ``state`` as ``folder/<name>.json`` and ``folder/<name>.safetensors`` (see the module
    docstring).

    Raises:
        InputError: ``state`` holds a value of another kind (an object array, an untrusted
        object...).
    """
    from safetensors.numpy import save

    arrays: dict[str, np.ndarray] = {}
    tree = _encode(state, arrays)
    folder = Path(folder)
    atomic_write_bytes(folder / f"{name}.safetensors", save(arrays))
    atomic_write_json(folder / f"{name}.json", {"format": STATE_FORMAT, "tree": tree}, indent=None)


def load_state(folder: str | Path, name: str) -> Any:
    """The state :func:`save_state` wrote into ``folder`` as ``name``.

    Raises:
        ModelLoadError: a file is missing or unreadable, of another format, names a value kind or an
            estimator this module does not make, or was saved under another scikit-learn version.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load

    folder = Path(folder)
    document = read_json(folder / f"{name}.json")
    if not isinstance(document, dict) or document.get("format") != STATE_FORMAT:
        raise ModelLoadError(
            f"{folder / name}.json is missing, unreadable or not of state format {STATE_FORMAT}"
        )
    try:
        # The read rule: a regular file only, bounded (a FIFO or /dev/zero in its place is an
        # unreadable state)
        arrays = load(read_bytes(folder / f"{name}.safetensors", MAX_CACHE_ENTRY_BYTES))
        return _decode(document["tree"], arrays)
    except (OSError, SafetensorError) as error:
        raise ModelLoadError(f"cannot read {folder / name}.safetensors: {error}") from None
    except (KeyError, TypeError, ValueError, RecursionError) as error:
        raise ModelLoadError(
            f"{folder / name}.json is not a saved state ({type(error).__name__}: {error})"
        ) from None


def _encode(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, list):
        return [_encode(item, arrays) for item in value]
    if isinstance(value, tuple):
        return {"$tuple": [_encode(item, arrays) for item in value]}
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith("$") for key in value):
            return {key: _encode(item, arrays) for key, item in value.items()}
        return {
            "$dict": [[_encode(key, arrays), _encode(item, arrays)] for key, item in value.items()]
        }
    if isinstance(value, np.ndarray):
        return {"$array": _add_array(value, arrays)}
    if isinstance(value, np.generic) and value.dtype.kind in _NUMERIC_KINDS:
        return {"$scalar": [value.dtype.name, _encode(value.item(), arrays)]}
    if (
        isinstance(value, type)
        and issubclass(value, np.generic)
        and np.dtype(value).kind in _NUMERIC_KINDS
    ):
        return {"$dtype": np.dtype(value).name}
    if type(value) in _SPARSE_CLASSES.values():
        parts = [_add_array(part, arrays) for part in (value.data, value.indices, value.indptr)]
        return {"$sparse": [type(value).__name__, list(value.shape), *parts]}
    estimator = _trusted_name(value)
    if estimator is not None:
        return {"$estimator": [estimator, _encode(value.__getstate__(), arrays)]}
    raise InputError(
        f"cannot save a {type(value).__module__}.{type(value).__qualname__} in a model's state"
    )


def _add_array(array: np.ndarray, arrays: dict[str, np.ndarray]) -> str:
    if array.dtype.kind not in _NUMERIC_KINDS:
        raise InputError(
            f"cannot save an array of dtype {array.dtype} in a model's state (numbers only)"
        )
    key = f"a{len(arrays)}"
    arrays[key] = np.array(
        array, order="C", copy=None
    )  # (not ascontiguousarray: it makes a 0-d array 1-d)
    return key


def _trusted_name(value: Any) -> str | None:
    for name in TRUSTED_ESTIMATORS:
        if type(value) is TRUSTED_ESTIMATORS.get(name):
            return name
    return None


def _decode(node: Any, arrays: Mapping[str, np.ndarray]) -> Any:
    if node is None or isinstance(node, bool | int | float | str):
        return node
    if isinstance(node, list):
        return [_decode(item, arrays) for item in node]
    if not isinstance(node, dict):
        raise TypeError(f"unexpected JSON value {node!r}")
    tags = [key for key in node if key.startswith("$")]
    if not tags:
        return {key: _decode(item, arrays) for key, item in node.items()}
    if len(node) != 1:
        raise ValueError(f"a tagged value has one key, got {sorted(node)}")
    tag, body = tags[0], node[tags[0]]
    if tag == "$array":
        return arrays[body]
    if tag == "$tuple":
        return tuple(_decode(item, arrays) for item in body)
    if tag == "$float":
        return float(body) if body in ("nan", "inf", "-inf") else _refuse(tag, body)
    if tag == "$dict":
        return {_decode(key, arrays): _decode(item, arrays) for key, item in body}
    if tag == "$scalar":
        return _numeric_dtype(body[0]).type(_decode(body[1], arrays))
    if tag == "$dtype":
        return _numeric_dtype(body).type
    if tag == "$sparse":
        kind, shape, data, indices, indptr = body
        return _SPARSE_CLASSES[kind](
            (arrays[data], arrays[indices], arrays[indptr]), shape=tuple(shape)
        )
    if tag == "$estimator":
        return _estimator(body[0], _decode(body[1], arrays))
    return _refuse(tag, body)


def _numeric_dtype(name: str) -> np.dtype:
    dtype = np.dtype(str(name))
    return dtype if dtype.kind in _NUMERIC_KINDS else _refuse("$dtype", name)


def _estimator(name: str, attributes: dict) -> Any:
    """A trusted estimator with ``attributes``, as unpickling would make it (``__new__``, then
    ``__setstate__``)."""
    import sklearn

    if name not in TRUSTED_ESTIMATORS or not isinstance(attributes, dict):
        raise ValueError(f"{name!r} is not a trusted estimator ({', '.join(TRUSTED_ESTIMATORS)})")
    saved_version = attributes.get("_sklearn_version")
    if saved_version != sklearn.__version__:
        raise ModelLoadError(
            f"the saved {name} was fitted with scikit-learn "
            f"{saved_version}, this is {sklearn.__version__}"
        )
    cls = TRUSTED_ESTIMATORS.get(name)
    estimator = cls.__new__(cls)
    estimator.__setstate__(attributes)
    return estimator


def _refuse(tag: str, body: Any) -> Any:
    raise ValueError(f"unknown saved value {tag} {body!r}")
