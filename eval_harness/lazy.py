"""Package exports imported on first use (PEP 562), so that importing a package does not import its heavy
dependencies: reading a config or printing ``xbias list`` imports neither torch nor transformers."""

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``: ``exports`` maps each exported name to the submodule that
    defines it (``"factory"``), or to ``"submodule:attribute"`` when the name differs there."""

    def __getattr__(name: str) -> object:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = exports[name].partition(":")
        value = importlib.import_module(f"{package}.{module}")
        for part in (attribute or name).split("."):
            value = getattr(value, part)
        return value

    return __getattr__
