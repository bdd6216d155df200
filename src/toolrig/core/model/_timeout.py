"""A tool's time limit as written (``timeout=``, YAML ``timeout:``): unset, none, or seconds.

Its own module so that the runtime reads a limit without loading the options' pydantic models
(``import toolrig`` stays light)."""

from __future__ import annotations

import contextlib
from typing import Any

from toolrig.core.model._unset import Unset

__all__ = ["check_timeout"]


def check_timeout(value: Any) -> float | Unset | None:
    """``value`` as a time limit: `UNSET`, ``None`` (no limit; YAML may also write ``none``)
    or positive seconds; else `ValueError`."""
    if value is None or isinstance(value, Unset):
        return value
    if isinstance(value, str):
        if value.strip().lower() == "none":
            return None
        with contextlib.suppress(ValueError):
            value = float(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(
            f"timeout must be a positive number of seconds, or none for no limit, not {value!r}"
        )
    return float(value)
