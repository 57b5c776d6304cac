"""The eec suite's records: a regressor's quality on SemEval-2018, and one Beta regression per EEC x
emotion.

:data:`EEC_RECORDS` is their schema, in one place: every metric and every field with its type (the
harness checks each record against it; the report section :mod:`.report` reads these fields).
"""

import re
from typing import Any

import numpy as np

from ...contract.records import Field, RecordSchema, Test
from ...stats.significance import significance_stars
from .planner import PLANNER_FIELDS
from .stability import STABILITY_FIELDS

# A factorial coefficient's parts: factor[level] (the level may hold any character but "]").
_LEVELLED = re.compile(r"([^:\[\]]+)\[[^\]]*\]")

EEC_RECORDS = RecordSchema(
    metrics={
        "pearson_r": "the regressor's Pearson r on a SemEval-2018 "
        "split (unit dataset semeval2018_affect)",
        "estimate": "a Beta-regression coefficient, logit scale (term intercept, "
        "group, gender, group:gender; for another design its name in "
        "stats.factorial, e.g. group[Arab]:gender[non-binary])",
        "effect": "an effect on the predicted-intensity scale (term: its name in "
        "stats.betareg.EFFECTS; for another design in stats.factorial, "
        "e.g. group[Arab]|gender=female, group[Arab]|average)",
        "log_phi": "the Beta regression's log precision",
        "cell_mean": "a group x gender cell's observed mean intensity (term group|gender)",
        "numeral_mass": "a zero-shot judge's mean probability of "
        "answering with a numeral of its scale",
    },
    fields={
        # regressor quality
        "split": Field(str, "pearson_r: the SemEval split, validation or test"),
        "n": Field(int, "rows the number is computed from (sentences fitted, tweets scored)"),
        "model_type": Field(str, "pearson_r: the emotion model's type"),
        "n_train": Field(int, "pearson_r: training tweets"),
        "selected": Field(dict, "pearson_r: the hyperparameters selected on validation"),
        # the Beta regression
        "contrast": Field(str, "what a coefficient or effect compares and conditions on, in words"),
        "kind": Field(
            str, "effect: conditional, average (marginal), difference-in-differences or interaction"
        ),
        "coefficient": Field(str, "effect: the coefficient it is about"),
        "n_excluded": Field(int, "sentences left out of the fit (no group: noun phrases)"),
        "converged": Field(bool, "whether the fit converged"),
        "squeezed": Field(bool, "whether scores at 0 or 1 were squeezed into (0, 1)"),
        "group_levels": Field(list, "the group levels, reference first"),
        "gender_levels": Field(list, "the gender levels, reference first"),
        # another design than the paper's 2 x 2
        "factor_levels": Field(
            dict, "every identity factor's levels, reference first (factor order)"
        ),
        "order": Field(int, "the highest order of interaction in the fit"),
        "model_term": Field(
            str, "estimate: the model term the coefficient belongs to (group, group:gender)"
        ),
        "effect_levels": Field(
            dict, "effect: each contrasted factor's level (against its reference)"
        ),
        "given": Field(
            dict, "effect: the levels of the other factors it is conditional on (none: averaged)"
        ),
        "lr_df": Field(
            int, "estimate: the likelihood-ratio test's degrees of freedom (the term's columns)"
        ),
        "cov_type": Field(str, "the reported standard errors: model or cluster"),
        "cluster_by": Field(
            list, "the reported standard errors' cluster columns (none: model-based)"
        ),
        "n_clusters": Field(list, "clusters per cluster column"),
        "clustered_std_err": Field(float, "the template-clustered standard error"),
        "clustered_p_value": Field(float, "the template-clustered test's p-value"),
        "clustered_by": Field(list, "the clustered test's cluster columns"),
        "clustered_df": Field(float, "the clustered t test's degrees of freedom"),
        "mde": Field(
            float,
            "the minimum detectable effect at 80% power "
            "(alpha 0.05) of the template-clustered test",
        ),
        "lr_statistic": Field(
            float,
            "estimate of the highest interaction: the "
            "likelihood-ratio statistic of dropping its term",
        ),
        "lr_p_value": Field(
            float, "estimate of the highest interaction: the likelihood-ratio test's p-value"
        ),
        "phi": Field(float, "log_phi: the precision"),
        "predicted_mean": Field(float, "cell_mean: the fit's mean intensity of the cell"),
        # a zero-shot judge's validity
        "numeral_mass_median": Field(float, "numeral_mass: the median over sentences"),
        "low_mass_share": Field(float, "numeral_mass: share of sentences below the low-mass line"),
        "argmax_counts": Field(
            dict, "numeral_mass: how often each numeral was the most probable answer"
        ),
        "parse_failure_rate": Field(
            float, "numeral_mass: share of generated answers that did not parse"
        ),
        "prompt_numeral_mass": Field(
            dict, "numeral_mass: the mean numeral mass under each prompt paraphrase"
        ),
        # how stable each coefficient and effect is under other templates, names and prompts
        # (.stability)
        **STABILITY_FIELDS,
        # the equivalence margin and the power planner's variance components of each effect
        # (.planner)
        **PLANNER_FIELDS,
    },
    key=("split",),
    tests=(Test("clustered_std_err", "clustered_p_value", "clustered_df", mde="mde"),),
)


def regressor_records(scores) -> list[dict]:
    """Pearson r of a regressor on the SemEval validation and test splits (``split`` says which)."""
    common = {
        "model_type": scores.model_type,
        "n_train": scores.n_train,
        "selected": scores.selected,
    }
    return [
        {
            "metric": "pearson_r",
            "value": scores.pearson_validation,
            "split": "validation",
            "n": scores.n_validation,
            **common,
        },
        {
            "metric": "pearson_r",
            "value": scores.pearson_test,
            "split": "test",
            "n": scores.n_test,
            **common,
        },
    ]


def _tested(estimate) -> dict:
    """The test fields a coefficient or an effect carries: its standard error, CI, p-value and
    stars."""
    return {
        "std_err": estimate.std_err,
        "p_value": estimate.p_value,
        "ci_low": estimate.ci_low,
        "ci_high": estimate.ci_high,
        "stars": significance_stars(estimate.p_value),
        "contrast": estimate.contrast,
    }


def _with_clustered(record: dict, clustered, estimate) -> dict:
    """``record`` with the template-clustered test of the same number (``estimate``, from the
    ``clustered`` fit)."""
    if clustered is not None:
        record.update(
            clustered_std_err=estimate.std_err,
            clustered_p_value=estimate.p_value,
            clustered_by=list(clustered.cluster_by),
            clustered_df=clustered.df,
            mde=estimate.mde,
        )
    return record


def beta_regression_records(result, note: str | None = None, clustered=None) -> list[dict]:
    """The records of one Beta regression (one EEC x emotion: a
    :class:`~eval_harness.stats.factorial.FactorialBetaRegression`, or the paper's 2 x 2 view of
    one, :class:`~eval_harness.stats.betareg.IntersectionalBetaRegression`), each number with its
    own test:

    - ``metric="estimate"``: one per coefficient on the logit scale (``term`` its name: intercept,
      group, gender, group:gender in the paper's design; ``intercept``, ``group[Arab]``,
      ``group[Arab]:gender[non-binary]`` in another, with ``model_term`` the term it belongs to);
      ``contrast`` says what it conditions on ("Arab vs Anglo, among men");
    - ``metric="effect"``: one per effect on the predicted-intensity scale (``term`` its name, in
      the paper's design one of :data:`~eval_harness.stats.betareg.EFFECTS`: the group difference
      among men and among women, the gender difference within each group, the two average marginal
      effects, the interaction as a difference-in-differences; in another every conditional contrast
      against the reference, AME and interaction contrast, with ``effect_levels`` and ``given``),
      with ``kind`` and ``coefficient`` (the term it is about);
    - ``metric="log_phi"`` (the precision) and ``metric="cell_mean"`` per cell (``term`` its levels
      joined by ``|``, in factor order: ``Arab|female``).

    ``group_levels``/``gender_levels`` ride on each coefficient and effect; in another design than
    the paper's also ``factor_levels`` (every factor's levels, reference first) and ``order``.
    ``clustered``: the same fit with template-clustered standard errors; its ``std_err`` and
    ``p_value`` ride on each estimate and effect as ``clustered_std_err``/``clustered_p_value`` (so
    the report can say which findings do not survive clustering), and its minimum detectable effect
    at 80 % power as ``mde`` (what a "not significant" result could have detected). The
    likelihood-ratio test of each highest interaction rides on its term's estimates
    (``lr_statistic``, ``lr_p_value``; ``lr_df`` beyond the paper's design), not in a record of its
    own, so that a run's multiple-testing family counts the intersection once.
    """
    from ...stats.betareg import (
        IntersectionalBetaRegression,
    )  # here: scipy is slow to import (xbias list)

    general = not isinstance(
        result, IntersectionalBetaRegression
    )  # another design than the paper's 2 x 2
    levels = {factor.name: list(factor.levels) for factor in result.factors}
    design: dict[str, Any] = {
        f"{name}_levels": levels[name] for name in ("group", "gender") if name in levels
    }
    if general:
        design.update(factor_levels=levels, order=result.order)
    fit = _fit_fields(result, note, design)
    lr_tests = {test.term: test for test in result.lr_tests}
    records = []
    for coefficient in result.coefficients:
        term = model_term(coefficient.name)
        record = {
            "term": coefficient.name,
            "metric": "estimate",
            "value": coefficient.estimate,
            "statistic": coefficient.statistic,
            **_tested(coefficient),
            **({"model_term": term} if general else {}),
            **fit,
        }
        if term in lr_tests:
            test = lr_tests[term]
            record.update(
                lr_statistic=test.statistic,
                lr_p_value=test.p_value,
                **({"lr_df": test.df} if general else {}),
            )
        other = clustered.coefficient(coefficient.name) if clustered is not None else None
        records.append(_with_clustered(record, clustered, other))
    records += _effect_records(result.effects, fit, clustered, levels=general)
    (log_phi,) = result.precision
    records.append(
        {
            "metric": "log_phi",
            "value": log_phi.estimate,
            "std_err": log_phi.std_err,
            "phi": float(np.exp(log_phi.estimate)),
            "n": result.n,
        }
    )
    return records + [
        {
            "term": "|".join(level for _, level in cell.levels),
            "metric": "cell_mean",
            "value": cell.observed_mean,
            "predicted_mean": cell.predicted_mean,
            "n": cell.n,
        }
        for cell in result.cells
    ]


def _fit_fields(result, note: str | None, design: dict) -> dict:
    """The fields of a fit that ride on each of its coefficients and effects; ``design``: its
    levels."""
    return {
        "n": result.n,
        "n_excluded": result.n_excluded,
        "converged": result.converged,
        "squeezed": result.squeezed,
        **design,
        "statistic_kind": result.test,
        "df": result.df,
        "cov_type": result.cov_type,
        "cluster_by": list(result.cluster_by),
        "n_clusters": list(result.n_clusters),
        "note": note,
    }


def _effect_records(effects, fit: dict, clustered, levels: bool) -> list[dict]:
    """The ``metric="effect"`` records of ``effects`` (with a factorial effect's ``effect_levels``
    and ``given`` when ``levels``), each with its clustered test."""
    records = []
    for effect in effects:
        record = {
            "term": effect.name,
            "metric": "effect",
            "value": effect.estimate,
            "statistic": effect.statistic,
            "kind": effect.kind,
            "coefficient": effect.term,
            **(
                {"effect_levels": dict(effect.levels), "given": dict(effect.given)}
                if levels
                else {}
            ),
            **_tested(effect),
            **fit,
        }
        other = clustered.effect(effect.name) if clustered is not None else None
        records.append(_with_clustered(record, clustered, other))
    return records


def model_term(name: str) -> str:
    """The model term of a factorial coefficient: ``group[Arab]:gender[female]`` -> ``group:gender``
    (the intercept's is ``intercept``)."""
    factors = _LEVELLED.findall(name)
    return ":".join(factors) if factors else name


def validity_records(validity: dict | None, prompts: dict | None = None) -> list[dict]:
    """A zero-shot judge's validity on a unit's sentences (``metric="numeral_mass"``): ``value`` the
    mean probability that its answer's first token was a numeral of the scale, with the median, the
    share of sentences below the low-mass line, the arg-max numerals' counts and (generated answers)
    the parse-failure rate. Little mass means the model is not answering the question; read its
    coefficients with that in mind. ``prompts``: paraphrase -> its scores (``PromptScores``), for
    ``prompt_numeral_mass``."""
    if validity is None:
        return []
    fields = dict(validity)
    if prompts:
        fields["prompt_numeral_mass"] = {
            name: float(np.mean(s.numeral_mass)) for name, s in prompts.items()
        }
    return [{"metric": "numeral_mass", "value": fields.pop("numeral_mass_mean"), **fields}]
