"""EmbeddingCache: content addressing, atomic checksum-verified files, corruption detected and
recomputed."""

import numpy as np
import pytest
from helpers.tiny_models import build_tiny_bert

from eval_harness.errors import InputError
from eval_harness.models import EmbeddingCache, TransformerEncoder
from eval_harness.models.cache import texts_digest


def test_round_trip_and_keys_separate_fingerprint_mode_and_texts(tmp_path):
    cache = EmbeddingCache(tmp_path)
    array = np.arange(6, dtype=np.float32).reshape(3, 2)
    cache.put("fp1", "sentence", ["a", "b", "c"], array)
    np.testing.assert_array_equal(cache.get("fp1", "sentence", ["a", "b", "c"]), array)
    assert cache.get("fp2", "sentence", ["a", "b", "c"]) is None
    assert cache.get("fp1", "static", ["a", "b", "c"]) is None
    assert (
        cache.get("fp1", "sentence", ["a", "c", "b"]) is None
    )  # order matters: rows follow the texts
    assert not list(tmp_path.rglob(".tmp-*"))  # the temporary file was renamed into place


def test_texts_digest_does_not_collide_by_joining():
    assert texts_digest(["ab", "c"]) != texts_digest(["a", "bc"])
    assert texts_digest(["a", ""]) != texts_digest(["a"])


def test_put_checks_rows_against_texts(tmp_path):
    with pytest.raises(InputError, match="2 rows for 3 texts"):
        EmbeddingCache(tmp_path).put("fp", "sentence", ["a", "b", "c"], np.zeros((2, 4)))


@pytest.mark.parametrize("damage", ["flip_payload_byte", "truncate", "garbage"])
def test_a_corrupted_file_is_detected_and_recomputed(tmp_path, damage):
    cache = EmbeddingCache(tmp_path)
    texts = ["x", "y"]
    calls = []

    def compute(batch):
        calls.append(list(batch))
        return np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)

    first = cache.get_or_compute("fp", "sentence", texts, compute)
    path = cache.path("fp", "sentence", texts)
    blob = bytearray(path.read_bytes())
    if damage == "flip_payload_byte":
        blob[-1] ^= (
            # a bit of the last float changes: the npy still parses, the checksum does not match
            0xFF
        )
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    else:
        blob = bytearray(b"not an embedding file")
    path.write_bytes(bytes(blob))
    with pytest.warns(RuntimeWarning, match="corrupted"):
        second = cache.get_or_compute("fp", "sentence", texts, compute)
    assert len(calls) == 2 and cache.misses == 2 and cache.hits == 0
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(cache.get("fp", "sentence", texts), first)  # rewritten intact


def test_encoder_with_a_cache_encodes_each_text_list_once(tmp_path):
    folder = build_tiny_bert(tmp_path / "bert")
    cache = EmbeddingCache(tmp_path / "cache")
    encoder = TransformerEncoder.from_pretrained(folder, cache=cache)
    texts = ["this is a doctor", "she is here"]
    first = encoder.encode(texts)
    passes = encoder.stats.forward_passes
    again = TransformerEncoder.from_pretrained(folder, cache=cache).encode(
        texts
    )  # a new encoder, as in a later run
    np.testing.assert_array_equal(first, again)
    assert cache.hits == 1 and cache.misses == 1 and encoder.stats.forward_passes == passes
    other_pooling = TransformerEncoder.from_pretrained(folder, pooling="mean", cache=cache).encode(
        texts
    )
    assert cache.misses == 2 and not np.allclose(other_pooling, first)
