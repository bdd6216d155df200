"""Model Context Protocol: tool definitions, ``tools/call`` requests and ``CallToolResult``s.

Plain data in the protocol's JSON shape (camelCase); the ``mcp`` package is not imported.
Output schemas that are not objects are wrapped as ``{"result": ...}`` (MCP versions up to
2025-11-25 require an object), and results are wrapped the same way. A wrapped schema says so
with ``"x-fastmcp-wrap-result": true`` (the marker FastMCP writes and reads), so a client can
give back the plain value: ``3``, not ``{"result": 3}``.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final

from toolrig.core.model._spec import ActionSpec
from toolrig.core.result._content import content_blocks
from toolrig.core.result._result import ToolResult, to_jsonable
from toolrig.providers._calls import ParsedCall, get_field, make_call
from toolrig.providers._content_blocks import mcp_blocks
from toolrig.providers._names import ExportedAction, NameMap, ToolSource
from toolrig.runtime._kept import RESULT_URI, read_kept

__all__ = [
    "ERROR_META_KEY",
    "WRAP_MARKER",
    "format_mcp_result",
    "mcp_output_schema",
    "parse_mcp_call",
    "to_mcp_tools",
]

WRAP_MARKER: Final = "x-fastmcp-wrap-result"
"""Key set to ``true`` in an ``outputSchema`` whose results are the value under ``result``."""

ERROR_META_KEY: Final = "toolrig/error"
"""``_meta`` key of a failed ``CallToolResult`` holding the structured error (code, message,
hint, details, retryable), so programs need not parse the text meant for the model. A toolrig
server writes it and a toolrig client reads it back."""


def mcp_output_schema(action: ActionSpec) -> dict[str, Any] | None:
    """The MCP ``outputSchema`` of an action: its output schema when that is an object,
    else the schema wrapped as the ``result`` property; ``None`` without an output schema."""
    schema = action.output_schema
    if schema is None:
        return None
    if schema.get("type") == "object":
        return copy.deepcopy(schema)
    return {
        "type": "object",
        "properties": {"result": copy.deepcopy(schema)},
        "required": ["result"],
        WRAP_MARKER: True,
    }


def _annotations(entry: ExportedAction) -> dict[str, Any] | None:
    annotations = entry.tool.action_annotations(entry.action.name)
    data = annotations.model_dump(by_alias=True, exclude_none=True)
    return data or None


def to_mcp_tools(source: ToolSource) -> list[dict[str, Any]]:
    """MCP tool definitions: ``name``, ``title``, ``description``, ``inputSchema``,
    ``outputSchema``, ``annotations`` and ``icons`` (the last ones when known)."""
    tools = []
    for entry in NameMap.from_tools(source):
        tool: dict[str, Any] = {"name": entry.provider_name}
        if entry.title:
            tool["title"] = entry.title
        if entry.description:
            tool["description"] = entry.description
        schema = copy.deepcopy(entry.action.parameters)
        schema["type"] = "object"
        tool["inputSchema"] = schema
        output = mcp_output_schema(entry.action)
        if output is not None:
            tool["outputSchema"] = output
        annotations = _annotations(entry)
        if annotations is not None:
            tool["annotations"] = annotations
        if entry.tool.icons:
            tool["icons"] = [
                i.model_dump(by_alias=True, exclude_defaults=True) for i in entry.tool.icons
            ]
        tools.append(tool)
    return tools


def parse_mcp_call(params: Any, tools: ToolSource, *, call_id: str | None = None) -> ParsedCall:
    """The call in the ``params`` of a ``tools/call`` request (``name`` and ``arguments``)."""
    names = NameMap.from_tools(tools)
    return make_call(
        names,
        str(get_field(params, "name", default="")),
        get_field(params, "arguments"),
        call_id,
    )


def format_mcp_result(result: ToolResult, *, tools: ToolSource | None = None) -> dict[str, Any]:
    """A ``CallToolResult``: rich content (images, audio, resources, text) as their blocks;
    any other result as text content, ``isError`` for failures, and ``structuredContent`` when
    the action declares an output schema."""
    blocks = content_blocks(result.output) if result.success else None
    if blocks is not None:  # rich content: its own blocks, no structured copy
        return {"content": mcp_blocks(blocks), "isError": False}
    out: dict[str, Any] = {
        "content": [{"type": "text", "text": result.to_text()}],
        "isError": not result.success,
    }
    meta = result.metadata
    if meta is not None and meta.result_handle:  # cut to its budget: where the whole is
        out["content"].append(
            {
                "type": "resource_link",
                "uri": RESULT_URI + meta.result_handle,
                "name": f"{meta.tool} result {meta.tool_call_id}"[:200],
                "description": f"The whole output ({meta.result_chars:,} characters).",
                "mimeType": "text/plain",
                "size": meta.result_chars,
            }
        )
    if result.success and tools is not None:
        entry = NameMap.from_tools(tools).for_result(result)
        if entry is not None and entry.action.output_schema is not None:
            value = to_jsonable(result.output)
            if meta is not None and meta.result_handle and not isinstance(value, str):
                # cut data: clients check structured content against the output schema, which
                # the cut's shape breaks, so the data goes whole (a cut text is still a text)
                whole = read_kept(meta.result_handle)
                value = value if whole is None else json.loads(whole)
            if entry.action.output_schema.get("type") == "object" and isinstance(value, dict):
                out["structuredContent"] = value
            else:
                out["structuredContent"] = {"result": value}
    return out
