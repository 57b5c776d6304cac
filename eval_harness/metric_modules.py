"""The project's evaluate modules: load them by path (silent, no set-up), or by bare name once
registered.

Two routes load a module, with the same numbers:

* **by path**, :func:`metric_path` / :func:`load_metric`: ``evaluate.load(metric_path("eec_bias"))``
  loads the installed module's folder (``metrics/<name>/`` of a checkout,
  ``eval_harness/_shipped/metrics/<name>/`` of an installed wheel). It needs no set-up and evaluate
  logs nothing on this route;
* **by bare name**, ``evaluate.load("eec_bias")``, after :func:`register_metrics` (``xbias metrics
  register``).

How evaluate 0.4.6 resolves a bare name (``evaluate.loading.evaluation_module_factory``), in this
order:

1. ``./<name>/<name>.py`` in the working directory (``LocalEvaluationModuleFactory``);
2. the Hub Space ``evaluate-{metric,comparison,measurement}/<name>`` (skipped when
   ``HF_EVALUATE_OFFLINE=1``);
3. its modules cache,
   ``$HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-<type>--<name>/<hash>/<name>.py``, the
   newest hash (``CachedEvaluationModuleFactory``).

evaluate has no registry and no entry points, and route 1 depends on the working directory, so route
3 is the only one that works from anywhere. :func:`register_metrics` checks that what a module
imports is installed (with evaluate's public import parser, ``evaluate.loading.get_imports``; a
missing ``eval_harness`` names the ``xbias`` distribution), fills the cache with evaluate's own
writer, ``evaluate.loading._create_importable_file`` (what route 2 runs after a download: evaluate
has no public way to put a module under a bare name, so this one private call stays, pinned by
``tests/metrics/test_metric_modules.py`` to the evaluate version it was checked against,
:data:`EVALUATE_CHECKED`), under the namespace of the module's own type
(``evaluate-measurement--weat``), and then removes every other registration of the same module: the
hashes of earlier edits and the other namespaces (a stale ``evaluate-metric--weat`` would win, as
evaluate searches ``metric`` first). Modules of other origins in the cache are left alone. evaluate
itself logs one line on route 3 ("Using the latest cached version of the module from ... since it
couldn't be found locally ... or remotely on the Hugging Face Hub"); it says where the registered
copy is, and ``evaluate.logging.set_verbosity_error()`` silences it.
"""

import ast
import importlib.util
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError, XBiasError, shown
from .shipped import metrics_dir

# evaluate's package of dynamic modules (evaluate.config.MODULE_NAME_FOR_DYNAMIC_MODULES in 0.4.6).
DYNAMIC_MODULES = "evaluate_modules"

# evaluate's base classes -> the module types they declare (the namespace part of
# ``evaluate-<type>--<name>``).
MODULE_TYPES = {"Metric": "metric", "Comparison": "comparison", "Measurement": "measurement"}
# The import that marks a cached module as one of ours (every module of this project is built on
# eval_harness).
PROJECT_IMPORT = "from eval_harness"
# The evaluate release whose modules cache layout and private writer (``_create_importable_file``)
# register_metrics was checked against; a test fails on any other, so that a new evaluate is looked
# at before it is trusted.
EVALUATE_CHECKED = "0.4.6"
# The command that registers the modules for bare-name loading (printed wherever a user needs it).
REGISTER_COMMAND = "xbias metrics register"


class CheckedRowsModule:
    """The base an embedding metric puts before its evaluate class, so that rows are checked first.

    ``check_rows(embeddings, roles)``, the metric's own rule from ``eval_harness.stats``, raises an
    InputError naming the problem before evaluate encodes the rows (which would raise a bare
    ValueError).
    """

    check_rows: Callable[[Sequence | None, Sequence | None], None]

    @staticmethod
    def role_row_features():
        """The rows every embedding metric reads: a vector and its role (``datasets.Features``)."""
        import datasets  # here: registering the metrics needs no datasets import

        return datasets.Features(
            {
                "embeddings": datasets.Sequence(datasets.Value("float64")),
                "roles": datasets.Value("string"),
            }
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add rows (the metric's inputs), checked first by its ``check_rows``."""
        self.check_rows(kwargs.get("embeddings"), kwargs.get("roles"))
        return super().add_batch(  # type: ignore[misc]  # the evaluate class after this one
            predictions=predictions, references=references, **kwargs
        )


@dataclass(frozen=True)
class Registration:
    """Where :func:`register_metrics` put one module, which stale copies of it it removed, and
    whether the cache changed (``changed`` is False when this very copy was already registered and
    nothing stale was left)."""

    name: str
    module_type: str
    script: Path
    removed: tuple[Path, ...]
    changed: bool = True

    def summary(self) -> str:
        removed = f"; removed {len(self.removed)} stale registration(s)" if self.removed else ""
        return f"registered {self.name} ({self.module_type}): {self.script}{removed}"


def registration_line(done: list[Registration]) -> str:
    """One line for what :func:`register_metrics` changed ("" when it changed nothing): the modules
    now loadable by bare name, and the line evaluate logs on each such load, so that it is not read
    as a failure."""
    changed = [registration for registration in done if registration.changed]
    if not changed:
        return ""
    names = ", ".join(
        f"{registration.name} ({registration.module_type})" for registration in changed
    )
    stale = sum(len(registration.removed) for registration in changed)
    removed = f"; removed {stale} stale cop{'y' if stale == 1 else 'ies'}" if stale else ""
    return (
        f"registered for evaluate.load(NAME): {names}{removed}; evaluate logs 'Using "
        "the latest cached version of the module' on each load: that is this copy"
    )


def metric_names(folder: Path | None = None) -> list[str]:
    """Names of the evaluation modules in ``folder`` (default: the project's; folders holding
    ``<name>/<name>.py``)."""
    folder = metrics_dir() if folder is None else folder
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / f"{p.name}.py").is_file())


def metric_path(name: str) -> str:
    """The folder of the project's evaluate module ``name``, for
    ``evaluate.load(metric_path(name))``.

    The load by path needs no registration, works from any directory and logs nothing; it gives the
    same module, and the same numbers, as ``evaluate.load(name)`` after ``xbias metrics register``.

    Raises:
        InputError: no module of that name (the message lists them).
    """
    available = metric_names()
    if name not in available:
        raise InputError(
            f"no xbias metric {name!r}; the metrics are {', '.join(available) or 'none'}"
        )
    return str(metrics_dir() / name)


def load_metric(name: str, **load_options):
    """``evaluate.load(metric_path(name), **load_options)``: the project's module ``name``, loaded
    by path."""
    import evaluate

    return evaluate.load(metric_path(name), **load_options)


def is_registered(name: str) -> bool:
    """Whether ``evaluate.load(name)`` finds this project's module ``name`` by bare name
    (:func:`register_metrics`)."""
    return bool(registrations(name))


def check_imports(script: Path, name: str) -> None:
    """Raise :class:`MissingLibraryError` (an ImportError) naming what to ``pip install`` when a
    library ``script`` imports is missing, and InputError when it imports a module of its own folder
    (which a registration would not copy).

    The libraries are those evaluate's own import parser (``evaluate.loading.get_imports``) reads
    from the script, with the distribution each import line names (``# From:``): ``eval_harness``
    comes from ``xbias``.
    """
    from evaluate.loading import get_imports

    imports = get_imports(str(script))
    local = sorted(module for kind, module, _, _ in imports if kind != "library")
    if local:
        # register_metrics copies the script alone; a module split over files would lose its other
        # parts.
        raise InputError(
            f"{script} imports modules beside it ({', '.join(local)}): keep a metric in one script"
        )
    missing = [
        distribution
        for kind, module, distribution, _ in imports
        if kind == "library" and not _installed(module)
    ]
    if missing:
        raise MissingLibraryError(
            f"to use the metric {name}, install what it imports: "
            f"pip install {' '.join(sorted(set(missing)))}"
        )


class MissingLibraryError(XBiasError, ImportError):
    """A library a metric module imports is not installed (an ImportError, as evaluate raises, and
    one line in the CLI)."""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (
        ImportError,
        ValueError,
    ):  # a module set to None in sys.modules, or a broken parent package
        return False


def module_type(script: Path) -> str:
    """The module type (``metric``, ``comparison`` or ``measurement``) a module script declares by
    its base class.

    Read from the source (``class X(evaluate.Measurement)``), so that nothing is imported.
    """
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if isinstance(base, ast.Attribute) and base.attr in MODULE_TYPES:
                    return MODULE_TYPES[base.attr]
    raise InputError(f"{script} defines no subclass of evaluate.{', evaluate.'.join(MODULE_TYPES)}")


def evaluate_modules_cache() -> Path:
    """evaluate's dynamic-modules folder, ``HF_MODULES_CACHE/evaluate_modules``: evaluate's own
    setting once evaluate is imported, else :func:`modules_cache_from_environment`, so that asking
    whether a metric is registered (``xbias list``) imports neither evaluate nor what it imports
    (datasets, torch)."""
    config = sys.modules.get("evaluate.config")
    if config is not None:
        return Path(config.HF_MODULES_CACHE) / DYNAMIC_MODULES
    return modules_cache_from_environment()


def modules_cache_from_environment() -> Path:
    """The folder evaluate 0.4.6's ``config`` and ``loading.init_dynamic_modules`` derive from the
    environment (``$HF_MODULES_CACHE``, else ``$HF_HOME/modules``, else
    ``$XDG_CACHE_HOME/huggingface/modules``, then ``evaluate_modules``). Not a public API of
    evaluate: tests/metrics/test_metric_modules.py pins it to evaluate's own result, so a release
    that moves the folder fails there loudly."""
    cache_home = os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "huggingface")
    hf_home = os.path.expanduser(os.getenv("HF_HOME", cache_home))
    return Path(os.getenv("HF_MODULES_CACHE", os.path.join(hf_home, "modules"))) / DYNAMIC_MODULES


def registrations(name: str) -> list[Path]:
    """The hash folders in evaluate's modules cache that hold a copy of this project's module
    ``name``."""
    cache = evaluate_modules_cache() / "metrics"
    found = []
    for module_type_name in MODULE_TYPES.values():
        namespace = cache / f"evaluate-{module_type_name}--{name}"
        if namespace.is_dir():
            found += sorted(
                folder for folder in namespace.iterdir() if _is_ours(folder / f"{name}.py")
            )
    return found


def _is_ours(script: Path) -> bool:
    return script.is_file() and PROJECT_IMPORT in script.read_text(encoding="utf-8")


def _remove(hash_folder: Path) -> None:
    shutil.rmtree(hash_folder)
    namespace = hash_folder.parent
    # A namespace folder with no module left in it would only hold evaluate's __init__.py: drop it
    # with its lock.
    if not any(child.is_dir() and child.name != "__pycache__" for child in namespace.iterdir()):
        shutil.rmtree(namespace)
        namespace.with_name(namespace.name + ".lock").unlink(missing_ok=True)


def _files(folder: Path) -> dict[str, bytes]:
    """The files directly in ``folder`` (none when it does not exist), by name."""
    return (
        {path.name: path.read_bytes() for path in folder.glob("*") if path.is_file()}
        if folder.is_dir()
        else {}
    )


def register_metrics(
    names: list[str] | None = None, folder: Path | None = None
) -> list[Registration]:
    """Put the project's evaluation modules where ``evaluate.load("<name>")`` finds them; drop stale
    copies.

    Args:
        names: modules to register (default: all in ``folder``).
        folder: the folder of module folders (default: the project's ``metrics/``, in a checkout or
        installed).

    Raises:
        InputError: an unknown module name.
        MissingLibraryError: (an ImportError) a library the module imports is missing; it names what
        to pip install.
    """
    from datasets import DownloadMode
    from evaluate import loading

    folder = metrics_dir() if folder is None else folder
    available = metric_names(folder)
    names = available if names is None else names
    unknown = sorted(set(names) - set(available))
    if unknown:
        raise InputError(f"unknown metric(s) {unknown}; available: {available}")
    dynamic_modules = loading.init_dynamic_modules()
    done = []
    for name in names:
        source = folder / name
        script = source / f"{name}.py"
        kind = module_type(script)
        check_imports(script, name)
        # evaluate names the folder by the script's hash: what it holds before and after says
        # whether this changed it.
        namespace = Path(dynamic_modules) / "metrics" / f"evaluate-{kind}--{name}"
        before = _files(namespace / loading.files_to_hash([str(script)]))
        # evaluate's private writer (module docstring): no public route puts a module under a bare
        # name.
        _, module_hash = loading._create_importable_file(
            local_path=str(script),
            local_imports=[],
            additional_files=[(card.name, str(card)) for card in sorted(source.glob("*.md"))],
            dynamic_modules_path=dynamic_modules,
            module_namespace="metrics",
            name=f"evaluate-{kind}/{name}",
            download_mode=DownloadMode.REUSE_DATASET_IF_EXISTS,
        )
        current = namespace / module_hash
        stale = [hash_folder for hash_folder in registrations(name) if hash_folder != current]
        for hash_folder in stale:
            _remove(hash_folder)
        changed = bool(stale) or _files(current) != before
        done.append(Registration(name, kind, current / f"{name}.py", tuple(stale), changed))
    return done


def unregister_metrics(names: list[str] | None = None, folder: Path | None = None) -> list[Path]:
    """Remove every registration of the project's modules from evaluate's modules cache; return what
    was removed.

    Raises:
        InputError: a name that is not one of the project's modules (a path such as ``../x``
            included): only its registrations are ever removed.
    """
    known = metric_names(folder)
    unknown = [name for name in names or () if name not in known]
    if unknown:
        raise InputError(
            f"no evaluation module {shown(unknown[0])} to "
            f"unregister; the modules: {', '.join(known)}"
        )
    removed = []
    for name in known if names is None else names:
        for hash_folder in registrations(name):
            _remove(hash_folder)
            removed.append(hash_folder)
    return removed
