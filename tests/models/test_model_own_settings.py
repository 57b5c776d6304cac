"""Every model runs with its own settings unless its options say otherwise: a sentence-transformers
folder's pooling and prompt (read from its files), a packaged model's documented options; option
values are checked by kind."""

import json

import numpy as np
import pytest
import torch
from helpers.tiny_models import build_tiny_bert
from transformers import AutoModel, AutoTokenizer

from eval_harness.errors import ConfigError, ModelLoadError
from eval_harness.models.factory import build_emotion_model, build_word_embedder, default_options
from eval_harness.models.registry import check_options
from eval_harness.models.resources import ModelResources
from eval_harness.runner.config import parse_config

TEXTS = ["she feels angry", "he is happy today"]


def sentence_transformers_folder(tmp_path, pooling_flag="pooling_mode_mean_tokens", prompts=None):
    """A tiny BERT saved as sentence-transformers saves a model: modules.json, 1_Pooling/config.json
    and, with ``prompts``, config_sentence_transformers.json."""
    folder = build_tiny_bert(tmp_path / "st-model")
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir()
    flags = dict.fromkeys(
        (
            "pooling_mode_cls_token",
            "pooling_mode_mean_tokens",
            "pooling_mode_max_tokens",
            "pooling_mode_lasttoken",
        ),
        False,
    )
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({**flags, pooling_flag: True}))
    if prompts is not None:
        (folder / "config_sentence_transformers.json").write_text(json.dumps({"prompts": prompts}))
    return folder


def masked_mean_by_hand(folder, texts, prefix):
    """Sentence vectors computed here, not by xbias: the last layer's states averaged over each
    prefixed text's tokens (special tokens included, as sentence-transformers' mean pooling)."""
    tokenizer, model = (
        AutoTokenizer.from_pretrained(folder),
        AutoModel.from_pretrained(folder).eval(),
    )
    rows = []
    with torch.no_grad():
        for text in texts:
            encoded = tokenizer(prefix + text, return_tensors="pt")
            rows.append(model(**encoded).last_hidden_state[0].mean(0).numpy())
    return np.stack(rows)


def test_a_sentence_transformers_folder_pools_and_prompts_as_its_files_say(tmp_path):
    folder = sentence_transformers_folder(
        tmp_path, prompts={"query": "query: ", "passage": "passage: "}
    )
    assert default_options("encoder", str(folder)) == {"pooling": "mean", "prefix": "query: "}
    probe = build_emotion_model({"type": "encoder", "path": str(folder)})
    assert (probe.encoder.pooling, probe.encoder.prefix) == ("mean", "query: ")
    expected = masked_mean_by_hand(folder, TEXTS, "query: ")
    np.testing.assert_allclose(probe.encoder.encode(TEXTS), expected, rtol=1e-5, atol=1e-6)
    # the word vectors of the same model read the same files
    words = build_word_embedder({"type": "encoder", "path": str(folder)}, ModelResources())
    assert (words.pooling, words.prefix) == ("mean", "query: ")


def test_the_users_options_override_the_folders_settings(tmp_path):
    folder = sentence_transformers_folder(tmp_path, prompts={"query": "query: "})
    probe = build_emotion_model(
        {"type": "encoder", "path": str(folder), "options": {"pooling": "cls", "prefix": ""}}
    )
    assert (probe.encoder.pooling, probe.encoder.prefix) == ("cls", "")
    tokenizer, model = (
        AutoTokenizer.from_pretrained(folder),
        AutoModel.from_pretrained(folder).eval(),
    )
    with torch.no_grad():
        first_token = (
            model(**tokenizer(TEXTS[0], return_tensors="pt")).last_hidden_state[0, 0].numpy()
        )
    np.testing.assert_allclose(
        probe.encoder.encode(TEXTS[:1])[0], first_token, rtol=1e-5, atol=1e-6
    )
    # one option given, the other still the folder's
    probe = build_emotion_model(
        {"type": "encoder", "path": str(folder), "options": {"pooling": "last"}}
    )
    assert (probe.encoder.pooling, probe.encoder.prefix) == ("last", "query: ")


def test_the_classification_prompt_wins_and_a_folder_without_files_states_nothing(tmp_path):
    folder = sentence_transformers_folder(
        tmp_path, "pooling_mode_cls_token", {"query": "query: ", "classification": "Classify: "}
    )
    assert default_options("encoder", str(folder)) == {"pooling": "cls", "prefix": "Classify: "}
    plain = build_tiny_bert(tmp_path / "plain")
    assert default_options("encoder", str(plain)) == {}
    assert default_options("svm_tfidf", None) == {}


def test_a_pooling_xbias_does_not_compute_is_refused_with_the_remedy(tmp_path):
    folder = sentence_transformers_folder(tmp_path, "pooling_mode_max_tokens")
    with pytest.raises(
        ModelLoadError, match="pooling_mode_max_tokens, which xbias does not compute; set pooling"
    ):
        default_options("encoder", str(folder))
    probe = build_emotion_model(
        {"type": "encoder", "path": str(folder), "options": {"pooling": "mean"}}
    )
    assert probe.encoder.pooling == "mean"


def test_packaged_models_state_their_documented_options():
    assert default_options("encoder", "pypi:multilingual-e5-small") == {
        "pooling": "mean",
        "prefix": "query: ",
    }
    # a local folder that happens to bear a packaged model's name is not that model
    assert default_options("encoder", "multilingual-e5-small") == {}


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"prefix": {"query": None}}, "option 'prefix' must be a string"),
        ({"pooling": 1}, "option 'pooling' must be a string"),
        ({"layer": "2"}, "option 'layer' must be a whole number"),
        ({"share_dimensions": "yes"}, "option 'share_dimensions' must be true or false"),
        ({"batch_size": True}, "option 'batch_size' must be a whole number"),
    ],
)
def test_an_option_value_of_the_wrong_kind_is_refused_in_one_line(options, words):
    with pytest.raises(ConfigError, match=words) as caught:
        check_options("encoder", options)
    assert "\n" not in str(caught.value)
    config = {
        "models": [{"path": "pypi:multilingual-e5-small", "options": options}],
        "suites": ["eec"],
    }
    with pytest.raises(ConfigError, match=words):
        parse_config({**config, "languages": ["en"]})
