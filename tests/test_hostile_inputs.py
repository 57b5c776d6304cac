"""Inputs built to hang xbias, fill its memory or bury its one-line errors (issue 31, sections 2 and
4): each is refused quickly, with one line, before anything is written."""

import json
import os
import subprocess
import sys

import pytest
import yaml
from test_cli import fails_with_one_line

from eval_harness import io
from eval_harness.cli import main
from eval_harness.errors import shown, unreadable_file

# Nine aliases of nine aliases ... : 9**9 (387 million) leaves from about 300 bytes.
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)


def expanded_nodes(value) -> int:
    """Brute force: the nodes of a constructed YAML value, every alias counted again where it is
    used."""
    if isinstance(value, dict):
        return 1 + sum(expanded_nodes(k) + expanded_nodes(v) for k, v in value.items())
    if isinstance(value, list):
        return 1 + sum(expanded_nodes(item) for item in value)
    return 1


def test_an_alias_bomb_is_refused_by_its_expanded_size_and_a_document_under_the_limit_loads():
    with pytest.raises(io.RefusedDocument, match="expand to more than 100,000 nodes"):
        io.load_yaml(ALIAS_BOMB)
    # Three levels: 1 + 3 * (1 + 3 * (1 + 3)) + ... nodes, counted by brute force; at the limit it
    # loads, one under it is refused.
    small = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n"
    size = expanded_nodes(yaml.safe_load(small))
    assert io.load_yaml(small, max_nodes=size) == yaml.safe_load(small)
    with pytest.raises(io.RefusedDocument):
        io.load_yaml(small, max_nodes=size - 1)


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ("a: 1\nb: 2\na: 3\n", "a key is written twice in one mapping (line 3, column 1)"),
        ("a: &x [1, *x]\n", "a cycle"),
        ("[" * 50_000 + "]" * 50_000, "nested too deep"),
    ],
)
def test_yaml_that_safe_load_takes_silently_or_crashes_on_is_refused_with_its_reason(
    document, reason
):
    with pytest.raises(io.RefusedDocument, match=reason.replace("(", r"\(").replace(")", r"\)")):
        io.load_yaml(document)


def test_a_merge_key_may_still_be_overridden():
    assert io.load_yaml("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  x: 3\n")["c"] == {"x": 3, "y": 2}


def test_an_error_echoes_a_bounded_cut_of_a_huge_value():
    text = shown([["word" * 1000] * 1000] * 1000)
    assert len(text) < 1000 and text.startswith("[[")


@pytest.mark.parametrize("where", ["name", "seeds", "languages", "models"])
def test_an_alias_bomb_in_a_config_is_one_short_line(tmp_path, capsys, where):
    bomb = ALIAS_BOMB.replace("\n", "\n  ").rstrip()
    config = tmp_path / "bomb.yaml"
    config.write_text(f"{where}:\n  {bomb}\nsuites: [eec]\n")
    line = fails_with_one_line(
        capsys,
        ["run", "--config", str(config), "--out", str(tmp_path / "run")],
        "expand to more than",
    )
    assert len(line) < 300
    assert not (tmp_path / "run").exists()


def test_a_key_twice_in_a_config_is_refused(tmp_path, capsys):
    config = tmp_path / "twice.yaml"
    config.write_text(
        "models: [{type: svm_tfidf}]\nsuites: [eec]\nlanguages: [en]\nlanguages: [es]\n"
    )
    fails_with_one_line(
        capsys, ["run", "--config", str(config), "--out", str(tmp_path / "run")], "line 4, column 1"
    )
    assert not (tmp_path / "run").exists()


def test_a_config_larger_than_a_mebibyte_is_refused_unread(tmp_path, capsys):
    config = tmp_path / "large.yaml"
    config.write_text("name: x\n" + "#" * (1 << 20) + "\n")
    fails_with_one_line(
        capsys, ["run", "--config", str(config), "--out", str(tmp_path / "run")], "larger than"
    )


def test_a_fifo_or_a_device_is_refused_without_reading_it(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # no writer: a plain read would wait forever
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")  # a plain read would fill the memory
    for path in (fifo, zero, tmp_path):
        with pytest.raises(OSError, match="not a regular file") as caught:
            io.read_bytes(path)
        assert "not a regular file" in unreadable_file(path, caught.value)
        assert io.read_json(path) is None


def test_a_file_over_the_limit_is_refused_and_one_at_it_read(tmp_path):
    path = tmp_path / "data"
    path.write_bytes(b"x" * 100)
    assert io.read_bytes(path, limit=100) == b"x" * 100
    with pytest.raises(OSError, match="larger than 99 bytes"):
        io.read_bytes(path, limit=99)


def test_deep_json_is_damaged_json_not_a_recursion_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert io.read_json(path) is None
    with pytest.raises(io.RefusedDocument, match="nested too deep"):
        io.parse_json(path.read_text())


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["run", "--limit", "nan", "--out", "x"], "argument --limit: invalid int value"),
        (["run", "-v", "-q", "--out", "x"], "not allowed with argument"),
        (["report", "x", "--family", "bogus"], "argument --family: invalid choice"),
        (["frobnicate"], "invalid choice"),
        (["compare", "a", "--bootstrap", "x"], "argument --bootstrap"),
    ],
)
def test_an_argparse_error_is_one_line_and_exit_2(capsys, argv, fragment):
    fails_with_one_line(capsys, argv, fragment)


def test_an_argparse_error_from_the_command_line_is_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "eval_harness.cli", "run", "--limit", "nan"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_empty_seeds_are_refused_not_read_as_the_default(tmp_path, capsys):
    argv = [
        "run",
        "--model-type",
        "svm_tfidf",
        "--suite",
        "eec",
        "--languages",
        "en",
        "--seeds",
        "",
        "--out",
    ]
    fails_with_one_line(capsys, [*argv, str(tmp_path / "run")], "--seeds takes")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("seed", [2**63, 2**64])
def test_a_seed_beyond_a_64_bit_integer_is_refused_before_the_run_folder_exists(
    tmp_path, capsys, seed
):
    argv = [
        "run",
        "--model-type",
        "svm_tfidf",
        "--suite",
        "eec",
        "--languages",
        "en",
        "--seeds",
        str(seed),
    ]
    fails_with_one_line(capsys, [*argv, "--out", str(tmp_path / "run")], "2**63 - 1")
    assert not (tmp_path / "run").exists()


def test_a_300_character_model_name_is_refused_before_the_run_folder_exists(tmp_path, capsys):
    config = tmp_path / "long.yaml"
    config.write_text(
        yaml.safe_dump(
            {"models": [{"name": "m" * 300, "type": "svm_tfidf"}], "suites": {"eec": {}}}
        )
    )
    fails_with_one_line(
        capsys, ["run", "--config", str(config), "--out", str(tmp_path / "run")], "at most 64"
    )
    assert not (tmp_path / "run").exists()


def test_a_cache_dir_that_takes_no_files_is_refused_before_the_run_folder_exists(tmp_path, capsys):
    argv = [
        "run",
        "--model-type",
        "svm_tfidf",
        "--suite",
        "eec",
        "--languages",
        "en",
        "--cache-dir",
        "/proc/xbias",
    ]
    fails_with_one_line(capsys, [*argv, "--out", str(tmp_path / "run")], "--cache-dir")
    assert not (tmp_path / "run").exists()


def test_model_args_with_an_alias_bomb_are_refused(tmp_path, capsys):
    # Block style: --model-args splits at commas, so the bomb has none. head_options is read as YAML
    # (a string option such as pooling is kept as written, never parsed).
    bomb = (
        "- &a\n"
        + "  - x\n" * 9
        + "".join(
            f"- &{b}\n" + f"  - *{a}\n" * 9 for a, b in zip("abcdefgh", "bcdefghi", strict=True)
        )
    )
    argv = [
        "run",
        "--model",
        str(tmp_path),
        "--suite",
        "eec",
        "--languages",
        "en",
        "--model-args",
        f"head_options={bomb}",
    ]
    fails_with_one_line(capsys, [*argv, "--out", str(tmp_path / "run")], "expand to more than")
    assert not (tmp_path / "run").exists()


def test_json_helpers_round_trip():
    assert io.parse_json(json.dumps({"a": [1, 2]})) == {"a": [1, 2]}


@pytest.fixture
def toy_run(tmp_path, capsys):
    """A finished run of the toy method (8 units), and the command that made it."""
    from toy_method import register_toy_suite

    from eval_harness.suites import unregister_suite

    register_toy_suite()
    config = tmp_path / "toy.yaml"
    models = [{"name": "m1", "type": "svm_tfidf"}]
    config.write_text(
        yaml.safe_dump({"models": models, "suites": {"toy": {}}, "languages": ["en"]})
    )
    argv = ["run", "--config", str(config), "--out", str(tmp_path / "run"), "--no-progress"]
    assert main(argv) == 0
    capsys.readouterr()
    yield tmp_path / "run", argv
    unregister_suite("toy")


def test_a_report_of_a_run_with_a_fifo_and_deep_json_names_them_and_finishes(toy_run, capsys):
    run_dir, _ = toy_run
    deep = sorted((run_dir / "units").glob("*.json"))[0]
    deep.write_text("[" * 100_000 + "]" * 100_000)
    os.mkfifo(run_dir / "units" / "zz-a-fifo.json")
    (run_dir / "run.json").write_text("{" + '"a":{' * 50_000 + "}" * 50_001)
    assert main(["report", str(run_dir), "--format", "md"]) == 0
    err = capsys.readouterr().err
    assert f"units/{deep.name} is unreadable (JSON nested too deep" in err
    assert "units/zz-a-fifo.json is not a regular file" in err
    assert "run.json is unreadable (versions, seed and config hash): JSON nested too deep" in err


def test_the_details_card_of_a_run_whose_run_json_is_unreadable_names_the_folder(tmp_path):
    from eval_harness.report.details import details_card

    (tmp_path / "run.json").write_text("[" * 100_000 + "]" * 100_000)
    assert "xbias details: " + tmp_path.name in details_card(tmp_path, {})
    (tmp_path / "run.json").unlink()
    os.mkfifo(tmp_path / "run.json")
    assert "xbias details: " + tmp_path.name in details_card(tmp_path, {})


def test_a_resume_recomputes_a_deep_unit_file_and_passes_over_a_fifo(toy_run, capsys):
    run_dir, argv = toy_run
    units = sorted((run_dir / "units").glob("*.json"))
    units[0].write_text("[" * 100_000 + "]" * 100_000)
    os.mkfifo(run_dir / "units" / "zz-a-fifo.json")
    os.unlink(units[1])
    os.mkfifo(units[1])
    (run_dir / "run.json").write_text("{" + '"a":{' * 50_000 + "}" * 50_001)
    fails_with_one_line(
        capsys, argv, "no run.json of xbias says it is one"
    )  # damaged: not a RecursionError
    (
        run_dir / "run.json"
    ).unlink()  # deletable (docs/run_folder.md): the intact unit files say the folder is ours
    assert main(argv) == 0
    assert "6 already finished (resumed), 2 computed" in capsys.readouterr().out


def test_samples_of_a_fifo_or_deep_unit_file_are_refused_not_waited_for(tmp_path):
    from eval_harness.contract.samples import SamplesError, read_samples_table, samples_units

    units = tmp_path / "units"
    units.mkdir()
    os.mkfifo(units / "fifo.json")
    (units / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    assert samples_units(tmp_path) == {}
    for unit in ("fifo", "deep"):
        with pytest.raises(SamplesError, match="is not a readable unit file"):
            read_samples_table(tmp_path, unit)


@pytest.mark.parametrize(
    ("reader", "what"),
    [
        ("eval_harness.models.prompt_judge:_read_overrides", "prompts file"),
        ("eval_harness.data.seat:_read_file", "SEAT templates file"),
        ("eval_harness.data.eec:_load_spec", "EEC spec"),
    ],
)
def test_every_yaml_file_a_user_names_is_read_with_the_same_bounds(tmp_path, reader, what):
    import importlib

    from eval_harness.errors import XBiasError

    module, name = reader.split(":")
    read = getattr(importlib.import_module(module), name)
    path = tmp_path / "file.yaml"
    for text, reason in ((ALIAS_BOMB, "expand to more than"), ("a: 1\na: 2\n", "written twice")):
        path.write_text(text)
        with pytest.raises(XBiasError, match=f"cannot read the {what} {path}: .*{reason}"):
            read(path)


def test_an_error_line_keeps_its_start_and_its_fix_and_is_cut_in_between(monkeypatch, capsys):
    from eval_harness.cli import listing
    from eval_harness.cli.common import MAX_ERROR_LENGTH
    from eval_harness.errors import ConfigError

    def command(args):
        raise ConfigError("what is wrong:\n" + "x" * 100_000 + "\nthe fix")

    monkeypatch.setattr(listing, "_cmd_list", command)
    line = fails_with_one_line(capsys, ["list"], "what is wrong: xxx", "[...]", "xxx the fix")
    assert len(line) <= len("xbias: error: ") + MAX_ERROR_LENGTH + len(" [...] ")
