"""What every result object of :mod:`eval_harness.stats` shares: frozen dataclasses with
``to_dict()``, one lookup of an item by its name, one nested dict of named items, one table of
tested estimates, and one test for a missing value."""

import math
from collections.abc import Sequence
from dataclasses import asdict

from ..errors import InputError


class Result:
    """Base of the frozen result dataclasses: ``to_dict()`` gives their fields as a plain dict
    (nested results as dicts too); a result with named parts overrides it with :func:`keyed`."""

    def to_dict(self) -> dict:
        return asdict(self)


def named(items: Sequence, name, what: str, key: str = "name"):
    """The item of ``items`` whose ``key`` attribute is ``name``; an :class:`InputError` naming
    ``what`` and every name there is otherwise.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from eval_harness.stats.results import named
    >>> effects = [SimpleNamespace(name="group", estimate=0.03),
    ...            SimpleNamespace(name="gender", estimate=-0.01)]
    >>> named(effects, "gender", "effect").estimate
    -0.01
    >>> named(effects, "age", "effect")
    Traceback (most recent call last):
        ...
    eval_harness.errors.InputError: unknown effect 'age'; there are ['group', 'gender']
    """
    for item in items:
        if getattr(item, key) == name:
            return item
    raise InputError(f"unknown {what} {name!r}; there are {[getattr(item, key) for item in items]}")


def keyed(items: Sequence[Result], key: str = "name") -> dict:
    """Named results as a nested plain dict, ``{item.<key>: item.to_dict() without that key}``.

    Examples
    --------
    >>> from eval_harness.stats.pooling import pool_statistic
    >>> from eval_harness.stats.results import keyed
    >>> keyed([pool_statistic([1.0, 2.0, 3.0]), pool_statistic([5.0, 7.0])], key="n_seeds")
    {3: {'mean': 2.0, 'sd': 1.0, 'min': 1.0, 'max': 3.0},
     2: {'mean': 6.0, 'sd': 1.41..., 'min': 5.0, 'max': 7.0}}
    """
    return {
        getattr(item, key): {k: v for k, v in item.to_dict().items() if k != key} for item in items
    }


def estimates_table(items: Sequence, test: str, confidence: float) -> list[str]:
    """Rows of a fixed-width table of tested estimates.

    Columns: ``name``, ``estimate``, ``std_err``, ``statistic`` headed by ``test``, ``p_value``, the
    ``confidence`` interval ``ci_low``/``ci_high``, ``mde`` and ``contrast``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from eval_harness.stats.results import estimates_table
    >>> from eval_harness.stats.wald import wald_test
    >>> test = wald_test(0.03, 0.01, df=None, name="group")
    >>> row = SimpleNamespace(name="group", contrast="Arab vs Anglo", **test)
    >>> for line in estimates_table([row], test="z", confidence=0.95):
    ...     print(line)
    name     estimate   std_err        z   p_value                95% CI      mde  contrast
    group      0.0300    0.0100    3.000    0.0027      [0.0104, 0.0496]   0.0280  Arab vs Anglo
    """
    width = max([len(item.name) for item in items] + [4]) + 2
    ci = f"{confidence:.0%} CI"
    rows = [
        f"{'name':<{width}}{'estimate':>10}{'std_err':>10}"
        f"{test:>9}{'p_value':>10}{ci:>22}{'mde':>9}  contrast"
    ]
    for item in items:
        interval = f"[{item.ci_low:.4f}, {item.ci_high:.4f}]"
        rows.append(
            f"{item.name:<{width}}{item.estimate:>10.4f}{item.std_err:>10.4f}{item.statistic:>9.3f}"
            f"{item.p_value:>10.4f}{interval:>22}{item.mde:>9.4f}  {item.contrast}"
        )
    return rows


def is_missing(value) -> bool:
    """Whether ``value`` is absent: None, or the float NaN pandas uses for a missing value.

    Examples
    --------
    >>> from eval_harness.stats.results import is_missing
    >>> is_missing(None), is_missing(float("nan")), is_missing(0.0), is_missing("")
    (True, True, False, False)
    """
    return value is None or (isinstance(value, float) and math.isnan(value))
