"""StaticVectors: every file format round-trips to the same words and vectors; lookups report OOV
words."""

import numpy as np
import pytest

from eval_harness.errors import InputError, ModelLoadError
from eval_harness.models.static import StaticVectors, load_packaged_glove

WORDS = ["the", "Paris", "naïve", "a", "PARIS"]


@pytest.fixture()
def matrix():
    # Values exactly representable in float32 and in short decimal text.
    return np.arange(len(WORDS) * 3, dtype=np.float32).reshape(len(WORDS), 3) / 4 - 1


def _write_text(path, words, matrix, header):
    lines = [f"{len(words)} {matrix.shape[1]}"] if header else []
    lines += [
        word + " " + " ".join(repr(float(v)) for v in row)
        for word, row in zip(words, matrix, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_word2vec_binary(path, words, matrix):
    with open(path, "wb") as handle:
        handle.write(f"{len(words)} {matrix.shape[1]}\n".encode())
        for word, row in zip(words, matrix, strict=True):
            handle.write(word.encode("utf-8") + b" " + row.astype("<f4").tobytes() + b"\n")


@pytest.mark.parametrize("kind", ["text", "glove", "word2vec_binary", "numpy"])
@pytest.mark.parametrize("explicit_format", [True, False])
def test_every_format_round_trips(tmp_path, matrix, kind, explicit_format):
    vocab_path = None
    if kind == "text":
        path = tmp_path / "vectors.vec"
        _write_text(path, WORDS, matrix, header=True)
    elif kind == "glove":
        path = tmp_path / "glove.txt"
        _write_text(path, WORDS, matrix, header=False)
    elif kind == "word2vec_binary":
        path = tmp_path / "vectors.bin"
        _write_word2vec_binary(path, WORDS, matrix)
    else:
        path = tmp_path / "vectors.npy"
        np.save(path, matrix)
        vocab_path = tmp_path / "vocab.txt"
        vocab_path.write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    vectors = StaticVectors.load(
        path, format=kind if explicit_format else "auto", vocab_path=vocab_path
    )
    assert vectors.words == WORDS
    assert vectors.dim == 3 and len(vectors) == len(WORDS)
    assert vectors.matrix.dtype == np.float32
    np.testing.assert_array_equal(vectors.matrix, matrix)


def test_limit_keeps_the_first_words(tmp_path, matrix):
    path = tmp_path / "vectors.bin"
    _write_word2vec_binary(path, WORDS, matrix)
    vectors = StaticVectors.load(path, limit=2)
    assert vectors.words == WORDS[:2]
    np.testing.assert_array_equal(vectors.matrix, matrix[:2])


def test_lookup_reports_missing_words_with_zero_rows(matrix):
    vectors = StaticVectors.from_arrays(WORDS, matrix)
    found_vectors, found = vectors.lookup(["Paris", "paris", "unknown", "the"])
    np.testing.assert_array_equal(found, [True, False, False, True])
    np.testing.assert_array_equal(found_vectors[0], matrix[1])
    np.testing.assert_array_equal(found_vectors[3], matrix[0])
    assert not found_vectors[1:3].any()
    assert "Paris" in vectors and "paris" not in vectors


def test_lowercase_keeps_the_first_of_colliding_words_and_lowercases_queries(matrix):
    vectors = StaticVectors.from_arrays(WORDS, matrix, lowercase=True)
    embedded, found = vectors.embed_words(["PaRiS", "NAÏVE"], language="en")
    assert found.all()
    np.testing.assert_array_equal(
        embedded[0], matrix[1]
    )  # "Paris" (row 1) wins over "PARIS" (row 4)
    np.testing.assert_array_equal(embedded[1], matrix[2])


def test_bad_inputs_raise_clear_errors(tmp_path, matrix):
    with pytest.raises(InputError, match="one word per matrix row"):
        StaticVectors.from_arrays(WORDS[:2], matrix)
    bad = matrix.copy()
    bad[2, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        StaticVectors.from_arrays(WORDS, bad)
    with pytest.raises(ModelLoadError, match="does not exist"):
        StaticVectors.load(tmp_path / "missing.vec")
    ragged = tmp_path / "ragged.txt"
    ragged.write_text("a 1 2 3\nb 1 2\n", encoding="utf-8")
    with pytest.raises(ModelLoadError, match="ragged.txt:2"):
        StaticVectors.load(ragged, format="glove")
    headerless = tmp_path / "headerless.vec"
    headerless.write_text("a 1 2 3\n", encoding="utf-8")
    with pytest.raises(ModelLoadError, match="header"):
        StaticVectors.load(headerless, format="text")
    with pytest.raises(ModelLoadError, match="vocab_path"):
        np.save(tmp_path / "m.npy", matrix)
        StaticVectors.load(tmp_path / "m.npy")
    with pytest.raises(InputError, match="sequence of words"):
        StaticVectors.from_arrays(WORDS, matrix).lookup("the")


@pytest.mark.slow
def test_packaged_glove_is_lowercase_50d():
    glove = load_packaged_glove()
    assert len(glove) == 400_000 and glove.dim == 50 and glove.lowercase
    vectors, found = glove.embed_words(["King", "queen", "zzzzqqqq"])
    np.testing.assert_array_equal(found, [True, True, False])
    # A sanity check that rows belong to their words: king is closer to queen than to a random
    # common word.
    unit = vectors[:2] / np.linalg.norm(vectors[:2], axis=1, keepdims=True)
    banana = glove.lookup(["banana"])[0][0]
    assert unit[0] @ unit[1] > unit[0] @ (banana / np.linalg.norm(banana))


def test_aligned_spaces_map_each_language_into_the_pivot_space():
    from scipy.stats import special_ortho_group

    from eval_harness.models.static import AlignedStaticSpaces

    rng = np.random.default_rng(0)
    english = [f"e{i}" for i in range(300)]
    pivot_matrix = rng.normal(size=(300, 6)).astype(np.float32)
    rotation = special_ortho_group.rvs(6, random_state=1)
    # A "German" space: the same points rotated, under other names, in another order, g0-g19
    # missing.
    german = [f"g{i}" for i in range(300)][::-1][:280]
    german_matrix = (pivot_matrix @ rotation.T)[::-1][
        :280
    ] * 3.0  # scale does not matter to the direction
    spaces = {
        "en": StaticVectors.from_arrays(english, pivot_matrix),
        "de": StaticVectors.from_arrays(german, german_matrix),
    }
    dictionary = [(f"e{i}", f"g{i}") for i in range(0, 300, 3)]  # 100 pairs, some with g missing
    aligned = AlignedStaticSpaces.fit(spaces, {"de": dictionary})
    assert aligned.alignments["de"].n_pairs == sum(1 for _, g in dictionary if g in spaces["de"])
    vectors, found = aligned.embed_words(["g50", "g5", "nope"], language="de")
    np.testing.assert_array_equal(found, [True, False, False])
    np.testing.assert_allclose(vectors[0], 3.0 * pivot_matrix[50], atol=1e-4)
    english_vectors, _ = aligned.embed_words(["e50"], language="en")
    np.testing.assert_array_equal(
        english_vectors[0], pivot_matrix[50]
    )  # the pivot space is left as it is
    with pytest.raises(InputError, match="no space for language 'fr'"):
        aligned.embed_words(["x"], language="fr")
    with pytest.raises(InputError, match="no dictionary pair"):
        AlignedStaticSpaces.fit(spaces, {"de": [("e1", "nope")]})
    with pytest.raises(InputError, match="one dimension"):
        AlignedStaticSpaces.fit(
            {**spaces, "it": StaticVectors.from_arrays(["a"], np.ones((1, 3)))}, {}
        )
    with pytest.raises(InputError, match="no alignment"):
        AlignedStaticSpaces(spaces, {}, pivot="en")
