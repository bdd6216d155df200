"""Exported tool lists kept per catalogue version: a turn that offers the same catalogue again
costs a lookup, not a new export (1,000 tools: tens of milliseconds each time otherwise).

The lists come from the catalogue's memo (`memo`), dropped on every change of the catalogue,
or, for plain tools and lists of them, from the name map of their specs (the last few lists
are remembered: `NameMap.from_tools`). Each call gets a list of its own; the tool dicts in it are
shared between calls for one version, so treat them as read-only (``copy.deepcopy`` one to
edit it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from toolrig.providers._names import NameMap, ToolSource
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor

__all__ = ["cached_export"]


def cached_export(
    source: ToolSource, key: Hashable, build: Callable[[], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """``build()``, kept per version of ``source``'s catalogue under ``key``, or with its name
    map (which never changes: plain tools and lists of them share the map of their specs)."""
    catalog = source.catalog if isinstance(source, ToolExecutor) else source
    if isinstance(catalog, Catalog):
        return list(catalog.memo(("exported tools", key), build))
    names = NameMap.from_tools(source)
    kept = names.exports.get(key)
    if kept is None:
        kept = names.exports[key] = build()
        names.built += 1
    else:
        names.reused += 1
    return list(kept)
