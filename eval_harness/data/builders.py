"""The datasets' builders and the build step: sources -> tables -> Hub-ready folder.

Each built-in dataset is one :class:`DatasetBuilder` here (:data:`EEC`, :data:`XWEAT`,
:data:`GENDER_LISTS`, :data:`SEMEVAL2018_AFFECT`), registered by name in the dataset registry,
:data:`eval_harness.data.catalog.DATASETS` (which a plug-in extends with ``register``, or an entry
point in the ``xbias.datasets`` group, naming its own builder).
:func:`build_datasets` always rebuilds; :func:`dataset_folder` builds into the
xbias cache only when the folder is missing, a file of it is missing or changed, or
its stamp says it came from other sources or another builder (a fingerprint of the
builder code, card template and pyarrow version). Folders are built and verified by
the storage kit (:func:`eval_harness.io.build_folder`); one built by an older xbias,
without the kit's marker, is built again.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from .. import paths
from ..errors import ConfigError
from ..io import folder_problem, verify_checksums, write_problem
from . import catalog, eec, gender_lists, hub_folder, semeval, sources, xweat

TableSplits = Mapping[str, Mapping[str, pa.Table]]  # config -> split -> table


@dataclass(frozen=True)
class DatasetBuilder:
    """How one dataset is built: its source files, configs, tables and card.

    ``tables`` maps verified source paths to config -> split -> table;
    ``card_fields`` gives the dataset-specific ``{{ fields }}`` of its card
    template (``cards/<name>.md``); ``extra_files`` are source files copied into
    the folder under a name (licences). ``not_redistributable``: why the sources'
    terms forbid publishing the data (None: they do not), so that
    :func:`push_dataset` refuses a public upload.
    """

    name: str
    sources: tuple[str, ...]
    configs: tuple[str, ...]
    tables: Callable[[Mapping[str, Path]], TableSplits]
    module: Path
    card_fields: Callable[[TableSplits], dict[str, str]] = lambda tables: {}
    extra_files: Mapping[str, str] = field(default_factory=dict)
    not_redistributable: str | None = None

    def fingerprint(self) -> str:
        """sha256 of what determines the output: builder code, card template, pyarrow version."""
        digest = hashlib.sha256(pa.__version__.encode())
        here = Path(__file__).resolve().parent
        for path in (
            here / "sources.py",
            here / "hub_folder.py",
            here / "builders.py",
            self.module,
            hub_folder.CARDS_DIR / f"{self.name}.md",
        ):
            digest.update(path.read_bytes())
        return digest.hexdigest()


def _single_split(build: Callable[[Mapping[str, Path]], Mapping[str, pa.Table]]) -> Callable:
    """Wrap a config -> table builder as config -> {"train": table} (a list or corpus has one
    split)."""
    return lambda located: {config: {"train": table} for config, table in build(located).items()}


def _eec_card_fields(tables: TableSplits) -> dict[str, str]:
    emotion_rows, group_rows = [], []
    for config, splits in tables.items():
        rows = splits["train"].to_pylist()
        emotions = Counter(row["emotion"] or "none" for row in rows)
        emotion_rows.append(
            [config, *(emotions[name] for name in (*catalog.EEC_EMOTIONS, "none")), len(rows)]
        )
        groups = Counter((row["group"] or "(noun phrase)", row["gender"]) for row in rows)
        group_rows += [
            [config, group, gender, count] for (group, gender), count in sorted(groups.items())
        ]
    return {
        "emotion_table": hub_folder.markdown_table(
            ["config", *catalog.EEC_EMOTIONS, "neutral", "rows"], emotion_rows
        ),
        "group_table": hub_folder.markdown_table(["config", "group", "gender", "rows"], group_rows),
    }


def _xweat_card_fields(tables: TableSplits) -> dict[str, str]:
    size_rows = []
    for language in catalog.XWEAT_LANGUAGES:
        rows = {
            (row["test"], row["role"]): len(row["words"])
            for row in tables[language]["train"].to_pylist()
        }
        tests = list(dict.fromkeys(test for test, _ in rows))
        size_rows.append(
            [
                language,
                *("/".join(str(rows[test, role]) for role in xweat.XWEAT_ROLES) for test in tests),
            ]
        )
    shared = [
        f"  - `{language}` {test} {kind}: {', '.join(words)}"
        for language in catalog.XWEAT_LANGUAGES
        for test, kind, words in xweat.shared_words(tables[language]["train"])
    ]
    return {
        "size_table": hub_folder.markdown_table(["language", *tests], size_rows),
        "shared_words": "\n".join(shared) or "  - none",
    }


EEC = DatasetBuilder(
    name="eec",
    sources=tuple(source for source, _ in eec.EEC_SOURCES.values()),
    configs=catalog.EEC_CONFIGS,
    tables=_single_split(eec.eec_tables),
    module=Path(eec.__file__),
    card_fields=_eec_card_fields,
)
XWEAT = DatasetBuilder(
    name="xweat",
    sources=(
        xweat.XWEAT_TESTS_FILE,
        *(xweat.dictionary_file(lang) for lang in catalog.XWEAT_LANGUAGES[1:]),
    ),
    configs=(*catalog.XWEAT_LANGUAGES, "translations"),
    tables=_single_split(xweat.xweat_tables),
    module=Path(xweat.__file__),
    card_fields=_xweat_card_fields,
)
GENDER_LISTS = DatasetBuilder(
    name="gender_lists",
    sources=tuple(gender_lists.GENDER_LIST_SOURCES),
    configs=catalog.GENDER_LIST_CONFIGS,
    tables=_single_split(gender_lists.gender_list_tables),
    module=Path(gender_lists.__file__),
    extra_files={"LICENSE.debiaswe": "gender_lists/LICENSE.debiaswe"},
)
SEMEVAL2018_AFFECT = DatasetBuilder(
    name="semeval2018_affect",
    sources=tuple(semeval.SEMEVAL_SOURCES),
    configs=tuple(
        semeval.semeval_config(language, dimension)
        for language in catalog.SEMEVAL_LANGUAGES
        for dimension in catalog.SEMEVAL_DIMENSIONS
    ),
    tables=semeval.semeval_tables,
    module=Path(semeval.__file__),
    not_redistributable=(
        "the SemEval-2018 Task 1 terms of use say: do not redistribute the data, direct "
        "interested parties to https://competitions.codalab.org/competitions/17751"
    ),
)


def _builder(name: str) -> DatasetBuilder:
    """The builder of dataset ``name`` (:class:`ConfigError` naming the datasets when there is
    none)."""
    return catalog.DATASETS.get(name)


def build_dataset(
    name: str,
    out_dir: str | os.PathLike | None = None,
    source_dir=None,
    added_files: Mapping[str, str] | None = None,
) -> Path:
    """Build dataset ``name`` into ``out_dir/<name>`` (default: :func:`paths.datasets_dir`) and
    return the folder.

    ``added_files``: further text files of the folder by relative path (its ``eval.yaml`` as a Hub
    benchmark, which the report's methods define: :mod:`eval_harness.report.benchmarks`), sealed
    with the rest.
    """
    builder = _builder(name)
    folder = _dataset_folder(name, out_dir)
    located = sources.source_paths(builder.sources, source_dir)
    tables = builder.tables(located)
    files, files_by_config = hub_folder.encode_tables(tables)
    files.update(
        {target: located[source].read_bytes() for target, source in builder.extra_files.items()}
    )
    files.update({target: text.encode("utf-8") for target, text in (added_files or {}).items()})
    rows = {
        config: {split: table.num_rows for split, table in splits.items()}
        for config, splits in tables.items()
    }
    card = hub_folder.render_card(
        name,
        hub_folder.configs_yaml(files_by_config),
        {
            "rows_table": hub_folder.markdown_table(
                ["config", "split", "rows"],
                [
                    [config, split, count]
                    for config, splits in rows.items()
                    for split, count in splits.items()
                ],
            ),
            **builder.card_fields(tables),
        },
    )
    stamp = {**_expected_stamp(name), "rows": rows, "files": files_by_config}
    hub_folder.write_folder(folder, files, card, stamp, owner=_owner(name))
    return folder


def _owner(name: str) -> dict:
    """What a dataset folder's marker says of a folder xbias built for dataset ``name``
    (:func:`io.write_problem`)."""
    return {"dataset": name}


def _dataset_folder(name: str, out_dir) -> Path:
    """``out_dir/<name>``, once xbias may replace it (the write rule, :func:`io.write_problem`):
    new, empty, or a folder xbias built for this dataset, holding nothing else and no symbolic link.

    Raises:
        ConfigError: naming the folder, what is in the way and the fix.
    """
    folder = Path(out_dir or paths.datasets_dir()) / name
    problem = write_problem(folder, _owner(name))
    if problem is not None:
        raise ConfigError(
            f"cannot build the dataset {name} into {folder}: {problem}; give another --out"
        )
    return folder


def build_datasets(names=None, out_dir=None, source_dir=None, added_files=None) -> dict[str, Path]:
    """Build the named datasets (default: all) into ``out_dir/<name>``; returns name -> folder.

    Source files come from ``source_dir``, else ``$XBIAS_SOURCE_DIR``, else are
    downloaded (:mod:`eval_harness.data.sources`). ``added_files``: per dataset name, the further
    files of :func:`build_dataset`.
    """
    names = list(names or catalog.DATASETS.names())
    for name in names:
        _builder(name)
    problem = folder_problem(out_dir) if out_dir is not None else None
    if problem is not None:  # checked before any source is read or anything written
        raise ConfigError(
            f"cannot build the datasets into {out_dir}: {problem}; give another --out"
        )
    for name in names:
        _dataset_folder(name, out_dir)  # every folder checked before any is built
    return {
        name: build_dataset(name, out_dir, source_dir, (added_files or {}).get(name))
        for name in names
    }


def is_current(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds dataset ``name`` built by this builder from the registered sources,
    every file as it was written (the storage kit's verify-on-read)."""
    return verify_checksums(folder, _expected_stamp(name)) is not None


def _expected_stamp(name: str) -> dict:
    """What a build of dataset ``name`` by this builder from the registered sources says about
    itself."""
    builder = _builder(name)
    return {
        "dataset": name,
        "builder": builder.fingerprint(),
        "sources": {relative: sources.SOURCES[relative].sha256 for relative in builder.sources},
    }


def dataset_folder(name: str, source_dir=None) -> Path:
    """The built folder of dataset ``name`` in the xbias cache, built first if missing or stale."""
    folder = paths.datasets_dir() / name
    if not is_current(folder, name):
        build_dataset(name, paths.datasets_dir(), source_dir)
    return folder


def check_config(name: str, config: str) -> None:
    """Raise :class:`ConfigError` naming the valid configs when ``config`` is not one of dataset
    ``name``'s."""
    if config not in _builder(name).configs:
        raise ConfigError(
            f"unknown {name} config {config!r}: valid "
            f"configs are {', '.join(_builder(name).configs)}"
        )


def build_summary(folders: Mapping[str, Path], width: int = 100) -> str:
    """A one-screen summary of built folders: per dataset its folder, then ``config rows`` (rows per
    split)."""
    lines = []
    for name, folder in folders.items():
        marker = verify_checksums(folder)
        stamp = marker["stamp"] if marker is not None else {"rows": {}}
        splits = next(iter(stamp["rows"].values()), {})
        lines.append(
            f"{name} ({len(stamp['rows'])} configs; rows per {'/'.join(splits)}): {folder}"
        )
        entries = [
            f"{config} {'/'.join(f'{count:,}' for count in counts.values())}"
            for config, counts in stamp["rows"].items()
        ]
        line = " "
        for entry in entries:
            if len(line) + len(entry) + 3 > width:
                lines.append(line.rstrip(" |"))
                line = " "
            line += f" {entry} |"
        lines.append(line.rstrip(" |"))
    return "\n".join(lines)


def push_dataset(
    name: str, folder: Path, repo_id: str, private: bool = False, token: str | None = None
) -> str:
    """Upload the built folder of dataset ``name`` to the Hub dataset ``repo_id``, tagged with its
    fingerprint (:func:`dataset_fingerprint`); returns the commit's URL.

    Raises:
        ConfigError: a public upload of a dataset whose sources' terms forbid redistribution.
        XBiasError: the Hub refused or could not be reached.
    """
    reason = _builder(name).not_redistributable
    if reason and not private:
        raise ConfigError(
            f"not pushing {name} publicly: {reason}; push it --private for your own use, if at all"
        )
    return hub_folder.push_to_hub(
        folder, repo_id, private=private, token=token, tag=dataset_fingerprint(name)
    )


def dataset_fingerprint(name: str) -> str:
    """A short fingerprint of what dataset ``name`` is built from: its builder (code, card template,
    pyarrow version) and the sha256 of each source file. Two runs with the same fingerprint read the
    same rows."""
    builder = _builder(name)
    digest = hashlib.sha256(builder.fingerprint().encode())
    for relative in sorted(builder.sources):
        digest.update(f"{relative}:{sources.SOURCES[relative].sha256}\n".encode())
    return digest.hexdigest()[:16]
