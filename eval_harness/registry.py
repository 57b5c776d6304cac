"""One kind of registry for everything a config or a plug-in names: suites, model types, datasets,
heads and report sections.

A :class:`Registry` maps names to objects. An entry is registered as the object itself or as a lazy
``"module:object"`` reference, imported on first use, so that reading a config or printing ``xbias
list`` imports none of the entries' dependencies (torch, transformers). Plug-ins outside this
repository add entries with :meth:`Registry.register` or with an entry point in their own
distribution's group (``[project.entry-points."xbias.suites"] name = "pkg.module:OBJECT"``), the way
lm-evaluation-harness and pytest find plug-ins.

>>> colours = Registry("colour", builtins={"red": "colorsys:ONE_THIRD"})
>>> colours.names()
['red']
>>> round(colours.get("red"), 3)
0.333
"""

import importlib
import sys
from collections.abc import Iterator, Mapping
from importlib import metadata
from typing import Any

from .errors import ConfigError


def resolve(reference: str) -> Any:
    """The object a ``"module:object"`` reference names, imported now (``object`` may be dotted:
    ``"pkg.mod:Class.method"``).

    Raises:
        ConfigError: the reference is not ``module:object``.
        ImportError, AttributeError: the module or the object is missing.
    """
    module, _, attribute = reference.partition(":")
    if not module or not attribute:
        raise ConfigError(f"a reference is 'module:object', got {reference!r}")
    value = importlib.import_module(module)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


class Registry:
    """Named entries of one kind, each an object or a lazy ``"module:object"`` reference.

    Lookup order: entries registered at run time, then installed plug-ins (the entry-point
    ``group``), then the built-in entries. A reference is imported by :meth:`get` and the object
    kept. The installed plug-ins are read from the distributions' metadata once per ``sys.path``
    (reading them costs tens of milliseconds; a lookup per unit of a sweep must not).

    Args:
        kind: what an entry is, for messages ("suite", "model type").
        builtins: the package's own entries, name -> object or reference.
        entry_point_group: the entry-point group plug-ins register in, or None.
    """

    def __init__(
        self,
        kind: str,
        builtins: Mapping[str, Any] | None = None,
        entry_point_group: str | None = None,
    ):
        self.kind = kind
        self.entry_point_group = entry_point_group
        self._builtins = dict(builtins or {})
        self._registered: dict[str, Any] = {}
        self._loaded: dict[str, Any] = {}
        self._plugins: tuple[tuple[str, ...], dict[str, str]] | None = (
            None  # (sys.path, name -> reference)
        )

    def register(self, name: str, entry: Any, replace: bool = False) -> Any:
        """Add ``entry`` (an object or a ``"module:object"`` reference) under ``name``; returns
        ``entry``.

        Raises:
            ConfigError: no name, a malformed reference, or the name is taken and ``replace`` is not
            set.
        """
        if not name:
            raise ConfigError(f"a {self.kind} needs a name, got {name!r} for {entry!r}")
        if isinstance(entry, str) and not _is_reference(entry):
            raise ConfigError(f"a {self.kind} reference is 'module:object', got {entry!r}")
        if not replace and name in self._references():
            raise ConfigError(
                f"a {self.kind} named {name!r} is already "
                "registered (pass replace=True to override)"
            )
        self._registered[name] = entry
        self._loaded.pop(name, None)
        return entry

    def unregister(self, name: str) -> None:
        """Remove an entry registered at run time (built-in and plug-in entries stay)."""
        self._registered.pop(name, None)
        self._loaded.pop(name, None)

    def names(self) -> list[str]:
        """Every entry's name, sorted."""
        return sorted(self._references())

    def reference(self, name: str) -> Any:
        """What ``name`` was registered as (a reference stays a string: nothing is imported)."""
        return self._references()[self._known(name)]

    def get(self, name: str) -> Any:
        """The entry ``name``, importing its reference on first use.

        Raises:
            ConfigError: no entry has that name (the message lists them), or its reference does not
            import.
        """
        entry = self.reference(name)
        if not isinstance(entry, str):
            return entry
        if name not in self._loaded or self._loaded[name][0] != entry:
            try:
                self._loaded[name] = (entry, resolve(entry))
            except (ImportError, AttributeError) as error:
                raise ConfigError(
                    f"{self.kind} {name!r}: cannot import {entry!r} ({error})"
                ) from None
        return self._loaded[name][1]

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._references()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._references())

    def _known(self, name: str) -> str:
        if name not in self._references():
            raise ConfigError(
                f"unknown {self.kind} {name!r}; {self.kind}s: {', '.join(self.names()) or 'none'}"
            )
        return name

    def _references(self) -> dict[str, Any]:
        return {**self._builtins, **self._installed(), **self._registered}

    def _installed(self) -> dict[str, str]:
        """The plug-ins' entries of the entry-point group, read again only when ``sys.path`` has
        changed."""
        if not self.entry_point_group:
            return {}
        where = tuple(sys.path)
        if self._plugins is None or self._plugins[0] != where:
            entries = metadata.entry_points(group=self.entry_point_group)
            self._plugins = (where, {entry.name: entry.value for entry in entries})
        return self._plugins[1]


def _is_reference(text: str) -> bool:
    module, _, attribute = text.partition(":")
    return bool(module) and bool(attribute)
