"""Tools from installed packages, declared in the entry-point group ``toolrig.tools``.

An entry point may name a tool (``@tool``, a ``BaseTool`` subclass or instance), a function
(wrapped as a tool), a path (``str`` or ``Path``) to a definition file or folder, or a list of
these. In ``pyproject.toml``::

    [project.entry-points."toolrig.tools"]
    reviews = "my_package.tools:CATALOG"
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Protocol

from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.registry._report import LoadError, LoadReport

__all__ = ["PluginTarget", "load_plugins"]


class PluginTarget(Protocol):
    """Where plugins load: something that adds Python tools and loads definition files."""

    def add(self, tool: Any, *, replace: bool = False) -> BaseTool:
        """Add one tool."""
        ...

    def load(self, path: str | Path) -> LoadReport:
        """Load a definition file or folder."""
        ...


def load_plugins(registry: PluginTarget, group: str = "toolrig.tools") -> LoadReport:
    """Load every entry point of ``group`` into ``registry``; a broken one is reported, not
    raised, and the others still load."""
    report = LoadReport()
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            obj = ep.load()
        except Exception as exc:
            report += _failed(ep, f"cannot import {ep.value!r}: {type(exc).__name__}: {exc}")
            continue
        report += _add(registry, ep, obj)
    return report


def _add(registry: PluginTarget, ep: EntryPoint, obj: Any) -> LoadReport:
    if isinstance(obj, str | Path):
        return registry.load(obj)
    if isinstance(obj, list | tuple):
        report = LoadReport()
        for item in obj:
            report += _add(registry, ep, item)
        return report
    try:
        tool = registry.add(obj)
    except ToolDefinitionError as exc:
        return _failed(ep, str(exc))
    return LoadReport(loaded=(tool.spec.name,))


def _failed(ep: EntryPoint, message: str) -> LoadReport:
    error = LoadError(path=None, line=None, field=None, message=message, tool=f"plugin {ep.name}")
    return LoadReport(errors=(error,))
