"""The eec suite through the harness with a tiny encoder: records, resume without retraining, cache
corruption, and two accelerate CPU ranks against one process."""

import json
import warnings

import numpy as np
import pytest
from helpers import accelerate_ranks
from helpers.tiny_models import write_tiny_eec_config

from eval_harness.data import load_eec
from eval_harness.io import verify_checksums
from eval_harness.models import EmotionRegressor, ModelResources
from eval_harness.models.cache import EmbeddingCache, _decode
from eval_harness.runner import load_config, run_sweep
from eval_harness.stats.betareg import fit_intersectional


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    return write_tiny_eec_config(tmp_path_factory.mktemp("eec"))


def records(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def cache_files(folder):
    return {
        path: path.stat().st_mtime_ns for path in (folder / "cache").rglob("*") if path.is_file()
    }


def test_eec_records_resume_and_corrupted_caches(config_path, tmp_path):
    out = tmp_path / "run"
    summary = run_sweep(load_config(config_path), out, progress=False)
    assert (summary.planned, summary.computed) == (2, 2)
    first = records(out)
    quality = [r for r in first if r["metric"] == "pearson_r"]
    assert [r["split"] for r in quality] == ["validation", "test"] and quality[1]["n"] == 1002
    assert all(r["dataset"] == "semeval2018_affect" and r["config"] == "en" for r in quality)
    estimates = {r["term"]: r for r in first if r["metric"] == "estimate"}
    assert list(estimates) == ["intercept", "group", "gender", "group:gender"]
    intersection = estimates["group:gender"]
    # the anger sentences of the EEC with a name: 1,400 fitted, the 700 noun-phrase ones left out
    assert (intersection["n"], intersection["n_excluded"]) == (1400, 700)
    assert intersection["group_levels"] == ["European", "African-American"]
    assert intersection["gender_levels"] == ["male", "female"] and "lr_p_value" in intersection
    cells = {r["term"]: r["n"] for r in first if r["metric"] == "cell_mean"}
    assert cells == {
        f"{g}|{s}": 350 for g in ("European", "African-American") for s in ("male", "female")
    }

    # the same fit from the cached regressor's own predictions on those sentences (encoded in other
    # batches: float32 differences of ~1e-7 in the scores)
    (regressor_folder,) = (
        path for path in (out / "cache" / "regressors").iterdir() if not path.name.startswith(".")
    )
    regressor = EmotionRegressor.load(
        regressor_folder, ModelResources(EmbeddingCache(tmp_path / "other"))
    )
    anger = load_eec("en_black_white").filter(
        lambda emotion: emotion == "anger", input_columns="emotion"
    )
    direct = fit_intersectional(
        regressor.predict(anger["sentence"]),
        anger["group"],
        anger["gender"],
        reference_group="European",
        reference_gender="male",
    )
    # the reported test is the template-clustered one (the default), the model-based one rides
    # beside it
    clustered = fit_intersectional(
        regressor.predict(anger["sentence"]),
        anger["group"],
        anger["gender"],
        reference_group="European",
        reference_gender="male",
        cov_type="cluster",
        clusters={"template_id": anger["template_id"]},
    )
    for coefficient in direct.coefficients:
        record = estimates[coefficient.name]
        assert record["value"] == pytest.approx(coefficient.estimate, rel=1e-5, abs=1e-7)
        assert record["p_value"] == pytest.approx(
            clustered.coefficient(coefficient.name).p_value, rel=1e-4, abs=1e-9
        )
    # every effect on the intensity scale is a record of its own, with its template-clustered test
    effects = {r["term"]: r for r in first if r["metric"] == "effect"}
    assert list(effects) == [effect.name for effect in direct.effects]
    for effect in direct.effects:
        record = effects[effect.name]
        assert record["value"] == pytest.approx(effect.estimate, rel=1e-4, abs=1e-7)
        assert record["p_value"] == pytest.approx(
            clustered.effect(effect.name).p_value, rel=1e-3, abs=1e-9
        )
        assert record["contrast"] == effect.contrast and record["coefficient"] == effect.term
        assert record["clustered_p_value"] == pytest.approx(
            clustered.effect(effect.name).p_value, rel=1e-3, abs=1e-9
        )
        assert record["clustered_by"] == ["template_id"] and record["cov_type"] == "cluster"
        assert record["stability_resamples"] == 50 and 0 <= record["stability_template_sign"] <= 1

    # resume: a lost unit is recomputed from the cached regressor and embeddings, nothing is
    # retrained
    before = cache_files(out)
    (out / "units" / "tiny__eec__en__eec__en_black_white__anger__seed0.json").unlink()
    summary = run_sweep(load_config(config_path), out, progress=False)
    assert (summary.resumed, summary.computed) == (1, 1)
    assert cache_files(out) == before and records(out) == first

    # corrupt one embedding file and the regressor's weights: both are detected, recomputed, same
    # results
    embedding_file = max(
        (out / "cache" / "embeddings").rglob("*.emb"), key=lambda path: path.stat().st_size
    )
    blob = bytearray(embedding_file.read_bytes())
    blob[-100] ^= 0xFF
    embedding_file.write_bytes(bytes(blob))
    weights = regressor_folder / "state.safetensors"
    weights.write_bytes(weights.read_bytes()[:200])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = run_sweep(load_config(config_path), out, force=True, progress=False)
    messages = " | ".join(str(w.message) for w in caught)
    assert "embedding cache file" in messages and "corrupted" in messages
    assert "cached regressor" in messages
    assert summary.computed == 2 and records(out) == first
    assert _decode(embedding_file.read_bytes()) is not None and verify_checksums(regressor_folder)


def test_two_cpu_ranks_give_the_eec_results_of_one_process(config_path, tmp_path):
    """Both runs in fresh processes with one thread each, so that only the sharding differs."""
    accelerate_ranks.run_in_one_and_two_ranks(config_path, tmp_path)
    assert json.loads((tmp_path / "two" / "run.json").read_text())["num_processes"] == 2
    one, two = records(tmp_path / "one"), records(tmp_path / "two")
    assert len(one) == 2 + 4 + 7 + 1 + 4 and two == one  # r, estimates, effects, log_phi, cells
    # the embedding cache holds the same chunks: a warm cache serves either
    assert sorted(
        p.name for p in (tmp_path / "one" / "cache" / "embeddings").rglob("*.emb")
    ) == sorted(p.name for p in (tmp_path / "two" / "cache" / "embeddings").rglob("*.emb"))
    assert np.isfinite([r["value"] for r in one]).all()
