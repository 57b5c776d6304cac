"""``xbias compare`` end to end: two test models of one run (B's scores of sentences about Arabs
0.05 higher, for anger only) through ``xbias run`` and ``xbias compare``: the difference is found
there and nowhere else, each model's effect in the joint fit equals that model's own eec unit, the
files are written into a folder of their own and the run is left as it was; runs of other sentences
are refused with one line and exit 2; WEAT differences from two models' word samples, checked
against the effect sizes written out."""

import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from helpers.planted_model import planted_model, register_planted

from eval_harness.cli import main
from eval_harness.compare import RunsDiffer, compare_runs
from eval_harness.compare.contrasts import eec_differences, paired_samples
from eval_harness.compare.pairing import sides, unit_pairs
from eval_harness.contract import Unit
from eval_harness.contract.samples import samples_bytes, samples_entry
from eval_harness.contract.unit_file import unit_payload
from eval_harness.io import atomic_write_bytes, atomic_write_json
from eval_harness.stats.power import minimum_detectable_effect
from eval_harness.suites import get_suite

PLANTED = {
    ("en_arab_anglo", "anger", t) for t in ("group[Arab]|gender=male", "group[Arab]|gender=female")
} | {("en_arab_anglo", "anger", "group[Arab]|average")}
SUITE = {
    "languages": ["en"],
    "emotions": ["anger", "joy"],
    "configs": ["en_arab_anglo", "en_latino_anglo"],
}


def run(folder: Path, models: list[dict], suite: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / f"{folder.name}.yaml"
    config.write_text(yaml.safe_dump({"seeds": [0], "models": models, "suites": {"eec": suite}}))
    remove = register_planted()
    try:
        assert (
            main(
                [
                    "run",
                    "--config",
                    str(config),
                    "--out",
                    str(folder / "run"),
                    "--no-progress",
                    "-q",
                ]
            )
            == 0
        )
    finally:
        remove()
    return folder / "run"


def digests(folder: Path) -> dict:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    """Pilots (noise seeds 1-2 and 3-4): Holm over the 28 differences kept exactly the three planted
    ones."""
    base = planted_model("base", noise_seed=1)
    tuned = planted_model(
        "tuned", noise_seed=2, shift=0.05, shift_language="en", shift_emotions=["anger"]
    )
    folder = run(tmp_path_factory.mktemp("two_models"), [base, tuned], SUITE)
    before = digests(folder)
    out = folder.parent / "comparison"
    command = [
        "compare",
        str(folder),
        "--model-a",
        "base",
        "--model-b",
        "tuned",
        "--out",
        str(out),
        "-q",
    ]
    assert main(command) == 0
    return folder, out, before


def test_the_planted_difference_is_found_where_it_is_and_nowhere_else(two_models):
    _, out, _ = two_models
    results = pd.read_csv(out / "comparison.csv")
    assert set(results["metric"]) == {"model_difference"} and len(results) == 2 * 2 * 7
    survivors = results[results["survives_holm"]]
    assert (
        set(zip(survivors["config"], survivors["emotion"], survivors["term"], strict=True))
        == PLANTED
    )
    assert np.allclose(survivors["value"], 0.05, atol=0.01)
    others = results[~results["survives_holm"]]
    assert (others["p_value"] > 0.01).all(), others.sort_values("p_value").head(3)
    assert (results["mde"] > 0).all() and (results["cluster_by"] == '["template_id"]').all()
    assert (results["n_clusters"] == "[7]").all() and (results["model_a"] == "base").all()


def test_each_side_of_the_joint_fit_is_that_models_own_eec_fit(two_models):
    """The joint fit gives each model its own mean and precision, so its effect within a model is
    that model's own Beta regression (the eec suite's fit, another code path) up to the optimiser's
    tolerance."""
    folder, out, _ = two_models
    results = pd.read_csv(out / "comparison.csv").set_index(["config", "emotion", "term"])
    own = pd.read_json(folder / "results.jsonl", lines=True)
    for model, column in (("base", "reference_estimate"), ("tuned", "other_estimate")):
        for config in SUITE["configs"]:
            group = own[
                (own["model"] == model) & (own["config"] == config) & (own["emotion"] == "joy")
            ]
            ame = group.loc[group["term"] == "group_ame", "value"].item()
            minority = "Arab" if config == "en_arab_anglo" else "Latino"
            assert results.loc[
                (config, "joy", f"group[{minority}]|average"), column
            ] == pytest.approx(ame, abs=1e-6)


def test_the_output_has_a_table_sentences_a_plot_and_the_run_is_unchanged(two_models):
    folder, out, before = two_models
    assert digests(folder) == before
    text = (out / "comparison.md").read_text()
    assert "angrier under model B (tuned) than under model A (base)" in text
    assert text.count("✓ |") == 3 and "| en_latino_anglo joy | Latino vs Anglo, averaged |" in text
    assert "25 other EEC effect differences are not significant after Holm" in text
    assert (out / "eec_differences.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "](./eec_differences.png)" in text


def test_runs_of_other_sentences_are_refused_with_one_line(two_models, tmp_path, capsys):
    folder, _, _ = two_models
    sampled = dict(SUITE, configs=["en_arab_anglo"], emotions=["anger"], sample=2)
    other = run(tmp_path / "sampled", [planted_model("base", noise_seed=1)], sampled)
    capsys.readouterr()
    assert (
        main(
            ["compare", str(folder), str(other), "--model-a", "tuned", "--out", str(tmp_path / "c")]
        )
        == 2
    )
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1, error
    assert (
        "eec en_arab_anglo anger (en, seed 0): tuned and base scored different sentences" in error
    )
    assert "another sample or another EEC version" in error
    assert not (tmp_path / "c").exists()


def test_bad_choices_are_one_line_errors(two_models, tmp_path, capsys):
    folder, _, _ = two_models
    for command, message in (
        (
            ["compare", str(folder), "--model-a", "tuned", "--model-b", "tuned"],
            "both sides are model 'tuned'",
        ),
        (
            ["compare", str(folder), "--model-a", "base", "--model-b", "nope"],
            "has no model 'nope' with samples",
        ),
        (
            [
                "compare",
                str(folder),
                "--model-a",
                "base",
                "--model-b",
                "tuned",
                "--out",
                str(folder / "x"),
            ],
            "inside",
        ),
        (["compare", str(tmp_path)], "is not a run folder"),
        (
            [
                "compare",
                str(folder),
                "--model-a",
                "base",
                "--model-b",
                "tuned",
                "--cluster-by",
                "row",
            ],
            "cluster_by",
        ),
    ):
        assert main(command) == 2, command
        error = capsys.readouterr().err.strip()
        assert len(error.splitlines()) == 1 and message in error, error


def write_weat_unit(folder: Path, model: str, test: str, targets: dict, words: dict) -> None:
    """One xweat unit's file and samples, as the harness writes them: X/Y with associations, A/B
    without."""
    unit = Unit(model=model, suite="xweat", language="en", dataset="xweat", test=test)
    values = {role: targets.get(role, [None] * len(words[role])) for role in "XYAB"}
    rows = [
        (role, word, value)
        for role in "XYAB"
        for word, value in zip(words[role], values[role], strict=True)
    ]
    columns = {
        "test": [test] * len(rows),
        "language": ["en"] * len(rows),
        "role": [role for role, _, _ in rows],
        "set_name": [role for role, _, _ in rows],
        "word_language": ["en"] * len(rows),
        "word": [word for _, word, _ in rows],
        "found": [value is not None or role in "AB" for role, _, value in rows],
        "association": [value for _, _, value in rows],
        "similarity": ["cosine"] * len(rows),
    }
    table = get_suite("xweat").samples.table(unit, columns)
    data = samples_bytes(table)
    entry = samples_entry(unit.id, data, table)
    atomic_write_bytes(folder / "units" / entry["file"], data)
    record = {
        **unit.fields(),
        "metric": "effect_size",
        "term": None,
        "value": 0.0,
        "std_err": None,
        "p_value": None,
    }
    payload = unit_payload(unit.id, unit.fields(), "hash", [record], 0.1, samples=entry)
    atomic_write_json(folder / "units" / f"{unit.id}.json", payload)


def d(s_x, s_y):
    pooled = np.concatenate([s_x, s_y])
    return (np.mean(s_x) - np.mean(s_y)) / np.sqrt(np.mean((pooled - pooled.mean()) ** 2))


def test_weat_differences_from_two_models_word_samples(tmp_path):
    """Model B misses one word of X (that word leaves both sides); the difference is d_B - d_A over
    the words both found, its p-value exact over the 2^(5 + 5) sign flips; another word list is
    refused."""
    rng = np.random.default_rng(4)
    words = {"X": list("abcdef"), "Y": list("ghijk"), "A": ["p", "q"], "B": ["r", "s"]}
    a = {"X": list(rng.normal(0.1, 0.1, 6)), "Y": list(rng.normal(0, 0.1, 5))}
    b = {"X": [None, *rng.normal(0.3, 0.1, 5)], "Y": list(rng.normal(0, 0.1, 5))}
    write_weat_unit(tmp_path / "run", "m1", "T1", a, words)
    write_weat_unit(tmp_path / "run", "m2", "T1", b, words)
    files = compare_runs(
        tmp_path / "run", model_a="m1", model_b="m2", out=tmp_path / "out", n_bootstrap=500
    )
    (row,) = files.results.to_dict("records")
    expected = d(np.array(b["X"][1:]), np.array(b["Y"])) - d(np.array(a["X"][1:]), np.array(a["Y"]))
    assert row["value"] == pytest.approx(expected, abs=1e-12) and (row["n_x"], row["n_y"]) == (5, 5)
    assert row["p_method"] == "exact" and row["ci_low"] < row["value"] < row["ci_high"]
    assert files.weat_figure is not None and "WEAT T1" in files.markdown.read_text()
    write_weat_unit(tmp_path / "other", "m2", "T1", b, dict(words, A=["p", "z"]))
    with pytest.raises(
        RunsDiffer,
        match=r"xweat T1 \(en, seed 0\): m1 and m2 used other words in A .*another word list",
    ):
        compare_runs(tmp_path / "run", tmp_path / "other", model_a="m1", out=tmp_path / "out2")


def test_clustering_by_sentence_pairs_each_sentences_two_scores(two_models, tmp_path):
    """Each sentence is one cluster holding its score under A and under B: as many clusters as
    sentences fitted."""
    folder, _, _ = two_models
    files = compare_runs(
        folder, model_a="base", model_b="tuned", out=tmp_path / "c", cluster_by=["sentence"]
    )
    results = files.results
    assert results["cluster_by"].map(lambda names: names == ["sentence"]).all()
    assert (results["n_clusters"].map(lambda n: n[0]) == results["n"] // 2).all()
    assert (results["n_sentences"] == results["n"] // 2).all() and (results["n"] > 1000).all()


def test_two_way_standard_errors_do_not_depend_on_which_model_is_a(two_models, tmp_path):
    """``xbias compare A B`` against ``B A`` with two-way clusters: every difference flips its sign
    and keeps its standard error to 1e-10 (clipping the eigenvalues of V_1 + V_2 - V_12 changed them
    by up to 23 %); a one-way variance that stood in for a two-way one is named in the record's
    note."""
    folder, _, _ = two_models
    both = ["template_id", "person"]
    forward, backward = (
        compare_runs(
            folder, model_a=a, model_b=b, out=tmp_path / a, cluster_by=both
        ).results.set_index(["config", "emotion", "term"])
        for a, b in (("base", "tuned"), ("tuned", "base"))
    )
    backward = backward.loc[forward.index]
    assert len(forward) == 28 and forward["std_err"].gt(0).all()
    np.testing.assert_allclose(backward["value"], -forward["value"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(backward["std_err"], forward["std_err"], rtol=0, atol=1e-10)
    noted = forward["note"].dropna()
    assert len(noted) > 0 and noted.str.contains("the larger one-way variance stands in").all()


def test_several_seeds_give_one_pooled_difference_per_effect(tmp_path):
    """Two seeds of two models whose scores move with the seed: the comparison shows each effect
    once, pooled by Rubin's rules (checked here by hand from each seed's own joint fit), with the
    pooled test's MDE and the seeds named in the Markdown."""
    suite = {"languages": ["en"], "emotions": ["anger"], "configs": ["en_arab_anglo"]}
    models = [
        planted_model(name, noise_seed=seed, training_noise=0.3)
        for name, seed in (("base", 1), ("tuned", 2))
    ]
    config = tmp_path / "seeds.yaml"
    config.write_text(yaml.safe_dump({"seeds": [0, 1], "models": models, "suites": {"eec": suite}}))
    remove = register_planted()
    try:
        assert (
            main(
                [
                    "run",
                    "--config",
                    str(config),
                    "--out",
                    str(tmp_path / "run"),
                    "--no-progress",
                    "-q",
                ]
            )
            == 0
        )
    finally:
        remove()
    out = tmp_path / "comparison"
    assert (
        main(
            [
                "compare",
                str(tmp_path / "run"),
                "--model-a",
                "base",
                "--model-b",
                "tuned",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    table = pd.read_csv(out / "comparison.csv")
    assert not table.duplicated(["config", "emotion", "term"]).any()
    assert set(table["pooling"]) == {"seed_mean"} and set(table["n_seeds"]) == {2}
    a, b = sides(tmp_path / "run", None, "base", "tuned")
    per_seed = [
        next(
            r
            for r in eec_differences(pair, a, b, paired_samples(pair, a, b))
            if r["term"] == "group[Arab]|average"
        )
        for pair in unit_pairs(a, b)
    ]
    assert [r["seed"] for r in per_seed] == [0, 1] and per_seed[0]["value"] != per_seed[1]["value"]
    values, std_errs = [r["value"] for r in per_seed], [r["std_err"] for r in per_seed]
    total = (
        np.mean(np.square(std_errs)) + np.var(values, ddof=1) / 2
    )  # the mean over 2 seeds: W + B/m
    row = table.set_index("term").loc["group[Arab]|average"]
    assert row["value"] == pytest.approx(np.mean(values), rel=1e-12)
    assert row["std_err"] == pytest.approx(np.sqrt(total), rel=1e-12)
    assert row["reference_estimate"] == pytest.approx(
        np.mean([r["reference_estimate"] for r in per_seed])
    )
    assert row["mde"] == pytest.approx(
        minimum_detectable_effect(row["std_err"], row["df"]), rel=1e-12
    )
    assert (
        "Seeds 0, 1: each number is the mean over the seeds' trained heads"
        in (out / "comparison.md").read_text()
    )


def test_an_mde_wider_than_the_intensity_scale_is_said_so():
    """A difference whose test has few degrees of freedom can have an MDE above 1, larger than any
    difference of mean intensities on the 0-1 scale: the sentence counts them as no measurement,
    says what would fix it, and quotes only the MDEs that are sizes the scale allows; the table
    shows "> scale" for them."""
    from eval_harness.compare.contrasts import EEC_METRIC
    from eval_harness.compare.output import _interval_cell, _mde_cell, comparison_table, sentences
    from eval_harness.compare.pairing import Side

    rows = [
        {
            "metric": EEC_METRIC,
            "value": 0.01,
            "p_value": 0.6,
            "mde": mde,
            "config": "c",
            "emotion": "anger",
        }
        for mde in (0.08, 1.4, 20.3)
    ]
    a, b = Side(Path("a"), "m1", "m1"), Side(Path("b"), "m2", "m2")
    (line,) = sentences(comparison_table(rows), a, b)
    assert "differences of 0.08 to 0.08" in line and "20.3" not in line and "1.4" not in line
    assert (
        "2 of them are no measurement: their MDE is larger than the whole 0-1 intensity scale"
        in line
    )
    assert "what would fix it: more templates or names" in line
    cells = [
        (_mde_cell(pd.Series(row)), _interval_cell(pd.Series({**row, "ci_low": -5, "ci_high": 5})))
        for row in rows
    ]
    assert cells == [("0.08", "wider than the scale"), ("> scale", "wider than the scale")] + [
        cells[2]
    ]
    assert cells[2] == ("> scale", "wider than the scale")


def test_an_equivalence_margin_tests_each_difference_on_its_own_standard_error(
    two_models, tmp_path
):
    """--equivalence-margin 0.02: each EEC difference's TOST p is the larger of scipy's two
    one-sided t tails of its own value, standard error and df; no planted difference (0.05) is
    called within ±0.02; the text counts them."""
    from scipy import stats

    folder, _, _ = two_models
    out = tmp_path / "equivalence"
    command = [
        "compare",
        str(folder),
        "--model-a",
        "base",
        "--model-b",
        "tuned",
        "--out",
        str(out),
        "-q",
    ]
    assert main([*command, "--equivalence-margin", "0.02"]) == 0
    results = pd.read_csv(out / "comparison.csv")
    assert (results["statistic_kind"] == "t").all()
    lower = stats.t.sf((results["value"] + 0.02) / results["std_err"], results["df"])
    upper = stats.t.cdf((results["value"] - 0.02) / results["std_err"], results["df"])
    assert np.allclose(results["tost_p_value"], np.maximum(lower, upper), rtol=1e-9)
    assert ((results["tost_p_value"] <= 0.05) == (results["equivalence"] == "within")).all()
    planted = [
        (c, e, t) in PLANTED
        for c, e, t in zip(results["config"], results["emotion"], results["term"], strict=True)
    ]
    assert (results.loc[planted, "equivalence"] != "within").all()
    text = (out / "comparison.md").read_text()
    assert (
        "Equivalence within ±0.02 (two one-sided tests at 0.05" in text
        and "| ±δ (TOST p) |" in text
    )
    assert main([*command[:-1], "--equivalence-margin", "-1", "-q"]) == 2


def test_xbias_power_gives_each_effects_planner_line_from_the_run(two_models, capsys):
    """`xbias power RUN --target 0.02` on the two models' run: one line per model x EEC x emotion x
    effect, each with the MDE now and the design that reaches 0.02, each with its 80 % interval; a
    target that is no size is one line and exit 2."""
    folder, _, _ = two_models
    capsys.readouterr()
    assert main(["power", str(folder), "--target", "0.02"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"\d+ of \d+ effects reach an MDE of 0\.02 now", out)  # the answer first
    lines = [line for line in out.splitlines() if line.startswith("| en_")]
    assert len(lines) == 2 * 2 * 2 * 7
    plans = [
        re.search(
            r"MDE ([0-9.e-]+) \(([0-9.e-]+)-([0-9.e-]+)\) now(; 0\.02 needs (about "
            r"\d+ templates? \(\d+-\d+\)|cannot tell from this run how many "
            r"templates|a larger design)|: 0\.02 is reached with this run's design)",
            line,
        )
        for line in lines
    ]
    assert all(plans), lines
    # each prediction with its 80 % interval around it (rounded to 2 significant digits)
    assert all(float(p[2]) <= float(p[1]) <= float(p[3]) for p in plans)
    assert main(["power", str(folder), "--target", "-1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
