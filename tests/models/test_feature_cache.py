"""The user-level feature cache: rows computed once per model setting and text, reused text by text
by any later request, verified on read, never executable, never through a link; `xbias cache` sees
and clears it."""

import os
import stat
import warnings

import numpy as np
import pytest

from eval_harness.cli import main
from eval_harness.errors import InputError
from eval_harness.models.cache import (
    FEATURE_SUFFIX,
    FeatureCache,
    clear_feature_cache,
    feature_cache_usage,
    features_root,
)


class CountingModel:
    """A stand-in model whose row for a text is a function of the text alone, and which records what
    it computed."""

    def __init__(self):
        self.computed: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.computed.extend(texts)
        return np.array(
            [[len(text), sum(map(ord, text)) % 97, 1.0] for text in texts], dtype=np.float32
        )


def test_rows_are_computed_once_per_text_and_reused_by_a_later_process(tmp_path):
    model = CountingModel()
    first = FeatureCache(tmp_path / "features")
    rows = first.get_or_compute("model-a", "sentence", ["x", "yy", "x"], model)
    np.testing.assert_array_equal(rows, model(["x", "yy", "x"]))
    assert model.computed[:2] == ["x", "yy"]  # each distinct text once
    model.computed.clear()
    # a new cache object (another run, another --out, xbias compare): only the new text is computed
    later = FeatureCache(tmp_path / "features")
    rows = later.get_or_compute("model-a", "sentence", ["zzz", "yy", "x"], model)
    assert model.computed == ["zzz"]
    np.testing.assert_array_equal(rows, CountingModel()(["zzz", "yy", "x"]))
    assert (later.reused_texts, later.computed_texts) == (2, 1)
    # another model setting (fingerprint) or kind of row shares nothing
    model.computed.clear()
    later.get_or_compute("model-b", "sentence", ["x"], model)
    later.get_or_compute("model-a", "static", ["x"], model)
    assert model.computed == ["x", "x"]


def test_a_damaged_file_is_reported_deleted_and_computed_again(tmp_path):
    model = CountingModel()
    FeatureCache(tmp_path).get_or_compute("m", "sentence", ["a", "b"], model)
    (path,) = tmp_path.rglob(f"*{FEATURE_SUFFIX}")
    blob = bytearray(path.read_bytes())
    blob[-3] ^= 0xFF
    path.write_bytes(bytes(blob))
    model.computed.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = FeatureCache(tmp_path).get_or_compute("m", "sentence", ["a", "b"], model)
    assert any("corrupted" in str(warning.message) for warning in caught)
    assert model.computed == ["a", "b"]
    np.testing.assert_array_equal(rows, CountingModel()(["a", "b"]))


def test_files_are_never_executable_and_links_are_neither_read_nor_written_through(tmp_path):
    cache = FeatureCache(tmp_path / "features")
    cache.get_or_compute("m", "sentence", ["a"], CountingModel())
    for path in (tmp_path / "features").rglob("*"):
        if path.is_file():
            assert not stat.S_IMODE(path.stat().st_mode) & 0o111
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked_root = tmp_path / "linked"
    linked_root.mkdir()
    os.symlink(
        elsewhere, linked_root / FeatureCache(linked_root).folder("m", "sentence").parent.name
    )
    with pytest.raises(InputError, match="symbolic link"):
        FeatureCache(linked_root).get_or_compute("m", "sentence", ["a"], CountingModel())
    assert not any(elsewhere.rglob("*"))


def test_xbias_cache_shows_the_size_and_clears_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XBIAS_FEATURE_CACHE", str(tmp_path / "features"))
    assert features_root() == tmp_path / "features"
    FeatureCache().get_or_compute("m", "sentence", ["a", "b"], CountingModel())
    (model_folder, files, size), *_ = feature_cache_usage()
    assert (
        files == 1
        and size == next((tmp_path / "features").rglob(f"*{FEATURE_SUFFIX}")).stat().st_size
    )
    assert main(["cache"]) == 0
    assert "1 model setting(s)" in capsys.readouterr().out
    (tmp_path / "features" / "notes.txt").write_text("mine")
    assert main(["cache", "--clear"]) == 0
    assert "cleared" in capsys.readouterr().out
    assert not list((tmp_path / "features").rglob(f"*{FEATURE_SUFFIX}"))
    assert (tmp_path / "features" / "notes.txt").read_text() == "mine"  # only what xbias wrote goes
    assert clear_feature_cache() == 0
    monkeypatch.setenv("XBIAS_FEATURE_CACHE", "off")
    assert features_root() is None
    assert main(["cache"]) == 0 and "off" in capsys.readouterr().out


def test_rows_another_rank_wrote_since_are_read_not_computed_again(tmp_path):
    model = CountingModel()
    first, second = FeatureCache(tmp_path), FeatureCache(tmp_path)
    first.get_or_compute("m", "sentence", ["a"], model)  # indexes the folder in this object
    second.get_or_compute("m", "sentence", ["b"], model)  # another rank writes "b"
    model.computed.clear()
    rows = first.get_or_compute("m", "sentence", ["b", "a"], model)
    assert model.computed == []
    np.testing.assert_array_equal(rows, CountingModel()(["b", "a"]))
