"""bf16 autocast on a CPU for real (which autocast each precision gives on each device:
test_hf_model.py).

On a CPU, ``auto`` and ``fp32`` run fp32 and ``bf16`` runs bf16 autocast (docs/models.md has what it
changes and why ``auto`` keeps fp32 even where the CPU has bf16 matrix units, which are detected:
AMX-BF16 in the CPU's flags, PyTorch's capability, oneDNN not held below AMX; each capability this
CPU has is forced in a fresh process). The tiny models check that bf16 is applied (numbers move,
caches are kept apart) yet stays close to fp32, for the encoder and for the judge's packed
scoring."""

import logging
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from helpers.tiny_causal_lm import build_tiny_causal_lm
from helpers.tiny_models import build_tiny_bert

from eval_harness.models import TransformerEncoder, batching, hf_model
from eval_harness.models.causal_lm import load_causal_lm
from eval_harness.models.prompt_judge import PromptJudge

TEXTS = [
    "Alonzo feels angry.",
    "The nurse is afraid of the doctor.",
    "Hi",
    "My mother made me feel happy.",
]


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
    cosine = (
        (vectors * rounded).sum(1)
        / np.linalg.norm(vectors, axis=1)
        / np.linalg.norm(rounded, axis=1)
    )
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


# --- bf16 matrix units (AMX-BF16): detected, told, and still fp32 under auto ----------------------

CAPABILITY_ORDER = ("DEFAULT", "AVX2", "AVX512")


@pytest.fixture
def detection(monkeypatch):
    """Detection with this CPU's flags and capability mocked: ``set(flags, capability)``; the cache
    is cleared."""

    def set_cpu(flags: str, capability: str = "AVX512") -> None:
        monkeypatch.setattr(batching, "cpu_flags", lambda: frozenset(flags.split()))
        monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: capability)
        batching.cpu_has_bf16_matrix_units.cache_clear()

    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    yield set_cpu
    batching.cpu_has_bf16_matrix_units.cache_clear()


def test_cpu_flags_are_read_from_the_first_flags_line(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: "
        "fpu avx2 amx_bf16 amx_tile\n\nflags\t: other\n"
    )
    assert batching.cpu_flags(str(info)) == {"fpu", "avx2", "amx_bf16", "amx_tile"}
    assert (
        batching.cpu_flags(str(tmp_path / "missing")) == frozenset()
    )  # not Linux: no flags, no bf16 units


@pytest.mark.parametrize(
    "flags, capability, isa_limit, expected",
    [
        ("avx512f avx512_bf16 amx_bf16 amx_tile", "AVX512", None, True),
        ("avx512f avx512_bf16 amx_bf16 amx_tile", "AVX512", "AVX512_CORE_AMX", True),
        (
            "avx512f avx512_bf16 amx_bf16 amx_tile",
            "AVX512",
            "AVX512_CORE",
            False,
        ),  # oneDNN held below AMX
        (
            "avx512f avx512_bf16 amx_bf16 amx_tile",
            "AVX2",
            None,
            False,
        ),  # ATEN_CPU_CAPABILITY lowered
        ("avx512f avx512_bf16", "AVX512", None, False),  # bf16 dot products, no matrix units
        ("avx2 fma", "AVX2", None, False),  # the AMD EPYC of the first measurement
    ],
)
def test_bf16_matrix_units_need_the_flag_the_capability_and_onednn(
    detection, monkeypatch, flags, capability, isa_limit, expected
):
    if isa_limit:
        monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", isa_limit)
    detection(flags, capability)
    assert batching.cpu_has_bf16_matrix_units() is expected


def test_auto_stays_fp32_on_a_cpu_with_bf16_matrix_units_and_says_bf16_is_faster(
    detection, tmp_path, caplog
):
    detection("avx512f amx_bf16 amx_tile")
    assert (
        batching.resolve_precision("auto", torch.device("cpu")) is None
    )  # the rule: docs/models.md
    assert (
        batching.precision_name("auto", "cpu") == "fp32"
        and batching.precision_name("bf16", "cpu") == "bf16"
    )
    hf_model._say_bf16_is_faster_here.cache_clear()
    folder = build_tiny_bert(tmp_path / "bert")
    with caplog.at_level(logging.INFO, logger="eval_harness.models.hf_model"):
        TransformerEncoder.from_pretrained(folder)
        TransformerEncoder.from_pretrained(folder)
        TransformerEncoder.from_pretrained(folder, precision="fp32")
    assert [record.message.count("AMX-BF16") for record in caplog.records] == [1]


def capability_in_a_fresh_process(capability: str) -> tuple[str, bool]:
    """What torch reports and whether bf16 matrix units are found, under
    ``ATEN_CPU_CAPABILITY=capability``."""
    code = (
        "import torch; from eval_harness.models.batching import cpu_has_bf16_matrix_units "
        "as found; print(torch.backends.cpu.get_cpu_capability(), found())"
    )
    environment = {**os.environ, "ATEN_CPU_CAPABILITY": capability.lower()}
    environment.pop("ONEDNN_MAX_CPU_ISA", None)
    finished = subprocess.run(
        [sys.executable, "-c", code],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    reported, units = finished.stdout.split()
    return reported, units == "True"


def test_each_capability_this_cpu_has_can_be_forced_and_only_avx512_reaches_the_matrix_units():
    native = torch.backends.cpu.get_cpu_capability()
    has_flag = "amx_bf16" in batching.cpu_flags()
    forcible = (
        CAPABILITY_ORDER[: CAPABILITY_ORDER.index(native) + 1]
        if native in CAPABILITY_ORDER
        else ("DEFAULT",)
    )
    for capability in forcible:
        assert capability_in_a_fresh_process(capability) == (
            capability,
            has_flag and capability == "AVX512",
        )
