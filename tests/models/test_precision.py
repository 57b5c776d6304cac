"""The precision option: which autocast each value gives on each device, and bf16 autocast on a CPU for real.

On a CPU, ``auto`` and ``fp32`` run fp32 and ``bf16`` runs bf16 autocast (docs/models.md has what it changes);
``fp16`` is refused there. The tiny models check that bf16 is applied (numbers move, caches are kept apart)
yet stays close to fp32, for the encoder and for the judge's packed scoring."""

import numpy as np
import pytest
import torch
from helpers.tiny_causal_lm import build_tiny_causal_lm
from helpers.tiny_models import build_tiny_bert

from eval_harness.errors import InputError, XBiasError
from eval_harness.models import TransformerEncoder
from eval_harness.models.batching import resolve_precision
from eval_harness.models.causal_lm import load_causal_lm
from eval_harness.models.prompt_judge import PromptJudge

TEXTS = ["Alonzo feels angry.", "The nurse is afraid of the doctor.", "Hi", "My mother made me feel happy."]
CPU, GPU = torch.device("cpu"), torch.device("cuda")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path / "xbias-cache"))


def test_on_a_cpu_auto_is_fp32_bf16_is_bf16_and_fp16_is_refused():
    assert resolve_precision("auto", CPU) is None
    assert resolve_precision("fp32", CPU) is None
    assert resolve_precision("bf16", CPU) is torch.bfloat16
    with pytest.raises(InputError, match="GPU only"):
        resolve_precision("fp16", CPU)
    with pytest.raises(XBiasError, match="precision must be one of"):
        resolve_precision("int8", CPU)


@pytest.mark.parametrize(("supported", "auto"), [(True, torch.bfloat16), (False, torch.float16)])
def test_on_a_gpu_auto_is_bf16_where_supported_else_fp16(monkeypatch, supported, auto):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: supported)
    assert resolve_precision("auto", GPU) is auto
    assert resolve_precision("bf16", GPU) is torch.bfloat16
    assert resolve_precision("fp16", GPU) is torch.float16
    assert resolve_precision("fp32", GPU) is None


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
