"""Beyond one machine: two "machines" on this box (two ``accelerate launch --num_machines 2
--machine_rank r``, one CPU rank each, gloo over 127.0.0.1) run one sweep into one run folder, as
two nodes do on shared storage, each with its own node-local Hugging Face cache; the run folder and
the records equal one process's, value for value, cold and warm (docs/scaling.md)."""

import json
import sys
from pathlib import Path

import pytest
import yaml
from helpers.accelerate_ranks import accelerate_launch_machines, xbias_run
from helpers.tiny_models import write_tiny_eec_config


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def shared_files(run: Path) -> dict[str, bytes]:
    """Every file the run folder holds that does not name its run's process layout: unit files,
    caches."""
    return {
        path.relative_to(run).as_posix(): path.read_bytes()
        for path in sorted(run.rglob("*"))
        if path.is_file() and path.name not in ("run.json", "run.lock") and path.suffix != ".json"
    }


def unit_records(run: Path) -> dict[str, list[dict]]:
    return {
        path.stem: json.loads(path.read_text())["records"]
        for path in sorted((run / "units").glob("*.json"))
    }


def two_machines(config: Path, out: Path, homes: Path, force: bool = False) -> Path:
    arguments = [
        "eval_harness.cli",
        "run",
        "--config",
        str(config),
        "--no-progress",
        "--out",
        str(out),
    ]
    launches = accelerate_launch_machines(
        "-m",
        [*arguments, *(["--force"] if force else [])],
        machine_env=[{"HF_HOME": str(homes / f"node{rank}")} for rank in (0, 1)],
    )
    for rank, launch in enumerate(launches):
        assert launch.returncode == 0, f"machine {rank}:\n{launch.stderr[-3000:]}"
    assert (
        sum("planned" in launch.stdout for launch in launches) == 1
    )  # rank 0 alone prints the summary
    return out


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="gloo over loopback, as the CI runs it")
def test_two_machines_on_one_shared_run_folder_give_the_results_of_one_process(tmp_path):
    # a tiny BERT's probe on English anger, two training seeds: features, training, caches
    config = write_tiny_eec_config(tmp_path, sample=2)
    config.write_text(yaml.safe_dump({**yaml.safe_load(config.read_text()), "seeds": [0, 1]}))
    one = xbias_run(config, tmp_path / "one")
    shared = two_machines(config, tmp_path / "shared", tmp_path / "homes")
    info = json.loads((shared / "run.json").read_text())
    assert info["num_processes"] == 2 and info["status"] == "complete"
    assert {record["seed"] for record in records(one)} == {0, 1}
    assert records(shared) == records(one) and unit_records(shared) == unit_records(one)
    # the embedding chunks each rank wrote and the regressors rank 0 saved, byte for byte; no
    # temporary file left
    assert shared_files(shared) == shared_files(one)
    assert not [
        path for path in shared.rglob("*") if ".tmp" in path.name or ".building-" in path.name
    ]
    # each node built its own datasets in its own cache: neither wrote into the other's
    assert all(
        (tmp_path / "homes" / f"node{rank}" / "xbias" / "datasets").is_dir() for rank in (0, 1)
    )

    # warm: both machines again, every unit recomputed from the caches the cold run left (rank 1
    # restores the regressors rank 0 saved), the same records
    two_machines(config, shared, tmp_path / "homes", force=True)
    assert records(shared) == records(one) and shared_files(shared) == shared_files(one)
