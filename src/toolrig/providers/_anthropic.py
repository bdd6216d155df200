"""Anthropic Messages API: tool definitions, ``tool_use`` blocks and ``tool_result`` blocks.

Works with the ``anthropic`` SDK's objects and with plain dicts alike, without importing it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from toolrig.core.result._content import content_blocks
from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import ParsedCall, as_list, get_field, make_call, result_call_id
from toolrig.providers._content_blocks import anthropic_blocks
from toolrig.providers._export_cache import cached_export
from toolrig.providers._names import NameMap, ToolSource

__all__ = ["format_anthropic_results", "parse_anthropic_calls", "to_anthropic_tools"]


def to_anthropic_tools(source: ToolSource) -> list[dict[str, Any]]:
    """``tools`` for the Messages API: ``{"name", "description", "input_schema"}`` per action
    (kept per catalogue version for a catalogue or an executor: copy a dict before editing it)."""
    names = NameMap.from_tools(source)

    def build() -> list[dict[str, Any]]:
        tools = []
        for entry in names:
            tool: dict[str, Any] = {"name": entry.provider_name}
            if entry.description:
                tool["description"] = entry.description
            schema = copy.deepcopy(entry.action.parameters)
            schema["type"] = "object"
            tool["input_schema"] = schema
            tools.append(tool)
        return tools

    return cached_export(names, "anthropic", build)


def _blocks(response: Any) -> list[Any]:
    """The content blocks of a ``Message`` (or message dict), or a list of blocks."""
    if isinstance(response, list | tuple):
        return list(response)
    content = get_field(response, "content")
    if content is not None and not isinstance(content, str):
        return as_list(content)
    return [response]


def parse_anthropic_calls(response: Any, tools: ToolSource) -> list[ParsedCall]:
    """The ``tool_use`` blocks of a Messages API response, ready to execute."""
    names = NameMap.from_tools(tools)
    return [
        make_call(
            names,
            str(get_field(block, "name", default="")),
            get_field(block, "input"),
            get_field(block, "id"),
        )
        for block in _blocks(response)
        if get_field(block, "type") == "tool_use"
    ]


def format_anthropic_results(results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """The ``user`` message carrying one ``tool_result`` block per result (``is_error`` set
    for failures, whose text tells the model how to fix the call; images as image blocks);
    empty for no results."""
    if not results:
        return []
    blocks = [
        {
            "type": "tool_result",
            "tool_use_id": result_call_id(r),
            "content": _content(r),
            "is_error": not r.success,
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]


def _content(result: ToolResult) -> str | list[dict[str, Any]]:
    """Text, or for rich output text and image blocks (see ``_content_blocks``)."""
    blocks = content_blocks(result.output) if result.success else None
    return result.to_text() if blocks is None else anthropic_blocks(blocks)
