"""The xweat suite's records: one WEAT test on one language or language pair, and its other
measures.

A unit (one test on one language ``"de"`` or pair ``"en-de"``) writes, for the measures of the
suite's ``measures`` option (default ``[weat]``), in this order. Every record carries ``status``
(``"ok"`` or ``"skipped"``, then ``value`` None and ``note`` the reason), ``targets_language`` and
``attributes_language``.

- ``weat`` (:func:`xweat_records`): ``effect_size`` and ``statistic`` with the permutation test's
  ``p_value`` (``p_value_method``, ``n_permutations``, ``p_value_mc_std_err``), the set sizes ``n_x,
  n_y, n_a, n_b``, ``similarity``, ``alternative``, ``ddof``; the effect size's ``mde`` (the
  smallest d its permutation test detects with 80 % power, ``mde_power``, at level ``mde_alpha``
  0.05: :mod:`eval_harness.stats.weat_power`); then ``coverage`` (the smallest share of a set's
  words the model knows, and the ``missing`` words per role).
- the word-vector measures (:func:`association_records`, see :mod:`.measures`): ``metric`` is the
  measure's name, ``value`` its main number, ``term`` the set it concerns (its shape's terms:
  ``A``/``B``, ``X``/``Y`` or None), and the other fields of its stats result, each declared with
  its type and meaning in the measure's entry of :data:`.measures.WORD_MEASURES` (``fields``); plus
  ``set`` (the name of the term's set, e.g. ``pleasant``) and ``words`` (its found words), or for a
  result over every set ``target_sets`` and ``attribute_sets``, and for a seeded measure (rnsb)
  ``measure_seed``. Without ``weat`` among the measures, the unit's ``coverage`` record comes with
  these.
- ``seat`` (:func:`seat_records`, see :mod:`.seat`): ``value`` the effect size over sentence
  vectors, ``p_value`` and the other WEAT fields as above (``n_x``... count *sentences*),
  ``statistic``, ``templates``
  (language -> their source) and ``measure_seed``.
- ``ceat`` (:func:`ceat_records`, see :mod:`.ceat`): ``value`` the combined effect size, ``std_err``
  and ``p_value`` (one-sided, ``alternative``), ``ci_low``/``ci_high`` (95 % normal interval),
  ``z``, ``tau2``, ``q``, ``df``, ``p_heterogeneity``, ``i2``, ``fixed_effect``, ``fixed_std_err``,
  ``sample_effect_mean``, ``sample_effect_std``, ``n_samples``, ``ddof``, ``measure_seed``, the word
  counts ``n_x, n_y, n_a, n_b``, ``min_contexts``/``max_contexts`` (fewest and most context vectors
  of a word), ``contexts_per_word``, ``corpus`` and ``missing`` (per role, the words without a
  context), and beside CEAT's interval the one of the word-and-context bootstrap
  (``words_contexts_ci_low``/``_ci_high``/``_std_err``, its ``_replicates``, ``_undefined`` and
  ``_samples`` per replicate; :func:`eval_harness.stats.ceat.word_context_bootstrap`).

:data:`XWEAT_RECORDS` is their schema, in one place (the harness checks every record against it; the
report sections of :mod:`.report` read these fields); it follows :data:`.measures.WORD_MEASURES`, so
that a measure registered there is declared here too.
"""

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from ...contract.records import Field, RecordSchema
from ...stats.power import ALPHA, POWER
from ...stats.weat_power import weat_minimum_detectable_effect
from .ceat import CONFIDENCE_LEVEL, CEATTestResult
from .measures import WORD_MEASURES, AssociationResult
from .pipeline import XWEATResult
from .seat import SEATResult

INFLUENTIAL_WORDS = 3

_WORD_COUNTS = {
    f"n_{role}": Field(int, f"words (seat: sentences) of set {role.upper()}") for role in "xyab"
}
_WEAT_METRICS = {
    "effect_size": "WEAT's effect size d, with its permutation test",
    "statistic": "WEAT's test statistic s(X, Y, A, B) (the same test as its effect size)",
    "coverage": "the smallest share of a set's words the model knows",
}
_OTHER_METRICS = {
    "seat": "WEAT's effect size over the words' template sentences",
    "ceat": "CEAT: the random-effects combination of WEAT effect sizes over sampled contexts",
}

_SUITE_FIELDS = {
    "targets_language": Field(str, "the language of the target sets X, Y"),
    "attributes_language": Field(str, "the language of the attribute sets A, B"),
    # the WEAT test
    "p_value_method": Field(str, "exact or monte_carlo"),
    "n_permutations": Field(int, "Monte-Carlo permutations (None: exact)"),
    "p_value_mc_std_err": Field(float, "the Monte-Carlo p-value's standard error"),
    **_WORD_COUNTS,
    "similarity": Field(str, "the word similarity (cosine, ...)"),
    "alternative": Field(str, "the test's alternative (greater, less, two-sided)"),
    "ddof": Field(int, "the effect size's standard-deviation ddof"),
    "bootstrap_std_err": Field(
        float, "effect_size: its bootstrap standard error (words resampled per set)"
    ),
    "n_bootstrap": Field(int, "effect_size: bootstrap replicates"),
    "influential_words": Field(list, "effect_size: the words whose removal moves d most"),
    "stability_words_sign": Field(
        float,
        "effect_size: share of the word bootstrap's replicates whose d keeps its sign",
        seed_mean=True,
    ),
    "stability_words_loo_sign": Field(
        float, "effect_size: share of the leave-one-word-out d that keep its sign", seed_mean=True
    ),
    "mde": Field(
        float,
        "effect_size: the smallest d its permutation test detects with mde_power at mde_alpha",
    ),
    "mde_power": Field(float, "effect_size: the power of the MDE"),
    "mde_alpha": Field(float, "effect_size: the level of the MDE's test"),
    "missing": Field(dict, "coverage, ceat: per role, the words without a vector (context)"),
    # every word measure's records (each declares its own fields: .measures)
    "set": Field(str, "the name of the term's set"),
    "words": Field(list, "the term's set's words, row by row of the per-word fields"),
    "target_sets": Field(list, "the names of X and Y"),
    "attribute_sets": Field(list, "the names of A and B"),
    "measure_seed": Field(int, "the seed the measure drew with"),
    "templates": Field(dict, "seat: per language, where its templates come from"),
    "z": Field(float, "ceat: the combined effect's z"),
    "tau2": Field(float, "ceat: between-sample variance"),
    "q": Field(float, "ceat: Cochran's Q"),
    "p_heterogeneity": Field(float, "ceat: Q's p-value"),
    "i2": Field(float, "ceat: share of the variation due to heterogeneity"),
    "fixed_effect": Field(float, "ceat: the fixed-effect combination"),
    "fixed_std_err": Field(float, "ceat: its standard error"),
    "sample_effect_mean": Field(float, "ceat: mean of the sampled effect sizes"),
    "sample_effect_std": Field(float, "ceat: their SD"),
    "n_samples": Field(int, "ceat: samples of one context per word"),
    "min_contexts": Field(int, "ceat: fewest contexts of a word"),
    "max_contexts": Field(int, "ceat: most contexts of a word"),
    "contexts_per_word": Field(int, "ceat: contexts sampled per word (at most)"),
    "corpus": Field(str, "ceat: the corpus the contexts come from"),
    "words_contexts_ci_low": Field(
        float, "ceat: the word-and-context bootstrap interval's lower end"
    ),
    "words_contexts_ci_high": Field(float, "ceat: its upper end (same confidence_level)"),
    "words_contexts_std_err": Field(float, "ceat: the bootstrap's SE of the combined effect size"),
    "words_contexts_replicates": Field(int, "ceat: bootstrap replicates drawn"),
    "words_contexts_undefined": Field(int, "ceat: replicates without an effect size (left out)"),
    "words_contexts_samples": Field(int, "ceat: samples combined per bootstrap replicate"),
}


def _measure_metrics() -> dict[str, str]:
    measures = {name: measure.description for name, measure in WORD_MEASURES.items()}
    return {**_WEAT_METRICS, **measures, **_OTHER_METRICS}


def _measure_fields() -> dict[str, Field]:
    """The suite's fields, then each word measure's, once per name with its meaning prefixed by the
    measures that declare it (``"rnd, ect: attribute words"``;
    :meth:`.measures.MeasureTable.register` keeps one type a name)."""
    meanings: dict[
        str, dict[str, list[str]]
    ] = {}  # field -> its meaning -> the measures that declare it
    types: dict[str, type] = {}
    for name, measure in WORD_MEASURES.items():
        for field_name, declared in measure.fields.items():
            types[field_name] = declared.type
            meanings.setdefault(field_name, {}).setdefault(declared.doc, []).append(name)
    measures = {
        field_name: Field(
            types[field_name],
            "; ".join(f"{', '.join(names)}: {doc}" for doc, names in docs.items()),
        )
        for field_name, docs in meanings.items()
        if field_name not in _SUITE_FIELDS
    }
    return {**_SUITE_FIELDS, **measures}


class _FollowsMeasures(Mapping):
    """A table of the schema built from :data:`.measures.WORD_MEASURES`, built again when the
    measures change."""

    def __init__(self, build: Callable[[], dict]):
        self._build = build
        self._built: tuple[int, dict] = (-1, {})

    def _table(self) -> dict:
        if self._built[0] != WORD_MEASURES.version:
            self._built = (WORD_MEASURES.version, self._build())
        return self._built[1]

    def __getitem__(self, name: str) -> Any:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


XWEAT_RECORDS = RecordSchema(
    metrics=_FollowsMeasures(_measure_metrics), fields=_FollowsMeasures(_measure_fields)
)


def _languages(result) -> dict:
    return {
        "targets_language": result.target_language,
        "attributes_language": result.attribute_language,
    }


def _skipped(metric: str, result, reason: str | None) -> dict:
    return {
        "metric": metric,
        "value": None,
        "status": "skipped",
        "note": reason,
        **_languages(result),
    }


def coverage_record(result: XWEATResult | AssociationResult) -> dict:
    """``coverage``: the smallest fraction of a set's words found, and the missing words per
    role."""
    return {
        "metric": "coverage",
        "value": min(report.fraction for report in result.coverage),
        "missing": {
            report.role: list(report.missing) for report in result.coverage if report.missing
        },
        **_languages(result),
    }


def xweat_records(result: XWEATResult) -> list[dict]:
    """Long-format records of one test: ``effect_size`` and ``statistic`` (None, with the skip
    reason in ``note``, when the coverage rule skipped it) and ``coverage`` (the smallest fraction
    of a set's words found).

    The ``effect_size`` record also carries the uncertainty of d when it was computed: its bootstrap
    percentile interval (``ci_low``, ``ci_high`` at ``confidence_level``, ``bootstrap_std_err``,
    ``n_bootstrap``) and ``influential_words``, the words whose removal moves d most (``{word, role,
    change, effect_size_without}``, the largest ``|change|`` first), and how stable d's sign is:
    ``stability_words_sign``, the share of the bootstrap's replicates with d's sign, and
    ``stability_words_loo_sign``, the share of the leave-one-word-out effect sizes with it."""
    languages = _languages(result)
    coverage = coverage_record(result)
    if result.weat is None:
        skipped = {"value": None, "status": "skipped", "note": result.skip_reason, **languages}
        return [{"metric": "effect_size", **skipped}, {"metric": "statistic", **skipped}, coverage]
    weat_result = result.weat
    details = {**_weat_details(weat_result), "status": "ok", **languages}
    effect_size = {"metric": "effect_size", "value": weat_result.effect_size, **details}
    return [
        {**effect_size, **_uncertainty(weat_result), **_detectable(weat_result)},
        {"metric": "statistic", "value": weat_result.statistic, **details},
        coverage,
    ]


def _uncertainty(weat_result) -> dict:
    fields: dict[str, Any] = {}
    if weat_result.bootstrap is not None:
        bootstrap = weat_result.bootstrap
        fields.update(
            ci_low=bootstrap.ci_low,
            ci_high=bootstrap.ci_high,
            confidence_level=bootstrap.confidence_level,
            bootstrap_std_err=bootstrap.std_err,
            n_bootstrap=bootstrap.n_bootstrap,
            stability_words_sign=_sign_kept(weat_result.effect_size, bootstrap.replicates),
        )
    if weat_result.influence is not None:
        without = [word.effect_size_without for word in weat_result.influence.words]
        fields["stability_words_loo_sign"] = _sign_kept(weat_result.effect_size, without)
        fields["influential_words"] = [
            {
                "word": word.word,
                "role": word.role,
                "change": word.change,
                "effect_size_without": word.effect_size_without,
            }
            for word in weat_result.influence.most_influential(INFLUENTIAL_WORDS)
        ]
    return fields


def _sign_kept(d: float, resampled) -> float | None:
    """The share of ``resampled`` effect sizes with the sign of ``d`` (None when there are none)."""
    resampled = np.asarray(resampled, dtype=float)
    return float(np.mean(np.sign(resampled) == np.sign(d))) if resampled.size else None


def _detectable(weat_result) -> dict:
    """The test's minimum detectable effect (:mod:`eval_harness.stats.weat_power`: the permutation
    distribution's scale, from the set sizes and the alternative) at 80 % power and level 0.05."""
    mde = weat_minimum_detectable_effect(
        weat_result.n_x, weat_result.n_y, weat_result.alternative, ALPHA, POWER
    )
    return {"mde": mde, "mde_power": POWER, "mde_alpha": ALPHA}


def _weat_details(weat_result) -> dict:
    return {
        "p_value": weat_result.p_value,
        "p_value_method": weat_result.p_value_method,
        "n_permutations": weat_result.n_permutations,
        "p_value_mc_std_err": weat_result.mc_std_err,
        "n_x": weat_result.n_x,
        "n_y": weat_result.n_y,
        "n_a": weat_result.n_a,
        "n_b": weat_result.n_b,
        "similarity": weat_result.similarity,
        "alternative": weat_result.alternative,
        "ddof": weat_result.ddof,
    }


def association_records(result: AssociationResult, with_coverage: bool = False) -> list[dict]:
    """One record per measure and term (module docstring); ``with_coverage`` adds the ``coverage``
    record."""
    tail = [coverage_record(result)] if with_coverage else []
    if result.skip_reason:
        return [_skipped(measure, result, result.skip_reason) for measure in result.measures] + tail
    records = []
    for measure in result.measures:
        for term, measured in result.results[measure].items():
            fields = measured.to_dict()
            record = {"metric": measure, "term": term, "value": fields.pop("value"), **fields}
            if term is None:
                record["target_sets"] = [result.set_name("X"), result.set_name("Y")]
                record["attribute_sets"] = [result.set_name("A"), result.set_name("B")]
            else:
                record["set"] = result.set_name(term)
                record["words"] = list(result.words[term])
            declared = WORD_MEASURES[measure]
            record.update(declared.record_constants)
            for omitted in declared.record_omits:
                del record[omitted]
            if measure in result.seeds:
                record["measure_seed"] = result.seeds[measure]
            records.append({**record, "status": "ok", **_languages(result)})
    return records + tail


def seat_records(result: SEATResult) -> list[dict]:
    """The ``seat`` record: WEAT over sentence vectors (module docstring)."""
    if result.weat is None:
        return [_skipped("seat", result, result.skip_reason)]
    return [
        {
            "metric": "seat",
            "value": result.weat.effect_size,
            **_weat_details(result.weat),
            "statistic": result.weat.statistic,
            "templates": dict(result.templates or {}),
            "measure_seed": result.seed,
            "status": "ok",
            **_languages(result),
        }
    ]


# the word-and-context bootstrap's fields in a ceat record (words_contexts_<name>) <-
# stats.ceat.WordContextBootstrap
_BOOTSTRAP_FIELDS = {
    "ci_low": "ci_low",
    "ci_high": "ci_high",
    "std_err": "std_err",
    "replicates": "n_bootstrap",
    "undefined": "n_undefined",
    "samples": "samples_per_replicate",
}


def ceat_records(result: CEATTestResult, corpus: str, contexts_per_word: int) -> list[dict]:
    """The ``ceat`` record: the random-effects combination of the sampled effect sizes (module
    docstring)."""
    missing = {report.role: list(report.missing) for report in result.coverage if report.missing}
    settings = {"contexts_per_word": contexts_per_word, "corpus": corpus, "missing": missing}
    if result.ceat is None:
        return [
            {
                **_skipped("ceat", result, result.skip_reason),
                "measure_seed": result.seed,
                **settings,
            }
        ]
    fields = result.ceat.to_dict()
    del (
        fields["n"],
        fields["seed"],
    )  # n is n_samples; the seed is the measure's (the unit's seed is `seed`)
    bootstrap = fields.pop("bootstrap") or {}
    fields.update(
        {
            f"words_contexts_{name}": bootstrap[key]
            for name, key in _BOOTSTRAP_FIELDS.items()
            if key in bootstrap
        }
    )
    ci_low, ci_high = result.confidence_interval()
    return [
        {
            "metric": "ceat",
            "value": fields.pop("combined_effect"),
            **fields,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "confidence_level": CONFIDENCE_LEVEL,
            "measure_seed": result.seed,
            **settings,
            "status": "ok",
            **_languages(result),
        }
    ]
