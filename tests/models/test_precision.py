"""bf16 autocast on a CPU for real (which autocast each precision gives on each device: test_hf_model.py).

On a CPU, ``auto`` and ``fp32`` run fp32 and ``bf16`` runs bf16 autocast (docs/models.md has what it changes).
The tiny models check that bf16 is applied (numbers move, caches are kept apart) yet stays close to fp32, for
the encoder and for the judge's packed scoring."""

import numpy as np
import pytest
import torch
from helpers.tiny_causal_lm import build_tiny_causal_lm
from helpers.tiny_models import build_tiny_bert

from eval_harness.models import TransformerEncoder
from eval_harness.models.causal_lm import load_causal_lm
from eval_harness.models.prompt_judge import PromptJudge

TEXTS = ["Alonzo feels angry.", "The nurse is afraid of the doctor.", "Hi", "My mother made me feel happy."]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


def test_a_bf16_encoder_on_a_cpu_moves_the_vectors_a_little_and_has_its_own_fingerprint(tmp_path):
    folder = build_tiny_bert(tmp_path / "bert")
    single = TransformerEncoder.from_pretrained(folder, pooling="mean")
    half = TransformerEncoder.from_pretrained(folder, pooling="mean", precision="bf16")
    assert half.autocast_dtype is torch.bfloat16 and single.fingerprint != half.fingerprint
    vectors, rounded = single.encode(TEXTS), half.encode(TEXTS)
    assert rounded.dtype == np.float32
    assert np.abs(rounded - vectors).max() > 1e-5  # bf16 really ran
    cosine = (vectors * rounded).sum(1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(rounded, axis=1)
    assert cosine.min() > 0.99


def test_a_bf16_judge_on_a_cpu_scores_close_to_fp32(tmp_path):
    folder = build_tiny_causal_lm(tmp_path / "lm")
    scores = {}
    for precision in ("fp32", "bf16"):
        lm = load_causal_lm(folder, precision=precision, batch_size=2)
        judge = PromptJudge(lm)
        judge.language, judge.dimension = "en", "anger"
        scores[precision] = judge.score(TEXTS)
    assert lm.autocast_dtype is torch.bfloat16
    difference = np.abs(scores["bf16"].expected - scores["fp32"].expected)
    assert 1e-6 < difference.max() < 0.05
    np.testing.assert_allclose(scores["bf16"].numeral_mass, scores["fp32"].numeral_mass, rtol=0.1)
