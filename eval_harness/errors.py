"""The project's own exception types.

Every problem a user can cause (bad input, missing source data, a bad config, a
model that cannot be loaded) raises a subclass of :class:`XBiasError` whose
message names the problem and the fix. The CLI turns these into one line on
stderr and exit code 2; anything else is a bug and keeps its traceback.
A message names a file the user gave but never quotes its content
(:func:`unreadable_file`).
"""

import reprlib

# What a message echoes of a value the user gave: a few items of each list or mapping, three levels,
# a string's first 60 characters, 200 in all (a config's value may be huge: an expanded YAML alias).
_ECHO_LENGTH = 200
_ECHO = reprlib.Repr()
_ECHO.maxlevel, _ECHO.maxstring, _ECHO.maxother, _ECHO.maxlong = 3, 60, 60, 40
_ECHO.maxlist = _ECHO.maxtuple = _ECHO.maxdict = _ECHO.maxset = _ECHO.maxfrozenset = 6


def shown(value: object) -> str:
    """``repr(value)``, cut to a short line: what an error message echoes of a value the user gave
    (its size is bounded whatever the value's, and so is the time it takes)."""
    text = _ECHO.repr(value)
    return text if len(text) <= _ECHO_LENGTH else text[: _ECHO_LENGTH - 3] + "..."


class XBiasError(Exception):
    """Base class of every error xbias raises on purpose."""


class InputError(XBiasError, ValueError):
    """Arguments or data given to a function are unusable (wrong shape, NaN, unknown label...)."""


class SourceDataError(XBiasError):
    """A dataset source file is missing, truncated or fails its checksum."""


class ConfigError(XBiasError, ValueError):
    """A sweep config, CLI option or dataset config name is not valid."""


class ModelLoadError(XBiasError):
    """A model (Hub id, local folder or vector file) cannot be loaded."""


class DuplicateWordsWarning(UserWarning):
    """A word set lists a word more than once; the copies were collapsed to one (each word counts
    once)."""


def unreadable_file(path: object, error: Exception, what: str = "file") -> str:
    """One line saying why the user's file ``path`` could not be read or parsed, and where, never
    quoting a word of it (a message is shown, logged and pasted into issues; a file named by mistake
    may hold secrets): ``"cannot read the {what} {path}: not valid YAML (line 2, column 7)"``,
    ``"...: Permission denied"``."""
    if getattr(
        error, "says_why", False
    ):  # io.RefusedDocument: its message names a limit, never the content
        return f"cannot read the {what} {path}: {error}"
    mark = getattr(error, "problem_mark", None) or getattr(
        error, "context_mark", None
    )  # a YAML error
    if mark is not None:
        why = f"not valid YAML (line {mark.line + 1}, column {mark.column + 1})"
    elif hasattr(error, "lineno") and hasattr(error, "colno"):  # json.JSONDecodeError
        why = f"not valid JSON (line {error.lineno}, column {error.colno})"
    elif isinstance(error, UnicodeDecodeError):
        why = f"not UTF-8 text (byte {error.start})"
    elif isinstance(error, OSError):
        why = error.strerror or type(error).__name__
    else:
        why = f"not readable ({type(error).__name__})"
    return f"cannot read the {what} {path}: {why}"
