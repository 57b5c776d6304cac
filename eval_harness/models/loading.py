"""Load a transformers model + tokenizer from a Hub id or a local folder, and fingerprint it.

Offline behaviour: a local folder is used as is; a Hub id is looked up in the local Hugging Face
cache first, and only when it is not there and the Hub is not switched off (``HF_HUB_OFFLINE``)
is it downloaded. Every failure becomes a :class:`ModelLoadError` that names the model and the
fix, raised ``from None`` (no traceback from deep inside transformers).

Fingerprint: ``sha256`` of the model's config (without its path and transformers version), of
its weights (the sha256 of each weight file: for a Hub download the blob's own name, which *is*
its sha256; for a local folder the file bytes, hashed once and remembered by path, size and
modification time), of the tokenizer (its full ``tokenizer.json``) and of the caller's extras
(pooling, layer, prefix...). Two loads of the same files give the same fingerprint in any run.
"""

import hashlib
import json
import logging
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import torch

from eval_harness.errors import ModelLoadError
from eval_harness.io import atomic_write_json, file_sha256, read_json
from eval_harness.paths import cache_root

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
# What a model's snapshot needs (config, weights, tokenizer), not the Hub repository's other files.
SNAPSHOT_FILES = [
    "*.json",
    "*.safetensors",
    "*.txt",
    "*.model",
    "*.tiktoken",
    "merges.txt",
    "vocab*",
]
_SHA256_NAME = re.compile(r"^[0-9a-f]{64}$")
# Config keys that depend on where or with what a model was saved, not on what it computes.
_VOLATILE_CONFIG_KEYS = (
    "_name_or_path",
    "transformers_version",
    "torch_dtype",
    "dtype",
    "_commit_hash",
)
# Where transformers logs a model's load report (weights missing from, or unexpected in, its
# checkpoint).
TRANSFORMERS_LOADER_LOG = "transformers.modeling_utils"
LOAD_REPORT = "LOAD REPORT"
_POOLER_WEIGHT = re.compile(r"(^|\.)pooler\.")
logger = logging.getLogger(__name__)


def hub_offline() -> bool:
    """True when the environment switches the Hub off (``HF_HUB_OFFLINE`` or
    ``TRANSFORMERS_OFFLINE``)."""
    switches = (
        os.environ.get(name, "").strip().lower()
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )
    return any(value in ("1", "true", "yes", "on") for value in switches)


def resolve_model_source(name_or_path: str | os.PathLike) -> tuple[str, Path | None, bool]:
    """``(source, folder, local_only)`` for ``from_pretrained``.

    ``folder`` is the local folder with the model's files (None when it must be downloaded).
    Raises ModelLoadError when a path-like name does not exist, or a Hub id is not cached and
    the Hub is off.
    """
    text = os.fspath(name_or_path)
    if not text.strip():
        raise ModelLoadError(
            "empty model name: give a Hub id (e.g. 'bert-base-uncased') or a local folder"
        )
    local = Path(text).expanduser()
    if local.is_dir():
        return str(local), local, True
    # A Hub id is "name" or "owner/name"; anything else that is not a folder was meant as a path.
    if local.exists() or text.startswith((".", "/", "~")) or text.count("/") > 1 or "\\" in text:
        raise ModelLoadError(
            f"model folder {text!r} does not exist (or is not a folder); give an existing folder "
            "that holds config.json and the weights (e.g. the output of save_pretrained)"
        )
    folder = _cached_snapshot(text)
    if folder is not None:
        return text, folder, True
    _require_the_hub(text)
    return text, None, False


def _require_the_hub(repo_id: str, revision: str | None = None) -> None:
    """The one-line error of a Hub model that is not cached while the Hub is off or cannot be
    reached."""
    if not hub_offline() and hub_reachable():
        return
    at = f" at revision {revision!r}" if revision else ""
    why = (
        "the Hub is offline (HF_HUB_OFFLINE=1)"
        if hub_offline()
        else "the Hub cannot be reached from here"
    )
    raise ModelLoadError(
        f"model {repo_id!r}{at} is not a local folder and not in the Hugging Face "
        f"cache, and {why}. Download it where there is internet (`hf download "
        f"{repo_id}{' --revision ' + revision if revision else ''}`) and copy the "
        "cache, or save it with save_pretrained and pass that local folder's path."
    )


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether a TCP connection to the Hub endpoint opens within ``timeout`` seconds.

    Checked before a download so that a machine without network fails in seconds instead of
    spending a minute in huggingface_hub's retries.
    """
    from huggingface_hub import constants

    endpoint = urlparse(constants.ENDPOINT)
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        with socket.create_connection((endpoint.hostname, port), timeout=timeout):
            return True
    except OSError:
        return False


def asks_for_code(error: BaseException) -> bool:
    """Whether a transformers load failed because the model needs its own code
    (``trust_remote_code`` off)."""
    return "trust_remote_code" in str(error) or "contains custom code" in str(error)


def remote_code_refused(name_or_path: str | os.PathLike) -> ModelLoadError:
    """The one line for a model that ships its own code when ``trust_remote_code`` is off."""
    return ModelLoadError(
        f"model {os.fspath(name_or_path)!r} ships its own code (its config's auto_map), "
        "which xbias does not run unless told to: pass --trust-remote-code (a config: "
        "trust_remote_code: true on the model), only for a repository you trust"
    )


def load_pretrained(
    name_or_path: str | os.PathLike,
    model_class: Any = None,
    trust_remote_code: bool = False,
    **model_kwargs,
):
    """``(model, tokenizer, folder)`` loaded with ``model_class`` (default ``AutoModel``) and
    ``AutoTokenizer``.

    ``trust_remote_code``: let transformers run the Python code a model repository ships for its own
    classes (its config's ``auto_map``). Off by default, as in transformers: that code runs with
    this process's rights, so turn it on only for a repository you trust (``--trust-remote-code``;
    ``trust_remote_code: true`` in a config).
    """
    from transformers import AutoModel, AutoTokenizer

    model_class = model_class or AutoModel
    source, folder, local_only = resolve_model_source(name_or_path)
    # Always explicit: left unset, transformers asks on a terminal, and a "y" there runs the
    # folder's Python.
    code = {"trust_remote_code": bool(trust_remote_code)}
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_only, **code)
        with _load_report_held() as held:
            model, info = model_class.from_pretrained(
                source,
                local_files_only=local_only,
                output_loading_info=True,
                **code,
                **model_kwargs,
            )
        _pass_load_report(held, info, os.fspath(name_or_path))
    except Exception as error:  # noqa: BLE001 - every loader failure is the user's model problem
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        if not trust_remote_code and asks_for_code(error):
            raise remote_code_refused(name_or_path) from None
        raise ModelLoadError(
            f"cannot load model {os.fspath(name_or_path)!r} with "
            f"{getattr(model_class, '__name__', model_class)}: {type(error).__name__}: "
            f"{first_line}. Check the id or folder (it needs config.json, the weights and "
            "the tokenizer files); for a model not on this machine pass a local folder path."
        ) from None
    if folder is None:
        folder = _cached_snapshot(source)
    return model.eval(), tokenizer, folder


@contextmanager
def _load_report_held() -> Iterator[list[logging.LogRecord]]:
    """transformers' load report of the model loaded inside, held back (the list it yields) for
    :func:`_pass_load_report`; its other log lines pass as they are."""
    held: list[logging.LogRecord] = []

    def hold(record: logging.LogRecord) -> bool:
        if LOAD_REPORT in record.getMessage():
            held.append(record)
            return False
        return True

    loader_log = logging.getLogger(TRANSFORMERS_LOADER_LOG)
    loader_log.addFilter(hold)
    try:
        yield held
    finally:
        loader_log.removeFilter(hold)


def _pass_load_report(held: list[logging.LogRecord], info: dict, name: str) -> None:
    """Let transformers' held load report through as it was, unless the only weights it names are a
    pooler's missing from the checkpoint (e5, MiniLM as ``AutoModel``): xbias pools the hidden
    states and never reads a pooler, so that is said once in xbias's log at DEBUG (``--verbose``),
    not as a warning under ``--quiet``."""
    missing = list(info.get("missing_keys") or ())
    unused_pooler = (
        missing
        and all(_POOLER_WEIGHT.search(key) for key in missing)
        and not info.get("unexpected_keys")
        and not info.get("mismatched_keys")
    )
    for record in held:
        if unused_pooler:
            logger.debug(
                "%s: its checkpoint has no pooler weights (%s): newly "
                "initialised and never used (xbias pools the hidden states)",
                name,
                ", ".join(sorted(missing)),
            )
        else:
            logging.getLogger(record.name).handle(record)


def model_fingerprint(
    model: torch.nn.Module, tokenizer: Any, folder: Path | None, **extra: Any
) -> str:
    """sha256 of config, weights, tokenizer and ``extra`` (see the module docstring)."""
    config = {
        key: value
        for key, value in model.config.to_dict().items()
        if key not in _VOLATILE_CONFIG_KEYS
    }
    parts = {
        "config": config,
        "weights": weights_digest(folder) if folder is not None else None,
        "tokenizer": tokenizer_digest(tokenizer),
        "parameter_dtype": str(next(model.parameters()).dtype),
        "extra": extra,
    }
    if parts["weights"] is None:
        parts["weights"] = state_dict_digest(model)
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def weights_digest(folder: Path) -> str | None:
    """sha256 over the weight files in ``folder`` (name + content digest each); None if it has
    none."""
    files = sorted(
        path for path in Path(folder).iterdir() if path.suffix in WEIGHT_SUFFIXES and path.is_file()
    )
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.name}:{remembered_sha256(path)}\n".encode())
    return digest.hexdigest()


def remembered_sha256(path: Path) -> str:
    """A file's sha256: free for a Hub-cache blob (named by it), else hashed once and remembered."""
    resolved = Path(path).resolve()
    if _SHA256_NAME.match(resolved.name) and resolved.parent.name == "blobs":
        return resolved.name
    stat = resolved.stat()
    memo_key = f"{resolved}|{stat.st_size}|{stat.st_mtime_ns}"
    memo_path = cache_root() / "file-digests.json"
    memo = _read_json(memo_path)
    if memo_key in memo:
        return memo[memo_key]
    digest = file_sha256(resolved)
    memo = _read_json(memo_path)  # re-read: another process may have added entries meanwhile
    memo[memo_key] = digest
    atomic_write_json(memo_path, memo, indent=None)
    return digest


def state_dict_digest(model: torch.nn.Module) -> str:
    """sha256 over the model's named tensors (for a model built in memory, with no files)."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(f"{name}:{tuple(tensor.shape)}:{tensor.dtype}\n".encode())
        digest.update(tensor.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def tokenizer_digest(tokenizer: Any) -> str:
    """sha256 of a fast tokenizer's full JSON (vocabulary, normaliser, templates), else of its
    vocabulary."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    text = (
        backend.to_str()
        if backend is not None
        else json.dumps(sorted(tokenizer.get_vocab().items()))
    )
    return hashlib.sha256(text.encode()).hexdigest()


def pin_hub_model(
    repo_id: str, revision: str | None = None, with_code: bool = False
) -> tuple[Path, str]:
    """``(folder, commit)``: the local snapshot of Hub model ``repo_id`` at ``revision`` (a branch,
    tag or commit; default the main branch) and the commit it resolved to, from the Hugging Face
    cache, else downloaded.

    A run loads every model from its pinned folder, so all ranks (and a resumed run) read the same
    commit even when the Hub's branch moves on. A snapshot folder is named by its commit.
    ``with_code``: also the repository's Python files (a model loaded with ``trust_remote_code``).

    Raises:
        ModelLoadError: not cached and the Hub is off or unreachable, or the download fails.
    """
    folder = _cached_snapshot(repo_id, revision)
    if folder is None:
        _require_the_hub(repo_id, revision)
        from huggingface_hub import snapshot_download

        try:
            patterns = [*SNAPSHOT_FILES, "*.py"] if with_code else SNAPSHOT_FILES
            folder = Path(snapshot_download(repo_id, revision=revision, allow_patterns=patterns))
        except Exception as error:  # noqa: BLE001 - every download failure is the user's id, revision or network
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            at = f" at revision {revision!r}" if revision else ""
            raise ModelLoadError(f"cannot download model {repo_id!r}{at}: {first_line}") from None
    return folder, folder.name


def _cached_snapshot(repo_id: str, revision: str | None = None) -> Path | None:
    """The Hugging Face cache's snapshot folder of ``repo_id`` (at ``revision``) when its
    config.json is there."""
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    except Exception:  # noqa: BLE001 - an id the hub library cannot parse is simply not cached
        return None
    return Path(found).parent if isinstance(found, str) else None


def _read_json(path: Path) -> dict:
    memo = read_json(path)
    return memo if isinstance(memo, dict) else {}
