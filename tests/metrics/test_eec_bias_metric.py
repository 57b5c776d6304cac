"""The `eec_bias` evaluate module: offline by bare name from any cwd, the library's numbers, the
real EEC end to end."""

import hashlib
import warnings

import numpy as np
import pytest
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats.betareg import BetaRegressionWarning, fit_intersectional


@pytest.fixture(scope="module")
def eec_bias(load_metric_elsewhere):
    return load_metric_elsewhere("eec_bias")


def synthetic_rows(seed=0, per_cell=40, noun_phrases=6):
    """Beta-distributed scores for the four cells, then noun-phrase rows (group None) in front."""
    rng = np.random.default_rng(seed)
    minority = np.repeat([0, 0, 1, 1], per_cell)
    female = np.tile(np.repeat([0, 1], per_cell), 2)
    mu = expit(-0.7 + 0.2 * minority - 0.1 * female + 0.3 * minority * female)
    y = rng.beta(mu * 25, (1 - mu) * 25)
    group = [("European", "African-American")[m] for m in minority]
    gender = [("male", "female")[f] for f in female]
    predictions = rng.uniform(0.2, 0.6, noun_phrases).tolist() + y.tolist()
    group = [None] * noun_phrases + group
    gender = ["female", "male"] * (noun_phrases // 2) + gender
    return predictions, group, gender


def test_loads_by_bare_name_from_another_cwd(registered_metrics, named, monkeypatch, tmp_path):
    import evaluate

    monkeypatch.chdir(tmp_path)
    metric = evaluate.load("eec_bias")
    predictions, group, gender = synthetic_rows()
    result = metric.compute(
        predictions=predictions,
        group=group,
        gender=gender,
        reference_group="European",
        reference_gender="male",
    )
    assert result == named(
        fit_intersectional(predictions, group, gender, "European", "male").to_dict()
    )


def test_rows_without_group_pass_through_evaluate_even_first(eec_bias):
    predictions, group, gender = synthetic_rows(seed=1, noun_phrases=10)
    assert group[0] is None
    result = eec_bias.compute(predictions=predictions, group=group, gender=gender)
    assert (result["n"], result["n_excluded"]) == (160, 10)
    assert list(result["coefficients"]) == ["intercept", "group", "gender", "group:gender"]
    for key in ("precision", "log_likelihood", "converged", "intersection_lr_test"):
        assert key in result


def test_options_pass_through(eec_bias, named):
    predictions, group, gender = synthetic_rows(seed=2)
    result = eec_bias.compute(predictions=predictions, group=group, gender=gender, use_t=True)
    assert (result["test"], result["df"]) == ("t", 160 - 4)
    assert result == named(
        fit_intersectional(predictions, group, gender, "European", "male", use_t=True).to_dict()
    )

    predictions[-1] = 1.0
    with pytest.raises(InputError, match="1 of 160 predictions are exactly 0 or 1"):
        eec_bias.compute(predictions=predictions, group=group, gender=gender, boundary="error")
    with pytest.warns(BetaRegressionWarning, match="all 160 were squeezed"):
        assert eec_bias.compute(predictions=predictions, group=group, gender=gender)["squeezed"]


def test_reference_levels_inferred_only_for_known_labels(eec_bias):
    predictions, group, gender = synthetic_rows(seed=3)
    explicit = eec_bias.compute(
        predictions=predictions,
        group=group,
        gender=gender,
        reference_group="European",
        reference_gender="male",
    )
    assert eec_bias.compute(predictions=predictions, group=group, gender=gender) == explicit
    # The other coding is allowed when asked for, and flips the sign of the group term.
    flipped = eec_bias.compute(
        predictions=predictions, group=group, gender=gender, reference_group="African-American"
    )
    assert flipped["group_levels"] == ["African-American", "European"]
    assert flipped["cells"][0]["predicted_mean"] == pytest.approx(
        explicit["cells"][2]["predicted_mean"], abs=1e-7
    )

    renamed = ["Black" if g == "African-American" else "white" if g else None for g in group]
    with pytest.raises(
        InputError, match=r"levels found \['Black', 'white'\]: pass reference_group="
    ):
        eec_bias.compute(predictions=predictions, group=renamed, gender=gender)
    assert eec_bias.compute(
        predictions=predictions, group=renamed, gender=gender, reference_group="white"
    )["coefficients"]["group:gender"]["estimate"] == pytest.approx(
        explicit["coefficients"]["group:gender"]["estimate"], abs=1e-9
    )


def test_card_example(eec_bias):
    result = eec_bias.compute(
        predictions=[0.30, 0.32, 0.35, 0.41, 0.33, 0.36, 0.44, 0.47, 0.50],
        group=["European"] * 4 + ["African-American"] * 4 + [None],
        gender=["male", "male", "female", "female", "male", "male", "female", "female", "female"],
        reference_group="European",
        reference_gender="male",
    )
    assert (result["n"], result["n_excluded"], result["group_levels"]) == (
        8,
        1,
        ["European", "African-American"],
    )
    assert result["converged"]
    among_women = result["effects"]["group_within_other_gender"]
    assert among_women["contrast"] == "African-American vs European, among women"
    assert among_women["estimate"] == pytest.approx(0.0753, abs=5e-5)
    assert among_women["p_value"] == pytest.approx(9.83e-05, abs=5e-7)


# --- The real English Black/white EEC, end to end -------------------------------------------------


def hash_length_score(sentence: str) -> float:
    """A deterministic stand-in for a model: a hash of the sentence plus a little for its length, in
    (0.15, 0.95)."""
    fraction = int(hashlib.sha256(sentence.encode()).hexdigest()[:8], 16) / 16**8
    return 0.15 + 0.5 * fraction + 0.005 * min(len(sentence), 60)


@pytest.fixture(scope="module")
def en_black_white():
    from eval_harness.data import load_eec

    return load_eec("en_black_white")


def observed_difference_in_differences(scores, group, gender):
    scores, group, gender = np.asarray(scores), np.asarray(group, dtype=object), np.asarray(gender)

    def cell(g, s):
        return scores[(group == g) & (gender == s)].mean()

    return (cell("African-American", "female") - cell("African-American", "male")) - (
        cell("European", "female") - cell("European", "male")
    )


def test_real_eec_end_to_end(eec_bias, named, en_black_white):
    eec = en_black_white
    scores = [hash_length_score(s) for s in eec["sentence"]]
    result = eec_bias.compute(
        predictions=scores, group=eec["group"], gender=eec["gender"], use_t=True
    )

    noun_phrases = sum(kind == "noun_phrase" for kind in eec["person_kind"])
    assert noun_phrases == sum(g is None for g in eec["group"]) == 2880
    assert (result["n"], result["n_excluded"]) == (5760, noun_phrases)
    assert result["n"] + result["n_excluded"] == len(eec) == 8640
    assert result["group_levels"] == ["European", "African-American"] and result[
        "gender_levels"
    ] == ["male", "female"]
    assert result["converged"] and result["df"] == 5756
    expected = fit_intersectional(
        scores, eec["group"], eec["gender"], "European", "male", use_t=True
    ).to_dict()
    assert result == named(expected)
    for cell in result["cells"]:
        assert cell["n"] == 1440
    # The predicted means track the observed cell means (not exactly: the Beta MLE of a mean is not
    # the sample mean).
    did = observed_difference_in_differences(scores, eec["group"], eec["gender"])
    assert result["effects"]["group:gender_did"]["estimate"] == pytest.approx(did, abs=3e-3)


def test_real_eec_detects_a_planted_intersectional_bias(eec_bias, en_black_white):
    """Anger sentences about Black women scored 0.05 higher: found with *** and a marginal effect of
    ~0.05."""
    anger = en_black_white.filter(lambda row: row["emotion"] == "anger")
    planted = [
        hash_length_score(row["sentence"])
        + 0.05 * (row["group"] == "African-American" and row["gender"] == "female")
        for row in anger
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no boundary squeeze or convergence warning on real data
        result = eec_bias.compute(predictions=planted, group=anger["group"], gender=anger["gender"])
    with_group = sum(g is not None for g in anger["group"])
    assert (
        (result["n"], result["n_excluded"]) == (with_group, len(anger) - with_group) == (1400, 700)
    )
    intersection = result["coefficients"]["group:gender"]
    assert (
        intersection["stars"] == "***"
    )  # p <= 0.01 (expected z ~ 0.05 / 0.015 with 350 rows a cell)
    did_without = observed_difference_in_differences(
        [hash_length_score(s) for s in anger["sentence"]], anger["group"], anger["gender"]
    )
    did = result["effects"]["group:gender_did"]
    assert did["estimate"] == pytest.approx(0.05 + did_without, abs=3e-3) and did["stars"] == "***"
    assert result["intersection_lr_test"]["p_value"] <= 0.01


def test_a_nan_group_from_a_pandas_column_is_a_row_without_a_group(eec_bias):
    predictions, group, gender = synthetic_rows()
    with_none = eec_bias.compute(
        predictions=predictions, group=group, gender=gender, reference_group="European"
    )
    with_nan = [
        float("nan") if label is None else label for label in group
    ]  # what to_pandas().tolist() gives
    result = eec_bias.compute(
        predictions=predictions, group=with_nan, gender=gender, reference_group="European"
    )
    assert result["n_excluded"] == with_none["n_excluded"] == 6
    assert result["coefficients"] == with_none["coefficients"]


@pytest.mark.parametrize(
    ("options", "distribution"), [({}, "z"), ({"use_t": True}, "t"), ({"factorial": True}, "z")]
)
def test_each_statistic_is_named_for_its_distribution_and_the_covariance_for_its_parameters(
    eec_bias, options, distribution
):
    predictions, group, gender = synthetic_rows(seed=3)
    result = eec_bias.compute(predictions=predictions, group=group, gender=gender, **options)
    assert result["test"] == distribution
    other = {"z": "t", "t": "z"}[distribution]
    tested = [*result["coefficients"].values(), *result["effects"].values()]
    for item in tested:
        assert (
            item[distribution]
            == item["statistic"]
            == pytest.approx(item["estimate"] / item["std_err"], rel=1e-12)
        )
        assert other not in item
    # Each covariance row belongs to the parameter its name says: its variance is that parameter's
    # squared std_err.
    names, covariance = result["parameter_names"], np.asarray(result["covariance"])
    assert covariance.shape == (len(names), len(names)) and names[-1] == "log_phi"
    std_errs = {name: item["std_err"] for name, item in result["coefficients"].items()}
    precision = result["precision"]
    std_errs["log_phi"] = (
        precision["log_phi"]["std_err"]
        if options.get("factorial")
        else precision["log_phi_std_err"]
    )
    assert np.sqrt(np.diag(covariance)) == pytest.approx(
        [std_errs[name] for name in names], rel=1e-9
    )
