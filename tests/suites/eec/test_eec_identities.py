"""Any identity design through the eec suite: the shipped 3 groups x 3 genders config runs end to
end through ``xbias run`` and ``xbias report`` on a tiny model, with factorial records whose numbers
a refit from the unit's samples reproduces (to 1e-10); a generated corpus with a third factor (age)
likewise; a 2 x 2 EEC keeps the paper's records; and a bad ``generated`` spec is refused before
anything runs."""

import json

import pytest
import yaml
from helpers.tiny_models import build_tiny_bert

from eval_harness.cli import main
from eval_harness.contract.samples import read_samples, samples_units
from eval_harness.errors import ConfigError
from eval_harness.runner import parse_config, run_sweep
from eval_harness.shipped import configs_dir
from eval_harness.stats.factorial import fit_factorial

CONFIG = "identities_3x3"
CORPUS = "en_identities_3x3"
TOLERANCE = 1e-10


def shipped_config():
    return yaml.safe_load((configs_dir() / f"{CONFIG}.yaml").read_text())


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    folder = build_tiny_bert(tmp_path_factory.mktemp("bert") / "bert")
    return {"name": "tiny", "path": str(folder), "type": "encoder",
            "options": {"pooling": "mean", "max_train": 200}}  # fmt: skip


@pytest.fixture(scope="module")
def identities_run(tiny_model, tmp_path_factory):
    """The shipped config on the tiny model (anger only), plus a 2 x 2 EEC beside the generated
    corpus; through the CLI, as the config's comment says."""
    config = shipped_config()
    config["models"] = [tiny_model]
    config["suites"]["eec"] |= {
        "emotions": ["anger"],
        "configs": [CORPUS, "en_black_white"],
        "sample": 2,
    }
    folder = tmp_path_factory.mktemp("identities")
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["run", "-q", "--config", str(path), "--out", str(folder / "run")]) == 0
    assert main(["report", "-q", str(folder / "run"), "--format", "md,html"]) == 0
    return folder / "run"


def records(folder, config=None):
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return [row for row in rows if config is None or row["config"] == config]


def check_refit(folder, unit_id, references, factors, order=None):
    """The unit's coefficients, effects and clustered tests equal a refit of fit_factorial on its
    samples."""
    frame = read_samples(folder, unit_id)
    labels = {factor: frame[factor].tolist() for factor in ("group", "gender") if factor in factors}
    if "other_factors" in frame and frame["other_factors"].notna().any():
        others = [json.loads(text) for text in frame["other_factors"]]
        labels |= {
            factor: [row[factor] for row in others] for factor in factors if factor not in labels
        }
    labels = {factor: labels[factor] for factor in factors}
    refit = fit_factorial(frame["score"], labels, references, order)
    clustered = fit_factorial(
        frame["score"],
        labels,
        references,
        order,
        cov_type="cluster",
        clusters={"template_id": frame["template_id"]},
    )
    written = {
        (r["metric"], r["term"]): r
        for r in json.loads((folder / "units" / f"{unit_id}.json").read_text())["records"]
    }
    # the reported standard errors are the ones the unit's fit used (the suite's default:
    # template-clustered)
    (cov_type,) = {r["cov_type"] for r in written.values() if r["metric"] == "estimate"}
    reported = clustered if cov_type == "cluster" else refit
    for coefficient in refit.coefficients:
        record = written["estimate", coefficient.name]
        assert abs(record["value"] - coefficient.estimate) <= TOLERANCE
        assert abs(record["std_err"] - reported.coefficient(coefficient.name).std_err) <= TOLERANCE
        assert (
            abs(record["clustered_std_err"] - clustered.coefficient(coefficient.name).std_err)
            <= TOLERANCE
        )
    for effect in refit.effects:
        record = written["effect", effect.name]
        assert abs(record["value"] - effect.estimate) <= TOLERANCE
        assert abs(record["std_err"] - reported.effect(effect.name).std_err) <= TOLERANCE
        assert abs(record["clustered_p_value"] - clustered.effect(effect.name).p_value) <= TOLERANCE
    return refit


def test_the_three_by_three_corpus_gets_the_factorial_fit_and_its_samples_refit_it(identities_run):
    written = records(identities_run, CORPUS)
    estimates = [r for r in written if r["metric"] == "estimate"]
    assert [r["term"] for r in estimates] == [
        "intercept",
        "group[Arab]",
        "group[Latino]",
        "gender[female]",
        "gender[non-binary]",
        "group[Arab]:gender[female]",
        "group[Arab]:gender[non-binary]",
        "group[Latino]:gender[female]",
        "group[Latino]:gender[non-binary]",
    ]
    first = estimates[1]
    assert first["factor_levels"] == {
        "group": ["Anglo", "Arab", "Latino"],
        "gender": ["male", "female", "non-binary"],
    }
    assert first["group_levels"] == ["Anglo", "Arab", "Latino"] and first["order"] == 2
    interactions = [r for r in estimates if r["model_term"] == "group:gender"]
    assert len(interactions) == 4 and all(
        r["lr_df"] == 4 and 0 <= r["lr_p_value"] <= 1 for r in interactions
    )
    effects = [r for r in written if r["metric"] == "effect"]
    kinds = [r["kind"] for r in effects]
    # conditional: 2 groups x 3 genders + 2 genders x 3 groups; AMEs: 2 + 2; interaction contrasts:
    # 2 x 2
    assert (kinds.count("conditional"), kinds.count("average"), kinds.count("interaction")) == (
        12,
        4,
        4,
    )
    assert {r["term"]: r["given"] for r in effects}["group[Arab]|gender=non-binary"] == {
        "gender": "non-binary"
    }
    cells = [r for r in written if r["metric"] == "cell_mean"]
    assert len(cells) == 9 and {r["n"] for r in cells} == {
        5 * 2
    }  # 5 emotional templates x sample 2
    refit = check_refit(
        identities_run,
        f"tiny__eec__en__eec__{CORPUS}__anger__seed0",
        {"group": "Anglo", "gender": "male"},
        ("group", "gender"),
    )
    assert (
        refit.n == 90 and refit.n_excluded == 5 * 3 * 2
    )  # the noun phrases, sampled like the names


def test_a_two_by_two_eec_beside_it_keeps_the_papers_records(identities_run):
    written = records(identities_run, "en_black_white")
    estimates = [r["term"] for r in written if r["metric"] == "estimate"]
    assert estimates == ["intercept", "group", "gender", "group:gender"]
    assert not any("factor_levels" in r or "model_term" in r for r in written)
    effects = [r["term"] for r in written if r["metric"] == "effect"]
    assert effects[0] == "group_within_reference_gender" and len(effects) == 7


def test_every_eec_unit_of_the_run_has_samples(identities_run):
    units = [json.loads(path.read_text()) for path in (identities_run / "units").glob("*.json")]
    eec_units = {payload["id"] for payload in units if payload["unit"]["dataset"] == "eec"}
    assert len(eec_units) == 2 and set(samples_units(identities_run)) == eec_units
    frame = read_samples(identities_run, f"tiny__eec__en__eec__{CORPUS}__anger__seed0")
    assert (
        set(frame["gender"]) == {"male", "female", "non-binary"}
        and frame["other_factors"].isna().all()
    )
    assert (
        frame["sentence"].str.contains("their friends").any()
    )  # the non-binary variant of a gendered template


def test_the_report_shows_the_k_level_design_in_its_words(identities_run):
    text = (
        identities_run / "report" / "tables.md"
    ).read_text()  # the full tables page: each method's section
    start = text.index(f"### {CORPUS}")
    section = text[
        start : text.index("\n## ", start)
    ]  # to the next section (the EECs are sorted by name)
    assert (
        f"{CORPUS} has 3 × 3 identity cells (group: Arab, "
        "Latino against Anglo; gender: female, non-binary" in text
    )
    for header in (
        "Arab vs Anglo, among men",
        "non-binary people vs men, within Anglo",
        "Arab × non-binary people (interaction)",
    ):
        assert header in section
    assert "minority" not in section and "forest_" + CORPUS in section
    assert (identities_run / "report" / "figures" / f"forest_{CORPUS}.png").stat().st_size > 1000
    # the 2 x 2 EEC's section keeps the paper's wording
    assert "group is the minority-reference difference among men" in text


def test_a_corpus_with_a_third_factor_runs_and_refits(tiny_model, tmp_path):
    generated = shipped_config()["suites"]["eec"]["generated"][CORPUS]
    persons = [
        p | {"age": "young" if i % 2 else "old"} if p.get("group") else p
        for i, p in enumerate(generated["persons"])
    ]
    spec = generated | {"persons": persons, "factors": {"age": "young"}}
    suite = {
        "languages": ["en"],
        "emotions": ["anger"],
        "configs": ["aged"],
        "generated": {"aged": spec},
        "order": 2,
    }
    run_sweep(
        parse_config({"models": [tiny_model], "suites": {"eec": suite}}),
        tmp_path / "run",
        progress=False,
    )
    written = records(tmp_path / "run", "aged")
    estimate = next(r for r in written if r["metric"] == "estimate")
    assert list(estimate["factor_levels"]) == ["group", "gender", "age"] and estimate[
        "factor_levels"
    ]["age"] == [
        "young",
        "old",
    ]
    terms = {r["model_term"] for r in written if r["metric"] == "estimate"}
    assert terms == {
        "intercept",
        "group",
        "gender",
        "age",
        "group:gender",
        "group:age",
        "gender:age",
    }  # order 2
    refit = check_refit(
        tmp_path / "run",
        "tiny__eec__en__eec__aged__anger__seed0",
        {"group": "Anglo", "gender": "male", "age": "young"},
        ("group", "gender", "age"),
        order=2,
    )
    assert refit.order == 2


AL = {"term": "Al", "gender": "male", "group": "A"}
MINIMAL = {
    "language": "en",
    "reference_group": "A",
    "templates": ["{person} is {emotion_word}."],
    "persons": [AL],
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"generated": {"en_black_white": MINIMAL}}, "has the name of a shipped EEC config"),
        ({"generated": {"bad__name": MINIMAL}}, "a name is letters"),
        ({"generated": {"x": MINIMAL | {"language": "de"}}}, "language must be one the suite runs"),
        (
            {"generated": {"x": {k: v for k, v in MINIMAL.items() if k != "reference_group"}}},
            "needs reference_group",
        ),
        (
            {"generated": {"x": MINIMAL | {"templates": ["{person} is {emotion}."]}}},
            "unknown slot {emotion}",
        ),
        (
            {"generated": {"x": MINIMAL | {"factors": {"age": "young"}}}},
            "person 'Al' has a group but no age",
        ),
        ({"configs": ["nowhere"]}, "unknown EEC config"),
        ({"order": 0}, "order must be a whole number"),
    ],
)
def test_a_bad_generated_corpus_is_refused_when_the_config_is_read(change, message):
    suite = {"languages": ["en"]} | change
    with pytest.raises(ConfigError, match=message):
        parse_config({"models": [{"type": "svm_tfidf"}], "suites": {"eec": suite}})


def test_the_shipped_config_plans_the_generated_corpus_only():
    from eval_harness.runner import load_config, plan_units

    plan = plan_units(load_config(CONFIG))
    eec = {unit.config for unit in plan.units if unit.dataset == "eec"}
    assert (
        eec == {CORPUS} and len(plan.units) == 2 * 4 * 2
    )  # 2 models x 4 emotions x (regressor + corpus)
