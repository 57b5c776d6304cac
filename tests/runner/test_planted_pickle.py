"""Nothing runs that was not written by us: a pickle planted in a regressor cache, with the folder's
checksums recomputed by the project's own checksum writer, is never loaded by a real ``xbias run``
(its payload would create a marker file), neither with ``--cache-dir`` nor with the default cache
(``OUT/cache``). The regressor is trained again, with one warning line, and the run's numbers are
those of the clean run."""

import json
import pickle
from pathlib import Path

import pytest
from helpers.tiny_models import write_tiny_eec_config

from eval_harness.cli import main
from eval_harness.io import BUILD_MARKER, read_json, verify_checksums, write_checksums


class Payload:
    """What a hostile cache holds: unpickling it runs ``exec``, which creates the marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').close()",)


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    return write_tiny_eec_config(tmp_path_factory.mktemp("planted"), max_epochs=2, sample=2)


def test_the_planted_payload_is_a_real_one(tmp_path):
    """The check below could fail: loading this file the way an older xbias did (joblib) runs the
    payload."""
    import joblib

    marker = tmp_path / "ran"
    (tmp_path / "model.joblib").write_bytes(pickle.dumps(Payload(marker)))
    joblib.load(tmp_path / "model.joblib")  # noqa: S301 - the point of this test: a pickle runs code
    assert marker.exists()


def regressor_folders(cache: Path) -> list[Path]:
    return [path for path in (cache / "regressors").iterdir() if not path.name.startswith(".")]


def plant(folder: Path, marker: Path) -> None:
    """A pickle in a verified regressor folder, the folder resealed by the project's own checksum
    writer."""
    (folder / "model.joblib").write_bytes(pickle.dumps(Payload(marker)))
    stamp = read_json(folder / BUILD_MARKER)["stamp"]
    write_checksums(folder, stamp)
    assert verify_checksums(folder, stamp) is not None  # the folder passes its checksums


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("cache", ["default", "cache-dir"])
def test_a_pickle_planted_in_the_regressor_cache_is_never_loaded(
    config_path, tmp_path, capsys, cache
):
    out = tmp_path / "run"
    cache_dir = out / "cache" if cache == "default" else tmp_path / "shared-cache"
    where = [] if cache == "default" else ["--cache-dir", str(cache_dir)]
    assert (
        main(["run", "--config", str(config_path), "--out", str(out), "--no-progress", *where]) == 0
    )
    clean = records(out)
    (folder,) = regressor_folders(cache_dir)
    marker = tmp_path / "payload-ran"
    plant(folder, marker)
    capsys.readouterr()

    again = tmp_path / "again" if cache == "cache-dir" else out
    assert (
        main(
            [
                "run",
                "--config",
                str(config_path),
                "--out",
                str(again),
                "--no-progress",
                "--force",
                *where,
            ]
        )
        == 0
    )
    assert not marker.exists()
    warnings = [line for line in capsys.readouterr().err.splitlines() if "model.joblib" in line]
    assert len(warnings) == 1 and "never loaded" in warnings[0] and "trained again" in warnings[0]
    assert (
        not (folder / "model.joblib").exists() and verify_checksums(folder) is not None
    )  # retrained, resealed
    assert records(again) == clean
