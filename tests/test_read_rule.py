"""The read rule and the write rule on the doors added since the write rule was written (issue 42):
lm-eval tasks and import, the caches (embeddings, saved heads, the SVR grid), the run folder's own
cache, older markers.

Each test guards a failure the probes of 2026-12-03 found (named in its docstring): before its fix,
the command ran a model folder's code, hung on a FIFO, read a device without end, wrote through a
link, chose another SVR from an edited score, or deleted a user's files; now it is one line and exit
2, or the damaged entry is computed again.
"""

import io
import json
import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers.hostile_files import KINDS, plant
from lmeval.test_lm_eval_import import TIME, document, refused, write_logged
from models.test_remote_code import remote_code_folder
from test_cli import fails_with_one_line
from test_write_rule import KEPT, snapshot, toy, toy_run  # noqa: F401 - toy: the fixture, used by name

from eval_harness.cli import main
from eval_harness.errors import InputError, ModelLoadError
from eval_harness.io import BUILD_MARKER, MAX_DOCUMENT_BYTES, read_cache_entry
from eval_harness.lmeval.importer import read_samples
from eval_harness.models import heads
from eval_harness.models.cache import EmbeddingCache
from eval_harness.models.heads import RidgeHead, SvrHead
from eval_harness.models.saved_state import load_state, save_state
from eval_harness.stats.equivalence import INTENSITY_WIDTH, check_margin

# A read that blocks on a FIFO never returns: every planted read must end well within this.
SECONDS = 60.0


def finishes(function, seconds: float = SECONDS):
    """``function()``'s value, failing the test when it has not returned within ``seconds`` (a
    hang)."""
    outcome: dict = {}

    def call():
        try:
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s: it hangs"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# -- high: model code ------------------------------------------------------------------------------


def test_lm_eval_tasks_never_runs_a_tokenizers_own_code_even_with_yes_on_stdin(
    tmp_path, capsys, monkeypatch
):
    """Guards: `printf 'y\\ny\\n' | xbias lm-eval tasks --model ./remotecode ...` ran the folder's
    remote.py (the tokenizer was loaded without trust_remote_code, so transformers asked on standard
    input)."""
    folder, marker = remote_code_folder(tmp_path / "remotecode")
    monkeypatch.setattr("sys.stdin", io.StringIO("y\ny\n"))
    argv = [
        "lm-eval",
        "tasks",
        "--model",
        str(folder),
        "--languages",
        "en",
        "--emotions",
        "anger",
        "--limit",
        "1",
    ]
    fails_with_one_line(
        capsys,
        [*argv, "--out", str(tmp_path / "pack")],
        "ships its own code",
        "--trust-remote-code",
    )
    assert not marker.exists(), "the folder's code ran"
    assert not (tmp_path / "pack").exists()


# -- medium: reads without limits ------------------------------------------------------------------


@pytest.mark.parametrize("which", ["samples", "results"])
@pytest.mark.parametrize("kind", [*KINDS, "deep"])
def test_lm_eval_import_reads_only_a_bounded_regular_file(tmp_path, capsys, kind, which):
    """Guards: the import hung on a FIFO, ran out of memory on a link to /dev/zero, read a 400 MB
    file whole, and raised RecursionError on a deeply nested line (json.loads, not the bounded
    reader)."""
    samples = write_logged(tmp_path / "logged")
    path = samples if which == "samples" else samples.with_name(f"results_{TIME}.json")
    if kind == "deep":
        path.write_text("[" * 200_000 + "]" * 200_000 + "\n")
    else:
        plant(path, kind, size=MAX_DOCUMENT_BYTES + 1)
    line = finishes(lambda: refused(capsys, samples, tmp_path / "run"))
    assert str(path.name) in line


def test_a_fifo_in_place_of_an_embeddings_entry_is_computed_again_not_waited_on(tmp_path):
    """Guards: a FIFO in place of an embeddings .emb file hung a run (it passed the --cache-dir
    check)."""
    cache, texts = EmbeddingCache(tmp_path / "embeddings"), ["a", "b"]
    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    for kind in KINDS:
        path = cache.path("model", "sentence", texts)
        path.parent.mkdir(parents=True, exist_ok=True)
        plant(path, kind, size=8 << 30)
        with pytest.warns(RuntimeWarning, match="corrupted"):
            assert finishes(lambda: cache.get("model", "sentence", texts)) is None
        assert not os.path.lexists(path)  # the planted entry is gone, never its target
        cache.put("model", "sentence", texts, vectors)
        np.testing.assert_array_equal(cache.get("model", "sentence", texts), vectors)
    assert Path("/dev/zero").exists()


@pytest.mark.parametrize("kind", KINDS)
def test_a_planted_saved_state_is_unreadable_never_a_hang(tmp_path, kind):
    """Guards: a FIFO or a link to /dev/zero in place of a ridge head's state.safetensors hung or
    filled memory."""
    save_state(tmp_path, "state", {"coef": np.ones(3)})
    plant(tmp_path / "state.safetensors", kind, size=8 << 30)
    with pytest.raises(ModelLoadError, match="state.safetensors"):
        finishes(lambda: load_state(tmp_path, "state"))


def test_a_cache_entry_is_read_only_when_regular_bounded_and_matching_its_checksum(tmp_path):
    path = tmp_path / "entry"
    path.write_bytes(b"payload")
    # sha256(b"payload"), by hashlib
    digest = "239f59ed55e737c77147cf55ad0c1b030b6d7ee748a7426952f9b852d5a935e5"
    assert read_cache_entry(path, digest) == b"payload"
    assert read_cache_entry(path, "0" * 64) is None  # another digest: an edited entry
    assert read_cache_entry(path, digest, limit=3) is None
    for kind in KINDS:
        plant(path, kind, size=8 << 30)
        assert finishes(lambda: read_cache_entry(path)) is None


# -- medium: links followed ------------------------------------------------------------------------


def test_a_run_folders_own_cache_linked_elsewhere_is_refused(toy, tmp_path, capsys):  # noqa: F811
    """Guards: RUN/cache/regressors linked to an outside folder got the regressor and a lock file
    written there (only --cache-dir had the deep link check)."""
    folder = tmp_path / "run"
    assert main(toy_run(folder)) == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "cache").mkdir(exist_ok=True)
    (folder / "cache" / "regressors").symlink_to(outside)
    before = snapshot(outside)
    fails_with_one_line(capsys, toy_run(folder), "regressors is a symbolic link")
    assert snapshot(outside) == before


@pytest.mark.parametrize("dangling", [False, True])
def test_lm_eval_tasks_out_and_its_lock_are_never_written_through_a_link(
    tmp_path, capsys, dangling
):
    """Guards: `lm-eval tasks --out LINK` followed the link (a dangling one too) and wrote the pack
    and its lock at the target; a linked lock file gave a traceback."""
    target = tmp_path / "elsewhere"
    if not dangling:
        target.mkdir()
    (tmp_path / "pack").symlink_to(target)
    argv = ["lm-eval", "tasks", "--model", "pypi:none", "--languages", "en", "--emotions", "anger"]
    fails_with_one_line(capsys, [*argv, "--out", str(tmp_path / "pack")], "is a symbolic link")
    assert (list(target.iterdir()) == []) if not dangling else not target.exists()
    precious = tmp_path / "precious.txt"
    precious.write_text(KEPT)
    (tmp_path / ".fresh.lock").symlink_to(precious)
    fails_with_one_line(
        capsys, [*argv, "--out", str(tmp_path / "fresh")], "lock file", "symbolic link"
    )
    assert precious.read_text() == KEPT and not (tmp_path / "fresh").exists()


# -- medium: a cache without a checksum ------------------------------------------------------------


def svr_data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(60, 4))
    y = x @ np.array([0.5, -0.3, 0.2, 0.0]) + rng.normal(scale=0.3, size=60)
    return x[:40], y[:40], x[40:], y[40:]


def test_an_edited_svr_grid_score_is_caught_and_the_grid_fitted_again(tmp_path, monkeypatch):
    """Guards: one edited score (or a NaN) in the SVR grid-score cache silently chose another SVR,
    with no warning."""
    monkeypatch.setattr(heads, "cache_root", lambda: tmp_path)
    grid = {"kernel": ["linear", "rbf"], "C": [0.3, 3.0], "gamma": ["scale"]}
    uncached = SvrHead(grid=grid, n_jobs=1, cache_grid=False).fit(*svr_data()).selected
    assert SvrHead(grid=grid, n_jobs=1).fit(*svr_data()).selected == uncached
    (entry,) = (tmp_path / "svr-grid").iterdir()
    stored = json.loads(entry.read_text())
    worst = int(np.argmin(stored["scores"]))
    for edit in (9.0, float("nan")):  # the worst setting made the best, or a score no fit gives
        scores = list(stored["scores"])
        scores[worst] = edit
        entry.write_text(json.dumps({**stored, "scores": scores}))
        with pytest.warns(RuntimeWarning, match="damaged or edited"):
            assert SvrHead(grid=grid, n_jobs=1).fit(*svr_data()).selected == uncached
        assert json.loads(entry.read_text()) == stored  # computed again and stored whole
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (
            SvrHead(grid=grid, n_jobs=1).fit(*svr_data()).selected == uncached
        )  # an intact entry: no warning


# -- medium: an older marker -----------------------------------------------------------------------


@pytest.mark.parametrize("command", ["compare", "report", "details"])
def test_an_older_marker_never_lets_a_folder_with_user_files_be_replaced(tmp_path, command):
    """Guards: a folder whose .xbias-build.json held only {"writer": "xbias compare"} (as earlier
    versions wrote it) was replaced whole by compare or report --out, deleting the user's notes.md
    and mine/."""
    from eval_harness.compare.output import COMPARE_OWNER, comparison_folder
    from eval_harness.report.build import REPORT_OWNER, report_folder
    from eval_harness.report.details import DETAILS_OWNER, details_folder

    owner, check = {
        "compare": (COMPARE_OWNER, comparison_folder),
        "report": (REPORT_OWNER, lambda out: report_folder(tmp_path, out)),
        "details": (DETAILS_OWNER, details_folder),
    }[command]
    folder = tmp_path / "out"
    (folder / "mine").mkdir(parents=True)
    (folder / BUILD_MARKER).write_text(json.dumps(owner))
    (folder / "notes.md").write_text(KEPT)
    (folder / "mine" / "draft.md").write_text(KEPT)
    before = snapshot(folder)
    with pytest.raises(InputError, match="which xbias did not write"):
        check(folder)
    assert snapshot(folder) == before


# -- low -------------------------------------------------------------------------------------------


def logged_with(tmp_path, change) -> Path:
    """lm-eval's output of one task whose results (a dict) ``change`` edits in place; the samples
    file's path."""
    samples = write_logged(tmp_path / "logged")
    results_path = samples.with_name(f"results_{TIME}.json")
    results = json.loads(results_path.read_text())
    change(results)
    results_path.write_text(json.dumps(results))
    return samples


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["configs"][next(iter(r["configs"]))]["metadata"]["xbias"].update(scale=[3]),
        lambda r: r["configs"][next(iter(r["configs"]))]["metadata"]["xbias"].update(scale="0-3"),
        lambda r: r["configs"][next(iter(r["configs"]))]["metadata"]["xbias"].pop("emotion"),
        lambda r: r["configs"][next(iter(r["configs"]))]["metadata"]["xbias"].update(sample=-1),
        lambda r: r.update(configs=[]),
    ],
    ids=["scale-one-number", "scale-text", "no-emotion", "negative-sample", "configs-a-list"],
)
def test_lm_eval_import_refuses_malformed_metadata_in_one_line(tmp_path, capsys, change):
    """Guards: malformed metadata in lm-eval's results file gave a traceback."""
    refused(capsys, logged_with(tmp_path, change), tmp_path / "run")


def test_lm_eval_import_refuses_impossible_numbers_and_a_sentence_logged_twice_differently(
    tmp_path, capsys
):
    """Guards: positive log-likelihoods gave numeral masses of 5.5 and 10; a sentence logged twice
    was first-wins."""
    positive = document(1)
    positive["filtered_resps"] = [
        [repr(value), "False"] for value in (1.0, 2.0, 0.5, 0.1, 0.2, -0.1)
    ]
    lines = [
        json.dumps(document(0)),
        json.dumps(positive),
        json.dumps(document(2)),
        json.dumps(document(3)),
    ]
    assert "above 0" in refused(capsys, write_logged(tmp_path / "a", lines=lines), tmp_path / "run")
    # every log-likelihood negative, but each numeral more likely than the white space it starts
    # with: mass > 1
    heavy = document(1)
    heavy["filtered_resps"] = [
        [repr(value), "False"] for value in (-0.1, -0.1, -0.1, -0.1, -0.1, -2.0)
    ]
    lines = [
        json.dumps(document(0)),
        json.dumps(heavy),
        json.dumps(document(2)),
        json.dumps(document(3)),
    ]
    assert "sum to" in refused(capsys, write_logged(tmp_path / "b", lines=lines), tmp_path / "run")
    twice = document(2)
    twice["doc"]["sentence"] = document(0)["doc"]["sentence"]
    lines = [
        json.dumps(document(0)),
        json.dumps(document(1)),
        json.dumps(twice),
        json.dumps(document(3)),
    ]
    assert "again" in refused(capsys, write_logged(tmp_path / "c", lines=lines), tmp_path / "run")
    same = [
        json.dumps(document(0)),
        json.dumps(document(1)),
        json.dumps(document(0)),
        json.dumps(document(3)),
    ]
    assert (
        len(read_samples(write_logged(tmp_path / "d", lines=same)).scores) == 3
    )  # logged twice alike: one score


def ridge_state(**changes) -> dict:
    head = RidgeHead().fit(*svr_data())
    state = head.state()
    state["fitted"] = {**state["fitted"], **changes}
    return state


@pytest.mark.parametrize(
    "changes",
    [
        {"coef": np.array([np.nan, 0.0, 0.0, 0.0])},
        {"intercept": np.float64(np.inf)},
        {"coef": np.ones(5)},
        {"scale": np.zeros(4)},
        {"mean": np.ones((2, 2))},
    ],
    ids=["nan-weight", "inf-intercept", "wrong-shape", "zero-scale", "matrix-mean"],
)
def test_a_ridge_state_with_weights_no_fit_gives_is_refused(changes):
    """Guards: NaN/inf ridge weights in a cache entry made every later run fail with an error
    blaming the model, and weights of the wrong shape gave a traceback: refused on reading, so the
    cache fits the head again."""
    with pytest.raises(InputError, match="ridge head"):
        RidgeHead.from_state(ridge_state(**changes))
    x = svr_data()[2]
    np.testing.assert_allclose(
        RidgeHead.from_state(ridge_state()).predict(x), RidgeHead().fit(*svr_data()).predict(x)
    )
    with pytest.raises(InputError, match="features per text"):
        RidgeHead.from_state(ridge_state()).predict(x[:, :3])


def test_an_edited_config_hash_in_run_json_is_refused_and_every_unit_kept(toy, tmp_path, capsys):  # noqa: F811
    """Guards: editing config_hash in run.json silently deleted every finished unit on the next
    run."""
    folder = tmp_path / "run"
    assert main(toy_run(folder)) == 0
    info = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps({**info, "config_hash": "0" * 64}))
    units = snapshot(folder / "units")
    assert units
    fails_with_one_line(capsys, toy_run(folder), "run.json", "edited")
    assert snapshot(folder / "units") == units


def test_a_cache_dir_that_is_the_run_folder_is_refused(toy, tmp_path, capsys):  # noqa: F811
    """Guards: --cache-dir equal to --out was accepted once, and then refused."""
    folder = tmp_path / "run"
    fails_with_one_line(
        capsys, toy_run(folder, "--cache-dir", str(folder)), "the run folder itself"
    )
    assert not folder.exists()


def test_metrics_unregister_refuses_a_name_that_is_not_a_module(tmp_path, capsys):
    """Guards: `xbias metrics unregister` accepted path-traversal names."""
    fails_with_one_line(capsys, ["metrics", "unregister", "../../outside"], "no evaluation module")


def test_margins_and_targets_beyond_the_intensity_scale_are_refused(tmp_path, capsys):
    """Guards: equivalence_margin=1.5 and --target 2 were accepted on a scale of width 1."""
    assert check_margin(0.05, INTENSITY_WIDTH) == 0.05
    for margin in (1.0, 1.5):
        with pytest.raises(InputError, match="below the scale's width"):
            check_margin(margin, INTENSITY_WIDTH)
    fails_with_one_line(
        capsys,
        ["power", str(tmp_path), "--target", "2"],
        "--target must be a number between 0 and 1",
    )


def test_a_repetition_count_is_checked_against_its_time_not_only_its_count(monkeypatch):
    """Guards: n_runs or n_seeds of 10^7 passed the draw limit (10^7) but took about 11 hours."""
    from eval_harness.stats.weat import check_draw_counts

    check_draw_counts(
        {"n_runs": 2_500, "n_seeds": 2_500, "permutations": 10_000_000}
    )  # 10 s each, the default limit
    for name in ("n_runs", "n_seeds"):
        with pytest.raises(
            InputError,
            match=r"is more than XBIAS_MAX_DRAWS.* at least "
            r"11\.1 hours; .* XBIAS_MAX_DRAWS=40000000000 ",
        ):
            check_draw_counts({name: 10_000_000})
    monkeypatch.setenv("XBIAS_MAX_DRAWS", "40000000000")
    check_draw_counts({"n_runs": 10_000_000})  # the limit the message names lets it run


def test_eec_bias_on_predictions_at_the_scales_ends_is_one_line_not_a_linalg_error():
    """Guards: eec_bias with predictions at 1e-300 and 1 - 1e-16 raised a raw LinAlgError (a
    singular information)."""
    import evaluate

    from eval_harness.metric_modules import metric_path

    n = 40
    group, gender = ["a", "b"] * (n // 2), ["f", "f", "m", "m"] * (n // 4)
    predictions = [1e-300] * (n // 2) + [1 - 1e-16] * (n // 2)
    with pytest.raises(InputError, match="information matrix is singular"):
        evaluate.load(metric_path("eec_bias")).compute(
            predictions=predictions,
            group=group,
            gender=gender,
            reference_group="a",
            reference_gender="m",
        )


@pytest.mark.parametrize("command", ["datasets", "lm-eval"])
def test_a_full_disk_while_a_folder_is_built_is_one_line(tmp_path, capsys, monkeypatch, command):
    """Guards: `datasets build` and `lm-eval tasks` on a full disk ended in a traceback."""
    import errno

    from eval_harness import io as xbias_io

    def full(folder, stamp=None):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder))

    monkeypatch.setattr(xbias_io, "write_checksums", full)
    monkeypatch.setattr(
        "eval_harness.lmeval.tasks._tokenizer", lambda model, trust_remote_code=False: None
    )
    monkeypatch.setattr(
        "eval_harness.lmeval.tasks._write",
        lambda *args: {"tasks": [], "groups": [], "sentences": {}},
    )
    argv = {
        "datasets": ["datasets", "build", "xweat", "--out", str(tmp_path / "out"), "-q"],
        "lm-eval": [
            "lm-eval",
            "tasks",
            "--model",
            "m",
            "--languages",
            "en",
            "--out",
            str(tmp_path / "out"),
        ],
    }[command]
    fails_with_one_line(capsys, argv, "No space left on device")
    built = tmp_path / "out" / ("xweat" if command == "datasets" else "")
    assert not built.exists() or not [
        path for path in built.iterdir() if not path.name.endswith(".lock")
    ]
