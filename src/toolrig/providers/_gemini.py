"""Google Gemini: function declarations, ``functionCall`` parts and ``functionResponse`` parts.

Declarations use Gemini's schema subset (see :mod:`toolrig.providers._gemini_schema`). Works with
``google-genai`` objects (snake_case attributes) and REST-style dicts (camelCase) alike, without
importing the SDK.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolrig.core.result._content import content_blocks
from toolrig.core.result._result import ToolResult, to_jsonable
from toolrig.providers._calls import ParsedCall, as_list, get_field, make_call, result_call_id
from toolrig.providers._gemini_schema import to_gemini_schema
from toolrig.providers._names import NameMap, ToolSource
from toolrig.runtime._request import ToolCall

__all__ = [
    "format_gemini_results",
    "parse_gemini_calls",
    "to_gemini_declarations",
    "to_gemini_tool",
]


def to_gemini_declarations(source: ToolSource) -> list[dict[str, Any]]:
    """One function declaration (``name``, ``description``, ``parameters``) per action.

    Actions without parameters get no ``parameters`` (Gemini rejects an object schema without
    properties).
    """
    declarations = []
    for entry in NameMap.from_tools(source):
        declaration: dict[str, Any] = {"name": entry.provider_name}
        if entry.description:
            declaration["description"] = entry.description
        params = entry.action.parameters
        if params.get("properties"):
            declaration["parameters"] = to_gemini_schema(params)
        declarations.append(declaration)
    return declarations


def to_gemini_tool(source: ToolSource) -> dict[str, Any]:
    """A Gemini ``Tool``: ``{"functionDeclarations": [...]}`` for all actions of ``source``."""
    return {"functionDeclarations": to_gemini_declarations(source)}


def _function_calls(response: Any) -> list[Any]:
    """The function calls in a response, a candidate, a content, parts, or calls."""
    if isinstance(response, list | tuple):
        found: list[Any] = []
        for item in response:
            found.extend(_function_calls(item))
        return found
    candidates = get_field(response, "candidates")
    if candidates is not None:
        first = as_list(candidates)[:1]
        return _function_calls(first[0]) if first else []
    content = get_field(response, "content")
    if content is not None and not isinstance(content, str):
        return _function_calls(content)
    parts = get_field(response, "parts")
    if parts is not None:
        return _function_calls(as_list(parts))
    call = get_field(response, "function_call", "functionCall")
    if call is not None:
        return [call]
    if get_field(response, "name") is not None and not _is_part(response):
        return [response]
    return []


def _is_part(obj: Any) -> bool:
    return get_field(obj, "text", "function_response", "functionResponse") is not None


def parse_gemini_calls(response: Any, tools: ToolSource) -> list[ParsedCall]:
    """The ``functionCall`` parts of a ``generateContent`` response (first candidate).

    Values exported as JSON text (free-form objects, any value) are decoded back.
    """
    names = NameMap.from_tools(tools)
    return [
        make_call(
            names,
            str(get_field(call, "name", default="")),
            get_field(call, "args"),
            get_field(call, "id"),
            json_text=True,
        )
        for call in _function_calls(response)
    ]


def _response_body(result: ToolResult) -> dict[str, Any]:
    if result.error is None:
        if content_blocks(result.output) is not None:  # images etc.: the text with notices
            return {"output": result.to_text()}
        return {"output": to_jsonable(result.output)}
    error = {"code": result.error.code, "message": result.error.message}
    if result.error.hint:
        error["hint"] = result.error.hint
    return {"error": error}


def format_gemini_results(
    results: Sequence[ToolResult],
    *,
    calls: Sequence[ParsedCall] | None = None,
    tools: ToolSource | None = None,
) -> list[dict[str, Any]]:
    """The ``user`` content with one ``functionResponse`` part per result (``{"output": ...}``
    or ``{"error": {...}}``); empty for no results.

    Pass the parsed ``calls`` (same order) so that call ids the model did not send are left
    out, and ``tools`` so that names are the exported ones.
    """
    if not results:
        return []
    names = NameMap.from_tools(tools) if tools is not None else None
    parts = []
    for index, result in enumerate(results):
        call = calls[index] if calls is not None and index < len(calls) else None
        response: dict[str, Any] = {}
        if isinstance(call, ToolCall):
            name = names.provider_name(call.name) if names else call.name
            call_id = call.tool_call_id
        else:
            entry = names.for_result(result) if names else None
            meta = result.metadata
            name = entry.provider_name if entry else (meta.tool if meta else "")
            call_id = result_call_id(result) or None
        if call_id:
            response["id"] = call_id
        response["name"] = name
        response["response"] = _response_body(result)
        parts.append({"functionResponse": response})
    return [{"role": "user", "parts": parts}]
