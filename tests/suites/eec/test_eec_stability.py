"""How stable each EEC finding is, through the suite's records and the report: a planted finding
driven by one template is flagged fragile and a robust one of the same size is not;
leave-one-template-out against refits written out here; the minimum detectable effect against the
noncentral t's power; a judge's prompt spread against one fit per paraphrase; the defaults
(template-clustered standard errors) and the words of the report."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from helpers.betareg_reference import crossed_rows
from scipy import stats

from eval_harness.contract import Unit
from eval_harness.contract.records import make_record
from eval_harness.report import annotate
from eval_harness.report.kit.families import ALPHA, DEFAULT_FAMILY
from eval_harness.report.kit.tables import findings_table
from eval_harness.report.sections import report_sections, report_settings
from eval_harness.stats.betareg import fit_intersectional
from eval_harness.suites.eec.records import EEC_RECORDS
from eval_harness.suites.eec.report import SECTION, eec_section
from eval_harness.suites.eec.report_stability import FRAGILE_MARK, stability_table
from eval_harness.suites.eec.sentences import effect_sentences, undetected_sentences
from eval_harness.suites.eec.suite import SUITE

SETTINGS = report_settings(ALPHA, DEFAULT_FAMILY)
LEVELS = {"group": ("Anglo", "Arab"), "gender": ("male", "female")}
UNIT = Unit(
    model="m", suite="eec", language="en", dataset="eec", config="en_arab_anglo", emotion="anger"
)
RESAMPLES = 400


def planted(kind: str, seed: int = 0) -> dict:
    """11 templates x 40 names (10 per group x gender cell), Beta scores around 0.3 with a small
    template shift; Arab sentences 0.04 higher on average over the templates: in every template
    (``robust``), 0.44 higher in template 0 only (``fragile``: one template carries the whole
    effect), or not at all (``null``)."""
    rows = crossed_rows(LEVELS, 11, 10)
    rng = np.random.default_rng(seed)
    mu = 0.30 + 0.02 * rows["index"]["gender"] + rng.normal(0, 0.01, 11)[rows["template"]]
    y = rng.beta(mu * 40, (1 - mu) * 40)
    arab = rows["index"]["group"] == 1
    y = (
        y
        + {"robust": 0.04 * arab, "fragile": 0.44 * (arab & (rows["template"] == 0)), "null": 0.0}[
            kind
        ]
    )
    return {
        "y": y,
        "group": list(rows["labels"]["group"]),
        "gender": list(rows["labels"]["gender"]),
        "factors": {
            factor: list(rows["labels"][factor]) for factor in LEVELS
        },  # the suite's prepared layout
        "references": {factor: levels[0] for factor, levels in LEVELS.items()},
        "template_id": [int(t) for t in rows["template"]],
        "person": [str(p) for p in rows["person"]],
        "validity": None,
    }


def unit_records(data: dict, **options) -> list[dict]:
    prepared = {
        "options": {**SUITE.options, "stability_resamples": RESAMPLES, **options},
        "eec": {},
    }
    prepared["eec"]["en_arab_anglo", "anger"] = data
    return [make_record(UNIT, r, EEC_RECORDS) for r in SUITE.evaluate(UNIT, prepared, ctx=None)]


def annotated(*records: list[dict], models=("robust", "fragile")) -> pd.DataFrame:
    rows = [dict(r, model=model) for model, unit in zip(models, records, strict=True) for r in unit]
    return annotate(pd.DataFrame.from_records(rows))


def effect(frame: pd.DataFrame, model: str, name: str = "group_ame") -> pd.Series:
    (row,) = [row for _, row in frame.iterrows() if row["model"] == model and row["term"] == name]
    return row


def test_a_finding_driven_by_one_template_is_flagged_fragile_and_a_robust_one_of_the_same_size_is_not():  # noqa: E501
    """With the paper's model-based standard errors (configs/camara2022.yaml) both planted effects
    are significant and of the same size; the template bootstrap keeps the robust one and not the
    fragile one, which the report flags, marks and says in words."""
    robust, fragile = (
        unit_records(planted(kind), cov_type="model") for kind in ("robust", "fragile")
    )
    results = annotated(robust, fragile)
    steady, shaky = effect(results, "robust"), effect(results, "fragile")
    for row in (steady, shaky):
        assert row["p_value"] <= 0.05 and row["value"] == pytest.approx(0.04, abs=0.01)
        assert row["stability_resamples"] == RESAMPLES and row["cov_type"] == "model"

    assert steady["stability_template_sign"] == 1.0 and steady["stability_template_verdict"] >= 0.95
    assert not steady["fragile"]
    assert shaky["stability_template_verdict"] <= 0.75 and shaky["fragile"]
    assert "of the template resamples" in shaky["fragile_because"]
    variance = shaky["stability_template_variance"] / (shaky["stability_template_variance"] + shaky[
        "stability_person_variance"])  # fmt: skip
    assert variance > 0.9  # its variance is between templates

    # The report: the mark on the value, the column of the findings tables, the plain words, the
    # table.
    sentence = next(
        s.text
        for s in effect_sentences(results)["en_arab_anglo"]
        if s.model == "fragile" and s.effect == "group_ame"
    )
    assert (
        f"{FRAGILE_MARK} fragile: it is no longer significant" in sentence
        or f"{FRAGILE_MARK} fragile: its sign" in sentence
    )
    assert FRAGILE_MARK not in next(
        s.text
        for s in effect_sentences(results)["en_arab_anglo"]
        if s.model == "robust" and s.effect == "group_ame"
    )
    findings = findings_table(results, report_sections(), "fragile")
    assert set(findings["model"]) == {"fragile"} and all(
        FRAGILE_MARK in value for value in findings["value"]
    )
    assert findings["stability (sign/verdict kept)"].str.startswith("templates ").all()
    table = stability_table(results, "en_arab_anglo", report_sections())
    assert {"sign/verdict kept", "variance split", "MDE (80%)", "most influential template"} <= set(
        table.columns
    )
    assert any("template 0 " in cell for cell in table["most influential template"])
    legend = " ".join(
        block.text for block in eec_section(results, SETTINGS).blocks if hasattr(block, "text")
    )
    assert "at least 20% of the template or name bootstrap resamples" in legend


def test_leave_one_template_out_equals_refits_without_each_template():
    data = planted("fragile")
    records = {(r["metric"], r["term"]): r for r in unit_records(data, cov_type="model")}
    template = np.array(data["template_id"])
    refits = []
    for left_out in range(11):
        keep = template != left_out
        refits.append(
            fit_intersectional(
                data["y"][keep],
                list(np.array(data["group"])[keep]),
                list(np.array(data["gender"])[keep]),
                "Anglo",
                "male",
            )
        )
    for metric, term in (
        ("effect", "group_ame"),
        ("estimate", "group"),
        ("effect", "gender_within_other_group"),
    ):
        record = records[metric, term]
        full = record["value"]
        values = np.array(
            [
                (f.effect(term) if metric == "effect" else f.coefficient(term)).estimate
                for f in refits
            ]
        )
        p_values = np.array(
            [
                (f.effect(term) if metric == "effect" else f.coefficient(term)).p_value
                for f in refits
            ]
        )
        assert record["stability_template_loo_sign"] == pytest.approx(
            np.mean(np.sign(values) == np.sign(full))
        )
        significant = record["p_value"] <= 0.05
        kept = (
            (p_values <= 0.05) & (np.sign(values) == np.sign(full))
            if significant
            else p_values > 0.05
        )
        assert record["stability_template_loo_verdict"] == pytest.approx(kept.mean())
        moved = int(np.argmax(np.abs(values - full)))
        assert record["stability_template_influential"] == str(moved)
        assert record["stability_template_without"] == pytest.approx(values[moved], abs=1e-8)
    assert records["effect", "group_ame"]["stability_template_influential"] == "0"


def test_by_default_the_one_template_finding_is_not_significant_and_reads_with_what_could_have_been_detected():  # noqa: E501
    """Template-clustered standard errors (the default): the one-template effect is no finding at
    all, so nothing is flagged; a result that is not significant reads "could not have detected less
    than" its MDE, and that MDE is the effect at which the clustered t test (10 df) has 80 %
    power."""
    fragile, null = unit_records(planted("fragile")), unit_records(planted("null"))
    results = annotated(fragile, null, models=("fragile", "null"))
    shaky = effect(results, "fragile")
    assert shaky["cov_type"] == "cluster" and shaky["p_value"] > 0.05 and not shaky["fragile"]
    group_findings = results["model"].eq("fragile") & results["term"].str.startswith("group")
    assert not results.loc[
        group_findings, "fragile"
    ].any()  # (the small planted gender effect may well be)
    for model in ("fragile", "null"):
        row = effect(results, model)
        delta, df = row["mde"] / row["clustered_std_err"], int(row["clustered_df"])
        critical = stats.t.ppf(0.975, df)
        power = stats.nct.sf(critical, df, delta) + stats.nct.cdf(-critical, df, delta)
        assert df == 10 and power == pytest.approx(0.8, abs=1e-6)
    intro = " ".join(
        block.text for block in eec_section(results, SETTINGS).blocks if hasattr(block, "text")
    )
    assert (
        "cluster-robust (CR1 sandwich, clustered by template_id) for 2 fits" in intro
    )  # says which SE it used
    lines = undetected_sentences(results)["en_arab_anglo"]
    line = next(text for text in lines if text.startswith("null, anger"))
    assert f"could not have detected less than {effect(results, 'null')['mde']:.2g}" in line
    assert "no evidence of no bias" in " ".join(
        b.text for b in eec_section(results, SETTINGS).subsections[0].blocks if hasattr(b, "text")
    )


def test_a_judges_prompt_spread_is_one_fit_per_paraphrase():
    data = planted("robust")
    rng = np.random.default_rng(5)
    reworded = {
        "default": data["y"],
        "expert": np.clip(data["y"] + rng.normal(0, 0.01, len(data["y"])), 0.01, 0.99),
        "rate": np.clip(
            data["y"] - 0.08 * (np.array(data["group"]) == "Arab"), 0.01, 0.99
        ),  # the sign flips
        "conveys": np.clip(data["y"] * 0.9, 0.01, 0.99),
    }
    masses = {name: np.full(len(data["y"]), 0.1 * (k + 1)) for k, name in enumerate(reworded)}
    data["prompts"] = {
        name: SimpleNamespace(value=y, numeral_mass=masses[name]) for name, y in reworded.items()
    }
    data["validity"] = {"n": len(data["y"]), "numeral_mass_mean": 0.1}
    records = unit_records(data)
    group_ame = next(r for r in records if r["term"] == "group_ame")
    fits = {
        name: fit_intersectional(
            y, data["group"], data["gender"], "Anglo", "male", cov_type="cluster",
            clusters={"template_id": data["template_id"]},
        )
        for name, y in reworded.items()
    }  # fmt: skip
    estimates = {name: fit.effect("group_ame").estimate for name, fit in fits.items()}
    assert group_ame["stability_prompt_estimates"] == pytest.approx(estimates, abs=1e-10)
    assert estimates["rate"] < 0 < estimates["default"]
    assert group_ame["stability_prompt_sign"] == pytest.approx(2 / 3)
    assert group_ame["stability_prompt_variance"] == pytest.approx(
        np.var(list(estimates.values()), ddof=1)
    )
    significant = fits["default"].effect("group_ame").p_value <= 0.05
    kept = [
        (fits[n].effect("group_ame").p_value <= 0.05) == significant and estimates[n] > 0
        for n in ("expert", "rate", "conveys")
    ]
    assert group_ame["stability_prompt_verdict"] == pytest.approx(np.mean(kept))
    (validity,) = [r for r in records if r["metric"] == "numeral_mass"]
    assert validity["prompt_numeral_mass"] == pytest.approx(
        {name: m[0] for name, m in masses.items()}
    )

    results = annotated(records, models=("judge",))
    row = effect(results, "judge")
    assert row["fragile"] == (row["p_value"] <= 0.05)  # a flip in 1 of 3 prompts is 33 % >= 20 %
    assert (
        "prompts 67%"
        in SECTION.findings_columns(results.loc[[row.name]])["stability (sign/verdict kept)"].iloc[
            0
        ]
    )
    table = stability_table(results, "en_arab_anglo", report_sections())
    assert table["prompt spread"].str.endswith("over 4 prompts").any()


def test_the_stability_option_is_checked_and_zero_turns_it_off():
    from eval_harness.errors import ConfigError

    for bad in (-1, True, 10**6):
        with pytest.raises(ConfigError, match="stability_resamples"):
            SUITE.validate_options({**SUITE.options, "stability_resamples": bad})
    records = unit_records(planted("null"), stability_resamples=0)
    assert not any(key.startswith("stability_") for r in records for key in r)
    assert SUITE.options["cov_type"] == "cluster"  # the default that does not overstate


def test_the_demo_shows_stability_and_a_judges_prompt_spread_and_the_paper_keeps_model_based_errors():  # noqa: E501
    """The demo's EEC keeps the stability resamples and the prompt spread on, with a zero-shot judge
    (its English prompt has paraphrases to spread over); the paper's config reports model-based
    standard errors."""
    from pathlib import Path

    from eval_harness.models.prompt_judge import judge_prompts
    from eval_harness.runner import load_config

    root = Path(__file__).resolve().parents[3] / "configs"
    demo = load_config(root / "demo.yaml")
    (eec,) = [suite for suite in demo.suites if suite.name == "eec"]
    assert eec.options["stability_resamples"] > 0 and eec.options["prompt_spread"]
    assert eec.options["cov_type"] == "cluster"
    judges = [
        model for model in demo.models if "judge" in model.capabilities and "en" in model.languages
    ]
    assert judges and len(judge_prompts()["en"]["paraphrases"]) >= 3
    (paper,) = [
        suite for suite in load_config(root / "camara2022.yaml").suites if suite.name == "eec"
    ]
    assert paper.options["cov_type"] == "model"
