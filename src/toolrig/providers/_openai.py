"""OpenAI: Chat Completions and Responses tool definitions, tool calls and tool results.

Works with the ``openai`` SDK's objects and with plain dicts alike, without importing the SDK.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.result._content import content_blocks
from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import ParsedCall, as_list, get_field, make_call, result_call_id
from toolrig.providers._content_blocks import openai_responses_items
from toolrig.providers._export_cache import cached_export
from toolrig.providers._names import ExportedAction, NameMap, ToolSource
from toolrig.providers._strict import StrictSchemaError, to_strict_schema

__all__ = [
    "format_openai_chat_results",
    "format_openai_responses_results",
    "parse_openai_chat_calls",
    "parse_openai_responses_calls",
    "to_openai_chat_tools",
    "to_openai_responses_tools",
]


def _parameters(entry: ExportedAction, strict: bool) -> dict[str, Any]:
    if not strict:
        return copy.deepcopy(entry.action.parameters)
    try:
        return to_strict_schema(entry.action.parameters)
    except StrictSchemaError as exc:
        raise ToolDefinitionError(
            entry.call_name, f"cannot be exported in OpenAI strict mode: {exc}"
        ) from exc


def _function(entry: ExportedAction, strict: bool) -> dict[str, Any]:
    strict = strict if entry.strict is None else entry.strict
    function: dict[str, Any] = {"name": entry.provider_name}
    if entry.description:
        function["description"] = entry.description
    function["parameters"] = _parameters(entry, strict)
    if strict:
        function["strict"] = True
    return function


def to_openai_chat_tools(source: ToolSource, *, strict: bool = False) -> list[dict[str, Any]]:
    """Chat Completions ``tools``: ``{"type": "function", "function": {...}}`` per action.

    With ``strict``, parameters are rewritten for strict mode (see
    `to_strict_schema`); the source's name map remembers it (`NameMap.strict`), so its parsers
    follow. A catalogue's (or an executor's) list is kept until the catalogue changes: the tool
    dicts are shared between calls, so copy one before editing it.
    """
    names = NameMap.from_tools(source)

    def build() -> list[dict[str, Any]]:
        return [{"type": "function", "function": _function(e, strict)} for e in names]

    tools = cached_export(names, ("openai chat", strict), build)
    names.strict = strict
    return tools


def to_openai_responses_tools(source: ToolSource, *, strict: bool = False) -> list[dict[str, Any]]:
    """Responses API ``tools``: ``{"type": "function", "name", "description", "parameters",
    "strict"}`` per action (``strict`` is always stated, as the Responses API defaults it on;
    the name map remembers it, as for `to_openai_chat_tools`)."""
    names = NameMap.from_tools(source)

    def build() -> list[dict[str, Any]]:
        tools = []
        for entry in names:
            function = _function(entry, strict)
            function["strict"] = strict if entry.strict is None else entry.strict
            tools.append({"type": "function", **function})
        return tools

    tools = cached_export(names, ("openai responses", strict), build)
    names.strict = strict
    return tools


def _strict_for(names: NameMap, name: str, strict: bool) -> bool:
    """Whether the action called ``name`` was exported in strict mode (its own setting, else
    the export's)."""
    entry = names.lookup(name)
    return strict if entry is None or entry.strict is None else entry.strict


def _chat_tool_calls(response: Any) -> list[Any]:
    """The ``tool_calls`` of a ChatCompletion, a choice, a message, or a list of tool calls."""
    if isinstance(response, list | tuple):
        return list(response)
    choices = get_field(response, "choices")
    if choices is not None:
        first = as_list(choices)[:1]
        return _chat_tool_calls(get_field(first[0], "message")) if first else []
    message = get_field(response, "message")
    if message is not None:
        return _chat_tool_calls(message)
    return as_list(get_field(response, "tool_calls"))


def parse_openai_chat_calls(
    response: Any, tools: ToolSource, *, strict: bool | None = None
) -> list[ParsedCall]:
    """The function calls of a Chat Completions response (first choice), ready to execute.

    Accepts the SDK's ``ChatCompletion``, a choice, a message, its ``tool_calls``, or the same as
    dicts. Arguments arrive as JSON text; text that is not JSON becomes an ``invalid_arguments``
    result. Custom (non-function) tool calls are not toolrig's and are skipped. ``strict``
    says whether the tools were exported in strict mode; by default, as ``tools`` was last
    exported (`NameMap.strict`).
    """
    names = NameMap.from_tools(tools)
    json_text = names.strict if strict is None else strict
    calls: list[ParsedCall] = []
    for item in _chat_tool_calls(response):
        if get_field(item, "type", default="function") != "function":
            continue
        function = get_field(item, "function")
        name = str(get_field(function, "name", default=""))
        calls.append(
            make_call(
                names,
                name,
                get_field(function, "arguments"),
                get_field(item, "id"),
                json_text=_strict_for(names, name, json_text),
            )
        )
    return calls


def format_openai_chat_results(results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """One ``{"role": "tool", "tool_call_id", "content"}`` message per result, errors included
    (as ``Error [code]: message`` with the hint, so the model can correct its call)."""
    return [
        {"role": "tool", "tool_call_id": result_call_id(r), "content": r.to_text()} for r in results
    ]


def _responses_items(response: Any) -> list[Any]:
    """The output items of a Responses ``Response``, or a list of items, or one item."""
    if isinstance(response, list | tuple):
        return list(response)
    output = get_field(response, "output")
    if output is not None and not isinstance(output, str):
        return as_list(output)
    return [response]


def parse_openai_responses_calls(
    response: Any, tools: ToolSource, *, strict: bool | None = None
) -> list[ParsedCall]:
    """The ``function_call`` items of a Responses API response, ready to execute (``strict``:
    as for `parse_openai_chat_calls`)."""
    names = NameMap.from_tools(tools)
    json_text = names.strict if strict is None else strict
    calls: list[ParsedCall] = []
    for item in _responses_items(response):
        if get_field(item, "type") != "function_call":
            continue
        name = str(get_field(item, "name", default=""))
        calls.append(
            make_call(
                names,
                name,
                get_field(item, "arguments"),
                get_field(item, "call_id", "id"),
                json_text=_strict_for(names, name, json_text),
            )
        )
    return calls


def format_openai_responses_results(results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """One ``{"type": "function_call_output", "call_id", "output"}`` input item per result;
    rich output as a list of ``input_text`` and ``input_image`` items."""
    return [
        {"type": "function_call_output", "call_id": result_call_id(r), "output": _output(r)}
        for r in results
    ]


def _output(result: ToolResult) -> str | list[dict[str, Any]]:
    blocks = content_blocks(result.output) if result.success else None
    return result.to_text() if blocks is None else openai_responses_items(blocks)
