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
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from eval_harness.errors import InputError
from eval_harness.io import atomic_write_bytes, read_cache_entry
from eval_harness.paths import cache_root

_MAGIC = b"XBIAS-EMB1 "


def texts_digest(texts: Sequence[str]) -> str:
    """sha256 of an ordered list of texts (each text's length is hashed too, so no two lists collide by joining)."""
    digest = hashlib.sha256()
    for text in texts:
        encoded = text.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "little"))
        digest.update(encoded)
    return digest.hexdigest()


class EmbeddingCache:
    """Arrays on disk under ``root`` (default ``cache_root()/"embeddings"``), keyed by (fingerprint, mode, texts).

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
            raise InputError(f"EmbeddingCache needs a non-empty fingerprint and mode, got {fingerprint!r}, {mode!r}")
        return hashlib.sha256(f"{fingerprint}\n{mode}\n{texts_digest(texts)}".encode()).hexdigest()

    def path(self, fingerprint: str, mode: str, texts: Sequence[str]) -> Path:
        """Where the entry lives: ``root/<fingerprint[:16]>/<mode>/<key>.emb``."""
        safe_mode = "".join(character if character.isalnum() or character in "-_." else "_" for character in mode)
        return self.root / fingerprint[:16] / safe_mode / f"{self.key(fingerprint, mode, texts)}.emb"

    def get(self, fingerprint: str, mode: str, texts: Sequence[str]) -> np.ndarray | None:
        """The stored array, or None when there is none or the stored file fails its checksum (it is then deleted)."""
        path = self.path(fingerprint, mode, texts)
        if not path.exists() and not path.is_symlink():
            return None
        # The read rule (io.read_cache_entry): a FIFO, a device or an oversized file in its place counts as damaged.
        blob = read_cache_entry(path)
        array = _decode(blob) if blob is not None else None
        if array is None or array.shape[0] != len(texts):
            warnings.warn(
                f"embedding cache file {path} is corrupted (checksum or shape mismatch); it is deleted and "
                "the vectors are computed again",
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
