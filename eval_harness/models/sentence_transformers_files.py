"""The settings a sentence-transformers model folder states for itself: its pooling and its prompt.

A model saved by sentence-transformers says how it turns token states into a sentence vector:

- ``modules.json`` lists its modules; the ``sentence_transformers.models.Pooling`` one has a folder
  (usually ``1_Pooling``) whose ``config.json`` sets one ``pooling_mode_*`` flag: ``cls_token`` ->
  ``"cls"``,
  ``mean_tokens`` -> ``"mean"``, ``lasttoken`` -> ``"last"`` (the encoder's poolings);
  ``max_tokens``, ``mean_sqrt_len_tokens`` and ``weightedmean_tokens`` are poolings xbias does not
  compute, and are refused with the remedy (set ``pooling``) rather than replaced silently;
- ``config_sentence_transformers.json`` may hold ``prompts`` (name -> text put before every input).
  The probe reads texts to classify them, so the prompt used is the one named ``classification``
  where there is one, else ``query`` (what e5-style cards ask for classification-like use), else the
  model's ``default_prompt_name``.

Files are read as data (at most :data:`MAX_SETTINGS_BYTES` each, regular files only); a folder
without them states nothing, and the encoder's own defaults apply.
"""

import json
from pathlib import Path
from typing import Any

from ..errors import ModelLoadError
from ..io import read_text

MAX_SETTINGS_BYTES = 1 << 20
POOLING_FILE = "config.json"
MODULES_FILE = "modules.json"
PROMPTS_FILE = "config_sentence_transformers.json"
POOLING_MODULE = "sentence_transformers.models.Pooling"
# pooling_mode_* flag -> the encoder's pooling (None: one xbias does not compute).
POOLING_FLAGS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_lasttoken": "last",
    "pooling_mode_max_tokens": None,
    "pooling_mode_mean_sqrt_len_tokens": None,
    "pooling_mode_weightedmean_tokens": None,
}
PROMPT_PREFERENCE = ("classification", "query")


def sentence_transformers_options(folder: str | Path, pooling: bool = True) -> dict[str, str]:
    """``{"pooling": ..., "prefix": ...}`` as the sentence-transformers files in ``folder`` state
    them (either key absent when the folder does not say it; ``pooling=False``: the pooling is not
    read, the user sets it).

    Raises:
        ModelLoadError: a settings file that is not JSON of the documented shape, or a pooling xbias
            does not compute (the message says to set ``pooling``).
    """
    folder = Path(folder)
    options: dict[str, str] = {}
    stated = _pooling(folder) if pooling else None
    if stated is not None:
        options["pooling"] = stated
    prefix = _prompt(folder)
    if prefix is not None:
        options["prefix"] = prefix
    return options


def _json(path: Path) -> Any:
    try:
        return json.loads(read_text(path, MAX_SETTINGS_BYTES))
    except (OSError, ValueError) as error:
        raise ModelLoadError(
            f"cannot read the sentence-transformers file {path}: {error}"
        ) from None


def _pooling(folder: Path) -> str | None:
    modules_path = folder / MODULES_FILE
    if not modules_path.is_file():
        return None
    modules = _json(modules_path)
    if not isinstance(modules, list):
        raise ModelLoadError(f"{modules_path} must hold a list of modules")
    pooling_folders = [
        module.get("path", "")
        for module in modules
        if isinstance(module, dict) and module.get("type") == POOLING_MODULE
    ]
    if not pooling_folders or not (folder / pooling_folders[0] / POOLING_FILE).is_file():
        return None
    config_path = folder / pooling_folders[0] / POOLING_FILE
    config = _json(config_path)
    if not isinstance(config, dict):
        raise ModelLoadError(f"{config_path} must hold a mapping of pooling settings")
    chosen = [flag for flag in POOLING_FLAGS if config.get(flag) is True]
    if len(chosen) != 1 or POOLING_FLAGS[chosen[0]] is None:
        stated = ", ".join(chosen) or "no pooling_mode_* flag"
        raise ModelLoadError(
            f"{config_path} pools with {stated}, which xbias does not compute; set pooling "
            "to cls, mean or last (options: {pooling: mean}, or --model-args pooling=mean)"
        )
    return POOLING_FLAGS[chosen[0]]


def _prompt(folder: Path) -> str | None:
    path = folder / PROMPTS_FILE
    if not path.is_file():
        return None
    settings = _json(path)
    prompts = settings.get("prompts") if isinstance(settings, dict) else None
    if not prompts:
        return None
    if not isinstance(prompts, dict) or not all(isinstance(text, str) for text in prompts.values()):
        raise ModelLoadError(f"{path}: prompts must map prompt names to strings")
    for name in (*PROMPT_PREFERENCE, settings.get("default_prompt_name")):
        if name in prompts:
            return prompts[name]
    return None
