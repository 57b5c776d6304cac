"""The report's regressor table names each model's head, read from its records: one seed, several
seeds of a seeded head (whose selected epoch differs), and a zero-shot judge that fits none."""

import pandas as pd

from eval_harness.contract.seeds import pool_seeds
from eval_harness.models.regressors import RegressorScores
from eval_harness.suites.eec.records import EEC_RECORDS, regressor_records
from eval_harness.suites.eec.tables import regressor_quality_table

UNIT = {"suite": "eec", "language": "en", "dataset": "semeval2018_affect", "config": "en"}


def _records(model: str, seed: int, selected: dict) -> list[dict]:
    test_r = 0.6 + seed / 100
    scores = RegressorScores("encoder", "en", "anger", 0.7, test_r, 300, 100, 100, selected)
    key = {**UNIT, "model": model, "emotion": "anger", "term": None, "seed": seed}
    return [{**key, **record} for record in regressor_records(scores)]


def test_the_regressor_table_shows_each_models_head():
    mlp_seeds = [_records("glove", s, {"head": "mlp", "best_epoch": 4 + s}) for s in (0, 1)]
    records = [
        *_records("e5", 0, {"head": "ridge", "penalty": 10.0}),
        *_records("judge", 0, {"prompt": "direct"}),
        *[record for seed in mlp_seeds for record in seed],
    ]
    pooled = pd.DataFrame(pool_seeds(records, schemas={"eec": EEC_RECORDS}))
    table = regressor_quality_table(pooled).set_index("model")
    assert list(table.columns) == ["head", "en: anger"]
    assert table["head"].to_dict() == {"e5": "ridge", "glove": "mlp", "judge": ""}
    assert table.loc["glove", "en: anger"] == "0.60"  # the mean of the seeds' 0.60 and 0.61: 0.605
