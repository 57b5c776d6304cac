"""The run folder's guarantees with the toy suite, in this process: unit files are verified on
resume (and by the report), the folder is locked while a run uses it, a failed start does not block
it, run.json counts what is on disk, and every file follows the user's umask."""

import errno
import fcntl
import json
import os
import socket
import stat
import threading
import warnings

import pytest
from toy_method import register_toy_suite

from eval_harness.errors import ConfigError, InputError
from eval_harness.report import load_run
from eval_harness.runner import RunStore, parse_config, run_sweep
from eval_harness.runner.store import RunFolderError
from eval_harness.suites import unregister_suite

FIRST_UNIT = "m1__toy__en__toy__en_c0__anger__seed0"


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def toy_config(**settings):
    return parse_config(
        {
            "models": [{"name": "m1", "type": "svm_tfidf"}],
            "suites": {"toy": {"languages": ["en"], **settings}},
        }
    )


def read_results(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def unit_file(folder, index):
    return sorted((folder / "units").glob("*.json"))[index]


def edit_a_value(text):
    payload = json.loads(text)
    payload["records"][0]["value"] += 1.0
    return json.dumps(payload)


def drop_a_field(text):
    payload = json.loads(text)
    del payload["records"][1]["p_value"]
    return json.dumps(payload)


# -- unit files ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda text, other: "{}", "lacks id, unit"),
        (lambda text, other: "[]", "holds a JSON list"),
        (lambda text, other: '{"records": []}', "lacks id, unit"),
        (
            lambda text, other: other,
            "is the file of unit",
        ),  # another unit's file under this unit's name
        (lambda text, other: edit_a_value(text), "checksum does not match"),
        (lambda text, other: drop_a_field(text), "record 1 lacks p_value"),
        (lambda text, other: text[:50], "not JSON"),
    ],
    ids=[
        "empty-object",
        "list",
        "no-records",
        "wrong-key",
        "edited",
        "record-field-missing",
        "cut-short",
    ],
)
def test_a_unit_file_that_is_not_the_unit_is_recomputed_with_one_warning(
    toy, tmp_path, damage, reason
):
    config, folder = toy_config(), tmp_path / "run"
    run_sweep(config, folder, progress=False)
    expected = read_results(folder)
    target, other = unit_file(folder, 3), unit_file(folder, 4)
    target.write_text(damage(target.read_text(), other.read_text()))
    toy.calls = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = run_sweep(config, folder, progress=False)
    messages = [
        str(warning.message) for warning in caught if issubclass(warning.category, RuntimeWarning)
    ]
    assert len(messages) == 1 and str(target) in messages[0] and reason in messages[0], messages
    assert (summary.computed, toy.calls, summary.resumed) == (1, 1, 7)
    assert read_results(folder) == expected


def test_a_unit_file_of_another_config_is_never_mixed_into_a_run(toy, tmp_path):
    """Units carry their config's hash: a unit copied from a run with other options (the same unit
    ids) makes the folder another run's, even with run.json gone."""
    run_sweep(toy_config(), tmp_path / "a", progress=False)
    other = toy_config(fail_unit="none")
    run_sweep(other, tmp_path / "b", progress=False)
    unit_file(tmp_path / "a", 0).write_bytes(unit_file(tmp_path / "b", 0).read_bytes())
    (tmp_path / "a" / "run.json").unlink()
    with pytest.raises(
        ConfigError, match=f"different run \\(config hash {other.config_hash()[:12]}"
    ):
        run_sweep(toy_config(), tmp_path / "a", progress=False)


def test_the_report_counts_a_unit_file_that_is_not_a_unit_as_unfinished(toy, tmp_path):
    folder = tmp_path / "run"
    run_sweep(toy_config(), folder, progress=False)
    target = unit_file(folder, 2)
    target.write_text('{"records": []}')
    run = load_run(folder)
    assert len(run.unit_ids) == 7 and target.stem not in run.unit_ids
    joined = " | ".join(run.missing)
    assert f"units/{target.name} is not a finished unit" in joined
    assert "7 of 8 planned units are finished" in joined


# -- run.json --------------------------------------------------------------------------------------


def test_run_json_after_an_interruption_counts_the_unit_files_on_disk(toy, tmp_path):
    folder = tmp_path / "run"
    toy.interrupt_after = 5  # in the middle of the only task (8 units)
    with pytest.raises(KeyboardInterrupt, match="5 of 8 units are finished"):
        run_sweep(toy_config(), folder, progress=False)
    run_info = RunStore(folder).run_info()
    files = len(list((folder / "units").glob("*.json")))
    assert files == 5
    assert (run_info["status"], run_info["units_finished"], run_info["units_computed"]) == (
        "interrupted",
        5,
        5,
    )


# -- the lock --------------------------------------------------------------------------------------


def test_a_locked_folder_is_refused_naming_the_holder_and_released_after(toy, tmp_path):
    folder = tmp_path / "run"
    store = RunStore(folder)
    store.make_folder()
    with store.lock():
        assert (folder / "run.lock").read_text().split() == [str(os.getpid()), socket.gethostname()]
        with pytest.raises(
            RunFolderError, match=rf"in use by another xbias run \(pid {os.getpid()}\)"
        ):
            run_sweep(toy_config(), folder, progress=False)
        assert sorted(path.name for path in folder.iterdir()) == [
            "run.lock"
        ]  # nothing else was written
    summary = run_sweep(toy_config(), folder, progress=False)  # released: the folder is free again
    assert summary.computed == 8
    with RunStore(folder).lock():  # and the run released it too
        pass


@pytest.mark.parametrize("written", [[], ["config.yaml"]], ids=["lock-only", "config-written"])
def test_a_run_caught_while_it_starts_is_named_as_in_use_not_as_foreign(toy, tmp_path, written):
    """The moment a starting run holds the lock and its run.json is still a temporary file: a second
    run started then is told the folder is in use, not that it is not an xbias run folder (CI met
    this window with two processes started at once)."""
    folder = tmp_path / "run"
    store = RunStore(folder)
    store.make_folder()
    with store.lock():
        (folder / ".run.json.0123456789ab.tmp").write_text('{"kind": ')  # half-written
        for name in written:
            (folder / name).write_text("models: []\n")
        before = sorted(path.name for path in folder.iterdir())
        with pytest.raises(
            RunFolderError, match=rf"in use by another xbias run \(pid {os.getpid()}\)"
        ):
            run_sweep(toy_config(), folder, progress=False)
        assert sorted(path.name for path in folder.iterdir()) == before  # nothing written
    assert store.holder() is None  # released: no one holds it, and the probe took nothing


def test_another_runs_probe_of_the_lock_does_not_refuse_a_starting_run(tmp_path):
    """A second run's look at the lock (RunStore.holder: a shared lock for an instant) may meet the
    first run's attempt to take it: the first run then takes the lock once the probe has let go,
    rather than calling the folder in use by someone unknown."""
    folder = tmp_path / "run"
    store = RunStore(folder)
    store.make_folder()
    probe = os.open(folder / "run.lock", os.O_RDONLY | os.O_CREAT)
    fcntl.flock(probe, fcntl.LOCK_SH)
    letting_go = threading.Timer(0.2, os.close, [probe])
    letting_go.start()
    try:
        with store.lock():
            assert store.holder() == f"pid {os.getpid()}"
    finally:
        letting_go.join()


def test_a_holder_on_another_machine_of_shared_storage_is_named_with_its_host(toy, tmp_path):
    """On a run folder that several machines share, the holder's pid is another machine's: the
    message says which (without looking for that pid here, where it means nothing)."""
    folder = tmp_path / "run"
    folder.mkdir()
    descriptor = os.open(folder / "run.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.write(descriptor, b"4242 node-17.cluster\n")
        with pytest.raises(
            RunFolderError,
            match=r"in use by another xbias run \(pid 4242 on host node-17\.cluster\)",
        ):
            run_sweep(toy_config(), folder, progress=False)
    finally:
        os.close(descriptor)


def test_a_planted_unit_of_another_run_is_named_and_the_report_advises_what_the_run_accepts(
    toy, tmp_path
):
    """One unit from another config among a finished run's own (F18): the report leaves it out and
    says to move it out, the run refuses the folder naming that file, and after following the advice
    the run resumes all its own units."""
    config, folder = toy_config(), tmp_path / "a"
    run_sweep(config, folder, progress=False)
    run_sweep(toy_config(n_configs=3), tmp_path / "b", progress=False)
    planted = next(path for path in (tmp_path / "b" / "units").glob("*en_c2*.json"))
    (folder / "units" / planted.name).write_bytes(planted.read_bytes())

    (advice,) = [item for item in load_run(folder).missing if planted.name in item]
    assert "move it out of units/" in advice and "re-run the same" not in advice
    with pytest.raises(ConfigError, match=f"units/{planted.name}; move those files out of units/"):
        run_sweep(config, folder, progress=False)
    (folder / "units" / planted.name).rename(tmp_path / planted.name)
    summary = run_sweep(config, folder, progress=False)
    assert (summary.computed, summary.resumed) == (0, 8)


@pytest.mark.parametrize("code", [errno.ENOLCK, errno.EOPNOTSUPP])
def test_a_file_system_without_locks_is_one_line_before_anything_is_written(
    toy, tmp_path, monkeypatch, code
):
    def no_locks(descriptor, operation):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    folder = tmp_path / "run"
    with pytest.raises(
        RunFolderError, match=r"of the run folder .* has no file locks \(flock: .*\), so two runs"
    ):
        run_sweep(toy_config(), folder, progress=False)
    assert sorted(path.name for path in folder.iterdir()) == ["run.lock"]


# -- a failed start --------------------------------------------------------------------------------


def test_a_run_that_finished_no_unit_is_taken_over_by_a_corrected_config(toy, tmp_path):
    folder = tmp_path / "run"
    with pytest.raises(InputError, match="planted failure"):
        run_sweep(toy_config(fail_unit=FIRST_UNIT), folder, progress=False)
    assert RunStore(folder).run_info()["status"] == "failed"
    corrected = toy_config()
    summary = run_sweep(corrected, folder, progress=False)
    assert summary.computed == 8
    assert RunStore(folder).run_info()["config_hash"] == corrected.config_hash()
    # once a unit is finished, the folder is that run's: another config is refused
    with pytest.raises(ConfigError, match="different run"):
        run_sweep(toy_config(n_configs=1), folder, progress=False)


def test_a_failed_run_with_finished_units_is_still_its_configs(toy, tmp_path):
    folder = tmp_path / "run"
    with pytest.raises(InputError, match="planted failure"):
        run_sweep(
            toy_config(fail_unit="m1__toy__en__toy__en_c0__joy__seed0"), folder, progress=False
        )
    with pytest.raises(ConfigError, match="different run"):
        run_sweep(toy_config(), folder, progress=False)


# -- permissions -----------------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_every_run_folder_file_follows_the_umask(toy, tmp_path, umask):
    previous = os.umask(umask)
    try:
        run_sweep(toy_config(), tmp_path / "run", progress=False)
    finally:
        os.umask(previous)
    paths = [tmp_path / "run", *(tmp_path / "run").rglob("*")]
    names = {path.name for path in paths}
    assert {
        "config.yaml",
        "run.json",
        "results.jsonl",
        "run.lock",
        "units",
        f"{FIRST_UNIT}.json",
    } <= names
    for path in paths:
        expected = (0o777 if path.is_dir() else 0o666) & ~umask
        assert stat.S_IMODE(path.stat().st_mode) == expected, (
            path,
            oct(stat.S_IMODE(path.stat().st_mode)),
        )


# -- results.jsonl ---------------------------------------------------------------------------------


def test_results_grow_unit_by_unit_and_run_json_names_the_final_files_digest(toy, tmp_path):
    import hashlib

    out = tmp_path / "run"
    seen = []
    evaluate = toy.evaluate

    def watching(
        unit, prepared, ctx
    ):  # what a reader of results.jsonl sees while the run is in progress
        seen.append(len((out / "results.jsonl").read_text().splitlines()))
        return evaluate(unit, prepared, ctx)

    toy.evaluate = watching
    run_sweep(toy_config(), out, progress=False)
    assert seen == [
        2 * index for index in range(8)
    ]  # every finished unit's two records, appended as it finished
    info = json.loads((out / "run.json").read_text())
    data = (out / "results.jsonl").read_bytes()
    assert info["results"] == {
        "file": "results.jsonl",
        "records": 16,
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def test_a_results_file_cut_short_is_made_whole_when_the_run_resumes(toy, tmp_path):
    out = tmp_path / "run"
    toy.interrupt_after = 3
    with pytest.raises(KeyboardInterrupt):
        run_sweep(toy_config(), out, progress=False)
    whole = (out / "results.jsonl").read_text()
    assert len(whole.splitlines()) == 6
    (out / "results.jsonl").write_text(
        whole + whole.splitlines()[0][:25]
    )  # a killed append's last line
    toy.interrupt_after = None
    seen, evaluate = [], toy.evaluate

    def watching(unit, prepared, ctx):
        seen.append(
            read_results(out)
        )  # every line a whole record: the resumed run rewrote the file first
        return evaluate(unit, prepared, ctx)

    toy.evaluate = watching
    run_sweep(toy_config(), out, progress=False)
    assert len(seen[0]) == 6 and len(seen[1]) == 8
    records = read_results(out)
    assert len(records) == 16 and records[:6] == [json.loads(line) for line in whole.splitlines()]
