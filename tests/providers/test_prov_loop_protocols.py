"""The provider loop of the README, through the real SDK clients, against a local server that
refuses what each API refuses: ``run_tool_calls(..., include_turn=True)`` returns the model's
turn ahead of the tool results, so appending it keeps the conversation valid."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from llm_server import ScriptedLLM, Turn, tool_results
from toolrig import ToolExecutor, tool
from toolrig.providers import (
    assistant_turn,
    run_tool_calls,
    run_tool_calls_sync,
    to_anthropic_tools,
    to_openai_chat_tools,
    to_openai_responses_tools,
)

README = Path(__file__).resolve().parents[2] / "README.md"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def script() -> list[Any]:
    def last(request: dict[str, Any]) -> Turn:
        assert tool_results(request)["c3"] == ("10", False), tool_results(request)
        return Turn(text="10.")

    return [
        Turn(calls=[("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3, "b": 4}, "c2")]),
        Turn(text="Now the total.", calls=[("add", {"a": 3, "b": 7}, "c3")]),
        last,
    ]


def chat_loop(client: Any, executor: ToolExecutor, *, include_turn: bool = True) -> str:
    tools = to_openai_chat_tools(executor, strict=True)
    messages: list[Any] = [{"role": "user", "content": "1+2, 3+4, then their sum?"}]
    for _ in range(5):
        response = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=tools)
        messages += run_tool_calls_sync(
            response, executor, provider="openai", strict=True, include_turn=include_turn
        )
        if not response.choices[0].message.tool_calls:
            return str(response.choices[0].message.content)
    raise AssertionError("no answer")


def responses_loop(client: Any, executor: ToolExecutor, *, include_turn: bool = True) -> str:
    tools = to_openai_responses_tools(executor, strict=True)
    items: list[Any] = [{"role": "user", "content": "1+2, 3+4, then their sum?"}]
    for _ in range(5):
        response = client.responses.create(model="gpt-4.1", input=items, tools=tools)
        new = run_tool_calls_sync(
            response, executor, provider="openai-responses", include_turn=include_turn
        )
        items += new
        if not any(i.get("type") == "function_call_output" for i in new):
            return str(response.output_text)
    raise AssertionError("no answer")


def anthropic_loop(client: Any, executor: ToolExecutor, *, include_turn: bool = True) -> str:
    tools = to_anthropic_tools(executor)
    messages: list[Any] = [{"role": "user", "content": "1+2, 3+4, then their sum?"}]
    for _ in range(5):
        response = client.messages.create(
            model="claude-x", max_tokens=1024, tools=tools, messages=messages
        )
        messages += run_tool_calls_sync(
            response, executor, provider="anthropic", include_turn=include_turn
        )
        if response.stop_reason != "tool_use":
            return "".join(b.text for b in response.content if b.type == "text")
    raise AssertionError("no answer")


LOOPS = {"openai": chat_loop, "openai-responses": responses_loop, "anthropic": anthropic_loop}


def sdk_client(provider: str, server: ScriptedLLM) -> Any:
    if provider == "anthropic":
        return anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="k", max_retries=0)


@pytest.mark.parametrize("provider", list(LOOPS))
def test_the_readme_loop_builds_a_conversation_the_api_accepts(provider: str) -> None:
    executor = ToolExecutor([add])
    with ScriptedLLM(script()) as server:
        answer = LOOPS[provider](sdk_client(provider, server), executor)
    assert answer == "10." and server.refusals == [] and server.errors == []
    assert len(server.requests) == 3
    executor.close()


@pytest.mark.parametrize("provider", list(LOOPS))
def test_without_the_turn_the_api_refuses_the_next_request(provider: str) -> None:
    """The mistake the README loop once made: only the tool results appended."""
    executor = ToolExecutor([add])
    error = anthropic.BadRequestError if provider == "anthropic" else openai.BadRequestError
    with ScriptedLLM(script()) as server, pytest.raises(error):
        LOOPS[provider](sdk_client(provider, server), executor, include_turn=False)
    assert len(server.refusals) == 1
    assert re.search(r"tool_call|function call|tool_use", server.refusals[0])
    executor.close()


def test_the_readme_shows_the_turn_being_kept() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Providers") :]
    block = section[
        section.index("```python") : section.index("```\n", section.index("```python") + 9)
    ]
    assert "include_turn=True" in block and "run_tool_calls_sync(" in block


def test_async_round_trip_and_a_turn_without_calls() -> None:
    executor = ToolExecutor([add])
    response = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "add", "arguments": '{"a": 2, "b": 2}'},
                        }
                    ],
                }
            }
        ]
    }
    messages = asyncio.run(run_tool_calls(response, executor, provider="openai", include_turn=True))
    assert messages == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": response["choices"][0]["message"]["tool_calls"],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "4"},
    ]
    text_only = {"choices": [{"message": {"role": "assistant", "content": "Done."}}]}
    assert run_tool_calls_sync(text_only, executor, provider="openai", include_turn=True) == [
        {"role": "assistant", "content": "Done."}
    ]
    assert run_tool_calls_sync(text_only, executor, provider="openai") == []
    # Anthropic input that is not an object goes back wrapped, as Anthropic advises
    broken = {"content": [{"type": "tool_use", "id": "t1", "name": "add", "input": '{"a": 1'}]}
    turn = assistant_turn(broken, provider="anthropic")
    assert turn[0]["content"][0]["input"] == {"INVALID_JSON": '{"a": 1'}
    # SDK objects go back under the API's field names (the SDK's ``async_`` is ``async``)
    from openai.types.responses import Response

    item = {"type": "function_call", "call_id": "c1", "name": "add", "arguments": "{}"}
    sdk_response = Response.model_validate(
        {
            "id": "r",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "output": [{**item, "id": "fc1", "status": "completed", "async": False}],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )
    echoed = assistant_turn(sdk_response, provider="openai-responses")
    assert echoed == [{**item, "id": "fc1", "status": "completed", "async": False}]
    with pytest.raises(ValueError, match="unknown provider 'cohere'"):
        assistant_turn(broken, provider="cohere")
    executor.close()
