"""How each tool was last exported to OpenAI, so parsing its calls needs no second flag.

Strict mode changes what a model sends (``null`` for every optional parameter it leaves out,
JSON text for values strict mode cannot describe), so a parser must know whether the tools were
exported strictly. The export functions note it per tool object here; a parser given
``strict=None`` (the default) reads it back. Tools exported by another process cannot be known:
pass ``strict`` explicitly then.
"""

from __future__ import annotations

import itertools
import weakref

from toolrig.core.define._base import BaseTool
from toolrig.providers._names import NameMap, ToolSource, collect_tools
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor

__all__ = ["exported_strictly", "note_export"]

_strict: weakref.WeakKeyDictionary[BaseTool, bool] = weakref.WeakKeyDictionary()
_exports = itertools.count()
_generation = 0
"""Changes with every export, so a catalogue's answer is kept until the next one."""


def note_export(source: ToolSource, strict: bool) -> None:
    """Remember that the tools of ``source`` were just exported (strictly or not)."""
    global _generation
    if isinstance(source, NameMap):
        return
    for tool in collect_tools(source):
        _strict[tool] = strict
    _generation = next(_exports)


def exported_strictly(source: ToolSource, strict: bool | None) -> bool:
    """``strict`` when given; else whether any tool of ``source`` was last exported strictly."""
    if strict is not None:
        return strict
    if isinstance(source, NameMap) or not _strict:
        return False
    catalog = source.catalog if isinstance(source, ToolExecutor) else source
    if isinstance(catalog, Catalog):  # once per version of the catalogue and export
        return catalog.memo(("exported strictly", _generation), lambda: _any_strict(catalog))
    return _any_strict(source)


def _any_strict(source: ToolSource) -> bool:
    return any(_strict.get(tool, False) for tool in collect_tools(source))
