"""A request to run a tool, as callers and parsers make it: :class:`ToolCall`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ToolResult, error_result

__all__ = ["ToolCall", "as_tool_call"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """A request to run a tool: its call name, arguments (mapping or JSON text) and call id."""

    name: str
    arguments: Mapping[str, Any] | str | None = None
    tool_call_id: str | None = None


def as_tool_call(item: Any) -> ToolCall | ToolResult:
    """A :class:`ToolCall` from a ``ToolCall``, ``(name, arguments)`` or a mapping with ``name``,
    ``arguments`` and ``id``; anything else becomes an ``invalid_arguments`` result."""
    if isinstance(item, ToolCall):
        return item
    if isinstance(item, tuple) and len(item) in (1, 2, 3) and isinstance(item[0], str):
        return ToolCall(
            name=item[0],
            arguments=item[1] if len(item) > 1 else None,
            tool_call_id=item[2] if len(item) > 2 else None,
        )
    if isinstance(item, Mapping) and isinstance(item.get("name"), str):
        call_id = item.get("id", item.get("tool_call_id"))
        return ToolCall(
            name=item["name"],
            arguments=item.get("arguments"),
            tool_call_id=call_id if isinstance(call_id, str) else None,
        )
    return error_result(
        ErrorCode.INVALID_ARGUMENTS,
        "A call must be a ToolCall, a (name, arguments) pair or an object with a 'name'; "
        f"got {item!r:.200}",
    )
