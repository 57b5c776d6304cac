"""File writes that never leave half a file, built folders that are whole or absent, and file
digests: the package's one home for all three.

- :func:`atomic_write_bytes` / :func:`atomic_write_text` / :func:`atomic_write_json`: readers
  see the old file or the whole new one. The data go to a temporary file in the same folder,
  are flushed to disk, and are renamed over the target. The file gets the permissions a plain
  ``open(path, "w")`` would give (0666 less the umask): results are meant to be shared.
- :func:`read_json`: the JSON in a file, or None (missing, unreadable, not JSON).
- Bounded reading, for every document a user or a folder hands over: :func:`read_bytes` /
  :func:`read_text` read only a regular file (never a FIFO that blocks or a device that never ends),
  up to a size; :func:`parse_json` treats JSON nested too deep as damaged; :func:`load_yaml` is
  ``safe_load`` that refuses alias bombs, a key written twice and nesting too deep
  (:class:`RefusedDocument`); :func:`read_cache_entry` is the read rule for a cache entry: those
  bytes, and only when they match the checksum they were stored with.
- :func:`file_sha256`: a file's sha256, read in blocks.
- The storage kit, for every folder xbias builds into a cache (datasets, converted models, fitted
  regressors): :func:`build_folder` builds a folder in a temporary sibling, under an exclusive
  ``flock`` on a sibling lock file (two processes never build one folder at once; the second
  finds the first's), seals it with :func:`write_checksums` (the marker ``.xbias-build.json``:
  a stamp saying what was built, and the sha256 of every file, written last) and renames it into
  place. :func:`verify_checksums` is the verify-on-read: a folder counts only when it holds
  exactly the files its marker lists, with those digests, and its stamp is the one expected. A
  crash leaves a hidden staging folder beside it (the next build of that folder removes it),
  never a half-built folder where a finished one is looked for.
- :func:`replace_folder`: a whole folder put in the place of another in one step;
  :func:`write_folder_whole`: a folder of given files built and put in place that way, sealed with
  its writer's marker (report, compare, details).
- :func:`folder_problem`: why a folder could not be created or written here, checked before any
  work; :func:`whole_folder_problem`: that and the write rule, for a folder replaced whole;
  :func:`output_folder` and :func:`write_output_folder`: a command's output folder
  (:class:`OutputFolder`: a report, its details, a comparison) checked before any work, then written
  whole, with one-line errors.
- :func:`write_problem`: the write rule every command that writes follows (docs/run_folder.md):
  xbias writes into a folder it created or one whose marker says it is xbias's, never through a
  symbolic link, and replaces only the files it wrote; checked before anything is written.
"""

import ctypes
import errno
import fcntl
import functools
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError

BUILD_MARKER = ".xbias-build.json"
MARKER_FORMAT = 1
_BLOCK = 1 << 20
# The largest JSON / YAML document read whole (a unit file, run.json, a config): far above any xbias
# writes.
MAX_DOCUMENT_BYTES = 256 << 20
# The most nodes a YAML document may hold once its aliases are expanded: a hand-written config has
# hundreds; an "alias bomb" (nine lists of nine aliases of the one before, 500 bytes) has billions.
MAX_YAML_NODES = 100_000
# The largest cache entry read (an embeddings array, a fitted head's arrays): a sweep's largest is
# some hundred MB.
MAX_CACHE_ENTRY_BYTES = 4 << 30


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see the module docstring); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = _new_temporary(path)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def _new_temporary(path: Path) -> tuple[int, Path]:
    """A new file beside ``path``, open for writing, created with mode 0666 so that the kernel
    applies the umask (as a plain ``open(path, "w")`` does; ``mkstemp`` would make it 0600, and
    reading the umask means setting it, which races with other threads)."""
    while True:
        temporary = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666
            ), temporary
        except FileExistsError:
            continue


# The name of an atomic write's temporary file (:func:`_new_temporary`): ``.<name>.<12 hex
# digits>.tmp``.
_TEMPORARY_NAME = re.compile(r"\..+\.[0-9a-f]{12}\.tmp")


def leftover_temporaries(folder: Path) -> list[Path]:
    """The temporary files a killed atomic write left in ``folder`` (regular files named as
    :func:`_new_temporary` names them): what a writer holding the folder's lock may remove. A user's
    own ``.notes.tmp``, or a link, is not one."""
    return sorted(
        path
        for path in folder.glob(".*.tmp")
        if _TEMPORARY_NAME.fullmatch(path.name) and path.is_file() and not path.is_symlink()
    )


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """:func:`atomic_write_bytes` of ``text`` in UTF-8."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, data: Any, indent: int | None = 1) -> Path:
    """:func:`atomic_write_text` of ``data`` as JSON (NaN and infinities refused: they are not
    JSON)."""
    return atomic_write_text(
        path, json.dumps(data, indent=indent, sort_keys=True, allow_nan=False) + "\n"
    )


def read_json(path: str | os.PathLike) -> Any:
    """The JSON in ``path``, or None when the file is missing, unreadable, not a regular file,
    larger than :data:`MAX_DOCUMENT_BYTES`, or not JSON (nested too deep included)."""
    try:
        return parse_json(read_text(path))
    except (OSError, ValueError):
        return None


class RefusedDocument(ValueError):
    """A document (JSON, YAML) the package will not read: larger or deeper than it reads, or with a
    key twice in one mapping. Its message names the reason (and where) and never quotes the
    document, so it is safe to show: :func:`~eval_harness.errors.unreadable_file` shows it
    (``says_why``)."""

    says_why = True


def read_bytes(path: str | os.PathLike, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (a symlink to one counts), at most ``limit`` of them.

    A FIFO would block forever and a device (``/dev/zero``) never ends: only a regular file is read.
    The FIFO is opened without waiting for a writer (``O_NONBLOCK``), then refused.

    Raises:
        OSError: missing, unreadable, not a regular file, or larger than ``limit`` bytes
        (``strerror`` says which).
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(
                errno.EINVAL, "not a regular file (a FIFO, a device or a folder)", str(path)
            )
        if status.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
        chunks, left = (
            [],
            limit + 1,
        )  # one byte more than allowed tells a file that grew while being read
        while left and (chunk := os.read(descriptor, min(left, _BLOCK))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    return data


def read_cache_entry(
    path: str | os.PathLike, sha256: str | None = None, limit: int = MAX_CACHE_ENTRY_BYTES
) -> bytes | None:
    """The bytes of the cache entry ``path`` when it is a regular file of at most ``limit`` bytes
    whose sha256 is ``sha256`` (None: the entry checks itself, as an embeddings file's header does);
    None otherwise (missing, a FIFO, a device, too large, unreadable, or another digest): the caller
    computes the entry again. Never blocks.
    """
    try:
        data = read_bytes(path, limit)
    except OSError:
        return None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        return None
    return data


def read_text(path: str | os.PathLike, limit: int = MAX_DOCUMENT_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a ``UnicodeDecodeError``, a ``ValueError``, where it is
    not)."""
    return read_bytes(path, limit).decode("utf-8")


def parse_json(text: str | bytes) -> Any:
    """``json.loads(text)``, with JSON nested deeper than the interpreter recurses (``[[[[...]]]]``)
    refused as damaged (:class:`RefusedDocument`, a ``ValueError``) instead of raising
    ``RecursionError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise RefusedDocument("JSON nested too deep to read (damaged?)") from None


def load_yaml(text: str, max_nodes: int = MAX_YAML_NODES) -> Any:
    """``yaml.safe_load(text)`` of one document, refusing (:class:`RefusedDocument`) what safe_load
    takes silently:

    - aliases that expand past ``max_nodes`` nodes. The expanded size of a node is
      :math:`n(v) = 1 + \\sum_{c \\in \\text{children}(v)} n(c)`, counted once per distinct node
      (memoised), so the count takes time linear in the document even when :math:`n` is
      astronomical;
    - nesting deeper than the interpreter recurses, and an alias inside the node it names (a cycle);
    - a key written twice in one mapping (safe_load keeps the last, silently; a merge key ``<<`` may
      still be overridden).

    Raises:
        RefusedDocument: one of the above; yaml.YAMLError: not YAML.
    """
    import yaml

    loader = _strict_yaml_loader()(text)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _count_expanded_nodes(node, max_nodes, {}, set())
            return loader.construct_document(node)
        except RecursionError:
            raise RefusedDocument("YAML nested too deep to read") from None
    except yaml.constructor.ConstructorError as error:
        if isinstance(getattr(error, "duplicate_key_mark", None), yaml.Mark):
            mark = error.duplicate_key_mark
            raise RefusedDocument(
                f"a key is written twice in one mapping (line {mark.line + 1}, "
                f"column {mark.column + 1}): each setting once"
            ) from None
        raise
    finally:
        loader.dispose()


def _count_expanded_nodes(
    node: Any, limit: int, counted: dict[int, int], open_nodes: set[int]
) -> int:
    """The expanded size of a composed YAML ``node`` (:func:`load_yaml`), memoised in ``counted`` by
    node id."""
    if id(node) in counted:
        return counted[id(node)]
    if id(node) in open_nodes:
        raise RefusedDocument("a YAML alias refers to a node that contains it (a cycle)")
    children = node.value if isinstance(node.value, list) else []
    open_nodes.add(id(node))
    size = 1
    for child in children:
        for part in (
            child if isinstance(child, tuple) else (child,)
        ):  # a mapping's (key, value) pairs
            size += _count_expanded_nodes(part, limit, counted, open_nodes)
            if size > limit:
                raise RefusedDocument(
                    f"YAML whose aliases expand to more than {limit:,} nodes (an alias bomb?)"
                )
    open_nodes.discard(id(node))
    counted[id(node)] = size
    return size


@functools.cache
def _strict_yaml_loader() -> type:
    """A ``yaml.SafeLoader`` whose mappings refuse a key written twice (the error carries
    ``duplicate_key_mark``)."""
    import yaml

    class StrictSafeLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        repeated = key in seen
                        seen.add(key)
                    except TypeError:  # an unhashable key: safe_load refuses it itself
                        continue
                    if repeated:
                        error = yaml.constructor.ConstructorError(
                            None, None, "a key twice", key_node.start_mark
                        )
                        error.duplicate_key_mark = key_node.start_mark
                        raise error
            return super().construct_mapping(node, deep)

    return StrictSafeLoader


def file_sha256(path: str | os.PathLike) -> str:
    """Hex sha256 of a regular file's bytes, read in 1 MiB blocks.

    Raises:
        OSError: missing, unreadable, or not a regular file (a FIFO is never waited on, a device
        never read).
    """
    digest = hashlib.sha256()
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(
                errno.EINVAL, "not a regular file (a FIFO, a device or a folder)", str(path)
            )
        for block in iter(lambda: stream.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(folder: str | os.PathLike, stamp: Mapping[str, Any] | None = None) -> dict:
    """Seal ``folder``: write its marker (``stamp`` and the sha256 of every other file in it), last;
    returns it."""
    folder = Path(folder)
    marker = {"format": MARKER_FORMAT, "stamp": dict(stamp or {}), "files": _digests(folder)}
    atomic_write_json(folder / BUILD_MARKER, marker)
    return marker


def verify_checksums(
    folder: str | os.PathLike, expect: Mapping[str, Any] | None = None
) -> dict | None:
    """The marker of ``folder`` when the folder holds exactly the files it lists, with those
    contents, and its stamp has every item of ``expect``; None otherwise (no marker, a marker of
    another format, a missing, extra or changed file, another stamp)."""
    folder = Path(folder)
    marker = read_json(folder / BUILD_MARKER)
    if not isinstance(marker, dict) or marker.get("format") != MARKER_FORMAT:
        return None
    stamp, files = marker.get("stamp"), marker.get("files")
    if not isinstance(stamp, dict) or not isinstance(files, dict):
        return None
    if any(stamp.get(key) != value for key, value in (expect or {}).items()):
        return None
    return marker if _digests(folder) == files else None


def _digests(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): file_sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.relative_to(folder).as_posix() != BUILD_MARKER
    }


def build_folder(
    folder: str | os.PathLike,
    build: Callable[[Path], Mapping[str, Any] | None],
    expect: Mapping[str, Any] | None = None,
    *,
    rebuild: bool = False,
    owner: Mapping[str, Any] | None = None,
) -> dict:
    """The marker of ``folder``, a verified build whose stamp has ``expect``'s items, built now when
    there is none (or always, with ``rebuild``).

    ``owner``: the stamp items that say a folder is this writer's (:func:`write_problem`); with it,
    a folder that is not (a foreign one, or one holding a file the marker does not list, or a
    symbolic link) is never replaced: checked again under the lock, right before the build.

    ``build(staging)`` writes the folder's files into ``staging`` (an empty folder beside
    ``folder``) and may return more stamp items (what only the build knows: row counts...). The
    stamp is ``expect`` plus those. Under the lock the folder is looked at again, so a process that
    waited for another's build uses it. The previous folder, if any, is renamed aside and the new
    one renamed into its place: between the two renames a reader finds no folder (and, building it,
    waits for the lock and then finds the new one), never a mixed one.

    Raises:
        OSError: the parent cannot be created or written; whatever ``build`` raises (nothing is left
            but the lock file). ``FileExistsError`` (its message the :func:`write_problem`) for a
            folder not ``owner``'s.
    """
    folder = Path(folder)
    expect = {**(owner or {}), **(expect or {})}
    if not rebuild and (marker := verify_checksums(folder, expect)) is not None:
        return marker
    folder.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(folder.parent / f".{folder.name}.lock"):
        if not rebuild and (marker := verify_checksums(folder, expect)) is not None:
            return marker  # another process built it while this one waited
        if owner is not None and (problem := write_problem(folder, owner)) is not None:
            raise FileExistsError(errno.EEXIST, problem, str(folder))
        remove_siblings(folder, ("building", "retired"))
        staging = new_sibling(folder, "building")
        try:
            extra = build(staging)
            marker = write_checksums(staging, {**expect, **(extra or {})})
            _swap_in(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return marker


def write_folder_whole(
    folder: str | os.PathLike, contents: Mapping[str, bytes], owner: Mapping[str, Any]
) -> dict:
    """Put a folder holding exactly ``contents`` (relative path -> bytes, each file flushed to disk)
    in the place of ``folder``, whole (:func:`build_folder`: a reader finds the old folder or the
    new one), when the write rule lets ``owner`` replace it (:func:`write_problem`); returns the
    marker, whose stamp is ``owner``.

    Raises:
        OSError: as :func:`build_folder` (its ``filename`` the file being written);
            ``FileExistsError`` for a folder that is not ``owner``'s.
    """

    def write(staging: Path) -> None:
        for name, data in contents.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                write_new_file(path, data)
            except OSError as error:  # named by the file being written (its path in the folder)
                raise OSError(error.errno, error.strerror, name) from error

    return build_folder(folder, write, rebuild=True, owner=owner)


def write_new_file(path: str | os.PathLike, data: bytes) -> None:
    """``data`` in a new file ``path`` (never an existing one: ``FileExistsError``), flushed to
    disk."""
    with open(path, "xb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())


@contextmanager
def exclusive_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing; kept afterwards): other
    processes wait."""
    # O_NOFOLLOW: a symbolic link planted at the lock's name is refused (ELOOP), never opened (nor
    # created) through
    descriptor = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666
    )
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


def new_sibling(folder: Path, role: str) -> Path:
    """A new empty hidden folder ``.<name>.<role>-<random>`` beside ``folder`` (``mkdir``, so it
    gets the umask's permissions, as ``folder`` would)."""
    while True:
        sibling = folder.parent / f".{folder.name}.{role}-{secrets.token_hex(6)}"
        try:
            sibling.mkdir()
            return sibling
        except FileExistsError:
            continue


def remove_siblings(folder: Path, roles: tuple[str, ...]) -> None:
    """The :func:`new_sibling` folders of these roles beside ``folder``: what a process that died
    while building it left (called under the lock, or by the one writer, so no live builder has
    any)."""
    for role in roles:
        for leftover in folder.parent.glob(f".{glob.escape(folder.name)}.{role}-*"):
            shutil.rmtree(leftover, ignore_errors=True)


def _swap_in(staging: Path, folder: Path) -> None:
    replace_folder(staging, folder)


def replace_folder(staging: str | os.PathLike, folder: str | os.PathLike) -> None:
    """Put the folder ``staging`` in the place of ``folder`` (a sibling, which may not exist) and
    remove the old
    one: a reader finds the old folder or the new one, whole, never a mix.

    Where the OS can (Linux ``renameat2(RENAME_EXCHANGE)``) the two are exchanged in one step, so
    there is no moment without a folder; elsewhere the old one is renamed aside and the new one into
    place, with SIGINT and SIGTERM held back in between (a kill -9 there leaves the old one aside,
    as ``.<name>.retired-*``).
    """
    staging, folder = Path(staging), Path(folder)
    if _exchange(staging, folder):
        shutil.rmtree(staging, ignore_errors=True)  # it holds the old folder now
        return
    retired = folder.parent / f".{folder.name}.retired-{secrets.token_hex(6)}"
    with _signals_held():
        try:
            folder.rename(retired)
        except FileNotFoundError:
            retired = None
        staging.rename(folder)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)


def _exchange(first: Path, second: Path) -> bool:
    """Exchange two existing paths atomically; False where the OS or file system cannot (or
    ``second`` is absent)."""
    renameat2 = getattr(_LIBC, "renameat2", None) if _LIBC is not None else None
    if renameat2 is None or not second.exists():
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    at_cwd, exchange = -100, 2  # AT_FDCWD, RENAME_EXCHANGE
    if renameat2(at_cwd, os.fsencode(first), at_cwd, os.fsencode(second), exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOENT, errno.EOPNOTSUPP):
        return False  # not supported here (or a folder vanished): the two renames do it
    raise OSError(code, os.strerror(code), str(second))


def _load_libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _load_libc()


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait (are delivered after the block) in this thread while the block
    runs."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def folder_problem(folder: str | os.PathLike, replace: bool = False) -> str | None:
    """Why this process cannot write into ``folder`` (creating it if missing), or, with ``replace``,
    put a new folder in its place (:func:`replace_folder`, which writes in its parent); None when it
    can. Reads only: ``"it is a file, not a folder"``, ``"it lies below the file P"``, ``"P is not
    writable (...)"``."""
    path = Path(os.path.abspath(folder))
    try:
        if path.is_symlink():  # the write probe below would write through it
            return f"it is a symbolic link (to {os.readlink(path)}), which xbias did not create"
        if path.exists() and not path.is_dir():
            return "it is a file, not a folder"
        existing = path
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            return f"it lies below the file {existing}"
    except OSError as error:  # a parent this process may not enter
        return f"it cannot be reached ({error.strerror})"
    needed = [existing] + ([path.parent] if replace and existing == path else [])
    for where in needed:
        if not _writable(where):
            return f"{where} is not writable (its permissions, or a read-only file system)"
    return None


def _writable(folder: Path) -> bool:
    """Whether this process may create files in ``folder``: its permissions (for the effective user,
    as the kernel checks), and then an empty folder made and removed there, since permissions do not
    tell everything (``/proc`` takes nothing, even from root, whom ``access`` always answers
    yes)."""
    effective = os.access in os.supports_effective_ids
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=effective):
        return False
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".xbias-probe-", dir=folder))
    except OSError:
        return False
    return True


def write_problem(
    folder: str | os.PathLike,
    owner: Mapping[str, Any] | Callable[[Path], bool],
    names: Collection[str] | None = None,
) -> str | None:
    """Why xbias may not write into ``folder`` under its write rule, or None when it may. Reads
    only; every command that writes calls it before it writes anything (docs/run_folder.md states
    the rule for users):

    - xbias writes into a folder it created, or one whose marker says it is xbias's;
    - it never follows a symbolic link it did not create (it creates none): ``folder`` and every
      entry it would write or replace must not be one;
    - it replaces only the files it wrote.

    ``owner`` says what is xbias's: the stamp items of a storage-kit marker (the folder is the
    writer's when its :data:`BUILD_MARKER`'s stamp has them, and an entry of it is one the marker
    lists), or a test ``(path) -> bool`` of an entry (a run folder's ``run.json``, an
    ``.eval_results`` file's content). ``names``: the entries that will be written in place (a run
    folder's, one ``.eval_results`` file each); None: the folder is replaced whole, so every entry
    below it counts. A missing or empty folder is always the writer's to fill.

    Returns: ``"it is a symbolic link ..."``, ``"it holds A, B, which xbias did not write"`` and the
    like.
    """
    folder = Path(folder)
    if folder.is_symlink():
        return f"it is a symbolic link (to {os.readlink(folder)}), which xbias did not create"
    if not folder.is_dir():
        return None  # missing (or a file: folder_problem says so)
    entries = (
        _entries(folder)
        if names is None
        else [folder / name for name in names if os.path.lexists(folder / name)]
    )
    links = [path for path in entries if path.is_symlink()]
    if links:
        verb = "is a symbolic link" if len(links) == 1 else "are symbolic links"
        return f"{_shown(folder, links)} {verb}, which xbias did not create"
    is_ours = owner if callable(owner) else _listed_in_marker(folder, owner)
    foreign = [path for path in entries if not is_ours(path)]
    if foreign:
        hint = (
            ""
            if callable(owner) or not _older_marker(folder, owner)
            else (
                " (its marker is an older xbias's, which lists no files, so they cannot "
                "be told from yours: delete the folder once if they are all xbias's)"
            )
        )
        return f"it holds {_shown(folder, foreign)}, which xbias did not write{hint}"
    return None


def _older_marker(folder: Path, owner: Mapping[str, Any]) -> bool:
    """Whether ``folder``'s marker is an xbias before :data:`MARKER_FORMAT`'s for ``owner`` (its
    stamp alone)."""
    marker = read_json(folder / BUILD_MARKER) if (folder / BUILD_MARKER).is_file() else None
    return (
        isinstance(marker, dict)
        and "format" not in marker
        and all(marker.get(k) == v for k, v in owner.items())
    )


def whole_folder_problem(folder: str | os.PathLike, owner: Mapping[str, Any]) -> str | None:
    """Why ``owner`` may not put a folder of its own in the place of ``folder``
    (:func:`write_folder_whole`), or None: the one check of every folder written whole (a report,
    its details, a comparison, an lm-eval task pack). It must be writable and replaceable here
    (:func:`folder_problem`), not a symbolic link nor hold one, and be new, empty, or hold only
    files a complete marker of ``owner``'s lists (:func:`write_problem`); the lock file it is
    written under (``.<name>.lock`` beside it) must not be a link either. Reads only."""
    lock = Path(os.path.abspath(folder)).parent / f".{Path(folder).name}.lock"
    if lock.is_symlink():
        return f"its lock file {lock} is a symbolic link, which xbias did not create"
    return folder_problem(folder, replace=True) or write_problem(folder, owner)


@dataclass(frozen=True)
class OutputFolder:
    """A kind of folder a command writes whole (a report, its details, a comparison), and how
    messages name it.

    Attributes:
        owner: the stamp of its marker (:func:`write_folder_whole`): the folder is this kind's.
        what: what it holds, as a message says it (``"the report"``).
        option: the command-line option that names the folder (``"--out"``).
        command: the command that writes it (``"xbias report"``).
    """

    owner: Mapping[str, Any]
    what: str
    option: str
    command: str


def output_folder(out: str | os.PathLike, kind: OutputFolder) -> Path:
    """``out`` as an absolute path, once a folder of ``kind`` may be written there whole.

    Refused, before any work, when it is the root, cannot be written or replaced, or is not new,
    empty or an earlier folder of ``kind`` holding only its own files (:func:`whole_folder_problem`,
    the write rule). Reads only.

    Raises:
        InputError: one line naming the folder, the cause and the fix.
    """
    folder = Path(os.path.abspath(out))
    what, option = kind.what, kind.option
    if folder.parent == folder:
        raise InputError(
            f"cannot write {what} into the root folder {folder}; give another {option}"
        )
    problem = whole_folder_problem(folder, kind.owner)
    if problem is not None:
        raise InputError(
            f"cannot write {what} into {folder}: {problem}; give a new or empty {option}"
        )
    return folder


def write_output_folder(folder: Path, contents: Mapping[str, bytes], kind: OutputFolder) -> None:
    """Put a folder of ``kind`` holding exactly ``contents`` in the place of ``folder``, whole.

    ``folder`` is what :func:`output_folder` returned; the write is :func:`write_folder_whole`'s, so
    on any failure (or a signal) ``folder`` is as it was.

    Raises:
        InputError: one line: a folder not ``kind``'s put there since it was checked, or a write
            that failed (a full disk), naming the file being written.
    """
    what, option = kind.what, kind.option
    try:
        write_folder_whole(folder, contents, kind.owner)
    except FileExistsError as error:  # a foreign folder put there since output_folder looked
        again = f"give a new or empty {option}"
        raise InputError(f"cannot write {what} into {folder}: {error.strerror}; {again}") from None
    except OSError as error:
        full = error.errno in (errno.ENOSPC, errno.EDQUOT)
        why = "no space left on the device" if full else error.strerror or str(error)
        where = error.filename or "the folder"
        raise InputError(
            f"cannot write {what} into {folder} ({why}, at {where}); the folder is as it was "
            f"before: free some space or give another {option}, and run {kind.command} again"
        ) from None


def _entries(folder: Path) -> list[Path]:
    """Every file and folder below ``folder`` (symbolic links included, never followed), sorted."""
    found = []
    for root, folders, files in os.walk(folder):
        found += [Path(root) / name for name in [*folders, *files]]
    return sorted(found)


def _listed_in_marker(folder: Path, owner: Mapping[str, Any]) -> Callable[[Path], bool]:
    """Whether an entry of ``folder`` is one its marker lists (the marker itself, a listed file, a
    folder holding one), when the marker's stamp has ``owner``'s items; nothing is, otherwise (a
    marker of an xbias before :data:`MARKER_FORMAT` included: it lists no file)."""
    marker = read_json(folder / BUILD_MARKER)
    marker = marker if isinstance(marker, dict) else {}
    # An older xbias's marker (its stamp alone, no file list) proves nothing about the files beside
    # it (a user's notes.md may have joined them): none of them is the writer's, so such a folder is
    # refused, never replaced.
    stamp, files = marker.get("stamp"), marker.get("files")
    if (
        not isinstance(stamp, dict)
        or not isinstance(files, dict)
        or any(stamp.get(k) != v for k, v in owner.items())
    ):
        return lambda path: False
    listed = {BUILD_MARKER, *files}
    listed |= {
        parent.as_posix() for name in files for parent in Path(name).parents if parent != Path(".")
    }

    def is_listed(path: Path) -> bool:
        relative = path.relative_to(folder).as_posix()
        return relative in listed and (
            path.is_dir() if relative not in files and relative != BUILD_MARKER else path.is_file()
        )

    return is_listed


def _shown(folder: Path, paths: list[Path], most: int = 5) -> str:
    names = [path.relative_to(folder).as_posix() for path in paths]
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
