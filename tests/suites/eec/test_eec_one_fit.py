"""The paper's 2 x 2 fit is the factorial fit under other names: one records writer and one term
labeller serve both, and the two agree number for number on the same rows."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from eval_harness.errors import InputError
from eval_harness.stats.betareg import EFFECTS, TERMS, factorial_effect_names, fit_intersectional
from eval_harness.stats.factorial import fit_factorial
from eval_harness.suites.eec.records import beta_regression_records
from eval_harness.suites.eec.sentences import claim, effect_levels
from eval_harness.suites.eec.tables import term_label

GROUPS, GENDERS = ("Anglo", "Arab"), ("male", "female")
# Fields that only a design beyond the paper's carries (its records keep their old shape).
GENERAL_ONLY = {"factor_levels", "order", "model_term", "lr_df", "effect_levels", "given"}


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(11)
    group = [GROUPS[k] for k in rng.integers(0, 2, 400)]
    gender = [GENDERS[k] for k in rng.integers(0, 2, 400)]
    template = rng.integers(1, 8, 400).tolist()
    planted = 0.3 * (np.array(group) == "Arab") * (np.array(gender) == "female")
    mu = expit(-0.5 + planted)
    return rng.beta(mu * 30, (1 - mu) * 30), group, gender, template


def fits(rows, cov_type):
    y, group, gender, template = rows
    clusters = {"template_id": template} if cov_type == "cluster" else None
    paper = fit_intersectional(
        y, group, gender, "Anglo", "male", cov_type=cov_type, clusters=clusters
    )
    general = fit_factorial(
        y,
        {"group": group, "gender": gender},
        {"group": "Anglo", "gender": "male"},
        cov_type=cov_type,
        clusters=clusters,
    )
    return paper, general


@pytest.mark.parametrize("cov_type", ["model", "cluster"])
def test_the_paper_records_are_the_factorial_records_under_the_paper_names(rows, cov_type):
    paper, general = fits(rows, cov_type)
    names = factorial_effect_names(GROUPS, GENDERS)
    ours = {
        (r["metric"], r.get("term")): r for r in beta_regression_records(paper, clustered=paper)
    }
    theirs = {
        (r["metric"], r.get("term")): r for r in beta_regression_records(general, clustered=general)
    }
    assert [term for metric, term in ours if metric == "estimate"] == list(TERMS)
    assert [term for metric, term in ours if metric == "effect"] == list(EFFECTS)
    for (metric, term), record in ours.items():
        other = theirs[metric, names.get(term, term)]
        for field in (
            "value",
            "std_err",
            "p_value",
            "statistic",
            "ci_low",
            "ci_high",
            "clustered_p_value",
            "mde",
        ):
            assert record.get(field) == other.get(field), (metric, term, field)
        assert not GENERAL_ONLY & set(record)
    assert (
        ours["estimate", "group:gender"]["lr_p_value"]
        == theirs["estimate", names["group:gender"]]["lr_p_value"]
    )
    assert {"factor_levels", "order", "model_term", "lr_df"} <= set(
        theirs["estimate", names["group:gender"]]
    )
    assert ours["effect", "group:gender_did"]["kind"] == "difference-in-differences"
    assert theirs["effect", names["group:gender_did"]]["kind"] == "interaction"


def test_one_labeller_heads_a_paper_term_and_its_factorial_name_alike(rows):
    paper, general = fits(rows, "model")
    names = factorial_effect_names(GROUPS, GENDERS)
    ours = {
        r["term"]: pd.Series(r) for r in beta_regression_records(paper) if r["metric"] == "estimate"
    }
    theirs = {
        r["term"]: pd.Series(r)
        for r in beta_regression_records(general)
        if r["metric"] == "estimate"
    }
    labels = {term: term_label(term, ours[term]) for term in TERMS}
    assert labels == {term: term_label(names[term], theirs[names[term]]) for term in TERMS}
    assert (
        labels["group"] == "Arab vs Anglo, among men"
        and labels["gender"] == "women vs men, within Anglo"
    )
    assert labels["group:gender"] == "Arab × women (interaction)"
    # A paper row in a frame that also holds other designs' rows reads order as NaN: still the
    # saturated 2 x 2.
    assert (
        term_label("group", pd.concat([ours["group"], pd.Series({"order": np.nan})]))
        == labels["group"]
    )


def test_the_summary_has_one_table_per_kind_of_effect_and_unknown_names_are_one_line(rows):
    paper, _ = fits(rows, "model")
    text = paper.summary()
    assert "Difference-in-differences (intensity scale):" in text and "\ngroup:gender_did " in text
    with pytest.raises(
        InputError, match=r"unknown effect 'group\[Arab\]\|average'; there are \['group_within"
    ):
        paper.effect("group[Arab]|average")


def test_one_sentence_writer_reads_a_paper_effect_as_its_factorial_levels(rows):
    paper, general = fits(rows, "model")
    names = factorial_effect_names(GROUPS, GENDERS)
    ours = {
        r["term"]: pd.Series({**r, "emotion": "anger"})
        for r in beta_regression_records(paper)
        if r["metric"] == "effect"
    }
    theirs = {
        r["term"]: pd.Series({**r, "emotion": "anger"})
        for r in beta_regression_records(general)
        if r["metric"] == "effect"
    }
    for name in EFFECTS:
        mine, factorial = ours[name], theirs[names[name]]
        ours_read, theirs_read = effect_levels(mine), effect_levels(factorial)
        assert (ours_read.factors, ours_read.levels, ours_read.given) == (
            theirs_read.factors,
            theirs_read.levels,
            theirs_read.given,
        ), name
        assert (
            ours_read.kind == mine["kind"]
        )  # read from the name alone, it is the record's own kind
        words = claim(factorial)
        if name == "group:gender_did":  # the paper's name for its interaction contrast
            words = words.replace("difference of differences", "difference-in-differences")
        assert claim(mine) == words, name
    assert claim(ours["group_within_other_gender"]).startswith(
        "sentences about Arab women are predicted"
    )
    assert claim(ours["gender_ame"]).startswith(
        "averaged over Anglo and Arab people, sentences about women"
    )
