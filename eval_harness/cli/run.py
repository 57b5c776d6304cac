"""``xbias run``: suites over models and languages into a run folder, from a config or the command
line."""

import argparse
import logging
from pathlib import Path

import yaml

from ..thread_policy import apply_thread_policy
from .common import PACKAGE_LOGGER, names


def add_parser(commands, verbosity: argparse.ArgumentParser) -> None:
    """Add ``run`` to the ``commands`` of ``xbias``."""
    from ..contract.seed_defaults import default_seeds_words
    from ..data.catalog import EEC_CONFIGS

    run = commands.add_parser(
        "run",
        parents=[verbosity],
        help="run suites over models and languages into a run "
        "folder (resumable; works under accelerate launch)",
    )
    source = run.add_mutually_exclusive_group()
    source.add_argument(
        "--config",
        help="a sweep config: a YAML file, or the name of a packaged one (demo, camara2022)",
    )
    source.add_argument(
        "--model", action="append", help="a Hub id, local folder or pypi:NAME (repeatable)"
    )
    run.add_argument(
        "--model-type", default="encoder", help="type of the --model(s) (default: encoder)"
    )
    run.add_argument(
        "--model-args",
        metavar="KEY=VALUE,...",
        help="the model as lm-evaluation-harness takes it: pretrained=ID_OR_PATH "
        "(instead of --model), revision=..., trust_remote_code=true, and options "
        "of its type, e.g. pretrained=ORG/LLM,dtype=bfloat16,device_map=auto "
        "with --model-type llm (values are read as YAML: true, 16, bfloat16)",
    )
    run.add_argument(
        "--revision",
        help="the branch, tag or commit of the --model on the Hub (default: its "
        "main branch, pinned when the run starts; run.json records the commit)",
    )
    run.add_argument("--suite", help="comma-separated suites (with --model), e.g. eec,xweat")
    run.add_argument("--languages", help="comma-separated languages (with --model), e.g. en,es,ar")
    run.add_argument(
        "--seeds",
        help="comma-separated seeds of every unit (with "
        f"--model; default: {default_seeds_words()})",
    )
    run.add_argument(
        "--emotions",
        help="eec, eec_crosslingual: comma-separated emotions to run (default all: "
        "anger,fear,joy,sadness); a probe then encodes only these emotions' SemEval tweets",
    )
    run.add_argument(
        "--eec-configs",
        metavar="CONFIGS",
        help="eec: comma-separated EEC configs to run (default: "
        f"every EEC of each language: {', '.join(EEC_CONFIGS)})",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (units, texts to encode, estimated time) "
        "and stop; a run that encodes texts logs it when it starts",
    )
    run.add_argument(
        "--cross-lingual", action="store_true", help="xweat: also the cross-lingual language pairs"
    )
    run.add_argument(
        "--corpus",
        help="gender_space: sentences for context mode: a text file (one per line), a "
        "csv/json/parquet file with a 'text' column, or 'semeval2018'",
    )
    run.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="a quick look without editing a config: the eec suite scores N "
        "sentences per template x group x gender cell of each EEC (its sample "
        "option); suites with nothing to limit (xweat, gender_space) run whole",
    )
    run.add_argument(
        "--batch-size", type=int, help="batch size of every model whose type takes one"
    )
    run.add_argument(
        "--device",
        help="device of every model whose type takes one: "
        "cpu, cuda, cuda:1, mps (default: accelerate's)",
    )
    run.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="let transformers run the Python code a model repository ships for its own classes "
        "(off by default: that code runs with your rights; only for a repository you trust)",
    )
    run.add_argument("--out", required=True, help="the run folder (re-running into it resumes)")
    run.add_argument(
        "--force", action="store_true", help="recompute everything, replacing results in --out"
    )
    run.add_argument(
        "--cache-dir",
        help="trained-regressor cache (default: OUT/cache); the features go to the "
        "user's feature cache (xbias cache), or here with XBIAS_FEATURE_CACHE=off",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(func=_cmd_run)


def _cmd_run(args: argparse.Namespace) -> None:
    # Before torch loads OpenMP: idle OpenMP threads sleep instead of spinning
    # (eval_harness.thread_policy).
    apply_thread_policy()
    from ..errors import ConfigError
    from ..runner import parse_config, read_config, run_sweep
    from ..runner.library_bars import library_progress_bars

    if args.config:
        given = [
            f"--{name.replace('_', '-')}"
            for name in (
                "suite",
                "languages",
                "seeds",
                "cross_lingual",
                "corpus",
                "revision",
                "model_args",
            )
            if getattr(args, name)
        ]
        if given or args.model_type != "encoder":
            raise ConfigError(
                f"{', '.join(given) or '--model-type'} goes with "
                f"--model; with --config, set it in {args.config}"
            )
        data, where = read_config(args.config)
    else:
        data, where = _config_from_options(args), "the command line"
    config = parse_config(_with_run_options(data, args), where=where)
    progress = not args.no_progress and args.verbosity >= 0
    if args.dry_run:  # a run says the same at its start, once its folder and models are checked
        from ..runner.plan import plan_units, work_plan

        with library_progress_bars(shown=progress):
            print("\n".join(work_plan(config, plan_units(config)).lines()))
        return
    summary = run_sweep(
        config, args.out, force=args.force, cache_dir=args.cache_dir, progress=progress
    )
    if summary.is_main:
        print(summary.summary())


def _with_run_options(data: dict, args: argparse.Namespace) -> dict:
    """The config ``data`` with what ``--limit``, ``--batch-size``, ``--device`` and
    ``--trust-remote-code`` set (with ``--config`` as with ``--model``): ``--limit N`` sets each
    suite's :attr:`~.contract.Suite.limit_option` (the EEC's ``sample``: N sentences per template x
    group x gender cell); the model options go to every model whose type takes them;
    ``--trust-remote-code`` to every model loaded from an id or path."""
    from ..errors import ConfigError
    from ..models.registry import MODEL_TYPES
    from ..suites import get_suite

    data = dict(data)
    if args.limit is not None:
        if args.limit < 1:
            raise ConfigError(
                f"--limit takes a whole number of sentences per cell, at least 1; got {args.limit}"
            )
        suites = data.get("suites")
        suites = {name: {} for name in suites} if isinstance(suites, list) else dict(suites or {})
        limited = []
        for name, settings in suites.items():
            option = get_suite(name).limit_option
            if option is not None:
                suites[name] = {**(settings or {}), option: args.limit}
                limited.append(name)
        if not limited:
            raise ConfigError(
                f"--limit has nothing to limit in {', '.join(suites)}: they run whole; drop --limit"
            )
        whole = [name for name in suites if name not in limited]
        if whole:
            logging.getLogger(PACKAGE_LOGGER).warning(
                "--limit limits %s; %s run whole", limited, whole
            )
        data["suites"] = suites
    for flag, option in (("emotions", "emotions"), ("eec_configs", "configs")):
        if getattr(args, flag, None) is not None:
            data["suites"] = _suite_option(
                data.get("suites"), option, names(getattr(args, flag)), flag
            )
    models = [
        dict(model) if isinstance(model, dict) else model for model in data.get("models") or []
    ]
    for option, value in (("batch_size", args.batch_size), ("device", args.device)):
        if value is None:
            continue
        takers = [
            m
            for m in models
            if isinstance(m, dict) and option in MODEL_TYPES.get(m.get("type", "encoder")).options
        ]
        if not takers:
            raise ConfigError(
                f"--{option.replace('_', '-')}: no model of the run takes a {option} option"
            )
        for model in takers:
            model["options"] = {**(model.get("options") or {}), option: value}
    if args.trust_remote_code:
        loaded = [m for m in models if isinstance(m, dict) and (m.get("id") or m.get("path"))]
        if not loaded:
            raise ConfigError(
                "--trust-remote-code: no model of the run is loaded from an id or path"
            )
        for model in loaded:
            model["trust_remote_code"] = True
    data["models"] = models
    return data


def _suite_option(suites, option: str, value: list[str], flag: str) -> dict:
    """The config's ``suites`` with ``option`` set to ``value`` in every suite that takes it
    (``--emotions``, ``--eec-configs``; the suites check the values).

    Raises:
        ConfigError: no suite of the run takes the option, or the flag names nothing.
    """
    from ..errors import ConfigError
    from ..suites import get_suite

    name = "--" + flag.replace("_", "-")
    if not value:
        raise ConfigError(f"{name} takes comma-separated names; got none")
    suites = {suite: {} for suite in suites} if isinstance(suites, list) else dict(suites or {})
    takers = [suite for suite in suites if option in get_suite(suite).options]
    if not takers:
        raise ConfigError(
            f"{name}: none of the suites {', '.join(suites)} takes {option}; drop {name}"
        )
    for suite in takers:
        suites[suite] = {**(suites[suite] or {}), option: value}
    return suites


def _model_arguments(text: str) -> dict:
    """``--model-args key=value,key=value`` as a mapping, the way lm-evaluation-harness takes them:
    the value of an option whose kind is a string alone (``prefix``, ``pooling``:
    :data:`~.models.registry.OPTION_KINDS`) is kept as it is, spaces included (``prefix=query: ``);
    any other is read as a YAML scalar (``true``, ``16``, ``bfloat16``) and checked against its
    option's kind with the config."""
    from ..errors import ConfigError
    from ..io import RefusedDocument, load_yaml
    from ..models.registry import OPTION_KINDS

    arguments = {}
    for item in (part for part in text.split(",") if part.strip()):
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals or not key:
            raise ConfigError(
                "--model-args takes key=value pairs separated by "
                f"commas, e.g. dtype=bfloat16; got {item.strip()!r}"
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
    """The config that ``--model/--model-args/--model-type/--suite/--languages/--seeds`` describe
    (``--config`` gives one from a file). A model-free type (``svm_tfidf``) is given by
    ``--model-type`` alone. ``--model-args`` is lm-evaluation-harness's: ``pretrained=ID`` (instead
    of ``--model``), ``revision=...``, ``trust_remote_code=true`` and the type's options
    (``dtype=bfloat16,device_map=auto``)."""
    from ..errors import ConfigError
    from ..models.packaged import PYPI_PREFIX
    from ..models.registry import MODEL_TYPES, model_type

    options = _model_arguments(args.model_args) if args.model_args else {}
    pretrained = options.pop("pretrained", None)
    revision = options.pop("revision", None) or args.revision
    trust_remote_code = options.pop("trust_remote_code", False)
    if trust_remote_code not in (True, False):
        raise ConfigError(
            f"--model-args trust_remote_code takes true or false, got {trust_remote_code!r}"
        )
    if pretrained is not None and args.model:
        raise ConfigError("give the model once: --model ID or --model-args pretrained=ID, not both")
    sources = args.model or ([str(pretrained)] if pretrained is not None else [])
    model_free = [name for name in MODEL_TYPES if not model_type(name).needs_source]
    needs_source = model_type(args.model_type).needs_source
    if not sources and needs_source:
        raise ConfigError(
            "xbias run needs --config FILE, or --model (with --suite and "
            f"--languages), or a model-free --model-type ({', '.join(model_free)})"
        )
    if sources and not needs_source:
        raise ConfigError(
            f"--model-type {args.model_type} is model-free (trained on SemEval-2018 "
            f"alone) and takes no --model; drop --model {' --model '.join(sources)}"
        )
    if not args.suite:
        raise ConfigError(
            "xbias run needs --suite with --model or --model-type, e.g. --suite eec,xweat"
        )
    models = [
        {
            "path" if m.startswith(PYPI_PREFIX) or Path(m).expanduser().exists() else "id": m,
            "type": args.model_type,
        }
        for m in sources
    ] or [{"type": args.model_type}]
    if options:
        models = [{**model, "options": options} for model in models]
    if trust_remote_code:
        models = [{**model, "trust_remote_code": True} for model in models]
    if revision:
        paths = [model["path"] for model in models if "path" in model]
        if paths or not sources:
            raise ConfigError(
                "--revision pins a Hub model (--model "
                f"ORG/NAME); {', '.join(paths) or 'none'} given"
            )
        models = [{**model, "revision": revision} for model in models]
    suites = {name: {} for name in names(args.suite)}
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
        config["languages"] = names(args.languages)
    if args.seeds is not None:  # `--seeds ''` is refused, not read as "the default seeds"
        seeds = names(args.seeds)
        if not seeds or not all(seed.isdigit() for seed in seeds):
            raise ConfigError(
                "--seeds takes non-negative integers separated "
                f"by commas, e.g. 0,1,2; got {args.seeds!r}"
            )
        config["seeds"] = [int(seed) for seed in seeds]
    return config
