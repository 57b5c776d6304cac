"""The eec suite's records: a regressor's quality on SemEval-2018, and one Beta regression per EEC x emotion."""


def regressor_records(scores) -> list[dict]:
    """Pearson r of a regressor on the SemEval validation and test splits (``split`` says which)."""
    common = {"model_type": scores.model_type, "n_train": scores.n_train, "selected": scores.selected}
    return [
        {
            "metric": "pearson_r",
            "value": scores.pearson_validation,
            "split": "validation",
            "n": scores.n_validation,
            **common,
        },
        {"metric": "pearson_r", "value": scores.pearson_test, "split": "test", "n": scores.n_test, **common},
    ]


def _tested(estimate) -> dict:
    """The test fields a coefficient or an effect carries: its standard error, CI, p-value and stars."""
    return {
        "std_err": estimate.std_err,
        "p_value": estimate.p_value,
        "ci_low": estimate.ci_low,
        "ci_high": estimate.ci_high,
        "stars": estimate.stars,
        "contrast": estimate.contrast,
    }


def beta_regression_records(result, note: str | None = None, clustered=None) -> list[dict]:
    """The records of one Beta regression (one EEC x emotion), each number with its own test:

    - ``metric="estimate"``: one per coefficient (``term`` intercept, group, gender, group:gender) on
      the logit scale; ``contrast`` says what it conditions on ("Arab vs Anglo, among men");
    - ``metric="effect"``: one per effect on the predicted-intensity scale (``term`` one of
      :data:`~eval_harness.stats.betareg.EFFECTS`: the group difference among men and among women, the
      gender difference within each group, the two average marginal effects, the interaction as a
      difference-in-differences), with ``kind`` and ``coefficient`` (the term it is about);
    - ``metric="log_phi"`` (the precision) and ``metric="cell_mean"`` per group x gender cell.

    ``clustered``: the same fit with template-clustered standard errors; its ``std_err`` and
    ``p_value`` ride on each estimate and effect as ``clustered_std_err``/``clustered_p_value`` (so the
    report can say which findings do not survive clustering). The intersection's likelihood-ratio test
    rides on the ``group:gender`` estimate (``lr_statistic``, ``lr_p_value``), not in a record of its
    own, so that a run's multiple-testing family counts the intersection once.
    """
    fit = {
        "n": result.n,
        "n_excluded": result.n_excluded,
        "converged": result.converged,
        "squeezed": result.squeezed,
        "group_levels": list(result.group_levels),
        "gender_levels": list(result.gender_levels),
        "statistic_kind": result.test,
        "df": result.df,
        "cov_type": result.cov_type,
        "cluster_by": list(result.cluster_by),
        "n_clusters": list(result.n_clusters),
        "note": note,
    }

    def with_clustered(record: dict, estimate) -> dict:
        if clustered is not None:
            record.update(
                clustered_std_err=estimate.std_err,
                clustered_p_value=estimate.p_value,
                clustered_by=list(clustered.cluster_by),
                clustered_df=clustered.df,
            )
        return record

    records = []
    for coefficient in result.coefficients:
        record = {
            "term": coefficient.term,
            "metric": "estimate",
            "value": coefficient.estimate,
            "statistic": coefficient.z,
            **_tested(coefficient),
            **fit,
        }
        if coefficient.term == result.intersection_lr_test.term:
            record.update(
                lr_statistic=result.intersection_lr_test.statistic, lr_p_value=result.intersection_lr_test.p_value
            )
        other = clustered.coefficient(coefficient.term) if clustered is not None else None
        records.append(with_clustered(record, other))
    for effect in result.effects:
        record = {
            "term": effect.name,
            "metric": "effect",
            "value": effect.estimate,
            "statistic": effect.statistic,
            "kind": effect.kind,
            "coefficient": effect.term,
            **_tested(effect),
            **fit,
        }
        other = clustered.effect(effect.name) if clustered is not None else None
        records.append(with_clustered(record, other))
    records.append(
        {
            "metric": "log_phi",
            "value": result.precision.log_phi,
            "std_err": result.precision.log_phi_std_err,
            "phi": result.precision.phi,
            "n": result.n,
        }
    )
    records += [
        {
            "term": f"{cell.group}|{cell.gender}",
            "metric": "cell_mean",
            "value": cell.observed_mean,
            "predicted_mean": cell.predicted_mean,
            "n": cell.n,
        }
        for cell in result.cells
    ]
    return records


def validity_records(validity: dict | None) -> list[dict]:
    """A zero-shot judge's validity on a unit's sentences (``metric="numeral_mass"``): ``value`` the mean
    probability that its answer's first token was a numeral of the scale, with the median, the share of
    sentences below the low-mass line, the arg-max numerals' counts and (generated answers) the parse-failure
    rate. Little mass means the model is not answering the question; read its coefficients with that in mind."""
    if validity is None:
        return []
    fields = dict(validity)
    return [{"metric": "numeral_mass", "value": fields.pop("numeral_mass_mean"), **fields}]
