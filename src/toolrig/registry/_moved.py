"""Forwarders for names that left ``Registry`` and now live in a layer above it.

Each forward warns (``DeprecationWarning``) and finds its target by name at call time, so the
registry never imports the layers above it; they go away in the next release (CHANGELOG.md).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

__all__ = ["moved"]


def moved(old: str, new: str, module: str, name: str) -> Any:
    """Warn that ``old`` is now ``new``, and return ``module.name``."""
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)
    return getattr(importlib.import_module(module), name)
