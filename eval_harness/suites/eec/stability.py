"""How stable each EEC finding is under other reasonable templates, names and prompts: the fields it
adds to the records of :mod:`.records`.

Every coefficient (``metric="estimate"``) and effect (``metric="effect"``) record of a fit carries,
from :func:`eval_harness.stats.stability.resampling_stability` on the same rows with the reported
standard errors (``cov_type``, ``cluster_by``, ``use_t``):

- ``stability_template_sign`` / ``stability_template_verdict``: the shares of
  ``stability_resamples`` template bootstrap resamples (templates drawn with replacement) whose
  estimate keeps the fit's sign, and whose test keeps its verdict at ``stability_alpha``
  (significant with the same sign, or not significant); ``stability_template_variance``: the
  estimate's variance over them;
- ``stability_template_loo_sign`` / ``_loo_verdict``: the same over leave-one-template-out refits,
  with ``stability_template_influential`` (the template whose removal moves the estimate most) and
  ``stability_template_without`` (the estimate without it);
- ``stability_person_*``: the same over persons (names), the bootstrap drawing names within each
  group x gender cell (a name carries its group and gender).

A zero-shot judge (option ``prompt_spread: true``, the default) scores the sentences under each
shipped paraphrase of its prompt too, and every record carries the prompt spread:
``stability_prompt_estimates``
(paraphrase -> the estimate with that prompt, the reported prompt's included),
``stability_prompt_sign`` / ``stability_prompt_verdict`` (the shares of the *other* paraphrases that
keep the reported prompt's sign and verdict) and ``stability_prompt_variance`` (the estimates'
variance over every prompt, ddof 1).

The seeds' share comes from seed pooling (:mod:`eval_harness.contract.seeds`: ``share_same_sign``,
``share_same_significance``, ``between_seed_sd``); the shares above are averaged over the seeds
there (:attr:`~eval_harness.contract.records.Field.seed_mean`). A finding is *fragile*
(:func:`eval_harness.stats.stability.is_fragile`) when it is significant and its sign flips, or its
verdict changes, in at least :data:`~eval_harness.stats.stability.FRAGILE_SHARE` of the template or
name bootstrap resamples, of the other prompts, or of the seeds; the report marks it
(:mod:`.report_stability`).
"""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...contract.records import Field
from ...errors import InputError

if TYPE_CHECKING:
    from ...stats.betareg import IntersectionalBetaRegression

STABILITY_RESAMPLES = 1000
SOURCES = ("template", "person")
_SCHEMES = {
    "template": ("template_bootstrap", "template_leave_one_out"),
    "person": ("person_bootstrap", "person_leave_one_out"),
}
_WORDS = {"template": "template", "person": "name (person)"}


def _source_fields(source: str) -> dict[str, Field]:
    word = _WORDS[source]
    return {
        f"stability_{source}_sign": Field(
            float,
            f"share of the {word} bootstrap resamples whose estimate keeps the sign",
            seed_mean=True,
        ),
        f"stability_{source}_verdict": Field(
            float,
            f"share of the {word} bootstrap resamples whose test keeps the verdict",
            seed_mean=True,
        ),
        f"stability_{source}_variance": Field(
            float, f"the estimate's variance over the {word} bootstrap resamples", seed_mean=True
        ),
        f"stability_{source}_loo_sign": Field(
            float, f"share of the leave-one-{source}-out refits keeping the sign", seed_mean=True
        ),
        f"stability_{source}_loo_verdict": Field(
            float, f"share of the leave-one-{source}-out refits keeping the verdict", seed_mean=True
        ),
        f"stability_{source}_influential": Field(
            str, f"the {word} whose removal moves the estimate most"
        ),
        f"stability_{source}_without": Field(
            float, f"the estimate without stability_{source}_influential"
        ),
    }


STABILITY_FIELDS = {
    "stability_resamples": Field(int, "bootstrap resamples per scheme of the stability fields"),
    "stability_alpha": Field(float, "the level of the stability fields' verdicts"),
    **{name: field for source in SOURCES for name, field in _source_fields(source).items()},
    "stability_prompt_estimates": Field(
        dict, "judge: paraphrase of the prompt -> the estimate with it"
    ),
    "stability_prompt_sign": Field(
        float,
        "judge: share of the other prompt paraphrases whose estimate keeps the sign",
        seed_mean=True,
    ),
    "stability_prompt_verdict": Field(
        float,
        "judge: share of the other prompt paraphrases whose test keeps the verdict",
        seed_mean=True,
    ),
    "stability_prompt_variance": Field(
        float, "judge: the estimate's variance over the prompt paraphrases (ddof 1)", seed_mean=True
    ),
}


def record_key(record: Mapping) -> tuple[str, str] | None:
    """``(metric, term)`` of a coefficient or effect record, the key the stability fields are given
    by."""
    if record.get("metric") in ("estimate", "effect"):
        return record["metric"], record["term"]
    return None


def with_stability(records: list[dict], *fields: Mapping[tuple[str, str], dict]) -> list[dict]:
    """``records`` with each coefficient's and effect's stability fields (``fields``: maps by
    :func:`record_key`)."""
    for record in records:
        key = record_key(record)
        for table in fields:
            if key is not None and key in table:
                record.update(table[key])
    return records


def _record_names(
    group_levels: Sequence[str], gender_levels: Sequence[str]
) -> dict[tuple[str, str], str]:
    """``(metric, term)`` of the EEC records -> the name of the same finding in the factorial
    fit."""
    from ...stats.betareg import EFFECTS, TERMS, factorial_effect_names

    names = factorial_effect_names(group_levels, gender_levels)
    return {
        **{("estimate", term): names[term] for term in TERMS},
        **{("effect", effect): names[effect] for effect in EFFECTS},
    }


def template_and_person_stability(
    data: Mapping,
    result,
    *,
    use_t: bool | None,
    n_bootstrap: int = STABILITY_RESAMPLES,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict[tuple[str, str], dict]:
    """The template and person stability fields of every coefficient and effect of ``result`` (the
    reported :func:`~eval_harness.stats.betareg.fit_intersectional` fit of ``data``'s rows),
    resampled with its standard errors (module docstring)."""
    from ...stats.stability import resampling_stability

    cluster_by = tuple(result.cluster_by) if result.cov_type == "cluster" else ("template_id",)
    stability = resampling_stability(
        data["y"],
        data["factors"],
        data["references"],
        templates=data["template_id"],
        persons=data["person"],
        cov_type=result.cov_type,
        cluster_by=cluster_by,
        use_t=use_t,
        n_bootstrap=n_bootstrap,
        alpha=alpha,
        seed=seed,
    )
    fields = {}
    for key, name in _record_names(result.group_levels, result.gender_levels).items():
        coefficient = key[0] == "estimate"
        (finding,) = [
            f
            for f in stability.findings
            if f.name == name and (f.kind == "coefficient") == coefficient
        ]
        record: dict[str, Any] = {"stability_resamples": n_bootstrap, "stability_alpha": alpha}
        for source in SOURCES:
            boot, out = (finding.scheme(scheme) for scheme in _SCHEMES[source])
            variance = (
                finding.template_variance if source == "template" else finding.person_variance
            )
            record.update(
                {
                    f"stability_{source}_sign": boot.sign_kept,
                    f"stability_{source}_verdict": boot.significance_kept,
                    f"stability_{source}_variance": variance,
                    f"stability_{source}_loo_sign": out.sign_kept,
                    f"stability_{source}_loo_verdict": out.significance_kept,
                    f"stability_{source}_influential": out.most_influential,
                    f"stability_{source}_without": out.estimate_without,
                }
            )
        fields[key] = {name: _finite(value) for name, value in record.items()}
    return fields


def _finite(value):
    """A share or variance that no resample could give (NaN) is written as None."""
    return None if isinstance(value, float) and not np.isfinite(value) else value


def prompt_spread(
    fits: Mapping[str, "IntersectionalBetaRegression"], reported: str, alpha: float = 0.05
) -> dict[tuple[str, str], dict]:
    """The prompt-spread fields of every coefficient and effect (module docstring) from one fit per
    paraphrase of the judge's prompt (``fits``: paraphrase name ->
    :func:`~eval_harness.stats.betareg.fit_intersectional` result, all with the reported standard
    errors), ``reported`` the name of the reported prompt's."""
    if reported not in fits or len(fits) < 2:
        raise InputError(
            f"a prompt spread needs the reported prompt {reported!r} and another; got {list(fits)}"
        )
    fields = {}
    first = fits[reported]
    keys = [("estimate", c.name) for c in first.coefficients] + [
        ("effect", e.name) for e in first.effects
    ]
    for key in keys:
        tested = {
            name: (fit.coefficient(key[1]) if key[0] == "estimate" else fit.effect(key[1]))
            for name, fit in fits.items()
        }
        main = tested[reported]
        others = [item for name, item in tested.items() if name != reported]
        significant = main.p_value <= alpha
        same_sign = [np.sign(item.estimate) == np.sign(main.estimate) for item in others]
        verdict = [
            (item.p_value <= alpha and same) if significant else item.p_value > alpha
            for item, same in zip(others, same_sign, strict=True)
        ]
        estimates = [item.estimate for item in tested.values()]
        fields[key] = {
            "stability_prompt_estimates": {
                name: float(item.estimate) for name, item in tested.items()
            },
            "stability_prompt_sign": float(np.mean(same_sign)),
            "stability_prompt_verdict": float(np.mean(verdict)),
            "stability_prompt_variance": float(np.var(estimates, ddof=1)),
        }
    return fields
