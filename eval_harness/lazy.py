"""Package exports imported on first use (PEP 562), so that importing a package does not import its
heavy
dependencies: reading a config or printing ``xbias list`` imports neither torch nor transformers."""

from collections.abc import Callable, Mapping
from typing import Any

from .registry import resolve


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``exports`` maps each exported name to the
    submodule that defines it (``"factory"``), or to ``"submodule:attribute"`` when the name differs
    there. A type checker sees each name as ``Any`` (it is known only once imported)."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = exports[name].partition(":")
        return resolve(f"{package}.{module}:{attribute or name}")

    return __getattr__
