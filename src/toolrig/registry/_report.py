"""What loading found: every problem with its file, line and field, and the tools loaded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path  # annotations only: pathlib imports urllib and ipaddress

__all__ = ["LoadError", "LoadReport", "RegistryLoadError"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadError:
    """One problem in one definition source."""

    path: Path | None
    """The file (``None`` for tools given in code or by plugins without a file)."""
    line: int | None
    """1-based line of the offending key or value, when known."""
    field: str | None
    """The field in dotted form, e.g. ``parameters[2].min``; ``None`` for the whole file."""
    message: str
    tool: str | None = None
    """The tool's name, when it could be read."""

    def __str__(self) -> str:
        where = str(self.path) if self.path is not None else (self.tool or "<code>")
        if self.line is not None:
            where += f":{self.line}"
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadReport:
    """The outcome of loading one or more sources: names loaded and every error found."""

    loaded: tuple[str, ...] = ()
    errors: tuple[LoadError, ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.errors

    def raise_for_errors(self) -> None:
        """Raise `RegistryLoadError` listing every error, if there is any."""
        if self.errors:
            raise RegistryLoadError(self.errors)

    def __add__(self, other: LoadReport) -> LoadReport:
        return LoadReport(loaded=self.loaded + other.loaded, errors=self.errors + other.errors)

    def __str__(self) -> str:
        lines = [f"loaded {len(self.loaded)} tool(s), {len(self.errors)} error(s)"]
        lines.extend(f"  {e}" for e in self.errors)
        return "\n".join(lines)


class RegistryLoadError(ValueError):
    """Definitions failed to load; ``errors`` holds every problem found."""

    def __init__(self, errors: tuple[LoadError, ...] | list[LoadError]) -> None:
        self.errors = tuple(errors)
        lines = "\n".join(f"  - {e}" for e in self.errors)
        super().__init__(f"{len(self.errors)} definition error(s):\n{lines}")
