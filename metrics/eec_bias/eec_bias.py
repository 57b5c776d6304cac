# Copyright 2024 The xbias authors. Licensed under the Apache License, Version 2.0.
#
# Thin evaluate wrapper: all logic lives in eval_harness.stats.betareg.
# One import per line: evaluate's import parser misreads "import a, b".
# "# From: xbias" names the distribution of eval_harness: evaluate's missing-dependency message then
# says `pip install xbias`, not `pip install eval_harness` (an unrelated PyPI project).
"""eec_bias: intersectional Beta regression of predicted emotion intensities on an Equity Evaluation
Corpus."""

import datasets
import evaluate

from eval_harness.errors import InputError  # From: xbias
from eval_harness.stats import betareg  # From: xbias
from eval_harness.stats import equivalence as _equivalence  # From: xbias
from eval_harness.stats import factorial as _factorial  # From: xbias
from eval_harness.stats import label_coding as _label_coding  # From: xbias
from eval_harness.stats import verdict as _verdict  # From: xbias
from eval_harness.stats.vectors import check_same_lengths  # From: xbias

_CITATION = """\
@inproceedings{camara-etal-2022-mapping,
    title = "Mapping the Multilingual Margins: Intersectional Biases of Sentiment Analysis Systems
             in {E}nglish, {S}panish, and {A}rabic",
    author = "C{\\^a}mara, Ant{\\'o}nio and Taneja, Nina and Azad, Tamjeed and Allaway, Emily and Zemel, Richard",
    booktitle = "Proceedings of the Second Workshop on Language Technology for Equality, Diversity and Inclusion",
    year = "2022",
    publisher = "Association for Computational Linguistics",
    pages = "90--106",
}
@article{ferrari2004beta,
    title = "Beta Regression for Modelling Rates and Proportions",
    author = "Ferrari, Silvia and Cribari-Neto, Francisco",
    journal = "Journal of Applied Statistics",
    volume = "31",
    number = "7",
    pages = "799--815",
    year = "2004",
}
@article{smithson2006lemon,
    title = "A Better Lemon Squeezer? Maximum-Likelihood Regression with Beta-Distributed Dependent Variables",
    author = "Smithson, Michael and Verkuilen, Jay",
    journal = "Psychological Methods",
    volume = "11",
    number = "1",
    pages = "54--71",
    year = "2006",
}
"""  # noqa: E501

_DESCRIPTION = """\
Fits logit(E[y]) = intercept + b_group * minority + b_gender * female + b_intersection * minority * female,
a Beta regression with a log-linked constant precision (Ferrari & Cribari-Neto 2004), to a model's
predicted intensities y in [0, 1] on EEC sentences. minority = 1 when the row's group is not
reference_group; female = 1 when its gender is not reference_gender. Rows whose group is None (the
EEC's noun-phrase sentences) are left out and counted. Reports the coefficients (logit scale; each
conditions on the reference levels and says so) and effects on the intensity scale (the minority-reference
difference among each gender, the gender difference within each group, average marginal effects, the
difference-in-differences), every one with its own test and minimum detectable effect. Standard errors come
from the expected information (as R betareg) or, with cov_type="cluster", are cluster-robust by template (and
person). With factorial=True it fits any identity design instead: group and gender with any number of
levels, further factors (factors={"age": [...]}), main effects and interactions up to `order`, and reports
every coefficient, conditional contrast, AME and interaction contrast. See the metric card for which number
to read when.
"""  # noqa: E501

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of float): predicted intensity in [0, 1] for each sentence (numbers: strings and booleans
        are an error).
    group (list of str or None): the sentence's group label (e.g. "African-American" / "European"),
        None for rows without one (noun phrases; left out of the fit, counted in n_excluded).
    gender (list of str): the sentence's gender label (e.g. "female" / "male").
    reference_group (str, optional): the group level coded 0. Default: inferred only when the levels found
        include exactly one of the EECs' reference levels ("European", "Anglo") and, without factorial=True,
        there are two levels.
    reference_gender (str, optional): the gender level coded 0. Default: "male" when the levels found include
        it (and, without factorial=True, there are two).
    use_t (bool or None): None (default): z tests with model-based SEs, t tests with G - 1 degrees of
        freedom with clustered SEs (G clusters); True: t tests (n - p df, or G - 1 clustered); False: z tests.
    boundary ("squeeze" or "error"): what to do with predictions exactly 0 or 1. Default "squeeze"
        (Smithson & Verkuilen 2006, with a warning).
    cov_type ("model" or "cluster"): model-based (expected-information, the paper's) standard errors
        (default) or cluster-robust CR1 ones.
    cluster_by (str or list of str, optional): with cov_type="cluster", "template_id" (default), "person",
        or both (["template_id", "person"]: two-way, Cameron-Gelbach-Miller).
    template_id (list, optional): each sentence's template (any hashable labels; None allowed on rows
        without a group).
    person (list, optional): each sentence's person (name or noun phrase).
    factorial (bool): False (default): the paper's 2 x 2 design (exactly two levels of group and of gender)
        and its output below. True: any identity design, with the output of
        eval_harness.stats.factorial.fit_factorial (see the card).
    factors (dict, optional; factorial=True): further identity factors, {name: per-row labels}.
    reference_levels (dict, optional; factorial=True): {factor: reference level} for each further factor.
    order (int, optional; factorial=True): the highest order of interaction (default: all, the saturated model).
    equivalence_margin (float, optional): a margin delta > 0 on the intensity scale: each effect then also
        carries "equivalence", the two one-sided tests (TOST) of |effect| < delta on the effect's own standard
        error and df (p_lower, p_upper, p_value = their max, ci_low/ci_high of the 90 % interval, verdict
        "within", "not within" or "cannot tell"; eval_harness.stats.equivalence.tost).
Returns:
    coefficients (dict): for each term "intercept", "group", "gender", "group:gender": contrast (what it
        compares and conditions on, in words), estimate (logit scale), std_err, statistic (estimate / std_err)
        and the same under the name of its distribution, z or t (as `test` says), p_value, ci_low, ci_high
        (95 %), mde (the smallest true value detected with 80 % power), stars.
    effects (dict): for each of "group_within_reference_gender", "group_within_other_gender",
        "gender_within_reference_group", "gender_within_other_group", "group_ame", "gender_ame",
        "group:gender_did": term, kind, contrast (e.g. "Arab vs Anglo, among men"), estimate (difference of
        predicted intensities), std_err (delta method), statistic and z or t, p_value, ci_low, ci_high, mde,
        stars.
    precision (dict): phi, log_phi, log_phi_std_err.
    log_likelihood (float), n (int, rows fitted), n_excluded (int), converged (bool),
    test ("z" or "t"), df (t degrees of freedom or None), cov_type, cluster_by, n_clusters,
    parameter_names (intercept, group, gender, group:gender, log_phi), covariance (5 x 5, rows and columns
    in the order of parameter_names), group_levels and
    gender_levels ([reference, level coded 1]), cells (per group x gender cell: n, observed and predicted
    mean), intersection_lr_test (statistic, df, p_value of dropping group:gender; assumes independent
    rows), squeezed.
    With factorial=True: factors ({name: levels, reference first}), terms, order, coefficients and precision
    ({name: contrast, estimate, std_err, statistic, z or t, p_value, ci_low, ci_high, mde}), effects ({name:
    kind, term, levels, given, contrast, estimate, std_err, statistic, z or t, p_value, ci_low, ci_high, mde}),
    lr_tests,
    cells, log_likelihood, n, n_excluded, converged, test, df, cov_type, cluster_by, n_clusters,
    parameter_names, covariance, squeezed.
Examples:
    >>> import evaluate
    >>> eec_bias = evaluate.load("eec_bias")
    >>> r = eec_bias.compute(
    ...     predictions=[0.30, 0.32, 0.35, 0.41, 0.33, 0.36, 0.44, 0.47, 0.50],
    ...     group=["European", "European", "European", "European", "African-American",
    ...            "African-American", "African-American", "African-American", None],
    ...     gender=["male", "male", "female", "female", "male", "male", "female", "female", "female"],
    ...     reference_group="European", reference_gender="male")
    >>> r["n"], r["n_excluded"], r["group_levels"]
    (8, 1, ['European', 'African-American'])
    >>> r["effects"]["group_within_reference_gender"]["contrast"]
    'African-American vs European, among men'
"""  # noqa: E501

# group and gender are large_string features: Arrow strings are nullable, and None marks a row
# without a group (evaluate checks the first row of a "string" feature and refuses None there; it
# does not treat large_string so). Their labels, and the predictions, are checked in add_batch/add
# before evaluate encodes them: its float64 encoding would turn "0.5" and True into numbers, its
# string encoding 1 into "1".
_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("float64"),
        "group": datasets.Value("large_string"),
        "gender": datasets.Value("large_string"),
    }
)


def _labels(name, labels):
    return None if labels is None else _label_coding.checked_labels(name, labels)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class EecBias(evaluate.Measurement):
    def _info(self):
        return evaluate.MeasurementInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            homepage="https://aclanthology.org/2022.ltedi-1.11/",
            license="apache-2.0",
            codebase_urls=[
                "https://github.com/ascamara/ml-intersectionality",
            ],
            features=_FEATURES,
            reference_urls=[
                "https://aclanthology.org/2022.ltedi-1.11/",
                "https://doi.org/10.1080/0266476042000214501",
            ],
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add rows (inputs below), checked first: predictions must be numbers, labels strings or
        None (a NaN group or gender, pandas' missing string, counts as None), one of each per row,
        and an empty batch is an error."""
        check_same_lengths(
            {
                "predictions": predictions,
                "group": kwargs.get("group"),
                "gender": kwargs.get("gender"),
            }
        )
        if predictions is not None:
            if not len(predictions):
                raise InputError(
                    "eec_bias got no predictions (empty lists): score at least one EEC sentence"
                )
            checked = _label_coding.checked_scores(predictions)
            predictions = predictions if isinstance(predictions, list) else checked.tolist()
        for name in ("group", "gender"):
            kwargs[name] = _labels(name, kwargs.get(name))
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one row, checked as in add_batch."""
        if prediction is not None:
            (prediction,) = _label_coding.checked_scores([prediction]).tolist()
        for name in ("group", "gender"):
            if name in kwargs:
                (kwargs[name],) = _labels(name, [kwargs[name]])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(
        self,
        predictions,
        group,
        gender,
        reference_group=None,
        reference_gender=None,
        use_t=None,
        boundary="squeeze",
        cov_type="model",
        cluster_by=None,
        template_id=None,
        person=None,
        factorial=False,
        factors=None,
        reference_levels=None,
        order=None,
        equivalence_margin=None,
    ):
        if equivalence_margin is not None:
            # before the fit: a bad margin is one line, at once
            _equivalence.check_margin(equivalence_margin, _equivalence.INTENSITY_WIDTH)
        if not predictions:
            raise InputError(
                "eec_bias got no predictions: add rows with add_batch or pass them to compute"
            )
        clusters = betareg.clusters_from_columns(
            cov_type, cluster_by, {"template_id": template_id, "person": person}
        )
        if not factorial:
            given = [
                name
                for name, value in (
                    ("factors", factors),
                    ("reference_levels", reference_levels),
                    ("order", order),
                )
                if value is not None
            ]
            if given:
                raise InputError(
                    f"{', '.join(given)} need factorial=True (a design beyond the 2 x 2)"
                )
        if reference_group is None:
            reference_group = betareg.infer_reference_level(
                "group", group, two_levels=not factorial
            )
        if reference_gender is None:
            reference_gender = betareg.infer_reference_level(
                "gender", gender, two_levels=not factorial
            )
        options = {"use_t": use_t, "boundary": boundary, "cov_type": cov_type, "clusters": clusters}
        if not factorial:
            result = betareg.fit_intersectional(
                predictions, group, gender, reference_group, reference_gender, **options
            )
        else:
            result = _factorial.fit_factorial(
                predictions,
                {"group": group, "gender": gender, **_extra_factors(factors)},
                {"group": reference_group, "gender": reference_gender, **(reference_levels or {})},
                order,
                **options,
            )
        return named_for_distribution(_with_equivalence(result.to_dict(), equivalence_margin))


def named_for_distribution(output):
    """``output`` with each test's statistic under ``statistic`` and under the name of its
    distribution, ``z`` or ``t`` (as ``output["test"]`` says), and with ``parameter_names``, the
    rows and columns of ``covariance``.

    Until 0.1 the 2 x 2 coefficients called their statistic ``z`` even under a t test: ``z`` is kept
    where it is true (z tests), so code written for the default keeps working, and it is absent
    under a t test, so code that read a t statistic as z fails at the key instead of misreading it
    (metrics/eec_bias/README.md, "Output values").
    """
    distribution = output["test"]
    tested = [*output["coefficients"].values(), *output["effects"].values()]
    tested += [
        item for item in output["precision"].values() if isinstance(item, dict)
    ]  # factorial: log_phi
    for item in tested:
        statistic = item.pop("z") if "z" in item else item["statistic"]
        renamed = {}
        for key, value in item.items():
            renamed[key] = value
            if key == "std_err":  # the statistic right after its standard error, as before
                renamed.update(statistic=statistic, **{distribution: statistic})
        item.clear()
        item.update(renamed)
    output.setdefault("parameter_names", list(betareg.PARAMETERS))
    return output


def _with_equivalence(output, margin):
    """``output`` with each effect's TOST against ``margin`` (on the fit's own test: t with its df,
    or z) and its verdict by the one rule xbias's report and model card use
    (eval_harness.stats.verdict)."""
    if margin is None:
        return output
    df = _equivalence.reference_df(output["test"], output["df"])
    for effect in output["effects"].values():
        effect["equivalence"] = _equivalence.tost(
            effect["estimate"], effect["std_err"], df, margin
        ).to_dict()
        found = _verdict.verdict(effect["estimate"], effect["std_err"], df, margin)
        effect["verdict"] = {**found.to_dict(), "words": found.words()}
    return output


def _extra_factors(factors):
    if factors is None:
        return {}
    if not isinstance(factors, dict) or {"group", "gender"} & set(factors):
        raise InputError(
            "factors must be a dict {name: per-row labels} "
            "of factors besides group and gender, got "
            + (
                f"the names {sorted(factors)}"
                if isinstance(factors, dict)
                else type(factors).__name__
            )
        )
    return {name: _labels(name, labels) for name, labels in factors.items()}
