"""Packaged configs and metric modules: found in a checkout by name; a file beats a packaged
name."""

import pytest

from eval_harness.errors import ConfigError
from eval_harness.runner import load_config
from eval_harness.shipped import CHECKOUT_ROOT, config_names, configs_dir, find_config, metrics_dir


def test_a_checkout_reads_its_top_level_folders():
    assert metrics_dir() == CHECKOUT_ROOT / "metrics"
    assert configs_dir() == CHECKOUT_ROOT / "configs"
    assert config_names() == sorted(
        path.stem for path in (CHECKOUT_ROOT / "configs").glob("*.yaml")
    )
    assert {"demo", "camara2022"} <= set(config_names())


@pytest.mark.parametrize("given", ["demo", "demo.yaml"])
def test_a_packaged_config_by_name(given, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert find_config(given) == CHECKOUT_ROOT / "configs" / "demo.yaml"
    assert load_config(given).name == "demo"


def test_a_file_wins_over_a_packaged_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo.yaml").write_text(
        "name: mine\nmodels: [{type: svm_tfidf}]\nsuites: {eec: {languages: [es]}}\n"
    )
    assert find_config("demo.yaml").resolve() == (tmp_path / "demo.yaml").resolve()
    assert load_config("demo.yaml").name == "mine"
    assert find_config("demo") == CHECKOUT_ROOT / "configs" / "demo.yaml"  # no file called "demo"


@pytest.mark.parametrize("given", ["nosuch", "elsewhere/demo.yaml", "nosuch.yaml"])
def test_neither_a_file_nor_a_packaged_name(given, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ConfigError,
        match=r"does not exist, and no packaged config has that name; packaged configs: ",
    ):
        find_config(given)
