"""The xweat suite's records: one WEAT test on one language or language pair."""

from .pipeline import XWEATResult

INFLUENTIAL_WORDS = 3


def xweat_records(result: XWEATResult) -> list[dict]:
    """Long-format records of one test: ``effect_size`` and ``statistic`` (None, with the skip reason in
    ``note``, when the coverage rule skipped it) and ``coverage`` (the smallest fraction of a set's words found).

    The ``effect_size`` record also carries the uncertainty of d when it was computed: its bootstrap
    percentile interval (``ci_low``, ``ci_high`` at ``confidence_level``, ``bootstrap_std_err``,
    ``n_bootstrap``) and ``influential_words``, the words whose removal moves d most
    (``{word, role, change, effect_size_without}``, the largest ``|change|`` first)."""
    languages = {"targets_language": result.target_language, "attributes_language": result.attribute_language}
    coverage = {
        "metric": "coverage",
        "value": min(report.fraction for report in result.coverage),
        "missing": {report.role: list(report.missing) for report in result.coverage if report.missing},
        **languages,
    }
    if result.weat is None:
        skipped = {"value": None, "status": "skipped", "note": result.skip_reason, **languages}
        return [{"metric": "effect_size", **skipped}, {"metric": "statistic", **skipped}, coverage]
    weat_result = result.weat
    details = {
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
        "status": "ok",
        **languages,
    }
    return [
        {"metric": "effect_size", "value": weat_result.effect_size, **details, **_uncertainty(weat_result)},
        {"metric": "statistic", "value": weat_result.statistic, **details},
        coverage,
    ]


def _uncertainty(weat_result) -> dict:
    fields = {}
    if weat_result.bootstrap is not None:
        bootstrap = weat_result.bootstrap
        fields.update(
            ci_low=bootstrap.ci_low,
            ci_high=bootstrap.ci_high,
            confidence_level=bootstrap.confidence_level,
            bootstrap_std_err=bootstrap.std_err,
            n_bootstrap=bootstrap.n_bootstrap,
        )
    if weat_result.influence is not None:
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
