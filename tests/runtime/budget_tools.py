"""Functions the result-budget tests name from YAML (``executor: budget_tools.noisy``)."""

from __future__ import annotations

WHOLE = "".join(f"{i:06d} \u00e9\t\x00 line\n" for i in range(8_000))
"""A long output with non-ASCII, tabs and NUL characters: all must come back exactly."""


def noisy() -> str:
    return WHOLE
