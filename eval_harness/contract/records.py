"""The long format of results: one flat record per number, and the schema of what a suite's records
hold.

A record holds the unit's key (``model, suite, language, dataset, config, emotion, test``), then
``term, metric, value, std_err, p_value`` (:data:`RECORD_FIELDS`, in that order), then any extra
fields the suite adds (``ci_low``, ``n``, notes...) and those the harness adds
(:data:`HARNESS_FIELDS`: ``seed`` and what the numbers were computed from). ``value``, ``std_err``
and ``p_value`` are finite numbers or None: a suite reports a number it cannot give as None with a
note.

Every suite declares its records in one place, a :class:`RecordSchema` (``Suite.records``): the
metrics it writes and every extra field with its type. The harness checks each record against it
when the unit is written (an undeclared field or a value of another type is an
:class:`~eval_harness.errors.InputError` naming both), and the report, the seed pooling and a
method's report section read the fields it declares. :data:`COMMON_FIELDS` are the fields whose
meaning every reader knows, whichever suite writes them.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from ..stats.estimands import ESTIMANDS
from .suite import Unit

RECORD_FIELDS = (
    "model",
    "suite",
    "language",
    "dataset",
    "config",
    "emotion",
    "test",
    "term",
    "metric",
    "value",
    "std_err",
    "p_value",
)
# What makes one quantity of a unit: its key without the seed, the term and the metric.
QUANTITY_FIELDS = RECORD_FIELDS[:9]


@dataclass(frozen=True)
class Field:
    """One field of a record beyond :data:`RECORD_FIELDS`: its JSON type and what it means.

    ``type``: ``float`` (any number but a bool), ``int`` (a whole number), ``str``, ``bool``,
    ``list`` (a JSON array: a list or a tuple before writing) or ``dict`` (a JSON object). A field
    may always be None. ``seed_mean``: a number that seed pooling averages over the seeds (a
    per-seed share, such as the share of template resamples that keep a finding's sign) instead of
    dropping it when the seeds differ.
    """

    type: type
    doc: str = ""
    seed_mean: bool = False

    def accepts(self, value: Any) -> bool:
        if value is None:
            return True
        if self.type is float:
            return isinstance(value, int | float) and not isinstance(value, bool)
        if self.type is int:
            return isinstance(value, int) and not isinstance(value, bool)
        if self.type is list:
            return isinstance(value, list | tuple)
        return isinstance(value, self.type)


@dataclass(frozen=True)
class Test:
    """A further test of a record's value beside its own ``std_err``/``p_value`` (e.g. the EEC's
    template-clustered one): the fields that hold its standard error, p-value and degrees of
    freedom, and of its minimum detectable effect (``mde``, 80 % power at 0.05). Seed pooling pools
    it like the record's own test, and gives the pooled test's minimum detectable effect."""

    std_err: str
    p_value: str
    df: str | None = None
    mde: str | None = None


# Fields any suite may write, with one meaning for every reader (the report's marks, the seed
# pooling).
COMMON_FIELDS = {
    "note": Field(str, "why a number is missing, or what to know when reading it"),
    "status": Field(str, '"ok", or "skipped" (then value is None and note says why)'),
    "stars": Field(str, "the paper's significance stars of p_value"),
    "ci_low": Field(float, "lower end of the value's interval"),
    "ci_high": Field(float, "upper end of the value's interval"),
    "confidence_level": Field(float, "the interval's level"),
    "statistic": Field(float, "the test statistic behind p_value"),
    "statistic_kind": Field(str, '"z" or "t": the test\'s reference distribution'),
    "df": Field(float, "the t test's degrees of freedom"),
}
# Fields the harness adds to every record of a unit.
HARNESS_FIELDS = {
    "seed": Field(int, "the sweep seed of the unit"),
    "model_commit": Field(str, "the commit (or package==version) the model was loaded from"),
    "dataset_fingerprint": Field(str, "what the dataset the unit read was built from"),
    "precision": Field(
        str, "what the forward passes ran as: fp32, bf16 or fp16 (None: the model runs no network)"
    ),
    "encoder_pooling": Field(
        str, "how an encoder's token states became a sentence vector: cls, mean or last"
    ),
    "encoder_prefix": Field(
        str, "the text an encoder put before every input (e5's 'query: '; '' for none)"
    ),
}
# From the estimands' declaration: the rules that pool a test over seeds (the estimand each
# answers, and back), and one sentence per estimand for every output that pools seeds.
TESTED_POOLINGS = {estimand.pooling: name for name, estimand in ESTIMANDS.items()}
POOLING_OF_ESTIMAND = {name: estimand.pooling for name, estimand in ESTIMANDS.items()}
ESTIMAND_SENTENCES = {name: estimand.sentence for name, estimand in ESTIMANDS.items()}
# Fields seed pooling adds to a pooled record (:mod:`.seeds`).
POOLED_FIELDS = {
    "n_seeds": Field(int, "how many seeds the record pools"),
    "seeds": Field(list, "the seeds it pools"),
    "pooling": Field(str, '"identical", "seed_mean", "rubin" or "mean": the rule that pooled it'),
    "between_seed_sd": Field(float, "SD of the seeds' values (ddof 1)"),
    "between_seed_share": Field(
        float,
        "the share of std_err squared that is training noise: (B/m) "
        "/ T for the seed mean, (1 + 1/m) B / T by Rubin's rules",
    ),
    "seed_min": Field(float, "the smallest seed's value"),
    "seed_max": Field(float, "the largest seed's value"),
    "share_same_sign": Field(float, "share of the seeds whose value has the pooled value's sign"),
    "share_significant": Field(float, "share of the seeds significant at alpha"),
    "share_same_significance": Field(
        float, "share of the seeds that agree with the pooled test at alpha"
    ),
}


@dataclass(frozen=True)
class RecordSchema:
    """What one suite's records hold: its metrics, and every field beyond :data:`RECORD_FIELDS`,
    :data:`COMMON_FIELDS` and :data:`HARNESS_FIELDS`, with its type.

    Attributes:
        metrics: metric name -> what the record of that metric is.
        fields: field name -> :class:`Field`.
        key: fields that tell two quantities of one unit apart when they share term and metric (the
            EEC's ``split`` of a Pearson r); seed pooling groups by them too.
        tests: further tests of the value (:class:`Test`), pooled over seeds like the record's own.
        mde: the field holding the minimum detectable effect of the record's own test (80 % power at
            0.05), which seed pooling computes again for the pooled test; None: the record's own
            test has none.
    """

    metrics: Mapping[str, str]
    fields: Mapping[str, Field] = field(default_factory=dict)
    key: tuple[str, ...] = ()
    tests: tuple[Test, ...] = ()
    mde: str | None = None

    def seed_means(self) -> tuple[str, ...]:
        """The fields seed pooling averages over the seeds (:attr:`Field.seed_mean`)."""
        return tuple(name for name, declared in self.fields.items() if declared.seed_mean)

    def field(self, name: str) -> Field | None:
        """The declaration of field ``name`` (the suite's own, or a common or harness field), or
        None."""
        return self.fields.get(name) or COMMON_FIELDS.get(name) or HARNESS_FIELDS.get(name)

    def problem(self, record: Mapping[str, Any]) -> str | None:
        """Why ``record`` is not one this schema describes (an unknown metric, an undeclared field,
        a value of another type), or None."""
        if record.get("metric") not in self.metrics:
            return (
                f"metric {record.get('metric')!r} is not one "
                f"of the suite's ({', '.join(self.metrics)})"
            )
        for name, value in record.items():
            if name in RECORD_FIELDS:
                continue
            declared = self.field(name)
            if declared is None:
                return f"field {name!r} is not declared in the suite's record schema"
            if not declared.accepts(value):
                return (
                    f"field {name!r} holds {value!r}, not "
                    f"{declared.type.__name__} (its record schema says)"
                )
        return None


def make_record(unit: Unit, record: Mapping[str, Any], schema: RecordSchema | None = None) -> dict:
    """A result record in long format: the unit's key, then term/metric/value/std_err/p_value, then
    extras.

    ``schema``: the suite's record schema; the record must be one it describes.

    Raises:
        InputError: the record lacks ``metric``, has a value that is not a finite number or None, or
            is not one ``schema`` describes.
    """
    if "metric" not in record or "value" not in record:
        raise InputError(
            f"unit {unit.id}: a record needs 'metric' and 'value', got keys {sorted(record)}"
        )
    merged = {**unit.fields(), "term": None, "std_err": None, "p_value": None, **record}
    for name in ("value", "std_err", "p_value"):
        merged[name] = _finite_or_none(merged[name], unit, record["metric"], name)
    ordered = {name: merged.pop(name) for name in RECORD_FIELDS}
    made = {**ordered, **{k: _plain(v) for k, v in merged.items()}}
    problem = schema.problem(made) if schema is not None else None
    if problem is not None:
        raise InputError(
            f"unit {unit.id}: a {record['metric']} record "
            f"does not fit its suite's schema: {problem}"
        )
    return made


def _finite_or_none(value: Any, unit: Unit, metric: str, name: str) -> float | None:
    if value is None:
        return None
    number = float(value)
    if not math.isfinite(number):
        raise InputError(
            f"unit {unit.id}: {metric} has a non-finite {name} ({number}); the suite must report "
            "None with a note instead"
        )
    return number


def _plain(value: Any) -> Any:
    """numpy scalars and arrays -> Python scalars and lists, so records are plain JSON."""
    return value.tolist() if isinstance(value, (np.generic, np.ndarray)) else value
