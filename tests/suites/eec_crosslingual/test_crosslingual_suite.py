"""The eec_crosslingual suite end to end: a test model whose scores of sentences about Arabs are
0.05 higher in Arabic, for joy only, through ``xbias run`` and ``xbias report``: the difference is
found in that language's joy contrast and nowhere else (no other emotion, no other effect, not in
Spanish); the records, the report's section, its figure and its sentences; the options and the plan;
a unit whose fit cannot be made."""

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from helpers.planted_model import REPORTED_R, planted_model, register_planted

from eval_harness.cli import main
from eval_harness.contract import Unit
from eval_harness.contract.samples import read_samples, samples_units
from eval_harness.data import load_eec
from eval_harness.errors import ConfigError
from eval_harness.runner import load_config, plan_units
from eval_harness.suites.eec.wording import format_effect
from eval_harness.suites.eec_crosslingual import SUITE
from eval_harness.suites.eec_crosslingual.pipeline import align, language_contrasts

PLANTED = {
    ("ar_arab_anglo", "joy", name)
    for name in ("group[Arab]|gender=male", "group[Arab]|gender=female", "group[Arab]|average")
}


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    """Pilots (noise seeds 1-10, the same fits in one process, four emotions): Holm over the run's
    56 differences kept exactly the three planted ones in 10 of 10."""
    folder = tmp_path_factory.mktemp("crosslingual")
    config = folder / "crosslingual.yaml"
    model = planted_model("planted", shift=0.05, shift_emotions=["joy"], noise_seed=1)
    suite = {"languages": ["es", "ar"], "emotions": ["fear", "joy"]}
    config.write_text(
        yaml.safe_dump({"seeds": [0], "models": [model], "suites": {"eec_crosslingual": suite}})
    )
    remove = register_planted()
    try:
        assert (
            main(["run", "--config", str(config), "--out", str(folder / "run"), "--no-progress"])
            == 0
        )
    finally:
        remove()
    assert main(["report", str(folder / "run"), "--format", "html,md"]) == 0
    return folder / "run"


def test_a_planted_difference_is_found_in_its_language_and_emotion_only(planted_run):
    results = pd.read_csv(planted_run / "report" / "results.csv")
    assert set(results["suite"]) == {"eec_crosslingual"} and len(results) == 2 * 2 * 7
    survivors = results[results["survives_holm"]]
    assert (
        set(zip(survivors["config"], survivors["emotion"], survivors["term"], strict=True))
        == PLANTED
    )
    for _, row in survivors.iterrows():
        assert row["value"] == pytest.approx(
            0.05, abs=0.01
        )  # the planted rows' own noise: about 0.005
        assert row["other_estimate"] - row["reference_estimate"] == pytest.approx(
            row["value"], abs=1e-12
        )
    # nothing else reaches even the raw 1 % level
    others = results[~results["survives_holm"]]
    assert (others["p_value"] > 0.01).all(), others.sort_values("p_value").head(3)


def test_the_records_say_what_was_paired_and_how_it_was_tested(planted_run):
    records = [
        json.loads(line) for line in (planted_run / "results.jsonl").read_text().splitlines()
    ]
    first = next(r for r in records if (r["config"], r["emotion"]) == ("ar_arab_anglo", "fear"))
    pairs = align(
        load_eec("en_arab_anglo").to_pandas(), load_eec("ar_arab_anglo").to_pandas()
    ).pairs
    assert first["language"] == "en-ar" and first["english_config"] == "en_arab_anglo"
    assert (first["reference_language"], first["other_language"]) == ("en", "ar")
    assert (
        first["n_pairs"] == (pairs["emotion"] == "fear").sum()
        and first["n"] == 2 * first["n_pairs"]
    )
    assert first["factors"] == {"group": ["Anglo", "Arab"], "gender": ["male", "female"]}
    covariance = (first["cov_type"], first["cluster_by"], first["n_clusters"], first["df"])
    assert covariance == ("cluster", ["template_id"], [7], 6)
    assert first["statistic_kind"] == "t" and first["reference_regressor_r"] == REPORTED_R
    unit = [r for r in records if (r["config"], r["emotion"]) == ("ar_arab_anglo", "fear")]
    assert [r["term"] for r in unit] == [
        "group[Arab]|gender=male",
        "group[Arab]|gender=female",
        "gender[female]|group=Anglo",
        "gender[female]|group=Arab",
        "group[Arab]|average",
        "gender[female]|average",
        "group[Arab]:gender[female]",
    ]
    assert all(0 < r["mde"] < 0.05 and r["ci_low"] < r["value"] < r["ci_high"] for r in unit)


def test_each_unit_keeps_its_pairs_and_a_refit_from_them_gives_its_records(planted_run):
    records = [
        json.loads(line) for line in (planted_run / "results.jsonl").read_text().splitlines()
    ]
    units = samples_units(planted_run, "eec_crosslingual")
    assert len(units) == 4
    for unit_id, key in units.items():
        samples = read_samples(planted_run, unit_id)
        unit_records = [
            r for r in records if (r["config"], r["emotion"]) == (key["config"], key["emotion"])
        ]
        assert len(samples) == unit_records[0]["n_pairs"] and set(samples["language"]) == {
            key["language"]
        }
        language = key["language"].split("-")[1]
        refit = language_contrasts(
            samples,
            samples["english_score"],
            samples["translated_score"],
            language,
            {"group": "Anglo", "gender": "male"},
        )
        for record, difference in zip(unit_records, refit.differences, strict=True):
            assert record["term"] == difference.name
            assert record["value"] == pytest.approx(difference.estimate, abs=1e-10)
            assert record["std_err"] == pytest.approx(difference.std_err, abs=1e-10)


def test_the_report_shows_the_section_its_figure_and_sentences(planted_run):
    report = (
        planted_run / "report" / "tables.md"
    ).read_text()  # the full tables page: each method's section
    results = pd.read_csv(planted_run / "report" / "results.csv")
    assert "## Cross-language EEC contrasts (aligned sentences)" in report
    assert (
        "### ar_arab_anglo vs en_arab_anglo" in report
        and "### es_latino_anglo vs en_latino_anglo" in report
    )
    assert (planted_run / "report" / "figures" / "crosslingual_ar_arab_anglo.png").is_file()
    average = results[
        (results["term"] == "group[Arab]|average") & (results["emotion"] == "joy")
    ].iloc[0]
    assert (
        "planted, joy: averaged over gender, relative to Anglo people, sentences "
        f"about Arab people are predicted {format_effect(average['value'])} more "
        f"joyful in Arabic than in English (95% CI [{average['ci_low']:+.3g}, "
    ) in report
    women = results[
        (results["term"] == "group[Arab]|gender=female") & (results["emotion"] == "joy")
    ].iloc[0]
    assert (
        "relative to Anglo women, sentences about Arab women are predicted "
        f"{format_effect(women['value'])} more joyful in Arabic than in English"
    ) in report
    assert "Other results" not in report


def test_languages_pair_with_english_and_models_of_one_language_are_skipped():
    models = [
        {"name": "svm", "type": "svm_tfidf"},
        {"name": "en-only", "type": "svm_tfidf", "languages": ["en"]},
    ]
    suites = {"eec_crosslingual": {"languages": ["es", "ar"], "emotions": ["fear"]}}
    config = load_config({"seeds": [0], "models": models, "suites": suites})
    plan = plan_units(config)
    assert [(u.model, u.language, u.config, u.emotion) for u in plan.units] == [
        ("svm", "en-es", "es_latino_anglo", "fear"),
        ("svm", "en-ar", "ar_arab_anglo", "fear"),
    ]
    skipped = "en-only x eec_crosslingual: none of the suite's languages (en-es, en-ar)"
    assert any(note.startswith(skipped) for note in plan.skipped)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"cluster_by": ["row"]},
            r"cluster_by must be one or two distinct names of template_id, person, sentence",
        ),
        ({"cov_type": "robust"}, r"cov_type must be 'cluster' or 'model'"),
        ({"sample": -1}, r"sample must be a whole number of pairs per cell"),
        ({"emotions": ["anger", "awe"]}, r"emotions must be some of anger, fear, joy, sadness"),
        ({"use_t": "yes"}, r"use_t must be true, false or null"),
        ({"languages": ["en"]}, r"suite 'eec_crosslingual' has no language 'en'; it has es, ar"),
    ],
)
def test_bad_settings_are_one_line_config_errors(options, message):
    settings = {"languages": ["ar"], **options}
    with pytest.raises(ConfigError, match=message):
        load_config({"models": [{"type": "svm_tfidf"}], "suites": {"eec_crosslingual": settings}})


@pytest.fixture(scope="module")
def anger_pairs():
    alignment = align(load_eec("en_arab_anglo").to_pandas(), load_eec("ar_arab_anglo").to_pandas())
    return alignment, alignment.pairs[alignment.pairs["emotion"] == "anger"]


def evaluated(alignment, pairs, english, translated):
    """The records of one unit from given scores of its pairs (the suite's evaluate on a hand-made
    prepare)."""
    scores = {
        "en": {"y": english, "numeral_mass": None},
        "ar": {"y": translated, "numeral_mass": None},
    }
    fit = {"pairs": pairs, "scores": scores, "regressors": {"en": None, "ar": None}}
    prepared = {
        "options": SUITE.options,
        "alignments": {"ar_arab_anglo": alignment},
        "fits": {("ar_arab_anglo", "anger"): fit},
    }
    key = {"dataset": "eec", "config": "ar_arab_anglo", "emotion": "anger"}
    unit = Unit(model="m", suite="eec_crosslingual", language="en-ar", **key)
    return SUITE.evaluate(unit, prepared, ctx=None)


def test_a_unit_whose_joint_fit_cannot_be_made_says_why(anger_pairs):
    """Scores that do not vary within the cells: one skipped record."""
    alignment, pairs = anger_pairs
    constant = np.full(len(pairs), 0.4)
    (record,) = evaluated(alignment, pairs, constant, constant)
    assert record["status"] == "skipped" and record["value"] is None
    assert record["note"].startswith("no joint fit: ") and record["n_pairs"] == len(pairs)


def test_a_model_blind_to_the_names_gets_model_based_errors_with_a_note(anger_pairs):
    """Scores that depend on the template and the gender but never on the name (as SVM-tfidf's,
    which knows none of the names): within each template both groups score alike, so the
    template-clustered variance of a group contrast is rounding noise (of either sign, by CPU),
    floored at 0 on any. The unit keeps its numbers, every group difference exactly 0, with
    model-based standard errors, and says so."""
    alignment, pairs = anger_pairs
    rank = pairs.groupby(["template_id", "group", "gender"]).cumcount().to_numpy() % 5
    female = (pairs["gender"] == "female").to_numpy()
    blind = 0.3 + 0.02 * pairs["template_id"].to_numpy() + 0.03 * female + 0.002 * rank
    records = evaluated(alignment, pairs, blind, blind + 0.01)
    assert len(records) == 7 and {r["cov_type"] for r in records} == {"model"}
    assert records[0]["note"] == (
        "no clustered standard errors (the standard error of group[Arab] is 0: "
        "its clustered variance is at rounding level (e.g. scores alike within "
        "every cluster); use cov_type='model'); model-based ones instead"
    )
    for record in records:
        if record["effect_term"] == "group":
            assert record["value"] == pytest.approx(0.0, abs=1e-12) and record["p_value"] > 0.99
