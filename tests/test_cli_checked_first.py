"""Errors that were tracebacks or hangs (issue 22): each is one line, exit code 2, and checked
before anything is written (no run folder, no dataset folder, what was there left as it was); an
error names a file the user gave but never echoes its content.

With the toy suite (tests/toy_method) and the CLI, in this process."""

import pytest
import yaml
from test_cli import fails_with_one_line, toy_options, write_config
from toy_method import register_toy_suite

from eval_harness.cli import main
from eval_harness.suites import unregister_suite

# What a file named by mistake may hold; never part of an error message.
SECRET = "root:$6$s3cr3t-hash:19000:0:99999:7:::"


@pytest.fixture
def toy():
    suite = register_toy_suite()
    yield suite
    unregister_suite("toy")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_df": -5}, "min_df must be a whole number >= 1"),
        ({"min_df": 1.5}, "or a fraction in (0, 1]"),
        ({"ngram_range": "abc"}, "ngram_range must be two whole numbers [n_min, n_max]"),
        ({"ngram_range": [2, 1]}, "1 <= n_min <= n_max"),
        ({"max_features": 0}, "max_features must be a whole number >= 1"),
    ],
    ids=[
        "min_df-negative",
        "min_df-above-1",
        "ngram_range-text",
        "ngram_range-reversed",
        "max_features-0",
    ],
)
def test_a_tfidf_option_scikit_learn_would_refuse_is_one_line_before_the_folder_exists(
    toy, tmp_path, capsys, options, message
):
    """Guards: `options: {min_df: -5}` gave scikit-learn's InvalidParameterError traceback after the
    run folder was created, and `ngram_range: "abc"` gave `ValueError: too many values to
    unpack`."""
    config = write_config(
        tmp_path / "bad.yaml", models=[{"name": "m1", "type": "svm_tfidf", "options": options}]
    )
    fails_with_one_line(
        capsys, ["run", "--config", config, "--out", str(tmp_path / "run")], "'m1'", message
    )
    assert not (tmp_path / "run").exists()


def test_a_cache_dir_that_is_a_file_or_below_one_is_one_line_before_the_folder_exists(
    toy, tmp_path, capsys
):
    """Guards: `--cache-dir` pointing at a file gave NotADirectoryError."""
    a_file = tmp_path / "cache.bin"
    a_file.write_text("keep me")
    for cache in (a_file, a_file / "cache"):
        fails_with_one_line(
            capsys,
            toy_options(tmp_path / "run", "--cache-dir", str(cache)),
            f"cannot use {cache} as the cache",
        )
        assert not (tmp_path / "run").exists()
    assert a_file.read_text() == "keep me"


def test_datasets_build_onto_a_file_is_one_line_before_any_source_is_read(tmp_path, capsys):
    """Guards: `xbias datasets build ... --out` onto a file gave a traceback."""
    a_file = tmp_path / "datasets"
    a_file.write_text("keep me")
    missing_sources = str(tmp_path / "no-sources")  # never read: the folder is refused first
    for out in (a_file, a_file / "built"):
        argv = ["datasets", "build", "eec", "--out", str(out), "--source-dir", missing_sources]
        fails_with_one_line(
            capsys, argv, f"cannot build the datasets into {out}", "give another --out"
        )
    assert a_file.read_text() == "keep me"


@pytest.mark.parametrize("model_type", ["encoder", "classifier", "llm"])
def test_a_model_path_that_is_a_file_is_one_line_before_the_folder_exists(
    toy, tmp_path, capsys, model_type
):
    """Guards: a model path that is a text file was caught only after the run folder existed and
    preparation had started (a missing path was caught before). A transformers model is a folder;
    the error says so."""
    weights = tmp_path / "model.txt"
    weights.write_text("not a model\n")
    config = write_config(
        tmp_path / "bad.yaml", models=[{"name": "m1", "type": model_type, "path": str(weights)}]
    )
    fails_with_one_line(
        capsys,
        ["run", "--config", config, "--out", str(tmp_path / "run")],
        f"path {str(weights)!r} is a file",
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("option", "count", "duration"),
    [
        ("permutations", 10**12, "11.6 days"),
        ("n_bootstrap", 10**11, "1.2 days"),
        ("ceat_samples", 10**9, "16.7 min"),
    ],
)
def test_draw_counts_that_would_run_for_hours_are_refused_with_their_cost(
    tmp_path, capsys, option, count, duration
):
    """Guards: xweat `permutations: 1000000000000` and `n_bootstrap: 100000000000` were accepted and
    ran for hours. A test asks for at most 10^7 draws of each kind unless $XBIAS_MAX_DRAWS says
    more; the error says what the count would take (10^12 draws at 10^6 a second: 10^6 s = 11.6
    days) and how to run it anyway."""
    suites = {"xweat": {"languages": ["en"], option: count}}
    config = write_config(
        tmp_path / "bad.yaml", models=[{"path": "glove", "type": "static_mlp"}], suites=suites
    )
    fails_with_one_line(
        capsys,
        ["run", "--config", config, "--out", str(tmp_path / "run")],
        f"{option}={count:,} is more than XBIAS_MAX_DRAWS=10,000,000 draws per test",
        f"at least {duration}",
        f"set XBIAS_MAX_DRAWS={count} to run it anyway",
    )
    assert not (tmp_path / "run").exists()


def test_xbias_max_draws_raises_the_limit(monkeypatch):
    from eval_harness.errors import ConfigError
    from eval_harness.runner import parse_config

    def config(permutations):
        models = [{"path": "glove", "type": "static_mlp"}]
        return {
            "models": models,
            "suites": {"xweat": {"languages": ["en"], "permutations": permutations}},
        }

    monkeypatch.setenv("XBIAS_MAX_DRAWS", "1_000_000_000_000")
    (suite,) = parse_config(config(10**12)).suites
    assert suite.options["permutations"] == 10**12
    with pytest.raises(ConfigError, match="more than XBIAS_MAX_DRAWS=1,000,000,000,000"):
        parse_config(config(10**12 + 1))
    monkeypatch.setenv("XBIAS_MAX_DRAWS", "lots")
    with pytest.raises(ConfigError, match="XBIAS_MAX_DRAWS must be a whole number >= 1"):
        parse_config(config(10))


@pytest.mark.parametrize(
    "content",
    [
        SECRET + "\n",
        f"{SECRET}\nbin:*:19000:0:99999:7:::\n",
        f"- {SECRET}\n",
        f"a:\n  - {SECRET}\n",
        SECRET + ": [\n",
    ],
    ids=["one-line", "two-lines", "a-list", "a-mapping", "not-yaml"],
)
def test_a_seat_templates_file_is_named_but_its_content_never_echoed(tmp_path, capsys, content):
    """Guards: `seat_templates: {en: /etc/shadow}` printed the file's first line in its error."""
    secret_file = tmp_path / "shadow"
    secret_file.write_text(content)
    suites = {
        "xweat": {
            "languages": ["en"],
            "measures": ["seat"],
            "seat_templates": {"en": str(secret_file)},
        }
    }
    config = write_config(
        tmp_path / "bad.yaml", models=[{"path": "glove", "type": "static_mlp"}], suites=suites
    )
    code = main(["run", "--config", config, "--out", str(tmp_path / "run"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("xbias: error: "), err
    assert str(secret_file) in err
    for word in ("root", "s3cr3t", "19000", "bin"):
        assert word not in err.replace(str(secret_file), ""), err


def test_a_config_file_that_is_not_yaml_is_named_but_never_echoed(tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"models": []}) + f"{SECRET}: [\n")
    line = fails_with_one_line(
        capsys, ["run", "--config", str(config), "--out", str(tmp_path / "run")]
    )
    assert (
        str(config) in line and "not valid YAML (line 3, column 1)" in line
    )  # where the [ is left open
    assert "s3cr3t" not in line and "root" not in line.replace(str(config), "")
