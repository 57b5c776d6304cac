"""The one base of the Hugging Face wrappers (TransformerEncoder, CausalLM, ClassifierScorer), on a
CPU: where a model and its inputs go (with and without an ``hf_device_map``), which autocast each
precision gives on each device, and that every wrapper takes these settings from the base."""

import numpy as np
import pytest
import torch
from helpers.tiny_causal_lm import build_tiny_causal_lm
from helpers.tiny_models import build_tiny_bert, build_tiny_classifier
from transformers import (
    AutoModel,
    AutoModelForCausalLM,
    AutoModelForSequenceClassification,
    AutoTokenizer,
)

from eval_harness.errors import InputError, XBiasError
from eval_harness.models.batching import autocast, resolve_precision
from eval_harness.models.causal_lm import CausalLM
from eval_harness.models.classifier import ClassifierScorer
from eval_harness.models.encoder import TransformerEncoder
from eval_harness.models.hf_model import HuggingFaceModel, place_model

CPU, GPU = torch.device("cpu"), torch.device("cuda", 1)


class Unmovable(torch.nn.Module):
    """A model that accelerate spread over devices: moving it as a whole is an error."""

    def __init__(self):
        super().__init__()
        self.embeddings = torch.nn.Embedding(4, 2)
        self.hf_device_map = {"embeddings": "cpu", "head": "disk"}

    def get_input_embeddings(self):
        return self.embeddings

    def to(self, *args, **kwargs):
        raise AssertionError("a model with a device map was moved")


def test_a_model_with_a_device_map_stays_and_takes_inputs_on_its_embeddings_device():
    model = Unmovable().train()
    placed, device = place_model(
        model, "cuda:3"
    )  # the given device is not where its inputs must go
    assert (
        placed is model and not placed.training and device == model.embeddings.weight.device == CPU
    )


def test_any_other_model_is_moved_to_the_given_device_or_the_default_one(monkeypatch):
    layer = torch.nn.Linear(2, 2).train()
    placed, device = place_model(layer, "cpu")
    assert placed is layer and device == CPU and not placed.training
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert place_model(torch.nn.Linear(2, 2), None)[1] == CPU


@pytest.mark.parametrize(
    ("precision", "device", "bf16_supported", "expected"),
    [
        ("auto", CPU, True, None),
        ("bf16", CPU, True, torch.bfloat16),
        ("fp32", GPU, True, None),
        ("auto", GPU, True, torch.bfloat16),
        ("auto", GPU, False, torch.float16),
        ("bf16", GPU, False, torch.bfloat16),
        ("fp16", GPU, True, torch.float16),
    ],
)
def test_each_precision_gives_its_autocast_dtype(
    monkeypatch, precision, device, bf16_supported, expected
):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: bf16_supported)
    assert resolve_precision(precision, device) is expected


def test_an_unknown_precision_is_a_clear_error():
    with pytest.raises(
        XBiasError, match=r"precision must be one of \('auto', 'fp32', 'bf16', 'fp16'\)"
    ):
        resolve_precision("fp8", CPU)


def test_fp16_on_a_cpu_is_refused():
    with pytest.raises(
        InputError, match="precision fp16 runs on a GPU only; on cpu use bf16 or fp32"
    ):
        resolve_precision("fp16", CPU)


def test_autocast_is_off_in_fp32_and_on_with_a_dtype():
    with autocast(CPU, None):
        assert not torch.is_autocast_enabled("cpu")
    with autocast(CPU, torch.bfloat16):
        assert (
            torch.is_autocast_enabled("cpu") and torch.get_autocast_dtype("cpu") == torch.bfloat16
        )
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf")
    return {
        "encoder": build_tiny_bert(root / "bert"),
        "classifier": build_tiny_classifier(root / "classifier"),
        "causal_lm": build_tiny_causal_lm(root / "lm"),
    }


WRAPPERS = {
    "encoder": (TransformerEncoder, AutoModel, {"pooling": "mean"}),
    "classifier": (ClassifierScorer, AutoModelForSequenceClassification, {}),
    "causal_lm": (CausalLM, AutoModelForCausalLM, {}),
}


@pytest.mark.parametrize("kind", sorted(WRAPPERS))
def test_every_wrapper_takes_its_settings_from_the_base(folders, kind):
    wrapper, auto_class, options = WRAPPERS[kind]
    model = auto_class.from_pretrained(folders[kind])
    tokenizer = AutoTokenizer.from_pretrained(folders[kind])
    wrapped = wrapper(
        model, tokenizer, name="tiny", device="cpu", max_length=9, precision="fp32", **options
    )
    assert isinstance(wrapped, HuggingFaceModel)
    assert (wrapped.name, wrapped.device, wrapped.max_length, wrapped.autocast_dtype) == (
        "tiny",
        CPU,
        9,
        None,
    )
    assert (
        wrapped.pad_id == tokenizer.pad_token_id and wrapped.model is model and not model.training
    )
    unnamed = wrapper(model, tokenizer, **options)
    assert unnamed.name == model.config._name_or_path  # the folder it was loaded from
    assert unnamed.max_length == min(
        tokenizer.model_max_length, model.config.max_position_embeddings
    )
    with pytest.raises(InputError, match="batch_size must be a positive integer"):
        wrapper(model, tokenizer, batch_size=0, **options)
    # a model that accelerate dispatched (it sets hf_device_map when it spreads a model over
    # devices) stays where it is, whatever device is asked for
    mapped = auto_class.from_pretrained(folders[kind])
    mapped.hf_device_map = {"": "cpu"}
    mapped.to = Unmovable.to
    assert wrapper(mapped, tokenizer, device="cuda:7", **options).device == CPU


def gpu_precision_on_cpu(wrapped: HuggingFaceModel, monkeypatch) -> list[bool]:
    """Give ``wrapped`` the autocast a GPU's ``precision="auto"`` gives (bf16), on this CPU, so that
    the GPU path's code runs here; returns, per forward pass, whether autocast was on inside it."""
    monkeypatch.setattr(wrapped, "autocast_dtype", torch.bfloat16)
    seen = []
    wrapped.model.register_forward_hook(lambda *_: seen.append(torch.is_autocast_enabled("cpu")))
    return seen


SENTENCES = ["she is angry", "the man was happy today", "i feel sad and afraid"]


@pytest.mark.parametrize("kind", sorted(WRAPPERS))
def test_every_wrapper_runs_its_forward_passes_under_a_gpus_bf16_autocast_and_returns_float_numbers(
    folders, kind, monkeypatch
):
    """The CUDA path's precision, covered on a CPU: every forward pass runs under the bf16 autocast,
    the outputs come back as float32/float64 numpy (a bf16 tensor cannot become numpy), within
    bf16's rounding of fp32's."""
    wrapper, auto_class, options = WRAPPERS[kind]
    tokenizer = AutoTokenizer.from_pretrained(folders[kind])

    def outputs(wrapped):
        if kind == "encoder":
            return wrapped.encode(SENTENCES)
        if kind == "classifier":
            wrapped.label_index = 0
            return wrapped._raw_predict(SENTENCES)
        sequences = wrapped.tokenize(SENTENCES)
        prefix = sequences[0][
            :2
        ]  # the judge's path: a cached prefix's keys and values reused under autocast
        return wrapped.next_token_logprobs(
            [prefix + s for s in sequences], candidates=[5, 6, 7], prefix=prefix
        )[0]

    fp32 = outputs(
        wrapper(auto_class.from_pretrained(folders[kind]), tokenizer, device="cpu", **options)
    )
    wrapped = wrapper(auto_class.from_pretrained(folders[kind]), tokenizer, device="cpu", **options)
    autocast_on = gpu_precision_on_cpu(wrapped, monkeypatch)
    bf16 = outputs(wrapped)
    assert autocast_on and all(autocast_on)
    assert (
        bf16.dtype in (np.float32, np.float64)
        and bf16.shape == fp32.shape
        and np.isfinite(bf16).all()
    )
    assert not np.array_equal(bf16, fp32)  # bf16 did run
    np.testing.assert_allclose(bf16, fp32, atol=0.05 * max(1.0, float(np.abs(fp32).max())))
