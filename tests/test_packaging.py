"""The installed path: sdist -> wheel -> a fresh virtualenv, where the metrics and packaged configs
must work.

The fresh venv gets the pinned dependencies from this interpreter's site-packages through a ``.pth``
line (the ``.pth`` files inside that folder are not run, so this checkout's editable install stays
invisible), and the test checks that ``eval_harness`` really comes from the new venv.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from eval_harness.shipped import CHECKOUT_ROOT

BUILD_INPUTS = (
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "LICENSE",
    "eval_harness",
    "metrics",
    "configs",
    "docs",
)
METRICS = ("eec_bias", "gender_space", "weat", "word_association")
QUICK_CONFIG = (
    "name: quick\nseeds: [0]\nmodels: [{type: svm_tfidf}]\n"
    "suites: {eec: {languages: [es], emotions: [anger]}}\n"
)


def _run(command, cwd, env=None):
    return _completed(command, cwd, env).stdout


def _completed(command, cwd, env=None) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built as a user's build frontend would: sdist first, then the wheel from the
    sdist."""
    root = tmp_path_factory.mktemp("build")
    source = root / "source"
    source.mkdir()
    for name in BUILD_INPUTS:
        item = CHECKOUT_ROOT / name
        if item.is_dir():
            shutil.copytree(
                item, source / name, ignore=shutil.ignore_patterns("__pycache__", "_shipped")
            )
        else:
            shutil.copy2(item, source / name)
    # The build backend's own API (what `python -m build` calls); it logs to stdout, the file name
    # comes last.
    backend = (
        "import sys; from setuptools import build_meta; "
        "print(getattr(build_meta, sys.argv[1])(sys.argv[2]))"
    )
    sdist = (
        root
        / "dist"
        / _run([sys.executable, "-c", backend, "build_sdist", str(root / "dist")], source).split()[
            -1
        ]
    )
    with tarfile.open(sdist) as archive:
        archive.extractall(root / "unpacked", filter="data")
    (unpacked,) = (root / "unpacked").iterdir()
    name = _run(
        [sys.executable, "-c", backend, "build_wheel", str(root / "dist")], unpacked
    ).split()[-1]
    return root / "dist" / name


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory, source_dir):
    """A fresh venv with the wheel installed; returns (bin folder, environment for its commands, a
    cwd)."""
    root = tmp_path_factory.mktemp("installed")
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    python = venv / "bin" / "python"
    purelib = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root
        ).strip()
    )
    (purelib / "pinned_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # --ignore-installed: the checkout's editable xbias is visible to pip through the .pth; never
    # touch it.
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
        ]
        + ["--ignore-installed", str(wheel)],
        root,
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(HF_HOME=str(root / "hf-home"), XBIAS_SOURCE_DIR=str(source_dir), OMP_NUM_THREADS="1")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    return venv / "bin", env, elsewhere


@pytest.mark.slow
def test_the_wheel_ships_the_metric_modules_and_configs(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for metric in METRICS:
        for file in (f"{metric}.py", "README.md", "requirements.txt", "app.py"):
            assert f"eval_harness/_shipped/metrics/{metric}/{file}" in names
    for config in CHECKOUT_ROOT.joinpath("configs").glob("*.yaml"):
        assert f"eval_harness/_shipped/configs/{config.name}" in names
    assert "eval_harness/data/cards/eec.md" in names
    # The documentation `xbias --help` points a wheel user at.
    assert "eval_harness/_shipped/README.md" in names
    for doc in CHECKOUT_ROOT.joinpath("docs").glob("*.md"):
        assert f"eval_harness/_shipped/docs/{doc.name}" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert not any("__pycache__" in name for name in names)
    # The browser check is a developer's tool (tests/helpers/browser.py), never shipped.
    assert not any(name.endswith("browser.py") for name in names)


@pytest.mark.slow
def test_the_wheel_declares_ranges_for_its_runtime_requirements_and_the_lock_pins_them(wheel):
    """A user's environment keeps its own torch and transformers: no runtime requirement is an exact
    pin (only the packaged models' extra is, as data checked by sha256); the exact versions live in
    constraints.txt."""
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        requirements = Parser().parsestr(archive.read(metadata).decode()).get_all("Requires-Dist")
    runtime = [requirement for requirement in requirements if "extra ==" not in requirement]
    extras = {
        extra: [r for r in requirements if f'extra == "{extra}"' in r]
        for extra in ("dev", "lm-eval", "models")
    }
    assert len(runtime) >= 15 and "torch>=2.13.0" in runtime and "transformers>=5.24.0" in runtime
    operators = {r: {spec.operator for spec in Requirement(r).specifier} for r in requirements}
    assert [r for r in runtime + extras["dev"] + extras["lm-eval"] if operators[r] != {">="}] == []
    assert extras["models"] and all(operators[r] == {"=="} for r in extras["models"])
    # The lock pins every runtime requirement, within its range.
    locked = dict(
        line.split("==")
        for line in CHECKOUT_ROOT.joinpath("constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    locked = {canonicalize_name(name): version for name, version in locked.items()}
    for requirement in map(Requirement, runtime + extras["dev"] + extras["lm-eval"]):
        assert requirement.specifier.contains(locked[canonicalize_name(requirement.name)]), (
            requirement
        )


@pytest.mark.slow
def test_a_wheel_user_loads_every_metric_by_path_silently_and_is_told_how_to_load_by_name(
    installed, tmp_path
):
    bin_dir, env, elsewhere = installed
    env = {
        **env,
        "HF_HOME": str(tmp_path / "fresh-hf-home"),
    }  # nothing registered yet, whatever ran before
    listing = _run([str(bin_dir / "xbias"), "list"], elsewhere, env)
    assert (
        "run `xbias metrics register` once (not yet: "
        "eec_bias, gender_space, weat, word_association)" in listing
    )
    load = (
        "import evaluate\n"
        "from eval_harness.metric_modules import load_metric, metric_path\n"
        "names = ['eec_bias', 'gender_space', 'weat', 'word_association']\n"
        "modules = [evaluate.load(metric_path(name)) for name in names]\n"
        "r = load_metric('weat').compute(embeddings=[[1, 0.1], [0.9, 0.3], [0.1, "
        "1], [0.2, 0.9], [1, 0], [0, 1]], roles=['X', 'X', 'Y', 'Y', 'A', 'B'])\n"
        "print(*[type(module).__name__ for module in modules], r['p_value_method'])\n"
    )
    done = _completed([str(bin_dir / "python"), "-c", load], elsewhere, env)
    assert done.stdout.split() == ["EecBias", "GenderSpace", "Weat", "WordAssociation", "exact"]
    assert done.stderr == ""  # the path route logs nothing, not even evaluate's cache line
    # The help names documentation that this installation has.
    help_text = _run([str(bin_dir / "xbias"), "--help"], elsewhere, env)
    readme = Path(help_text.split("Docs (in this installation): ", 1)[1].split(";", 1)[0])
    assert readme.is_file() and readme.is_relative_to(bin_dir.parent), readme


@pytest.mark.slow
def test_an_installed_copy_loads_metrics_by_name_and_runs_packaged_configs(installed):
    bin_dir, env, elsewhere = installed
    where = _run(
        [str(bin_dir / "python"), "-c", "import eval_harness; print(eval_harness.__file__)"],
        elsewhere,
        env,
    )
    assert Path(where.strip()).is_relative_to(bin_dir.parent), (
        where
    )  # the wheel's copy, not the checkout

    registered = _run([str(bin_dir / "xbias"), "metrics", "register"], elsewhere, env)
    assert (
        registered.startswith("registered for evaluate.load(NAME): ")
        and registered.count("\n") == 1
    )
    for metric in METRICS:
        assert f"{metric} (measurement)" in registered
    load = (
        "import evaluate\n"
        "weat = evaluate.load('weat', module_type='measurement')\n"
        "r = weat.compute(embeddings=[[1, 0.1], [0.9, 0.3], [0.1, 1], [0.2, 0.9], [1, 0], [0, 1]],"
        " roles=['X', 'X', 'Y', 'Y', 'A', 'B'])\n"
        "others = [type(evaluate.load(name)).__name__ for name "
        "in ('eec_bias', 'gender_space', 'word_association')]\n"
        "print(r['p_value_method'], r['n_permutations'], *others)\n"
    )
    loaded = _run([str(bin_dir / "python"), "-c", load], elsewhere, env).split()
    assert loaded == [
        "exact",
        "6",
        "EecBias",
        "GenderSpace",
        "WordAssociation",
    ]  # every bare name, after the step

    listing = _run([str(bin_dir / "xbias"), "list"], elsewhere, env)
    assert (
        "configs:  camara2022, demo" in listing
        and "metrics:  eec_bias, gender_space, weat" in listing
    )
    assert (
        "xbias metrics register" not in listing
    )  # nothing left to tell: every bare name is registered
    names = (
        "from eval_harness.runner import load_config; "
        "print(load_config('demo').name, load_config('camara2022').name)"
    )
    assert _run([str(bin_dir / "python"), "-c", names], elsewhere, env).split() == [
        "demo",
        "camara2022",
    ]

    # The harness end to end from the installed copy (a packaged config would take minutes: a small
    # one here).
    (elsewhere / "quick.yaml").write_text(QUICK_CONFIG)
    summary = _run(
        [str(bin_dir / "xbias"), "run", "--config", "quick.yaml", "--out", "run", "--no-progress"],
        elsewhere,
        env,
    )
    assert "units: 2 planned, 0 already finished (resumed), 2 computed" in summary
    assert (elsewhere / "run" / "results.jsonl").is_file()
