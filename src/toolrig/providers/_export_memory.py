"""How each tool was last exported to OpenAI, so parsing its calls needs no second flag.

Strict mode changes what a model sends (``null`` for every optional parameter it leaves out,
JSON text for values strict mode cannot describe), so a parser must know whether the tools were
exported strictly. The export functions note it per tool object here; a parser given
``strict=None`` (the default) reads it back. Tools exported by another process cannot be known:
pass ``strict`` explicitly then.
"""

from __future__ import annotations

import weakref

from toolrig.core._base import BaseTool
from toolrig.providers._names import NameMap, ToolSource, collect_tools

__all__ = ["exported_strictly", "note_export"]

_strict: weakref.WeakKeyDictionary[BaseTool, bool] = weakref.WeakKeyDictionary()


def note_export(source: ToolSource, strict: bool) -> None:
    """Remember that the tools of ``source`` were just exported (strictly or not)."""
    if isinstance(source, NameMap):
        return
    for tool in collect_tools(source):
        _strict[tool] = strict


def exported_strictly(source: ToolSource, strict: bool | None) -> bool:
    """``strict`` when given; else whether any tool of ``source`` was last exported strictly."""
    if strict is not None:
        return strict
    if isinstance(source, NameMap) or not _strict:
        return False
    return any(_strict.get(tool, False) for tool in collect_tools(source))
