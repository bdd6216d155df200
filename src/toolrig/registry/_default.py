"""A process-wide registry for scripts. The library itself never uses it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from toolrig.registry._registry import Registry

__all__ = ["default_registry", "register_tool"]

T = TypeVar("T")
_lock = threading.Lock()
_default: Registry | None = None


def default_registry() -> Registry:
    """The registry shared by scripts (created on first use)."""
    global _default
    with _lock:
        if _default is None:
            _default = Registry()
        return _default


def register_tool(name: str) -> Callable[[T], T]:
    """Bind code to the definition ``name`` in `default_registry` (see
    `Registry.bind` to bind to a registry of your own)."""
    return default_registry().bind(name)
