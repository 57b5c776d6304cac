"""The methods text names a pooled test's degrees of freedom from the estimand's one declaration
(``stats.estimands``): the EEC tables' covariance sentence and the cross-language section's df words
say Satterthwaite for the mean over seeds and Barnard-Rubin for one retrained head."""

import pandas as pd
import pytest

from eval_harness.stats.estimands import ESTIMANDS
from eval_harness.suites.eec.tables import EEC_METRIC, EEC_SUITE, covariance_description
from eval_harness.suites.eec_crosslingual.report import covariance_words
from eval_harness.suites.eec_crosslingual.report import tests_words as df_words


def pooled_rows(pooling: str) -> pd.DataFrame:
    """Two clustered, seed-pooled coefficient rows of one EEC fit, pooled by ``pooling`` (every row
    pooled, so ``n_seeds`` is an int64 column)."""
    return pd.DataFrame(
        {
            "suite": EEC_SUITE,
            "metric": EEC_METRIC,
            "model": "m",
            "config": "en_arab_anglo",
            "emotion": "anger",
            "term": ["group", "gender"],
            "cov_type": "cluster",
            "cluster_by": [("template_id",)] * 2,
            "n_clusters": [(11,)] * 2,
            "statistic_kind": "t",
            "df": [7.25, 9.5],
            "n_seeds": 3,
            "pooling": pooling,
        }
    )


@pytest.mark.parametrize(
    ("estimand", "rule"), [("seed_mean", "Satterthwaite"), ("one_head", "Barnard-Rubin")]
)
def test_a_pooled_test_is_named_with_its_estimands_degrees_of_freedom(estimand, rule):
    other = "Barnard-Rubin" if rule == "Satterthwaite" else "Satterthwaite"
    rows = pooled_rows(ESTIMANDS[estimand].pooling)
    described = covariance_description(rows)
    assert f"({ESTIMANDS[estimand].label}) t tests with {rule} degrees of freedom" in described
    assert other not in described
    assert df_words(rows) == f", t tests with {rule} df 7.2 to 9.5"
    assert covariance_words(rows.iloc[0]).endswith(", pooled over 3 seeds")
