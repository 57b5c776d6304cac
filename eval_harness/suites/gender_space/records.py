"""The gender_space suite's records: the five measures as flat records (``test`` = the measure).

:data:`GENDER_SPACE_RECORDS` is their schema, in one place (the harness checks every record against
it).
"""

from typing import TYPE_CHECKING

import numpy as np

from ...contract.records import Field, RecordSchema
from ...errors import InputError

if TYPE_CHECKING:
    from .pipeline import GenderSpaceReport

GENDER_SPACE_RECORDS = RecordSchema(
    metrics={
        "explained_variance_ratio": "a principal component's share of "
        "the definitional pairs' differences",
        "baseline_explained_variance_ratio": "the same share for random pairs (mean over draws)",
        "direct_bias": "Bolukbasi's direct bias of the professions",
        "clustering_accuracy": "k-means accuracy of the biased words' gender (mean over runs)",
        "classification_accuracy": "an SVM's accuracy of the biased words' gender (mean over runs)",
        "knn_profession_r": "Pearson r of a profession's bias and its neighbours' (mean over runs)",
    },
    fields={
        "mode": Field(str, "static or context: the vectors measured"),
        "n": Field(int, "pairs, words, draws or professions the number is computed from"),
        "std": Field(float, "the baseline's spread over its draws"),
        "c": Field(float, "direct_bias: the strictness exponent"),
        "min": Field(float, "the smallest run's value"),
        "max": Field(float, "the largest run's value"),
        "runs": Field(int, "runs averaged"),
        "k": Field(int, "knn: neighbours"),
        "skipped": Field(
            list, "the first record of a unit: the words of its lists left out, and why"
        ),
        "counts": Field(dict, "the first record of a unit: how many words each list kept"),
    },
)


def gender_space_records(report: "GenderSpaceReport") -> list[dict]:
    """Flat records (``test`` = the measure, ``metric`` = the statistic), the shape the report
    reads:

    - ``explained_variance_ratio`` and ``baseline_explained_variance_ratio`` per component
      (``term`` ``pc1``, ``pc2``...); the baseline's ``std_err`` is the standard error of its
      mean over the draws (``std`` / sqrt(draws)), ``std`` the spread of the draws;
    - ``direct_bias``;
    - ``clustering_accuracy`` and ``classification_accuracy``: ``value`` the mean over runs,
      with ``min``, ``max`` and ``runs``;
    - ``knn_profession_r``: ``value`` the mean Pearson r over runs, with ``min``, ``max``, and
      ``p_value`` the largest (least significant) of the runs' p-values.
    """
    m = report.measures
    subspace, direct, clustering, classification, knn = (
        m.subspace,
        m.direct_bias,
        m.clustering,
        m.classification,
        m.knn,
    )
    if (
        subspace is None
        or direct is None
        or clustering is None
        or classification is None
        or knn is None
    ):
        missing = [name for name, value in vars(m).items() if value is None]
        raise InputError(
            f"gender_space: no {', '.join(missing)}: the vectors lack every word of a list "
            "it needs (see skipped: "
            f"{', '.join(f'{name} {len(items)}' for name, items in report.skipped.items())})"
        )
    records = [
        _record(
            "subspace",
            "explained_variance_ratio",
            value,
            term=f"pc{i + 1}",
            n=subspace.n_differences,
        )
        for i, value in enumerate(subspace.explained_variance_ratio)
    ]
    draws, baseline, spread = (
        subspace.n_baseline_draws,
        subspace.baseline_explained_variance_ratio,
        subspace.baseline_std,
    )
    if (
        baseline is not None and spread is not None
    ):  # a subspace without random-pair draws has no baseline
        records += [
            _record(
                "subspace",
                "baseline_explained_variance_ratio",
                value,
                term=f"pc{i + 1}",
                std_err=float(std) / np.sqrt(draws),
                std=float(std),
                n=draws,
            )
            for i, (value, std) in enumerate(zip(baseline, spread, strict=True))
        ]
    records.append(
        _record("direct_bias", "direct_bias", direct.value, n=direct.n_words, c=direct.c)
    )
    records += [
        _record(
            result.measure,
            f"{result.measure}_accuracy",
            result.mean,
            min=result.min,
            max=result.max,
            runs=len(result.values),
            n=result.n_words,
        )
        for result in (clustering, classification)
    ]
    records.append(
        _record(
            "knn",
            "knn_profession_r",
            knn.mean,
            p_value=knn.max_p_value,
            min=knn.min,
            max=knn.max,
            runs=len(knn.correlations),
            n=knn.n_professions,
            k=knn.k,
        )
    )
    return [{"mode": report.mode, **record} for record in records]


def _record(test: str, metric: str, value: float, **extra) -> dict:
    return {"test": test, "metric": metric, "value": float(value), **extra}
