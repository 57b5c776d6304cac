"""The e5 ridge probe's scores of every group sentence of one EEC, for the planner's real-data check
(tests/suites/eec/test_eec_planner_real.py): each sentence scored once, so that a ``sample:`` run is
derived from the whole EEC's scores with the suite's own stratified sampling rather than scored
again.

The probe is the eec suite's default for an encoder (mean-pooled multilingual e5-small, ``"query:
"`` prefix, the ridge head, predictions clipped to [0, 1], SemEval-2018 cleaning of every text)
trained on ``MAX_TRAIN`` SemEval tweets per emotion and the first ``MAX_VALIDATION`` of its
validation split (tests/suites/eec/test_eec_real_models.py also trains on 300): a head on fewer
tweets is a noisier model, which the planner must predict just the same.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from eval_harness.data import load_eec
from eval_harness.data.emotion_splits import SemEvalSplits, preprocess_text
from eval_harness.models import TransformerEncoder
from eval_harness.models.heads import make_head

from .multilingual_e5 import E5_OPTIONS

MAX_TRAIN, MAX_VALIDATION = (
    300,
    100,
)  # tweets: the head's training and validation texts (the encoding's cost)
PREPROCESS = "tweet"


def e5_eec_scores(folder: Path, config: str, emotions: list[str]) -> dict[str, pd.DataFrame]:
    """emotion -> the EEC's rows of that emotion (noun phrases too: the suite's sample draws from
    every cell), with the probe's score ``y`` of each row that has a group (NaN for the others,
    which the fit leaves out)."""
    encoder = TransformerEncoder.from_pretrained(str(folder), **E5_OPTIONS, progress=False)
    corpus = load_eec(config).to_pandas()
    scored = {}
    for emotion in emotions:
        splits = SemEvalSplits().splits(
            "en", emotion, preprocess=PREPROCESS, max_train=MAX_TRAIN, seed=0
        )
        head = make_head("ridge", {})
        validation = splits["validation"]
        head.fit(
            encoder.encode(splits["train"].texts),
            splits["train"].intensity,
            encoder.encode(validation.texts[:MAX_VALIDATION]),
            validation.intensity[:MAX_VALIDATION],
        )
        rows = corpus[corpus["emotion"] == emotion].copy()
        grouped = rows["group"].notna()
        texts = [preprocess_text(text, PREPROCESS) for text in rows.loc[grouped, "sentence"]]
        rows["y"] = np.nan
        rows.loc[grouped, "y"] = np.clip(head.predict(encoder.encode(texts)), 0.0, 1.0)
        scored[emotion] = rows
    return scored
