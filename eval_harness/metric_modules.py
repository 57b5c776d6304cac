"""Make ``evaluate.load("<name>")`` find the project's evaluation modules by bare name, offline, from any directory.

How evaluate 0.4.6 resolves a bare name (``evaluate.loading.evaluation_module_factory``), in this order:

1. ``./<name>/<name>.py`` in the working directory (``LocalEvaluationModuleFactory``);
2. the Hub Space ``evaluate-{metric,comparison,measurement}/<name>`` (skipped when ``HF_EVALUATE_OFFLINE=1``);
3. its modules cache, ``$HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-<type>--<name>/<hash>/<name>.py``,
   the newest hash (``CachedEvaluationModuleFactory``).

evaluate has no registry and no entry points, and route 1 depends on the working directory, so route 3 is the
only one that works from anywhere. :func:`register_metrics` fills it with evaluate's own writer
(``evaluate.loading._create_importable_file``, what route 2 runs after a download), after evaluate's own import
check (``_download_additional_modules``, which names the ``xbias`` distribution when ``eval_harness`` is
missing), under the namespace of the module's own type (``evaluate-measurement--weat``), and then removes
every other registration of the same module: the hashes of earlier edits and the other namespaces (a stale
``evaluate-metric--weat`` would win, as evaluate searches ``metric`` first). Modules of other origins in the
cache are left alone. evaluate itself logs one line on route 3 ("Using the latest cached version of the module
from ... since it couldn't be found locally ... or remotely on the Hugging Face Hub"); it says where the
registered copy is, and ``evaluate.logging.set_verbosity_error()`` silences it.
"""

import ast
import shutil
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .shipped import metrics_dir

# evaluate's base classes -> the module types they declare (the namespace part of ``evaluate-<type>--<name>``).
MODULE_TYPES = {"Metric": "metric", "Comparison": "comparison", "Measurement": "measurement"}
# The import that marks a cached module as one of ours (every module of this project is built on eval_harness).
PROJECT_IMPORT = "from eval_harness"


@dataclass(frozen=True)
class Registration:
    """Where :func:`register_metrics` put one module, and which stale copies of it it removed."""

    name: str
    module_type: str
    script: Path
    removed: tuple[Path, ...]

    def summary(self) -> str:
        removed = f"; removed {len(self.removed)} stale registration(s)" if self.removed else ""
        return f"registered {self.name} ({self.module_type}): {self.script}{removed}"


def metric_names(folder: Path | None = None) -> list[str]:
    """Names of the evaluation modules in ``folder`` (default: the project's; folders holding ``<name>/<name>.py``)."""
    folder = metrics_dir() if folder is None else folder
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / f"{p.name}.py").is_file())


def module_type(script: Path) -> str:
    """The module type (``metric``, ``comparison`` or ``measurement``) a module script declares by its base class.

    Read from the source (``class X(evaluate.Measurement)``), so that nothing is imported.
    """
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if isinstance(base, ast.Attribute) and base.attr in MODULE_TYPES:
                    return MODULE_TYPES[base.attr]
    raise InputError(f"{script} defines no subclass of evaluate.{', evaluate.'.join(MODULE_TYPES)}")


def registrations(name: str) -> list[Path]:
    """The hash folders in evaluate's modules cache that hold a copy of this project's module ``name``."""
    from evaluate import loading

    cache = Path(loading.init_dynamic_modules()) / "metrics"
    found = []
    for module_type_name in MODULE_TYPES.values():
        namespace = cache / f"evaluate-{module_type_name}--{name}"
        if namespace.is_dir():
            found += sorted(folder for folder in namespace.iterdir() if _is_ours(folder / f"{name}.py"))
    return found


def _is_ours(script: Path) -> bool:
    return script.is_file() and PROJECT_IMPORT in script.read_text(encoding="utf-8")


def _remove(hash_folder: Path) -> None:
    shutil.rmtree(hash_folder)
    namespace = hash_folder.parent
    # A namespace folder with no module left in it would only hold evaluate's __init__.py: drop it with its lock.
    if not any(child.is_dir() and child.name != "__pycache__" for child in namespace.iterdir()):
        shutil.rmtree(namespace)
        namespace.with_name(namespace.name + ".lock").unlink(missing_ok=True)


def register_metrics(names: list[str] | None = None, folder: Path | None = None) -> list[Registration]:
    """Put the project's evaluation modules where ``evaluate.load("<name>")`` finds them; drop stale copies.

    Args:
        names: modules to register (default: all in ``folder``).
        folder: the folder of module folders (default: the project's ``metrics/``, in a checkout or installed).

    Raises:
        InputError: an unknown module name.
        ImportError: (evaluate's) a library the module imports is missing; it names what to pip install.
    """
    from datasets import DownloadConfig, DownloadMode
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
        local_imports = loading._download_additional_modules(
            name=name, base_path=str(source), imports=loading.get_imports(str(script)), download_config=DownloadConfig()
        )
        _, module_hash = loading._create_importable_file(
            local_path=str(script),
            local_imports=local_imports,
            additional_files=[(card.name, str(card)) for card in sorted(source.glob("*.md"))],
            dynamic_modules_path=dynamic_modules,
            module_namespace="metrics",
            name=f"evaluate-{kind}/{name}",
            download_mode=DownloadMode.REUSE_DATASET_IF_EXISTS,
        )
        current = Path(dynamic_modules) / "metrics" / f"evaluate-{kind}--{name}" / module_hash
        stale = [hash_folder for hash_folder in registrations(name) if hash_folder != current]
        for hash_folder in stale:
            _remove(hash_folder)
        done.append(Registration(name, kind, current / f"{name}.py", tuple(stale)))
    return done


def unregister_metrics(names: list[str] | None = None, folder: Path | None = None) -> list[Path]:
    """Remove every registration of the project's modules from evaluate's modules cache; return what was removed."""
    removed = []
    for name in metric_names(folder) if names is None else names:
        for hash_folder in registrations(name):
            _remove(hash_folder)
            removed.append(hash_folder)
    return removed
