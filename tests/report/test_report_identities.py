"""The EEC section of the report on a design with more levels (3 groups x 3 genders): coefficient
headers, plain sentences and the forest plot name the levels the records fit, with no 2 x 2 wording
("minority", "women vs men" for a non-binary contrast), and the planted effects are the ones the
sentences state, in their direction."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from eval_harness.contract import Unit, make_record
from eval_harness.report import annotate
from eval_harness.report.kit.families import ALPHA, DEFAULT_FAMILY
from eval_harness.report.sections import report_sections, report_settings
from eval_harness.stats.factorial import fit_factorial
from eval_harness.suites.eec.plots import forest_figure
from eval_harness.suites.eec.records import EEC_RECORDS, beta_regression_records
from eval_harness.suites.eec.report import eec_section
from eval_harness.suites.eec.sentences import effect_sentences
from eval_harness.suites.eec.tables import eec_coefficient_tables

CONFIG = "en_identities_3x3"
GROUPS = ("Anglo", "Arab", "Latino")
GENDERS = ("male", "female", "non-binary")
# Planted logit effects: Latino people predicted angrier among men and less angry among non-binary
# people (conditional effects of opposite sign), Arab non-binary people angrier than the additive
# model says.
PLANTED = {("Latino", "male"): 0.5, ("Latino", "non-binary"): -0.5, ("Arab", "non-binary"): 0.6}


def simulated_records() -> list[dict]:
    rng = np.random.default_rng(7)
    rows = [
        (group, gender, template)
        for template in range(1, 8)
        for group in GROUPS
        for gender in GENDERS
        for _ in range(40)
    ]
    group, gender, template = map(list, zip(*rows, strict=True))
    mu = expit(
        -0.4 + np.array([PLANTED.get((g, s), 0.0) for g, s in zip(group, gender, strict=True)])
    )
    y = rng.beta(mu * 60, (1 - mu) * 60)
    factors, references = {"group": group, "gender": gender}, {"group": "Anglo", "gender": "male"}
    result = fit_factorial(y, factors, references)
    clustered = fit_factorial(
        y, factors, references, cov_type="cluster", clusters={"template_id": template}
    )
    unit = Unit(
        model="probe", suite="eec", language="en", dataset="eec", config=CONFIG, emotion="anger"
    )
    return [
        make_record(unit, record, EEC_RECORDS)
        for record in beta_regression_records(result, clustered=clustered)
    ]


@pytest.fixture(scope="module")
def annotated():
    return annotate(pd.DataFrame.from_records(simulated_records()))


def test_the_coefficient_table_is_headed_by_each_level_against_its_reference(annotated):
    (table,) = eec_coefficient_tables(annotated, report_sections()).values()
    assert list(table.columns[2:-1]) == [
        "Arab vs Anglo, among men",
        "Latino vs Anglo, among men",
        "women vs men, within Anglo",
        "non-binary people vs men, within Anglo",
        "Arab × women (interaction)",
        "Arab × non-binary people (interaction)",
        "Latino × women (interaction)",
        "Latino × non-binary people (interaction)",
    ]


def test_the_sentences_state_the_planted_effects_in_their_direction(annotated):
    sentences = {s.effect: s for s in effect_sentences(annotated)[CONFIG]}
    latino_men = sentences["group[Latino]|gender=male"]
    assert latino_men.estimate > 0.05 and latino_men.p_value < 0.01
    assert (
        "sentences about Latino men are predicted" in latino_men.text
        and "angrier than about Anglo men" in latino_men.text
    )
    # the same contrast among non-binary people runs the other way, and each sentence says so
    latino_nb = sentences["group[Latino]|gender=non-binary"]
    assert "less angry than about Anglo non-binary people" in latino_nb.text
    assert (
        "; among men" in latino_nb.text
        and "the estimated difference has the opposite sign" in latino_nb.text
    )
    arab_nb = sentences["group[Arab]:gender[non-binary]"]
    assert arab_nb.estimate > 0 and (
        "difference of differences: the predicted anger of Arab non-binary people minus Arab men is"
        in arab_nb.text
    )
    assert "higher than that of Anglo non-binary people minus Anglo men" in arab_nb.text
    average = sentences.get("group[Latino]|average")
    if average is not None:
        assert average.text.count("averaged over men, women and non-binary people") == 1
        assert "hides differences of opposite sign" in average.text
    # the gender differences among Anglo people were not planted: none is stated with confidence
    assert all(s.p_value > 0.001 for name, s in sentences.items() if name.endswith("|group=Anglo"))
    every = " ".join(s.text for s in sentences.values())
    assert "minority" not in every and "female" not in every and "None" not in every


def test_the_section_and_its_plot_show_every_coefficient(annotated):
    section = eec_section(annotated, report_settings(ALPHA, DEFAULT_FAMILY))
    (subsection,) = section.subsections
    assert subsection.title == CONFIG
    intro = section.blocks[0].text
    assert (
        "3 × 3 identity cells (group: Arab, Latino against "
        "Anglo; gender: female, non-binary against male)" in intro
    )
    assert "minority" not in intro
    figure = forest_figure(annotated, CONFIG)
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert len(labels) == 8 and labels[3] == "non-binary people vs men, within Anglo"
