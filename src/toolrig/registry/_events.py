"""Change events a `Catalog` sends to its listeners."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from toolrig.registry._report import LoadError

if TYPE_CHECKING:
    from pathlib import Path  # annotations only: pathlib imports urllib and ipaddress

__all__ = ["ChangeEvent", "ChangeKind", "ChangeListener"]


class ChangeKind(StrEnum):
    """What happened to a tool or a definition file."""

    ADDED = "added"
    UPDATED = "updated"
    REMOVED = "removed"
    FAILED = "failed"
    """A source could not be loaded; the tools it defined before stay in service."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeEvent:
    """One change: the tool (``None`` when a whole file failed), its file and what went wrong."""

    kind: ChangeKind
    name: str | None
    path: Path | None = None
    version: str | None = None
    errors: tuple[LoadError, ...] = ()


ChangeListener = Callable[[ChangeEvent], None]
