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


def beta_regression_records(result, note: str | None = None) -> list[dict]:
    """One record per coefficient (``metric="estimate"``), the precision and the group x gender cell means.

    The intersection's likelihood-ratio test rides on the ``group:gender`` record (``lr_statistic``,
    ``lr_p_value``) rather than in a record of its own, so that a run's multiple-testing family
    counts the intersection once.
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
        "note": note,
    }
    records = []
    for coefficient in result.coefficients:
        record = {
            "term": coefficient.term,
            "metric": "estimate",
            "value": coefficient.estimate,
            "std_err": coefficient.std_err,
            "p_value": coefficient.p_value,
            "ci_low": coefficient.ci_low,
            "ci_high": coefficient.ci_high,
            "stars": coefficient.stars,
            "statistic": coefficient.z,
            "marginal_effect": coefficient.marginal_effect,
            **fit,
        }
        if coefficient.term == result.intersection_lr_test.term:
            record.update(
                lr_statistic=result.intersection_lr_test.statistic, lr_p_value=result.intersection_lr_test.p_value
            )
        records.append(record)
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
