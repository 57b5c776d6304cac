"""``xbias compare`` where a model cannot see names: a model that scores two groups alike within
every template has a zero clustered standard error on its own group effects, but the difference B −
A has its own, and is tested on it.

- Two SVM-tfidf variants (unigram and 1-2-gram, ``min_df: 1``, 300 training tweets each) on
  en_arab_anglo: every emotion is reported, and every tested difference's standard error equals a
  direct computation (the joint Beta regression fitted by statsmodels, its CR1 sandwich by template,
  the delta method on the cell means).
- A model blind to the names against one that sees them: each difference is tested, and its note
  names the blind side.
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from helpers.betareg_reference import cr1_sandwich, treatment_columns
from scipy.special import expit
from statsmodels.othermod.betareg import BetaModel

from eval_harness.cli import main
from eval_harness.compare.contrasts import eec_differences
from eval_harness.compare.pairing import Side, UnitPair, paired_sentences, sides, unit_pairs

EMOTIONS = ["anger", "fear", "joy", "sadness"]
LEVELS = {"group": ("Anglo", "Arab"), "gender": ("male", "female"), "model": ("A", "B")}


def squeezed(y: np.ndarray) -> np.ndarray:
    """Smithson & Verkuilen's (2006) squeeze of every score when any is exactly 0 or 1."""
    return (y * (len(y) - 1) + 0.5) / len(y) if ((y == 0) | (y == 1)).any() else y


def direct_std_errs(rows: pd.DataFrame) -> dict[str, float]:
    """Each B − A difference's template-clustered standard error, computed here: statsmodels' Beta
    regression of both models' scores on the saturated group x gender x model mean (precision by
    model), its CR1 sandwich of the per-row scores by template, and the delta method on the
    difference's cell weights."""
    rows = rows[rows["group"].notna()]
    both = pd.concat(
        [rows.assign(model="A", y=rows["score_a"]), rows.assign(model="B", y=rows["score_b"])]
    )
    index = {
        name: both[name].map({level: k for k, level in enumerate(LEVELS[name])}).to_numpy()
        for name in LEVELS
    }
    X, _ = treatment_columns(index, LEVELS, 3)
    model = BetaModel(
        squeezed(both["y"].to_numpy(float)),
        X,
        exog_precision=np.column_stack([np.ones(len(X)), index["model"]]),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        params = np.asarray(model.fit(method="newton", maxiter=200, tol=1e-12, disp=False).params)
    covariance = cr1_sandwich(
        model.score_obs(params), model.hessian(params, observed=True), both["template_id"]
    )
    beta, cov = params[: X.shape[1]], covariance[: X.shape[1], : X.shape[1]]
    # The 8 cells in (model, group, gender) order: their design rows, means and the means'
    # gradients.
    cells = np.array([[m, g, s] for m in (0, 1) for g in (0, 1) for s in (0, 1)])
    x, _ = treatment_columns(
        {"group": cells[:, 1], "gender": cells[:, 2], "model": cells[:, 0]}, LEVELS, 3
    )
    mu = expit(x @ beta)
    jacobian = (mu * (1 - mu))[:, None] * x
    female, arab = (
        np.mean(index["gender"][index["model"] == 0]),
        np.mean(index["group"][index["model"] == 0]),
    )
    # Within one model, over its cells (Anglo male, Anglo female, Arab male, Arab female):
    group_male, group_female = np.array([-1, 0, 1, 0]), np.array([0, -1, 0, 1])
    gender_anglo, gender_arab = np.array([-1, 1, 0, 0]), np.array([0, 0, -1, 1])
    within = {
        "group[Arab]|gender=male": group_male,
        "group[Arab]|gender=female": group_female,
        "gender[female]|group=Anglo": gender_anglo,
        "gender[female]|group=Arab": gender_arab,
        "group[Arab]|average": (1 - female) * group_male + female * group_female,
        "gender[female]|average": (1 - arab) * gender_anglo + arab * gender_arab,
        "group[Arab]:gender[female]": group_female - group_male,
    }
    std_errs = {}
    for name, weights in within.items():
        gradient = np.concatenate([-weights, weights]) @ jacobian  # B minus A
        std_errs[name] = float(
            np.sqrt(max(gradient @ cov @ gradient, 0.0))
        )  # 0 at rounding level: untested
    return std_errs


@pytest.mark.slow
def test_two_svm_tfidf_variants_compare_every_emotion_on_the_differences_own_standard_errors(
    tmp_path,
):
    models = [
        {
            "name": name,
            "type": "svm_tfidf",
            "options": {"ngram_range": grams, "min_df": 1, "max_train": 300},
        }
        for name, grams in (("unigram", [1, 1]), ("bigram", [1, 2]))
    ]
    suite = {
        "languages": ["en"],
        "emotions": EMOTIONS,
        "configs": ["en_arab_anglo"],
        "stability_resamples": 0,
    }
    config = tmp_path / "svm.yaml"
    config.write_text(yaml.safe_dump({"seeds": [0], "models": models, "suites": {"eec": suite}}))
    run = tmp_path / "run"
    assert main(["run", "--config", str(config), "--out", str(run), "--no-progress", "-q"]) == 0
    out = tmp_path / "comparison"
    assert (
        main(
            [
                "compare",
                str(run),
                "--model-a",
                "unigram",
                "--model-b",
                "bigram",
                "--out",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    table = pd.read_csv(out / "comparison.csv")
    tested = table[table["p_value"].notna()]
    assert set(tested["emotion"]) == set(
        EMOTIONS
    )  # before: an emotion with a blind side was skipped whole
    untested = table[table["p_value"].isna()]
    assert len(untested) > 0 and untested["note"].str.contains("has a standard error of 0").all()
    assert (tested["std_err"] > 0).all() and len(tested) + len(untested) == 7 * len(EMOTIONS)
    a, b = sides(run, None, "unigram", "bigram")
    for pair in unit_pairs(a, b):
        expected = direct_std_errs(paired_sentences(pair, a, b))
        rows = tested[tested["emotion"] == pair.key["emotion"]]
        for term, std_err in zip(rows["term"], rows["std_err"], strict=True):
            assert std_err == pytest.approx(expected[term], rel=1e-7), (pair.key["emotion"], term)


def test_a_blind_side_is_named_and_the_difference_is_tested_on_its_own_standard_error():
    """A scores by template and gender only (names it does not know); B adds a group shift that
    varies by
    template: A's own group effects have a standard error of 0, every difference is tested, its note
    names A."""
    rng = np.random.default_rng(47)
    rows = pd.DataFrame(
        [
            (t, group, gender, f"{group}-{gender}-{i}")
            for t in range(7)
            for group in ("Anglo", "Arab")
            for gender in ("male", "female")
            for i in range(4)
        ],
        columns=["template_id", "group", "gender", "person"],
    )
    template = rng.uniform(0.3, 0.5, 7)[rows["template_id"]]
    female, arab = (rows["gender"] == "female").to_numpy(), (rows["group"] == "Arab").to_numpy()
    rows["score_a"] = template + 0.04 * female
    rows["score_b"] = (
        rows["score_a"]
        + arab * rng.normal(0.02, 0.01, 7)[rows["template_id"]]
        + rng.normal(0, 0.005, len(rows))
    )
    key = dict(
        suite="eec",
        language="en",
        dataset="eec",
        config="en_arab_anglo",
        emotion="anger",
        test=None,
        seed=0,
    )
    levels = {"group_levels": ["Anglo", "Arab"], "gender_levels": ["male", "female"]}
    pair = UnitPair(key, "unit-a", "unit-b", (levels,))
    a, b = Side(Path("a"), "blind", "blind"), Side(Path("b"), "sighted", "sighted")
    records = eec_differences(pair, a, b, rows)
    assert len(records) == 7 and all(r["p_value"] is not None and r["std_err"] > 0 for r in records)
    expected = direct_std_errs(rows)
    for record in records:
        assert record["std_err"] == pytest.approx(expected[record["term"]], rel=1e-7), record[
            "term"
        ]
        blind = record["reference_std_err"] == 0
        assert blind == (record["effect_term"] != "gender"), record[
            "term"
        ]  # A's gender effects vary by template
        said = "blind's own" in (record["note"] or "")
        assert said == blind and "sighted's own" not in (record["note"] or "")
