"""The project's own exception types.

Every problem a user can cause (bad input, missing source data, a bad config, a
model that cannot be loaded) raises a subclass of :class:`XBiasError` whose
message names the problem and the fix. The CLI turns these into one line on
stderr and exit code 2; anything else is a bug and keeps its traceback.
"""


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
    """A word set lists a word more than once; the copies were collapsed to one (each word counts once)."""
