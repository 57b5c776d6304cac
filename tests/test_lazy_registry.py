"""The one registry kind: lazy references, plug-ins by entry point, clear errors."""

import sys

import pytest

from eval_harness.errors import ConfigError
from eval_harness.registry import Registry, resolve


def test_a_reference_is_imported_on_first_get_only():
    sys.modules.pop("colorsys", None)
    colours = Registry("colour", {"third": "colorsys:ONE_THIRD"})
    assert colours.names() == ["third"] and "colorsys" not in sys.modules
    assert colours.get("third") == pytest.approx(1 / 3) and "colorsys" in sys.modules


def test_registered_entries_override_builtins_only_when_asked():
    things = Registry("thing", {"a": 1})
    with pytest.raises(ConfigError, match="already registered"):
        things.register("a", 2)
    things.register("a", 2, replace=True)
    assert things.get("a") == 2
    things.unregister("a")
    assert things.get("a") == 1


def test_unknown_names_and_bad_references_are_one_line_errors():
    things = Registry("thing", {"a": 1, "broken": "no_such_module_xyz:thing"})
    with pytest.raises(ConfigError, match=r"unknown thing 'b'; things: a, broken"):
        things.get("b")
    with pytest.raises(ConfigError, match="cannot import"):
        things.get("broken")
    with pytest.raises(ConfigError, match="module:object"):
        things.register("c", "not-a-reference")


def test_resolve_follows_dotted_attributes():
    assert resolve("os.path:join.__name__") == "join"
    with pytest.raises(ConfigError):
        resolve("os.path")
