"""A run's records pooled over its seeds: one number per quantity instead of one per seed.

Records of one quantity share their key (the unit's key without the seed, then ``term`` and
``metric``: :data:`~.records.QUANTITY_FIELDS`, and the ``key`` fields of their suite's
:class:`~.records.RecordSchema`, such as the EEC's ``split``) and differ in ``seed``. With two or
more seeds a group becomes one record, by the first rule that applies:

1. ``"identical"``: every seed gave the same value (a seed-independent number, such as a WEAT effect
   size of static vectors, or a test every seed skipped): the first seed's record, as it is (a
   Monte-Carlo p-value is then that seed's draws'), with ``between_seed_share`` 0 when it has a
   standard error.
2. ``"seed_mean"`` (the default ``estimand``) or ``"rubin"`` (``estimand="one_head"``): every seed's
   record has a standard error: :func:`eval_harness.stats.pooling.pool_estimates`, with each seed's
   own p-value and, for t tests, its degrees of freedom as the sampling variance's df. ``value`` is
   the mean over seeds; ``std_err`` is the mean's, ``sqrt(W + B/m)`` (the sentences are shared by
   every seed, only the training noise averages out), or, by Rubin's rules, what one retrained head
   would show, ``sqrt(W + (1 + 1/m) B)``; ``between_seed_share`` is how much of ``std_err``'s square
   is training noise; ``share_same_sign``, and, when every seed's record has a p-value (a test; none
   is invented for a standard error without one), ``p_value``, ``ci_low``/``ci_high``,
   ``statistic``, ``stars`` of the pooled test (``statistic_kind`` ``"t"`` with Satterthwaite's
   ``df`` (the training variance at its upper 75 % limit: ``pooling.seed_mean_df``) /
   Barnard-Rubin's, ``"z"`` when the seeds agree exactly), ``share_significant`` and
   ``share_same_significance`` (at ``alpha``). The further tests the suite's schema declares
   (``tests``: the EEC's template-clustered ``clustered_std_err`` / ``clustered_p_value`` /
   ``clustered_df``) are pooled the same way when every seed has them, with the pooled test's
   minimum detectable effect (the test's ``mde`` field); the fields the schema marks ``seed_mean``
   (the stability shares) hold the mean over the seeds.
3. ``"mean"``: no seed's record has a standard error or a p-value (a regressor's Pearson r, an
   accuracy): :func:`~eval_harness.stats.pooling.pool_statistic`, ``value`` the mean; the other
   numeric fields that differ between seeds (a cell's predicted mean) are averaged too.

Every pooled record has ``n_seeds``, ``seeds``, ``pooling`` (the rule), ``between_seed_sd`` (the SD
of the seeds' values, ``ddof=1``), ``seed_min``, ``seed_max`` and ``seed`` None
(:data:`~.records.POOLED_FIELDS`). Other fields that differ between the seeds (a per-seed
likelihood-ratio test, a selected hyperparameter) are dropped rather than shown with one seed's
value (a mapping keeps the entries all seeds agree on: the head among the selected hyperparameters);
differing notes are joined. A group that fits no rule (a p-value without a standard error on a value
that changes with the seed, a test skipped on some seeds only) is left as it is, one record per seed
(``pooling`` None): it cannot be pooled without inventing a number.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeGuard

from ..errors import InputError
from ..stats.estimands import DEFAULT_ESTIMAND
from ..stats.pooling import pool_estimates, pool_statistic
from ..stats.power import minimum_detectable_effect
from ..stats.results import is_missing
from ..stats.significance import significance_stars
from .records import POOLING_OF_ESTIMAND, QUANTITY_FIELDS, RecordSchema, Test

SPREAD_FIELDS = (
    "n_seeds",
    "seeds",
    "pooling",
    "between_seed_sd",
    "between_seed_share",
    "seed_min",
    "seed_max",
)


def seeds_of(records: Iterable[Mapping]) -> list:
    """The distinct seeds of ``records``, in order of appearance."""
    return list(
        dict.fromkeys(
            record.get("seed") for record in records if not is_missing(record.get("seed"))
        )
    )


def pool_key(record: Mapping, schema: RecordSchema | None = None) -> tuple:
    """What identifies the record's quantity across seeds (the module docstring)."""
    names = (*QUANTITY_FIELDS, *(schema.key if schema is not None else ()))
    return tuple(None if is_missing(record.get(name)) else record.get(name) for name in names)


def pool_seeds(
    records: Sequence[Mapping],
    alpha: float = 0.05,
    schemas: Mapping[str, RecordSchema] | None = None,
    estimand: str = DEFAULT_ESTIMAND,
) -> list[dict]:
    """``records`` with each quantity's seeds pooled for ``estimand`` (``"seed_mean"`` or
    ``"one_head"``: see the module docstring); unchanged with one seed.

    ``schemas``: suite name -> its record schema (the quantity's key fields and further tests); a
    suite without one pools by the long format's fields alone. The pooled record takes the place of
    its group's first record; the order is otherwise kept.
    """
    if len(seeds_of(records)) < 2:
        return [dict(record) for record in records]
    schemas = schemas or {}
    groups: dict[tuple, list[Mapping]] = {}
    for record in records:
        groups.setdefault(pool_key(record, schemas.get(record.get("suite", ""))), []).append(record)
    pooled = []
    for group in groups.values():
        seeds = seeds_of(group)
        if len(seeds) < 2 or len(seeds) != len(
            group
        ):  # one seed, or a key that repeats within a seed
            pooled += [dict(record) for record in group]
        else:
            schema = schemas.get(group[0].get("suite", ""))
            pooled += pool_group(
                group,
                alpha,
                schema.tests if schema is not None else (),
                schema.seed_means() if schema is not None else (),
                schema.mde if schema is not None else None,
                estimand,
            )
    return pooled


def pool_group(
    group: Sequence[Mapping],
    alpha: float = 0.05,
    tests: Sequence[Test] = (),
    averaged: Sequence[str] = (),
    mde: str | None = None,
    estimand: str = DEFAULT_ESTIMAND,
) -> list[dict]:
    """One record for the seeds' records of one quantity, or the records as they are (module
    docstring). ``averaged``: fields a record pooled by rule 2 holds the seeds' mean of (the
    schema's ``seed_mean`` fields); ``mde``: the field of the record's own test's minimum detectable
    effect (the schema's ``mde``)."""
    values = [record.get("value") for record in group]
    if all(is_missing(value) for value in values) or (
        not any(is_missing(value) for value in values) and len(set(values)) == 1
    ):
        identical = _spread({**group[0]}, group, "identical", values)
        if _number(identical.get("std_err")):
            identical["between_seed_share"] = (
                0.0  # no seed moved the value: its standard error is all within-seed
            )
        return [identical]
    if any(is_missing(value) for value in values):
        return [dict(record) for record in group]
    if all(_number(record.get("std_err")) for record in group):
        return [_seed_means(_tested(group, alpha, tests, mde, estimand), group, averaged)]
    if all(
        is_missing(record.get("std_err")) and is_missing(record.get("p_value")) for record in group
    ):
        return [_mean(group)]
    return [dict(record) for record in group]


def _number(value: object) -> TypeGuard[int | float]:
    """A finite number (a bool counts as one: callers that mean a quantity refuse bools
    themselves)."""
    return not is_missing(value) and isinstance(value, int | float) and math.isfinite(value)


def _common(group: Sequence[Mapping]) -> dict:
    """The fields every record of ``group`` has with one value; differing notes joined.

    Of a mapping that differs, the entries every record has with one value are kept (a seeded
    regressor's head, whose selected epoch differs)."""
    common = _agreed(group)
    for key in group[0]:
        if key not in common and all(isinstance(record.get(key), dict) for record in group):
            agreed = _agreed([record[key] for record in group])
            if agreed:
                common[key] = agreed
    notes = list(
        dict.fromkeys(str(r["note"]) for r in group if isinstance(r.get("note"), str) and r["note"])
    )
    if notes:
        common["note"] = "; ".join(notes)
    return common


def _agreed(mappings: Sequence[Mapping]) -> dict:
    """The entries of the first of ``mappings`` that every other has with the same value."""
    agreed = {}
    for key, value in mappings[0].items():
        if all(_same(other.get(key), value) for other in mappings):
            agreed[key] = value
    return agreed


def _same(left, right) -> bool:
    if is_missing(left) and is_missing(right):
        return True
    return type(left) is type(right) and left == right


def _spread(record: dict, group: Sequence[Mapping], pooling: str, values: list) -> dict:
    numbers = [float(value) for value in values if not is_missing(value)]
    record.update(
        seed=None,
        n_seeds=len(group),
        seeds=seeds_of(group),
        pooling=pooling,
        between_seed_sd=pool_statistic(numbers).sd if len(numbers) >= 2 else None,
        seed_min=min(numbers) if numbers else None,
        seed_max=max(numbers) if numbers else None,
    )
    return record


def _degrees_of_freedom(group: Sequence[Mapping], kind_field: str, df_field: str) -> float | None:
    """The seeds' common t degrees of freedom (the smallest), or None for z tests."""
    dfs = [record.get(df_field) for record in group]
    if kind_field and any(record.get(kind_field) != "t" for record in group):
        return None
    numbers = [df for df in dfs if _number(df)]
    if len(numbers) < len(dfs):
        return None
    return float(min(numbers))


def _tested(
    group: Sequence[Mapping], alpha: float, tests: Sequence[Test], mde: str | None, estimand: str
) -> dict:
    """The seeds' records of an estimate with standard errors pooled for ``estimand`` (module
    docstring, rule 2)."""
    values = [float(record["value"]) for record in group]
    own = Test("std_err", "p_value", "df", mde=mde)
    pooled = _pooled(group, values, own, alpha, estimand, kind_field="statistic_kind")
    record = _common(group)
    record.update(
        value=pooled.estimate,
        std_err=pooled.std_err,
        between_seed_share=pooled.between_share,
        share_same_sign=pooled.share_same_sign,
    )
    tested = all(_number(r.get("p_value")) for r in group)
    if tested or all(_number(r.get("ci_low")) for r in group):
        record.update(ci_low=pooled.ci_low, ci_high=pooled.ci_high)
    if tested:  # a test per seed: the pooled test replaces them (none is invented)
        record.update(
            p_value=pooled.p_value,
            statistic=pooled.statistic,
            stars=significance_stars(pooled.p_value),
            statistic_kind="z" if pooled.df is None else "t",
            df=pooled.df,
            share_significant=pooled.share_significant,
            share_same_significance=pooled.share_same_significance,
        )
        _pooled_mde(record, own, pooled)
    for test in tests:  # a further test of the same value (the schema's), when every seed has it
        if all(_number(r.get(test.std_err)) for r in group):
            further = _pooled(group, values, test, alpha, estimand)
            record.update({test.std_err: further.std_err, test.p_value: further.p_value})
            if test.df:
                record[test.df] = further.df
            _pooled_mde(record, test, further)
    return _spread(record, group, POOLING_OF_ESTIMAND[estimand], values)


def _pooled_mde(record: dict, test: Test, pooled) -> None:
    """The pooled test's minimum detectable effect in ``test.mde`` (when it has one), not a mean of
    the seeds'."""
    if test.mde and pooled.std_err > 0:
        df = pooled.df if pooled.df is not None and math.isfinite(pooled.df) else None
        try:
            record[test.mde] = minimum_detectable_effect(
                pooled.std_err, df
            )  # the pooled test's own df, even below 1
        except InputError as error:  # a test on so few df that it can detect nothing
            record[test.mde] = None
            note = record.get("note") if isinstance(record.get("note"), str) else ""
            record["note"] = "; ".join(filter(None, (note, f"no {test.mde}: {error}")))


def _pooled(
    group: Sequence[Mapping],
    values: list[float],
    test: Test,
    alpha: float,
    estimand: str,
    kind_field: str = "",
):
    """The seeds' ``test`` pooled for ``estimand`` (its standard errors; its p-values when every
    seed has one; its t degrees of freedom as the sampling variance's df, when every seed's is a t
    test)."""
    p_values = [record.get(test.p_value) for record in group]
    numbers = [float(p) for p in p_values if _number(p)]
    return pool_estimates(
        values,
        [float(record[test.std_err]) for record in group],
        alpha=alpha,
        p_values=numbers if len(numbers) == len(p_values) else None,
        df_complete=_degrees_of_freedom(group, kind_field, test.df) if test.df else None,
        estimand=estimand,
    )


def _seed_means(record: dict, group: Sequence[Mapping], names: Sequence[str]) -> dict:
    """``record`` with each of ``names`` the mean over the seeds that give it a number (absent when
    none does)."""
    for name in names:
        numbers = [
            float(r[name])
            for r in group
            if _number(r.get(name)) and not isinstance(r.get(name), bool)
        ]
        if numbers:
            record[name] = sum(numbers) / len(numbers)
    return record


def _mean(group: Sequence[Mapping]) -> dict:
    record = _common(group)
    for key in dict.fromkeys(key for r in group for key in r):
        if key in record or key == "seed":
            continue
        given = [r.get(key) for r in group]
        numbers = [number for number in given if _number(number) and not isinstance(number, bool)]
        if len(numbers) == len(given):
            record[key] = sum(numbers) / len(numbers)
    values = [float(r["value"]) for r in group]
    record["value"] = pool_statistic(values).mean
    return _spread(record, group, "mean", values)
