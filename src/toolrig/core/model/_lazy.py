"""Names a package exports but imports on first use: one loader for every package's
``__init__``, so ``import toolrig`` pays only for what a first call needs."""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str,
    table: Mapping[str, str],
    deprecated: Mapping[str, tuple[str, str, str]] | None = None,
) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: ``table`` maps an exported name to the
    module defining it (imported, and the value kept in the package, on first use);
    ``deprecated`` maps an old name to ``(module, attribute, new name)``, answered with a
    :class:`DeprecationWarning` each time."""
    old = deprecated or {}

    def __getattr__(name: str) -> Any:
        if name in old:
            module_name, attribute, instead = old[name]
            warnings.warn(
                f"{package}.{name} is deprecated; use {instead}", DeprecationWarning, stacklevel=2
            )
            return getattr(importlib.import_module(module_name), attribute)
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
