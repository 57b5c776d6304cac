"""Content-addressed, checksum-verified cache of embedding arrays.

An entry is the array a model computed for an ordered list of texts. Its key is

    sha256(fingerprint, mode, sha256(texts))

so a change of model weights, pooling, layer, prefix (all in the fingerprint), of the kind of
vector (``mode``: ``"sentence"``, ``"static"``, ...) or of any text gives a new entry, and the
same request in a later run finds the old one. Each file holds a one-line JSON header (shape,
dtype, sha256 of the payload) followed by the ``.npy`` payload; it is written to a temporary
file and renamed into place, so a reader never sees half a file. A file whose payload does not
match its checksum (a crash of the disk, a partial copy, an edit) is reported with a warning,
deleted and recomputed: a corrupted vector is never returned.
"""

import hashlib
import io
import json
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from eval_harness.errors import InputError
from eval_harness.io import atomic_write_bytes, read_bytes, read_cache_entry
from eval_harness.paths import cache_root

_MAGIC = b"XBIAS-EMB1 "


def texts_digest(texts: Sequence[str]) -> str:
    """sha256 of an ordered list of texts (each text's length is hashed too, so no two lists collide
    by joining)."""
    digest = hashlib.sha256()
    for text in texts:
        encoded = text.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "little"))
        digest.update(encoded)
    return digest.hexdigest()


class EmbeddingCache:
    """Arrays on disk under ``root`` (default ``cache_root()/"embeddings"``), keyed by (fingerprint,
    mode, texts).

    >>> cache = EmbeddingCache(tmp_dir)
    >>> vectors = cache.get_or_compute(encoder.fingerprint, "sentence", texts, encoder.encode)
    """

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else cache_root() / "embeddings"
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"EmbeddingCache(root={str(self.root)!r}, hits={self.hits}, misses={self.misses})"

    def key(self, fingerprint: str, mode: str, texts: Sequence[str]) -> str:
        """The entry's name: sha256 over the fingerprint, the mode and the texts' digest."""
        if not fingerprint or not mode:
            raise InputError(
                "EmbeddingCache needs a non-empty fingerprint "
                f"and mode, got {fingerprint!r}, {mode!r}"
            )
        return hashlib.sha256(f"{fingerprint}\n{mode}\n{texts_digest(texts)}".encode()).hexdigest()

    def path(self, fingerprint: str, mode: str, texts: Sequence[str]) -> Path:
        """Where the entry lives: ``root/<fingerprint[:16]>/<mode>/<key>.emb``."""
        safe_mode = "".join(
            character if character.isalnum() or character in "-_." else "_" for character in mode
        )
        return (
            self.root / fingerprint[:16] / safe_mode / f"{self.key(fingerprint, mode, texts)}.emb"
        )

    def get(self, fingerprint: str, mode: str, texts: Sequence[str]) -> np.ndarray | None:
        """The stored array, or None when there is none or the stored file fails its checksum (it is
        then deleted)."""
        path = self.path(fingerprint, mode, texts)
        if not path.exists() and not path.is_symlink():
            return None
        # The read rule (io.read_cache_entry): a FIFO, a device or an oversized file in its place
        # counts as damaged.
        blob = read_cache_entry(path)
        array = _decode(blob) if blob is not None else None
        if array is None or array.shape[0] != len(texts):
            warnings.warn(
                f"embedding cache file {path} is corrupted (checksum or shape "
                "mismatch); it is deleted and the vectors are computed again",
                RuntimeWarning,
                stacklevel=2,
            )
            path.unlink(missing_ok=True)
            return None
        return array

    def put(self, fingerprint: str, mode: str, texts: Sequence[str], array: np.ndarray) -> Path:
        """Store ``array`` (first axis = texts) atomically; returns the file's path."""
        array = np.ascontiguousarray(array)
        if array.shape[0] != len(texts):
            raise InputError(f"EmbeddingCache.put: {array.shape[0]} rows for {len(texts)} texts")
        return atomic_write_bytes(self.path(fingerprint, mode, texts), _encode(array))

    def get_or_compute(
        self,
        fingerprint: str,
        mode: str,
        texts: Sequence[str],
        compute: Callable[[list[str]], np.ndarray],
    ) -> np.ndarray:
        """The stored array for these texts, else ``compute(texts)`` stored and returned."""
        texts = list(texts)
        array = self.get(fingerprint, mode, texts)
        if array is not None:
            self.hits += 1
            return array
        self.misses += 1
        array = compute(texts)
        self.put(fingerprint, mode, texts, array)
        return array


def _encode(array: np.ndarray) -> bytes:
    payload = io.BytesIO()
    np.save(payload, array, allow_pickle=False)
    payload_bytes = payload.getvalue()
    checksum = hashlib.sha256(payload_bytes).hexdigest()
    header = {"sha256": checksum, "shape": list(array.shape), "dtype": str(array.dtype)}
    return _MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload_bytes


def _decode(blob: bytes) -> np.ndarray | None:
    """The array in ``blob``, or None when the magic, header, checksum or shape is wrong."""
    if not blob.startswith(_MAGIC) or b"\n" not in blob:
        return None
    header_bytes, payload = blob[len(_MAGIC) :].split(b"\n", 1)
    try:
        header = json.loads(header_bytes)
        if hashlib.sha256(payload).hexdigest() != header["sha256"]:
            return None
        array = np.load(io.BytesIO(payload), allow_pickle=False)
    except (ValueError, KeyError, TypeError, OSError):
        return None
    if list(array.shape) != header["shape"] or str(array.dtype) != header["dtype"]:
        return None
    return array


# ------------------------------------------------------ the user-level feature cache (one per user)

_FEATURE_MAGIC = b"XBIAS-FEAT1 "
FEATURE_SUFFIX = ".feat"
# The largest feature file read: one encode call's new rows (a run's chunk of 1,024 texts of 4,096
# floats is 16 MiB).
MAX_FEATURE_FILE_BYTES = 1 << 30


FEATURE_CACHE_VARIABLE = "XBIAS_FEATURE_CACHE"


def features_root() -> Path | None:
    """The user's feature cache: ``$XBIAS_FEATURE_CACHE`` (a folder), else
    ``cache_root()/"features"``; None when the variable says ``off`` (a run then keeps its features
    in its own folder, ``cache/embeddings``)."""
    setting = os.environ.get(FEATURE_CACHE_VARIABLE, "").strip()
    if setting.lower() == "off":
        return None
    return Path(setting).expanduser() if setting else cache_root() / "features"


def text_key(text: str) -> str:
    """A text's name in the feature cache: the first 32 hex digits of the sha256 of its UTF-8
    bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class FeatureCache:
    """Rows a model computed for texts, kept once per user and reused text by text, whatever run or
    folder (``xbias run`` into any ``--out``) asks again.

    Keyed by the model's fingerprint (its weights' content, so a pinned revision, and every option
    that changes a
    vector: pooling, layer, prefix, max_length, autocast), the kind of row (``mode``) and each text:
    a request for other texts of the same model reuses those already there and computes only the
    rest. Layout: ``root/<sha256(fingerprint)[:32]>/<mode>/<sha256 of the rows' texts>.feat``, one
    file per call that computed
    something: a JSON header line (each row's text key, the shape, dtype and sha256 of the payload)
    and the rows as ``.npy`` (``allow_pickle=False``). Files are written atomically, never
    executable (the umask's 0666), and read through :func:`eval_harness.io.read_bytes` (regular
    files only, at most :data:`MAX_FEATURE_FILE_BYTES`); a file that fails its checksum or shape is
    reported, deleted and computed again; a symbolic link is never read, written or written through.
    ``xbias cache`` shows the size and clears it.

    Same interface as :class:`EmbeddingCache` (``get_or_compute``).
    ``reused_texts``/``computed_texts`` count rows.
    """

    def __init__(self, root: str | Path | None = None):
        default = features_root()
        if root is None and default is None:
            raise InputError(
                "the feature cache is off "
                f"(${FEATURE_CACHE_VARIABLE}=off); give FeatureCache a root"
            )
        self.root = Path(root) if root is not None else default
        self.reused_texts = 0
        self.computed_texts = 0
        # (model folder, mode) -> text key -> (file, row); file -> its rows, as read once in this
        # process.
        self._index: dict[tuple[str, str], dict[str, tuple[Path, int]]] = {}
        self._arrays: dict[Path, np.ndarray] = {}

    def __repr__(self) -> str:
        return (
            f"FeatureCache(root={str(self.root)!r}, reused_texts={self.reused_texts}, "
            f"computed_texts={self.computed_texts})"
        )

    def folder(self, fingerprint: str, mode: str) -> Path:
        """Where the rows of one model (``fingerprint``) and kind of row (``mode``) live."""
        if not fingerprint or not mode:
            raise InputError(
                "FeatureCache needs a non-empty fingerprint "
                f"and mode, got {fingerprint!r}, {mode!r}"
            )
        safe_mode = "".join(
            character if character.isalnum() or character in "-_." else "_" for character in mode
        )
        return self.root / hashlib.sha256(fingerprint.encode()).hexdigest()[:32] / safe_mode

    def get_or_compute(
        self,
        fingerprint: str,
        mode: str,
        texts: Sequence[str],
        compute: Callable[[list[str]], np.ndarray],
    ) -> np.ndarray:
        """One row per text of ``texts``: those stored already read back, ``compute`` called once on
        the others (each distinct text once), which are then stored."""
        texts = list(texts)
        folder = self.folder(fingerprint, mode)
        index = self._folder_index(folder)
        keys = [text_key(text) for text in texts]
        if any(
            key not in index for key in keys
        ):  # another rank or run may have computed them since
            index = self._folder_index(folder, rescan=True)
        missing = list(
            {key: text for key, text in zip(keys, texts, strict=True) if key not in index}.items()
        )
        if missing:
            computed = np.ascontiguousarray(compute([text for _, text in missing]))
            if computed.shape[0] != len(missing):
                raise InputError(
                    f"FeatureCache: {computed.shape[0]} rows computed for {len(missing)} texts"
                )
            path = self._write(folder, [key for key, _ in missing], computed)
            self._arrays[path] = computed
            index.update({key: (path, row) for row, (key, _) in enumerate(missing)})
        self.computed_texts += len(missing)
        self.reused_texts += len(texts) - len(missing)
        return (
            np.stack([self._arrays[index[key][0]][index[key][1]] for key in keys])
            if keys
            else np.zeros((0,))
        )

    def _folder_index(self, folder: Path, rescan: bool = False) -> dict[str, tuple[Path, int]]:
        """Text key -> (file, row) of every sound file of ``folder``, each file read once per
        process; ``rescan``: read the files written since (by another rank or run) too."""
        memo_key = (str(self.root), str(folder))
        if memo_key in self._index and not rescan:
            return self._index[memo_key]
        index = self._index.setdefault(memo_key, {})
        if folder.is_dir() and not _linked(folder, self.root):
            for path in sorted(folder.glob(f"*{FEATURE_SUFFIX}")):
                if path in self._arrays:
                    continue
                if path.is_symlink():
                    warnings.warn(
                        f"feature cache: {path} is a symbolic link; it is never read",
                        RuntimeWarning,
                        2,
                    )
                    continue
                entry = _read_feature_file(path)
                if entry is None:
                    continue
                keys, array = entry
                self._arrays[path] = array
                index.update({key: (path, row) for row, key in enumerate(keys)})
        return index

    def _write(self, folder: Path, keys: list[str], array: np.ndarray) -> Path:
        if _linked(folder, self.root):
            raise InputError(
                f"the feature cache folder {folder} is or lies below "
                "a symbolic link, which xbias did not create; remove "
                "the link or set XBIAS_CACHE_DIR to another folder"
            )
        name = _keys_digest(keys)[:32] + FEATURE_SUFFIX
        path = folder / name
        if path.is_symlink():
            raise InputError(
                f"the feature cache file {path} is a symbolic link, which xbias did not create"
            )
        return atomic_write_bytes(path, _encode_features(keys, array))


def _linked(folder: Path, root: Path) -> bool:
    """Whether ``folder`` or a folder between it and ``root`` (``root`` included) is a symbolic
    link."""
    for path in (folder, *folder.parents):
        if path.is_symlink():
            return True
        if path == root:
            return False
    return False


def _encode_features(keys: list[str], array: np.ndarray) -> bytes:
    """A feature file: a header line naming each row's text (with the sha256 of that list), then the
    rows as an embedding-cache entry (:func:`_encode`: its own header with the payload's sha256)."""
    header = {"texts": keys, "texts_sha256": _keys_digest(keys)}
    return _FEATURE_MAGIC + json.dumps(header).encode() + b"\n" + _encode(array)


def _keys_digest(keys: list[str]) -> str:
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()


def _read_feature_file(path: Path) -> tuple[list[str], np.ndarray] | None:
    """``(text keys, rows)`` of a feature file, or None (with a warning, the file deleted) when it
    is damaged."""
    try:
        blob = read_bytes(path, MAX_FEATURE_FILE_BYTES)
    except OSError as error:
        warnings.warn(
            f"feature cache file {path} cannot be read ({error.strerror}); it is skipped",
            RuntimeWarning,
            2,
        )
        return None
    array = _decode_features(blob)
    if array is None:
        warnings.warn(
            f"feature cache file {path} is corrupted (checksum, header "
            "or shape); it is deleted and its rows computed again",
            RuntimeWarning,
            2,
        )
        path.unlink(missing_ok=True)
        return None
    return array


def _decode_features(blob: bytes) -> tuple[list[str], np.ndarray] | None:
    """``(text keys, rows)`` of a feature file's bytes, or None when its header, either checksum or
    a shape is wrong."""
    if not blob.startswith(_FEATURE_MAGIC) or b"\n" not in blob:
        return None
    header_bytes, entry = blob[len(_FEATURE_MAGIC) :].split(b"\n", 1)
    try:
        header = json.loads(header_bytes)
        keys = header["texts"]
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            return None
        if _keys_digest(keys) != header["texts_sha256"]:
            return None
    except (ValueError, KeyError, TypeError):
        return None
    array = _decode(entry)
    return (keys, array) if array is not None and array.shape[0] == len(keys) else None


def feature_cache_usage(root: str | Path | None = None) -> list[tuple[str, int, int]]:
    """``(model folder, files, bytes)`` per model in the feature cache at ``root`` (default
    :func:`features_root`)."""
    root = Path(root) if root is not None else features_root()
    if root is None or not root.is_dir():
        return []
    usage = []
    for model in sorted(path for path in root.iterdir() if path.is_dir() and not path.is_symlink()):
        files = [
            path
            for path in model.rglob(f"*{FEATURE_SUFFIX}")
            if path.is_file() and not path.is_symlink()
        ]
        usage.append((model.name, len(files), sum(path.stat().st_size for path in files)))
    return usage


def clear_feature_cache(root: str | Path | None = None) -> int:
    """Delete the feature cache at ``root`` (its ``.feat`` files and the folders they leave empty;
    nothing else, and never through a link); returns the bytes freed."""
    root = Path(root) if root is not None else features_root()
    if root is None or not root.is_dir() or root.is_symlink():
        return 0
    freed = 0
    for model in [path for path in root.iterdir() if path.is_dir() and not path.is_symlink()]:
        for mode in [path for path in model.iterdir() if path.is_dir() and not path.is_symlink()]:
            for path in [
                path
                for path in mode.iterdir()
                if path.suffix == FEATURE_SUFFIX and not path.is_symlink()
            ]:
                freed += path.stat().st_size
                path.unlink()
            _remove_if_empty(mode)
        _remove_if_empty(model)
    return freed


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty: it holds something xbias did not write
        pass
