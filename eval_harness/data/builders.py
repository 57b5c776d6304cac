"""The datasets' builders and the build step: sources -> tables -> Hub-ready folder.

Each built-in dataset is one :class:`DatasetBuilder` here (:data:`EEC`, :data:`XWEAT`, :data:`GENDER_LISTS`,
:data:`SEMEVAL2018_AFFECT`), registered by name in the dataset registry,
:data:`eval_harness.data.catalog.DATASETS` (which a plug-in extends with ``register``, or an entry point in the
``xbias.datasets`` group, naming its own builder).
:func:`build_datasets` always rebuilds; :func:`dataset_folder` builds into the
xbias cache only when the folder is missing, a file of it is missing or changed, or
its stamp says it came from other sources or another builder (a fingerprint of the
builder code, card template and pyarrow version). Folders are built and verified by
the storage kit (:func:`eval_harness.io.build_folder`); one built by an older xbias,
without the kit's marker, is built again.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from .. import paths
from ..errors import ConfigError, XBiasError
from ..io import verify_checksums
from . import catalog, eec, gender_lists, hub_folder, semeval, sources, xweat

TableSplits = Mapping[str, Mapping[str, pa.Table]]  # config -> split -> table


@dataclass(frozen=True)
class DatasetBuilder:
    """How one dataset is built: its source files, configs, tables and card.

    ``tables`` maps verified source paths to config -> split -> table;
    ``card_fields`` gives the dataset-specific ``{{ fields }}`` of its card
    template (``cards/<name>.md``); ``extra_files`` are source files copied into
    the folder under a name (licences).
    """

    name: str
    sources: tuple[str, ...]
    configs: tuple[str, ...]
    tables: Callable[[Mapping[str, Path]], TableSplits]
    module: Path
    card_fields: Callable[[TableSplits], dict[str, str]] = lambda tables: {}
    extra_files: Mapping[str, str] = field(default_factory=dict)

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
    """Wrap a config -> table builder as config -> {"train": table} (a list or corpus has one split)."""
    return lambda located: {config: {"train": table} for config, table in build(located).items()}


def _eec_card_fields(tables: TableSplits) -> dict[str, str]:
    emotion_rows, group_rows = [], []
    for config, splits in tables.items():
        rows = splits["train"].to_pylist()
        emotions = Counter(row["emotion"] or "none" for row in rows)
        emotion_rows.append([config, *(emotions[name] for name in (*catalog.EEC_EMOTIONS, "none")), len(rows)])
        groups = Counter((row["group"] or "(noun phrase)", row["gender"]) for row in rows)
        group_rows += [[config, group, gender, count] for (group, gender), count in sorted(groups.items())]
    return {
        "emotion_table": hub_folder.markdown_table(["config", *catalog.EEC_EMOTIONS, "neutral", "rows"], emotion_rows),
        "group_table": hub_folder.markdown_table(["config", "group", "gender", "rows"], group_rows),
    }


def _xweat_card_fields(tables: TableSplits) -> dict[str, str]:
    size_rows = []
    for language in catalog.XWEAT_LANGUAGES:
        rows = {(row["test"], row["role"]): len(row["words"]) for row in tables[language]["train"].to_pylist()}
        tests = list(dict.fromkeys(test for test, _ in rows))
        size_rows.append([language, *("/".join(str(rows[test, role]) for role in xweat.XWEAT_ROLES) for test in tests)])
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
    sources=(xweat.XWEAT_TESTS_FILE, *(xweat.dictionary_file(lang) for lang in catalog.XWEAT_LANGUAGES[1:])),
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
)


def _builder(name: str) -> DatasetBuilder:
    """The builder of dataset ``name`` (:class:`ConfigError` naming the datasets when there is none)."""
    return catalog.DATASETS.get(name)


def build_dataset(name: str, out_dir: str | os.PathLike | None = None, source_dir=None) -> Path:
    """Build dataset ``name`` into ``out_dir/<name>`` (default: :func:`paths.datasets_dir`) and return the folder."""
    builder = _builder(name)
    located = sources.source_paths(builder.sources, source_dir)
    tables = builder.tables(located)
    files, files_by_config = hub_folder.encode_tables(tables)
    files.update({target: located[source].read_bytes() for target, source in builder.extra_files.items()})
    rows = {config: {split: table.num_rows for split, table in splits.items()} for config, splits in tables.items()}
    card = hub_folder.render_card(
        name,
        hub_folder.configs_yaml(files_by_config),
        {
            "rows_table": hub_folder.markdown_table(
                ["config", "split", "rows"],
                [[config, split, count] for config, splits in rows.items() for split, count in splits.items()],
            ),
            **builder.card_fields(tables),
        },
    )
    stamp = {**_expected_stamp(name), "rows": rows, "files": files_by_config}
    folder = Path(out_dir or paths.datasets_dir()) / name
    hub_folder.write_folder(folder, files, card, stamp)
    return folder


def build_datasets(names=None, out_dir=None, source_dir=None) -> dict[str, Path]:
    """Build the named datasets (default: all) into ``out_dir/<name>``; returns name -> folder.

    Source files come from ``source_dir``, else ``$XBIAS_SOURCE_DIR``, else are
    downloaded (:mod:`eval_harness.data.sources`).
    """
    names = list(names or catalog.DATASETS.names())
    for name in names:
        _builder(name)
    return {name: build_dataset(name, out_dir, source_dir) for name in names}


def is_current(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds dataset ``name`` built by this builder from the registered sources, every file
    as it was written (the storage kit's verify-on-read)."""
    return verify_checksums(folder, _expected_stamp(name)) is not None


def _expected_stamp(name: str) -> dict:
    """What a build of dataset ``name`` by this builder from the registered sources says about itself."""
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
    """Raise :class:`ConfigError` naming the valid configs when ``config`` is not one of dataset ``name``'s."""
    if config not in _builder(name).configs:
        raise ConfigError(f"unknown {name} config {config!r}: valid configs are {', '.join(_builder(name).configs)}")


def build_summary(folders: Mapping[str, Path], width: int = 100) -> str:
    """A one-screen summary of built folders: per dataset its folder, then ``config rows`` (rows per split)."""
    lines = []
    for name, folder in folders.items():
        marker = verify_checksums(folder)
        stamp = marker["stamp"] if marker is not None else {"rows": {}}
        splits = next(iter(stamp["rows"].values()), {})
        lines.append(f"{name} ({len(stamp['rows'])} configs; rows per {'/'.join(splits)}): {folder}")
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


def run_build_script(name: str, argv: list[str] | None = None) -> int:
    """``datasets_scripts/<name>/build.py``: build one dataset (``--out``, ``--source-dir``, ``--push-to-hub``)."""
    parser = argparse.ArgumentParser(description=f"Build the {name} dataset into a Hub-ready folder (parquet + card).")
    parser.add_argument("--out", help=f"parent folder: the dataset is written to OUT/{name} (default: xbias cache)")
    parser.add_argument("--source-dir", help="folder with the source files (default: $XBIAS_SOURCE_DIR, else download)")
    parser.add_argument("--push-to-hub", metavar="REPO_ID", help="also upload the folder to this Hub dataset repo")
    parser.add_argument("--private", action="store_true", help="create the Hub repo as private")
    args = parser.parse_args(argv)
    try:
        folder = build_dataset(name, args.out, args.source_dir)
        print(build_summary({name: folder}))
        if args.push_to_hub:
            print(f"pushed: {hub_folder.push_to_hub(folder, args.push_to_hub, private=args.private)}")
    except XBiasError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    return 0


def dataset_fingerprint(name: str) -> str:
    """A short fingerprint of what dataset ``name`` is built from: its builder (code, card template, pyarrow
    version) and the sha256 of each source file. Two runs with the same fingerprint read the same rows."""
    builder = _builder(name)
    digest = hashlib.sha256(builder.fingerprint().encode())
    for relative in sorted(builder.sources):
        digest.update(f"{relative}:{sources.SOURCES[relative].sha256}\n".encode())
    return digest.hexdigest()[:16]
