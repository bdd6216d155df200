"""Round trips for every provider: a response with 0, 1 or several tool calls (as the SDK's
own objects and as plain dicts) -> executed -> result messages the SDK's types accept."""

from __future__ import annotations

import json
from typing import Any

import prov_sdk
import pytest

from toolrig import BaseTool, ToolError, ToolExecutor, action, tool
from toolrig.providers import (
    format_mcp_result,
    parse_mcp_call,
    parse_tool_calls,
    run_tool_calls,
    run_tool_calls_sync,
    to_mcp_tools,
)


@tool
def add(a: int, b: int = 1) -> int:
    """Add two integers."""
    return a + b


@tool(name="weather.lookup")
def weather(
    city: str, unit: str | None = None, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Weather of a city."""
    return {"city": city, "unit": unit, "extra": extra}


@tool
def fail(reason: str) -> str:
    """Always fails."""
    raise ToolError(f"cannot do it: {reason}", hint="Try something else.")


class FileTool(BaseTool):
    """Reads and writes files."""

    @action
    def read(self, path: str) -> str:
        """Read a file."""
        return f"content of {path}"

    @action
    def write(self, path: str, text: str) -> int:
        """Write a file."""
        return len(text)


@pytest.fixture
def executor() -> ToolExecutor:
    return ToolExecutor([add, weather, fail, FileTool])


# (provider name, arguments) of the calls a model makes, several kinds at once: a plain call,
# a renamed one (dots are not allowed by providers), a multi-action one, a failing one, an
# unknown tool and arguments that break the schema.
SEVERAL = [
    ("add", {"a": 2, "b": 3}),
    ("weather_lookup", {"city": "Oslo"}),
    ("file_tool__read", {"path": "a.txt"}),
    ("fail", {"reason": "no"}),
    ("nope", {}),
    ("add", {"a": "two"}),
]
CASES = {"none": [], "one": SEVERAL[:1], "several": SEVERAL}


def _check_texts(texts: list[str], calls: list[tuple[str, dict[str, Any]]]) -> None:
    assert len(texts) == len(calls)
    expected = {
        "add": "5",
        "weather_lookup": '"city":"Oslo"',
        "file_tool__read": "content of a.txt",
        "fail": "Error [execution_error]: cannot do it: no\nHint: Try something else.",
        "nope": "Error [not_found]",
    }
    for text, (name, args) in zip(texts, calls, strict=True):
        if name == "add" and args["a"] == "two":
            assert text.startswith("Error [invalid_arguments]") and "- a:" in text
        else:
            assert expected[name] in text


def _chat_response(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    tool_calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
    }


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("as_sdk", [True, False])
async def test_openai_chat_round_trip(executor: ToolExecutor, case: str, as_sdk: bool) -> None:
    from openai.types.chat import ChatCompletion

    calls = CASES[case]
    response: Any = _chat_response(calls)
    if as_sdk:
        response = ChatCompletion.model_validate(response)
    messages = await run_tool_calls(response, executor, provider="openai")
    prov_sdk.check_openai_chat_messages(messages)
    assert [m["tool_call_id"] for m in messages] == [f"call_{i}" for i in range(len(calls))]
    _check_texts([m["content"] for m in messages], calls)


def test_openai_chat_malformed_json_is_a_result(executor: ToolExecutor) -> None:
    response = _chat_response([("add", {})])
    response["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"a": 1,'
    messages = run_tool_calls_sync(response, executor, provider="openai")
    prov_sdk.check_openai_chat_messages(messages)
    assert messages[0]["content"].startswith("Error [invalid_arguments]")
    assert "not valid JSON" in messages[0]["content"]


def test_openai_chat_strict_nulls_and_json_text(executor: ToolExecutor) -> None:
    """In strict mode the model sends every parameter: null for left-out optional ones, JSON
    text for free-form objects; both are put back before validation."""
    args = {"city": "Oslo", "unit": None, "extra": '{"k": [1, 2]}'}
    calls = parse_tool_calls(
        _chat_response([("weather_lookup", args)]), executor, provider="openai", strict=True
    )
    assert calls[0].arguments == {"city": "Oslo", "unit": None, "extra": {"k": [1, 2]}}  # type: ignore[union-attr]
    add_calls = parse_tool_calls(
        _chat_response([("add", {"a": 1, "b": None})]), executor, provider="openai", strict=True
    )
    assert add_calls[0].arguments == {"a": 1}  # type: ignore[union-attr]
    messages = run_tool_calls_sync(
        _chat_response([("add", {"a": 1, "b": None})]), executor, provider="openai", strict=True
    )
    assert messages[0]["content"] == "2"


def _responses_response(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    output: list[dict[str, Any]] = [
        {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": f"call_{i}",
            "name": n,
            "arguments": json.dumps(a),
        }
        for i, (n, a) in enumerate(calls)
    ]
    if not output:
        output = [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "hello", "annotations": []}],
            }
        ]
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("as_sdk", [True, False])
async def test_openai_responses_round_trip(executor: ToolExecutor, case: str, as_sdk: bool) -> None:
    from openai.types.responses import Response

    calls = CASES[case]
    response: Any = _responses_response(calls)
    if as_sdk:
        response = Response.model_validate(response)
    items = await run_tool_calls(response, executor, provider="openai-responses")
    prov_sdk.check_openai_responses_items(items)
    assert [i["call_id"] for i in items] == [f"call_{i}" for i in range(len(calls))]
    _check_texts([i["output"] for i in items], calls)


def _anthropic_response(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": "Let me check."}]
    content += [
        {"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a}
        for i, (n, a) in enumerate(calls)
    ]
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("as_sdk", [True, False])
async def test_anthropic_round_trip(executor: ToolExecutor, case: str, as_sdk: bool) -> None:
    from anthropic.types import Message

    calls = CASES[case]
    response: Any = _anthropic_response(calls)
    if as_sdk:
        response = Message.model_validate(response)
    messages = await run_tool_calls(response, executor, provider="anthropic")
    prov_sdk.check_anthropic_messages(messages)
    if not calls:
        assert messages == []
        return
    blocks = messages[0]["content"]
    assert [b["tool_use_id"] for b in blocks] == [f"toolu_{i}" for i in range(len(calls))]
    assert [b["is_error"] for b in blocks] == [
        n in ("fail", "nope") or a.get("a") == "two" for n, a in calls
    ]
    _check_texts([b["content"] for b in blocks], calls)


def _gemini_response(calls: list[tuple[str, dict[str, Any]]], ids: bool) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": "Checking."}]
    for i, (n, a) in enumerate(calls):
        call: dict[str, Any] = {"name": n, "args": a}
        if ids:
            call["id"] = f"fc_{i}"
        parts.append({"functionCall": call})
    return {"candidates": [{"content": {"role": "model", "parts": parts}}]}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("as_sdk", [True, False])
@pytest.mark.parametrize("ids", [True, False])
async def test_gemini_round_trip(
    executor: ToolExecutor, case: str, as_sdk: bool, ids: bool
) -> None:
    from google.genai import types

    calls = CASES[case]
    response: Any = _gemini_response(calls, ids)
    if as_sdk:
        response = types.GenerateContentResponse.model_validate(response)
    contents = await run_tool_calls(response, executor, provider="gemini")
    prov_sdk.check_gemini_contents(contents)
    if not calls:
        assert contents == []
        return
    responses = [p["functionResponse"] for p in contents[0]["parts"]]
    assert [r["name"] for r in responses] == [n for n, _ in calls]
    assert [r.get("id") for r in responses] == [
        f"fc_{i}" if ids else None for i in range(len(calls))
    ]
    assert responses[0]["response"] == {"output": 5}
    if len(calls) > 1:
        assert responses[3]["response"]["error"]["code"] == "execution_error"
        assert responses[4]["response"]["error"]["code"] == "not_found"


@pytest.mark.parametrize("case", list(CASES))
async def test_mcp_round_trip(executor: ToolExecutor, case: str) -> None:
    import mcp.types

    prov_sdk.check_mcp_tools(to_mcp_tools(executor))
    for name, args in CASES[case]:
        params = mcp.types.CallToolRequestParams.model_validate({"name": name, "arguments": args})
        call = parse_mcp_call(params, executor, call_id="req-1")
        assert not isinstance(call, type(None))
        result = (await executor.execute_many([call]))[0]  # type: ignore[list-item]
        payload = format_mcp_result(result, tools=executor)
        validated = mcp.types.CallToolResult.model_validate(payload)
        assert validated.is_error == (not result.success)
        if name == "add" and result.success:
            assert validated.structured_content == {"result": 5}


def test_unknown_provider_is_named(executor: ToolExecutor) -> None:
    with pytest.raises(ValueError, match="unknown provider 'cohere'"):
        run_tool_calls_sync({}, executor, provider="cohere")  # type: ignore[arg-type]


async def test_calls_run_concurrently() -> None:
    import asyncio

    running = 0
    peak = 0

    @tool
    async def slow(n: int) -> int:
        """Sleep a little."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1
        return n

    executor = ToolExecutor([slow])
    response = _chat_response([("slow", {"n": i}) for i in range(4)])
    messages = await run_tool_calls(response, executor, provider="openai")
    assert [m["content"] for m in messages] == ["0", "1", "2", "3"]
    assert peak == 4
