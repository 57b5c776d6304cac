"""(Run in a fresh process, under the CPU kernel and thread count its environment sets.) The e5
ridge probe on SemEval-2018 English anger (300 training tweets, 100 validation) and its EEC Beta
regression on a stratified sample of en_arab_anglo: prints JSON with the features, predictions and
coefficients that tests/models/test_ridge_kernels.py compares across settings.

Usage: ``python -m helpers.ridge_kernel_worker E5_FOLDER HEAD``
"""

import json
import sys

from eval_harness.thread_policy import apply_thread_policy

apply_thread_policy()

import numpy as np  # noqa: E402
import torch  # noqa: E402

from eval_harness.data import load_eec  # noqa: E402
from eval_harness.data.emotion_splits import SemEvalSplits  # noqa: E402
from eval_harness.models import TransformerEncoder  # noqa: E402
from eval_harness.models.heads import make_head  # noqa: E402
from eval_harness.stats.betareg import fit_intersectional  # noqa: E402
from eval_harness.suites.eec.suite import SAMPLE_SEED, stratified_sample  # noqa: E402

CONFIG, EMOTION, TRAIN, VALIDATION, PER_CELL = "en_arab_anglo", "anger", 300, 100, 4


def main(folder: str, head_kind: str) -> None:
    encoder = TransformerEncoder.from_pretrained(
        folder, pooling="mean", prefix="query: ", progress=False
    )
    splits = SemEvalSplits().splits("en", EMOTION, preprocess="tweet", max_train=TRAIN, seed=0)
    rows = load_eec(CONFIG).to_pandas()
    rows = stratified_sample(rows[rows["emotion"] == EMOTION], PER_CELL, SAMPLE_SEED)
    # The head needs train and validation only: the test split (1,002 tweets, most of the texts) is
    # not encoded.
    # The first VALIDATION validation tweets (as tests/helpers/e5_eec_scores.py): the encoding is
    # the cost, and the head's penalty is chosen on them all the same.
    train, validation = splits["train"], splits["validation"]
    features = {
        "train": encoder.encode(train.texts),
        "validation": encoder.encode(validation.texts[:VALIDATION]),
    }
    eec = encoder.encode(rows["sentence"].tolist())
    options = {"seed": 0, "max_epochs": 30} if head_kind == "mlp" else {}
    head = make_head(head_kind, options)
    head.fit(
        features["train"],
        train.intensity,
        features["validation"],
        validation.intensity[:VALIDATION],
    )
    y = np.clip(head.predict(eec), 0.0, 1.0)
    fit = fit_intersectional(y, rows["group"].tolist(), rows["gender"].tolist(), "Anglo", "male")
    print(
        json.dumps(
            {
                "capability": torch.backends.cpu.get_cpu_capability(),
                "threads": torch.get_num_threads(),
                "eec_features": eec.tolist(),
                "predictions": y.tolist(),
                "coefficients": [coefficient.estimate for coefficient in fit.coefficients],
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
