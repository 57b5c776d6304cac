"""What every result object of :mod:`eval_harness.stats` shares: frozen dataclasses with ``to_dict()``, and one
test for a missing value."""

import math
from dataclasses import asdict


class Result:
    """Mixin of the frozen result dataclasses: ``to_dict()`` gives their fields as a plain dict."""

    def to_dict(self) -> dict:
        return asdict(self)


def is_missing(value) -> bool:
    """Whether ``value`` is absent: None, or the float NaN that pandas uses for a missing field or string."""
    return value is None or (isinstance(value, float) and math.isnan(value))
