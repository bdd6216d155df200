"""Checks of exported tools and result messages by each provider's own SDK types.

TypedDict request types drop unknown keys when validated, so each check also compares the
validated value with ours: equal means the SDK knows every key we send.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import TypeAdapter


@cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def _same(adapter: TypeAdapter[Any], value: Any) -> None:
    validated = adapter.validate_python(value)
    assert validated == value, f"SDK type dropped or changed keys:\n{validated}\n!=\n{value}"


def check_openai_chat_tools(tools: list[dict[str, Any]]) -> None:
    from agents.strict_schema import ensure_strict_json_schema
    from openai.types.chat import ChatCompletionFunctionToolParam

    adapter = _adapter(ChatCompletionFunctionToolParam)
    for tool in tools:
        _same(adapter, tool)
        function = tool["function"]
        if function.get("strict"):
            params = function["parameters"]
            assert ensure_strict_json_schema(copy.deepcopy(params)) == params


def check_openai_responses_tools(tools: list[dict[str, Any]]) -> None:
    from agents.strict_schema import ensure_strict_json_schema
    from openai.types.responses import FunctionToolParam

    adapter = _adapter(FunctionToolParam)
    for tool in tools:
        _same(adapter, tool)
        if tool["strict"]:
            params = tool["parameters"]
            assert ensure_strict_json_schema(copy.deepcopy(params)) == params


def check_anthropic_tools(tools: list[dict[str, Any]]) -> None:
    from anthropic.types import ToolParam

    adapter = _adapter(ToolParam)
    for tool in tools:
        _same(adapter, tool)


def check_gemini_declarations(declarations: list[dict[str, Any]]) -> None:
    from google.genai import types

    for declaration in declarations:
        model = types.FunctionDeclaration.model_validate(declaration)
        dumped = model.model_dump(by_alias=True, exclude_none=True, mode="json")
        assert dumped == declaration, f"{dumped}\n!=\n{declaration}"
        text = repr(declaration)
        for banned in ("additionalProperties", "$schema", "$ref", "$defs", "'null'"):
            assert banned not in text, f"{banned} in {text}"


def check_mcp_tools(tools: list[dict[str, Any]]) -> None:
    import mcp.types

    for tool in tools:
        model = mcp.types.Tool.model_validate(tool)
        assert model.model_dump(by_alias=True, exclude_none=True) == tool
        assert tool["inputSchema"]["type"] == "object"


def check_openai_chat_messages(messages: list[dict[str, Any]]) -> None:
    from openai.types.chat import ChatCompletionToolMessageParam

    adapter = _adapter(ChatCompletionToolMessageParam)
    for message in messages:
        _same(adapter, message)


def check_openai_responses_items(items: list[dict[str, Any]]) -> None:
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    adapter = _adapter(FunctionCallOutput)
    for item in items:
        _same(adapter, item)


def check_anthropic_messages(messages: list[dict[str, Any]]) -> None:
    from anthropic.types import MessageParam, ToolResultBlockParam

    block_adapter = _adapter(ToolResultBlockParam)
    message_adapter = _adapter(MessageParam)
    for message in messages:
        message_adapter.validate_python(message)
        assert message["role"] == "user"
        for block in message["content"]:
            _same(block_adapter, block)


def check_gemini_contents(contents: list[dict[str, Any]]) -> None:
    from google.genai import types

    for content in contents:
        model = types.Content.model_validate(content)
        assert model.model_dump(by_alias=True, exclude_none=True, mode="json") == content


def check_all_exports(source: Any) -> int:
    """Export ``source`` in every format and check each with the SDKs; returns the count."""
    from toolrig import providers as p

    check_openai_chat_tools(p.to_openai_chat_tools(source))
    check_openai_chat_tools(p.to_openai_chat_tools(source, strict=True))
    check_openai_responses_tools(p.to_openai_responses_tools(source))
    check_openai_responses_tools(p.to_openai_responses_tools(source, strict=True))
    check_anthropic_tools(p.to_anthropic_tools(source))
    check_gemini_declarations(p.to_gemini_declarations(source))
    check_mcp_tools(p.to_mcp_tools(source))
    return 7
