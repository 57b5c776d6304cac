"""What the commands of ``xbias`` share: the parser whose errors are one line, and comma-separated names."""

import argparse

# The logger of the whole package: `xbias -v` / `-q` set its level.
PACKAGE_LOGGER = "eval_harness"


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors (an unknown option, a bad value, -v with -q) are a
    :class:`~eval_harness.errors.ConfigError`: one line and exit code 2, like every error a user can cause,
    rather than the usage block argparse prints (``xbias CMD --help`` shows that)."""

    def error(self, message: str):
        from ..errors import ConfigError

        raise ConfigError(f"{self.prog}: {message} (see {self.prog} --help)")


def names(text: str) -> list[str]:
    """The comma-separated names of ``text``, stripped, the empty ones left out."""
    return [part.strip() for part in text.split(",") if part.strip()]
