"""The evaluate modules as a Hugging Face user meets them: bare-name loading, module types,
installs, Spaces.

Each test pins a behaviour of evaluate 0.4.6 that the modules rely on, so a later evaluate that
changes it fails here first: the bare-name route through the modules cache, the type check of
``module_type=``, the ``# From:`` directive of the import parser, the Gradio widget helper.
"""

import importlib.util
import inspect
import re
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from eval_harness.errors import InputError
from eval_harness.metric_modules import (
    EVALUATE_CHECKED,
    MissingLibraryError,
    check_imports,
    is_registered,
    load_metric,
    metric_names,
    metric_path,
    module_type,
    register_metrics,
    registrations,
    unregister_metrics,
)
from eval_harness.shipped import CHECKOUT_ROOT, metrics_dir

NAMES = ["eec_bias", "gender_space", "weat", "word_association"]
RANGES = {
    Requirement(line).name: str(Requirement(line).specifier)
    for line in tomllib.loads((CHECKOUT_ROOT / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]
}


@pytest.fixture
def private_modules_cache(tmp_path, monkeypatch):
    """evaluate's modules cache in a fresh folder, for tests that only register (they import nothing
    from it)."""
    import evaluate

    monkeypatch.setattr(evaluate.config, "HF_MODULES_CACHE", tmp_path / "modules")
    monkeypatch.setattr(
        sys, "path", list(sys.path)
    )  # evaluate appends the cache folder to sys.path
    return tmp_path / "modules" / "evaluate_modules" / "metrics"


def test_evaluate_is_the_release_whose_private_writer_the_registration_was_checked_against():
    """register_metrics calls evaluate.loading._create_importable_file, a private function (evaluate
    has no public way to put a module under a bare name), and relies on the layout of evaluate's
    modules cache. Both may change in any release: on a new evaluate, check the function's signature
    and CachedEvaluationModuleFactory's layout (the tests below exercise both), then move
    EVALUATE_CHECKED and the lower bound in pyproject.toml together (the lowest-versions check,
    docs/development.md, installs that bound)."""
    import evaluate

    assert evaluate.__version__ == EVALUATE_CHECKED == RANGES["evaluate"].removeprefix(">="), (
        f"evaluate {evaluate.__version__} is not {EVALUATE_CHECKED}, "
        "the release register_metrics was checked against: read "
        "eval_harness/metric_modules.py's docstring before trusting it"
    )
    from evaluate import loading

    assert list(inspect.signature(loading._create_importable_file).parameters) == [
        "local_path",
        "local_imports",
        "additional_files",
        "dynamic_modules_path",
        "module_namespace",
        "name",
        "download_mode",
    ]


def test_the_modules_cache_found_without_evaluate_is_the_one_evaluate_uses():
    """`xbias list` finds evaluate's modules cache without importing evaluate
    (modules_cache_from_environment); evaluate derives it the same way from the same environment. A
    release that moves it fails here."""
    import evaluate
    from evaluate import loading

    from eval_harness.metric_modules import DYNAMIC_MODULES, modules_cache_from_environment

    assert evaluate.config.MODULE_NAME_FOR_DYNAMIC_MODULES == DYNAMIC_MODULES
    assert Path(loading.init_dynamic_modules()) == modules_cache_from_environment()


def test_metric_path_is_the_module_folder_and_refuses_an_unknown_name():
    for name in NAMES:
        assert Path(metric_path(name)) == metrics_dir() / name
    with pytest.raises(
        InputError, match="no xbias metric 'bleu'; the metrics are eec_bias, gender_space"
    ):
        metric_path("bleu")


def test_the_path_route_and_the_bare_name_give_the_same_module_and_numbers(registered_metrics):
    import evaluate

    rows = dict(embeddings=[[1.0, 0.1], [0.9, 0.3], [0.1, 1.0], [0.2, 0.9], [1.0, 0.0], [0.0, 1.0]])
    rows["roles"] = ["X", "X", "Y", "Y", "A", "B"]
    by_path, by_name = load_metric("weat"), evaluate.load("weat")
    assert type(by_path).__name__ == type(by_name).__name__ == "Weat"
    assert by_path.compute(**rows) == by_name.compute(**rows)
    assert all(is_registered(name) for name in NAMES)


def test_the_import_check_names_the_distribution_and_refuses_a_split_module(tmp_path, monkeypatch):
    script = metrics_dir() / "weat" / "weat.py"
    check_imports(script, "weat")  # everything it imports is installed
    monkeypatch.setitem(sys.modules, "eval_harness", None)  # as if xbias were not installed
    with pytest.raises(
        MissingLibraryError,
        match="to use the metric weat, install what it imports: pip install xbias",
    ):
        check_imports(script, "weat")
    assert issubclass(MissingLibraryError, ImportError)
    split = tmp_path / "split" / "split.py"
    split.parent.mkdir()
    split.write_text("import evaluate\nfrom .helpers import thing\n")
    with pytest.raises(
        InputError, match=r"imports modules beside it \(helpers\): keep a metric in one script"
    ):
        check_imports(split, "split")


def test_the_project_ships_four_measurements():
    assert metric_names() == NAMES
    assert {
        name: module_type(metrics_dir() / name / f"{name}.py") for name in NAMES
    } == dict.fromkeys(NAMES, "measurement")


def test_bare_name_resolves_to_the_registration_through_the_modules_cache(
    registered_metrics, tmp_path, monkeypatch
):
    """The route itself: no ./<name>/ here, no Hub (offline), so evaluate must take its modules
    cache."""
    import evaluate
    from evaluate import loading

    monkeypatch.chdir(tmp_path)
    for registration in registered_metrics:
        folder = registration.script.parent
        assert folder.parent.name == f"evaluate-measurement--{registration.name}"
        assert registrations(registration.name) == [folder]
        module = loading.evaluation_module_factory(registration.name)
        expected = (
            f"evaluate_modules.metrics.evaluate-measurement--{registration.name}"
            f".{folder.name}.{registration.name}"
        )
        assert (module.module_path, module.hash) == (expected, folder.name)
        loaded = evaluate.load(registration.name)
        assert (
            Path(sys.modules[type(loaded).__module__].__file__).resolve()
            == registration.script.resolve()
        )
        # evaluate's own writer recorded where the copy came from.
        assert (folder / "README.md").read_text() == (
            metrics_dir() / registration.name / "README.md"
        ).read_text()


def test_weat_loads_as_a_measurement_and_by_default(registered_metrics, tmp_path, monkeypatch):
    import evaluate

    monkeypatch.chdir(tmp_path)
    rows = dict(embeddings=[[1.0, 0.1], [0.9, 0.3], [0.1, 1.0], [0.2, 0.9], [1.0, 0.0], [0.0, 1.0]])
    rows["roles"] = ["X", "X", "Y", "Y", "A", "B"]
    as_measurement = evaluate.load("weat", module_type="measurement")
    by_default = evaluate.load("weat")
    assert (
        isinstance(as_measurement, evaluate.Measurement)
        and as_measurement.module_type == "measurement"
    )
    assert as_measurement.compute(**rows) == by_default.compute(**rows)
    # A module has one type: evaluate says which when another is asked for.
    with pytest.raises(TypeError, match="Found module of module type 'measurement'"):
        evaluate.load("weat", module_type="metric")


@pytest.mark.parametrize("name", NAMES)
def test_module_info_has_homepage_license_and_codebase(name, load_metric_elsewhere):
    info = load_metric_elsewhere(name).info
    assert info.homepage.startswith("https://")
    assert info.codebase_urls and all(
        url.startswith("https://github.com/") for url in info.codebase_urls
    )
    declared = tomllib.loads((CHECKOUT_ROOT / "pyproject.toml").read_text())["project"]["license"][
        "text"
    ]
    assert info.license == declared.lower() == "apache-2.0"


def test_reregistering_an_edit_keeps_one_copy_and_removes_stale_ones(
    private_modules_cache, tmp_path
):
    folder = tmp_path / "metrics"
    shutil.copytree(metrics_dir() / "weat", folder / "weat")
    first = register_metrics(["weat"], folder=folder)[0]
    # What the previous registrar left: a copy under evaluate's metric namespace, which evaluate
    # searches first.
    legacy = private_modules_cache / "evaluate-metric--weat" / ("0" * 64)
    legacy.mkdir(parents=True)
    (legacy / "weat.py").write_text("import evaluate\nfrom eval_harness.stats import weat\n")
    # Another project's module of the same name is not ours to remove.
    foreign = private_modules_cache / "evaluate-metric--weat" / ("f" * 64)
    foreign.mkdir()
    (foreign / "weat.py").write_text("import evaluate\n")

    script = folder / "weat" / "weat.py"
    script.write_text(script.read_text() + "\n# an edit\n")
    second = register_metrics(["weat"], folder=folder)[0]

    assert second.script != first.script and second.script.read_text() == script.read_text()
    assert set(second.removed) == {first.script.parent, legacy}
    assert registrations("weat") == [second.script.parent]
    assert foreign.is_dir()
    assert first.changed and second.changed
    # Registering the same content again changes nothing, and says so.
    again = register_metrics(["weat"], folder=folder)[0]
    assert (again.script, again.removed, again.changed) == (second.script, (), False)
    # An edited card alone (the script's hash, and so its folder, stay) is a change too.
    card = folder / "weat" / "README.md"
    card.write_text(card.read_text() + "\nan edit\n")
    edited = register_metrics(["weat"], folder=folder)[0]
    assert (edited.script, edited.changed) == (second.script, True)
    assert (edited.script.parent / "README.md").read_text() == card.read_text()


def test_unregister_removes_every_registration_and_empty_namespaces(private_modules_cache):
    registered = register_metrics()
    removed = unregister_metrics()
    assert sorted(removed) == sorted(r.script.parent for r in registered)
    assert all(registrations(name) == [] for name in NAMES)
    assert not any(private_modules_cache.glob("evaluate-*--*"))
    with pytest.raises(InputError, match=r"unknown metric\(s\) \['bleu'\]"):
        register_metrics(["bleu"])


def test_without_xbias_evaluate_asks_for_the_xbias_distribution(monkeypatch):
    """evaluate derives `pip install X` from the import line; X must be our distribution, never
    eval_harness."""
    import evaluate

    monkeypatch.setitem(sys.modules, "eval_harness", None)  # as if xbias were not installed
    for name in NAMES:
        with pytest.raises(ImportError) as caught:
            evaluate.load(str(metrics_dir() / name))
        message = str(caught.value)
        assert "'pip install xbias'" in message, message
        assert (
            "pip install eval_harness" not in message and "pip install eval-harness" not in message
        )


@pytest.mark.parametrize("name", NAMES)
def test_requirements_list_only_installable_pins(name):
    from evaluate.loading import get_imports

    libraries = {
        module: source
        for kind, module, source, _ in get_imports(str(metrics_dir() / name / f"{name}.py"))
        if kind == "library"
    }
    # evaluate and xbias always; datasets where the module declares its features itself (eec_bias;
    # the embedding metrics take theirs from xbias's CheckedRowsModule)
    assert {"evaluate": "evaluate", "eval_harness": "xbias"}.items() <= libraries.items()
    assert (
        libraries.items()
        <= {"datasets": "datasets", "evaluate": "evaluate", "eval_harness": "xbias"}.items()
    )
    lines = (metrics_dir() / name / "requirements.txt").read_text().splitlines()
    requirements = [
        Requirement(line) for line in lines if line.strip() and not line.startswith("#")
    ]
    # Each one is a PyPI dependency of xbias, with xbias's own range; xbias itself is on no index.
    assert {r.name: str(r.specifier) for r in requirements} == {
        module: RANGES[module] for module in libraries if module != "eval_harness"
    }
    assert all(r.name not in {"xbias", "eval_harness", "eval-harness"} for r in requirements)


@pytest.mark.parametrize("name", NAMES)
def test_each_folder_is_a_gradio_space_whose_app_imports_without_launching(name, monkeypatch):
    import evaluate
    from huggingface_hub import SpaceCard

    card = SpaceCard.load(metrics_dir() / name / "README.md")
    assert (card.data.sdk, card.data.app_file) == ("gradio", "app.py")
    assert re.fullmatch(
        r"3\.\d+\.\d+", card.data.sdk_version
    )  # evaluate's widget uses gradio 3's gr.inputs
    assert "measurement" in card.data.tags

    monkeypatch.setitem(
        sys.modules, "gradio", None
    )  # not installed: launching would raise ImportError
    spec = importlib.util.spec_from_file_location(
        f"{name}_space_app", metrics_dir() / name / card.data.app_file
    )
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    assert isinstance(app.module, evaluate.Measurement) and app.module.name == name
    assert app.launch_gradio_widget is evaluate.utils.launch_gradio_widget
    with pytest.raises(ImportError):
        app.launch_gradio_widget(app.module)


def test_module_type_needs_an_evaluate_class(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text("class Plain(object):\n    pass\n")
    with pytest.raises(InputError, match="defines no subclass of evaluate.Metric"):
        module_type(script)


def test_cli_registers_and_unregisters(private_modules_cache, capsys):
    from eval_harness.cli import main

    assert main(["metrics", "register", "weat"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "registered for evaluate.load(NAME): weat (measurement); evaluate logs 'Using "
        "the latest cached version of the module' on each load: that is this copy"
    ]
    # Nothing changed the second time: nothing printed (`make install` registers on every run).
    assert main(["metrics", "register"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "registered for evaluate.load(NAME): eec_bias (measurement), gender_space"
    )
    assert "weat (measurement)," not in out and out.count("\n") == 1  # weat was registered already
    assert main(["metrics", "register"]) == 0
    assert capsys.readouterr().out == ""
    # -v says where each copy is.
    assert main(["metrics", "register", "weat", "-v"]) == 0
    assert (
        f"registered weat (measurement): {private_modules_cache / 'evaluate-measurement--weat'}"
        in (capsys.readouterr().err)
    )
    assert main(["metrics", "unregister"]) == 0
    assert "removed 4 registration(s) from evaluate's modules cache" in capsys.readouterr().out
    assert main(["metrics", "register", "bleu"]) == 2
    assert "unknown metric(s) ['bleu']" in capsys.readouterr().err


@pytest.mark.parametrize("name", NAMES)
def test_each_card_shows_the_path_route_and_the_registration_for_the_bare_name(name):
    card = (metrics_dir() / name / "README.md").read_text(encoding="utf-8")
    assert f'evaluate.load(metric_path("{name}"))' in card
    assert "from eval_harness.metric_modules import metric_path" in card
    assert f'evaluate.load("{name}") by bare name, after `xbias metrics register` once' in card
