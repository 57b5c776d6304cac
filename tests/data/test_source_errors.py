"""Bad source data gives one clear line: missing directory or file, truncated or altered file, no
download.

Each case works on a copy of part of the source directory in a temporary folder.
"""

import runpy
import shutil
import sys
from pathlib import Path

import pytest

from eval_harness.cli import main
from eval_harness.data import build_datasets, sources
from eval_harness.errors import SourceDataError
from eval_harness.io import BUILD_MARKER

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _copy(source_dir, tmp_path, folder):
    """A source directory in tmp_path holding a copy of ``source_dir/folder``."""
    copied = tmp_path / "sources"
    shutil.copytree(source_dir / folder, copied / folder)
    return copied


def _one_line_error(call) -> str:
    with pytest.raises(SourceDataError) as error:
        call()
    message = str(error.value)
    assert "\n" not in message
    return message


def test_missing_source_directory_names_it_and_the_variable(tmp_path):
    absent = tmp_path / "no-such-dir"
    message = _one_line_error(
        lambda: build_datasets(["gender_lists"], out_dir=tmp_path / "out", source_dir=absent)
    )
    assert str(absent) in message and "XBIAS_SOURCE_DIR" in message and "--source-dir" in message


def test_missing_source_directory_from_the_environment_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("XBIAS_SOURCE_DIR", str(tmp_path / "moved"))
    message = _one_line_error(lambda: build_datasets(["xweat"], out_dir=tmp_path / "out"))
    assert f"{tmp_path / 'moved'} (from $XBIAS_SOURCE_DIR) does not exist" in message


def test_missing_source_file_names_the_file_and_where_it_was_expected(source_dir, tmp_path):
    copied = _copy(source_dir, tmp_path, "gender_lists")
    (copied / "gender_lists" / "professions.json").unlink()
    message = _one_line_error(
        lambda: build_datasets(["gender_lists"], out_dir=tmp_path / "out", source_dir=copied)
    )
    assert "gender_lists/professions.json is missing" in message
    assert (
        str(copied / "gender_lists" / "professions.json") in message
        and "XBIAS_SOURCE_DIR" in message
    )


def test_truncated_csv_is_refused_before_anything_is_built(source_dir, tmp_path):
    copied = _copy(source_dir, tmp_path, "eec")
    csv_file = copied / "eec" / "es.csv"
    data = csv_file.read_bytes()
    csv_file.write_bytes(data[: len(data) // 2])
    message = _one_line_error(
        lambda: build_datasets(["eec"], out_dir=tmp_path / "out", source_dir=copied)
    )
    assert "eec/es.csv" in message and str(csv_file) in message and "truncated" in message
    assert f"{len(data) // 2} bytes" in message and "XBIAS_SOURCE_DIR" in message
    assert not (tmp_path / "out").exists()


def test_wrong_checksum_of_a_same_size_edit_is_refused(source_dir, tmp_path):
    copied = _copy(source_dir, tmp_path, "gender_lists")
    professions = copied / "gender_lists" / "professions.json"
    text = professions.read_text()
    professions.write_text(text.replace('["accountant", 0.0, 0.4]', '["accountant", 0.0, 0.5]', 1))
    assert professions.stat().st_size == len(text.encode())
    message = _one_line_error(
        lambda: build_datasets(["gender_lists"], out_dir=tmp_path / "out", source_dir=copied)
    )
    assert "gender_lists/professions.json" in message and "sha256" in message
    assert "32cc82c7761e7cfb" in message  # the expected digest, from the source README


def test_a_failed_rebuild_keeps_the_previous_folder(source_dir, tmp_path):
    out = tmp_path / "out"
    folder = build_datasets(["gender_lists"], out_dir=out, source_dir=source_dir)["gender_lists"]
    stamp = (folder / BUILD_MARKER).read_text()
    copied = _copy(source_dir, tmp_path, "gender_lists")
    (copied / "gender_lists" / "equalize_pairs.json").write_text("[]")
    _one_line_error(lambda: build_datasets(["gender_lists"], out_dir=out, source_dir=copied))
    assert (folder / BUILD_MARKER).read_text() == stamp


def test_without_a_source_directory_offline_the_download_failure_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("XBIAS_SOURCE_DIR", raising=False)
    monkeypatch.setattr(
        sources, "CHECKOUT_ROOT", tmp_path / "checkout"
    )  # no ../shared/data beside it
    message = _one_line_error(lambda: build_datasets(["gender_lists"], out_dir=tmp_path / "out"))
    assert message.startswith("cannot download source file gender_lists/")
    assert "https://raw.githubusercontent.com/" in message and "XBIAS_SOURCE_DIR" in message


def test_cli_build_with_a_bad_source_dir_exits_2_with_one_line_on_stderr(tmp_path, capsys):
    code = main(
        [
            "datasets",
            "build",
            "--source-dir",
            str(tmp_path / "absent"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xbias: error: source directory ")
    assert "XBIAS_SOURCE_DIR" in lines[0]


def test_cli_build_with_a_truncated_file_exits_2_with_one_line(source_dir, tmp_path, capsys):
    copied = _copy(source_dir, tmp_path, "semeval2018")
    target = copied / "semeval2018" / "2018-EI-reg-En-joy-dev.txt"
    target.write_bytes(target.read_bytes()[:100])
    code = main(
        [
            "datasets",
            "build",
            "semeval2018_affect",
            "--source-dir",
            str(copied),
            "--out",
            str(tmp_path),
        ]
    )
    lines = capsys.readouterr().err.strip().splitlines()
    assert (
        code == 2
        and len(lines) == 1
        and "2018-EI-reg-En-joy-dev.txt" in lines[0]
        and "truncated" in lines[0]
    )


def test_cli_unknown_dataset_exits_2(tmp_path, capsys):
    assert main(["datasets", "build", "weat", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        "xbias: error: unknown dataset 'weat'; datasets: "
        "eec, gender_lists, semeval2018_affect, xweat"
    )


def test_cli_build_prints_a_one_screen_summary(source_dir, tmp_path, capsys):
    argv = [
        "datasets",
        "build",
        "eec",
        "gender_lists",
        "--source-dir",
        str(source_dir),
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) <= 25
    assert f"eec (5 configs; rows per train): {tmp_path / 'eec'}" in out
    assert (
        "ar_arab_anglo 8,038" in out and "es_latino_anglo 8,460" in out and "professions 320" in out
    )


@pytest.mark.parametrize("name", ["eec", "xweat", "gender_lists", "semeval2018_affect"])
def test_build_scripts_build_their_dataset_and_report_bad_sources_in_one_line(
    name, source_dir, tmp_path, monkeypatch, capsys
):
    script = PROJECT_ROOT / "datasets_scripts" / name / "build.py"
    monkeypatch.setattr(
        sys, "argv", [str(script), "--out", str(tmp_path), "--source-dir", str(source_dir)]
    )
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(script), run_name="__main__")
    assert exit_.value.code == 0 and (tmp_path / name / "README.md").is_file()
    assert f"\n{name} (" in capsys.readouterr().out  # the script is `xbias datasets build NAME`
    monkeypatch.setattr(sys, "argv", [str(script), "--source-dir", str(tmp_path / "absent")])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(script), run_name="__main__")
    lines = capsys.readouterr().err.strip().splitlines()
    assert (
        exit_.value.code == 2
        and len(lines) == 1
        and lines[0].startswith("xbias: error: source directory")
    )
