"""Round trips that used to lose or bend what the model sent: strict mode's nulls for values
carried as JSON text, strictness forgotten at parse, LangChain's own argument names, definitions
whose enum contradicts their type, numbers sent as text for an enum, ``"default": null``."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import pytest

from toolrig import ToolExecutor, tool
from toolrig.providers import (
    NameMap,
    SchemaNormalizedWarning,
    parse_openai_chat_calls,
    run_tool_calls_sync,
    to_openai_chat_tools,
    to_openai_responses_tools,
    tool_from_function_definition,
)


@tool
def anything(value: Any = "the default", count: int = 1) -> dict[str, Any]:
    """Echo its arguments."""
    return {"value": value, "count": count}


def chat_call(arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"name": "anything", "arguments": json.dumps(arguments)}
    return {"tool_calls": [{"id": "c1", "type": "function", "function": call}]}


def sent(messages: list[dict[str, Any]]) -> Any:
    return json.loads(messages[0]["content"])


def test_strict_null_for_an_any_parameter_means_its_default() -> None:
    executor = ToolExecutor([anything])
    exported = to_openai_chat_tools(executor, strict=True)[0]["function"]["parameters"]
    assert exported["required"] == ["value", "count"]
    out = run_tool_calls_sync(
        chat_call({"value": None, "count": None}), executor, provider="openai", strict=True
    )
    assert sent(out) == {"value": "the default", "count": 1}
    explicit = run_tool_calls_sync(
        chat_call({"value": "null", "count": 2}), executor, provider="openai", strict=True
    )
    assert sent(explicit) == {"value": None, "count": 2}  # JSON null, sent as JSON text


def test_parsing_follows_how_the_tools_were_exported() -> None:
    strict_executor = ToolExecutor([anything])
    to_openai_chat_tools(strict_executor, strict=True)
    out = run_tool_calls_sync(
        chat_call({"value": '{"k": [1, 2]}', "count": None}), strict_executor, provider="openai"
    )
    assert sent(out) == {"value": {"k": [1, 2]}, "count": 1}  # decoded without strict=True

    @tool
    def loose(value: Any = "d") -> Any:
        """Echo."""
        return value

    loose_executor = ToolExecutor([loose])
    to_openai_responses_tools(loose_executor)  # not strict: text stays text
    calls = parse_openai_chat_calls(
        {
            "tool_calls": [
                {"id": "c", "function": {"name": "loose", "arguments": '{"value": "[1]"}'}}
            ]
        },
        loose_executor,
    )
    assert calls[0].arguments == {"value": "[1]"}  # type: ignore[union-attr]
    forced = parse_openai_chat_calls(
        {
            "tool_calls": [
                {"id": "c", "function": {"name": "loose", "arguments": '{"value": "[1]"}'}}
            ]
        },
        loose_executor,
        strict=True,
    )
    assert forced[0].arguments == {"value": [1]}  # type: ignore[union-attr]


@tool
def configure(
    config: str, run_manager: int, self: str = "me", callbacks: str = ""
) -> dict[str, Any]:
    """Parameters named like LangChain's own."""
    return {"config": config, "run_manager": run_manager, "self": self, "callbacks": callbacks}


def test_langchain_passes_every_parameter_whatever_its_name() -> None:
    pytest.importorskip("langchain_core")
    from toolrig.providers import to_langchain_tools

    (converted,) = to_langchain_tools(ToolExecutor([configure]))
    given = {"config": "C", "run_manager": 3, "self": "S", "callbacks": "cb"}
    assert converted.invoke(given) == given
    assert asyncio.run(converted.ainvoke(given)) == given
    message = converted.invoke(
        {"type": "tool_call", "id": "t1", "name": "configure", "args": given}
    )
    assert json.loads(message.content) == given


def _import(parameters: dict[str, Any]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SchemaNormalizedWarning)
        made = tool_from_function_definition(
            {"name": "f", "description": "F.", "parameters": parameters}, lambda **kw: kw
        )
    return made, [str(w.message) for w in caught]


def test_an_enum_contradicting_its_type_is_read_as_meant_and_said() -> None:
    made, said = _import(
        {
            "type": "object",
            "properties": {
                "level": {"type": "integer", "enum": ["1", "2"]},
                "flag": {"type": "boolean", "enum": ["True", "False", "dontcare"]},
            },
        }
    )
    assert len(said) == 1 and "level" in said[0] and "flag" in said[0]
    executor = ToolExecutor([made])
    assert executor.execute_sync("f", {"level": 2}).output == {"level": 2}
    assert executor.execute_sync("f", {"flag": "dontcare"}).output == {"flag": "dontcare"}
    assert executor.execute_sync("f", {"level": 3}).code == "invalid_arguments"


def test_a_number_sent_as_text_is_read_for_an_enum() -> None:
    made, _ = _import(
        {"type": "object", "properties": {"n": {"type": "integer", "enum": [15, 20]}}}
    )
    assert ToolExecutor([made]).execute_sync("f", {"n": "15"}).output == {"n": 15}


def test_default_null_is_dropped_without_a_warning() -> None:
    made, said = _import(
        {"type": "object", "properties": {"q": {"type": "string", "default": None}}}
    )
    assert said == []
    assert ToolExecutor([made]).execute_sync("f", {}).output == {}


@pytest.mark.parametrize(
    "arguments", ["[" * 5000 + "]" * 5000, '{"count": ' + "[" * 100_000 + "]" * 100_000 + "}"]
)
def test_json_text_nested_too_deeply_is_an_invalid_arguments_answer(arguments: str) -> None:
    response = {
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "anything", "arguments": arguments},
            }
        ]
    }
    (message,) = run_tool_calls_sync(response, ToolExecutor([anything]), provider="openai")
    assert message["content"].startswith("Error [invalid_arguments]:")
    assert "nested too deeply" in message["content"]


def test_two_exports_of_the_same_tools_parse_independently() -> None:
    """Strictness belongs to each export (its catalogue), not to the tool objects: one
    process exporting the same tools strictly for one executor and loosely for another parses
    each executor's calls as its own export asked, whichever was exported last."""
    strict_executor = ToolExecutor([anything])
    loose_executor = ToolExecutor([anything])
    text = {"value": '{"k": 1}', "count": None}  # what strict mode sends for {"k": 1}
    for _ in range(2):  # interleaved: each export is made after the other's
        to_openai_chat_tools(strict_executor, strict=True)
        to_openai_chat_tools(loose_executor)
        strict_out = run_tool_calls_sync(chat_call(text), strict_executor, provider="openai")
        assert sent(strict_out) == {"value": {"k": 1}, "count": 1}
        loose_out = run_tool_calls_sync(
            chat_call({"value": '{"k": 1}', "count": 2}), loose_executor, provider="openai"
        )
        assert sent(loose_out) == {"value": '{"k": 1}', "count": 2}  # text stays text
        to_openai_responses_tools(loose_executor)
        to_openai_responses_tools(strict_executor, strict=True)
        (call,) = parse_openai_chat_calls(chat_call(text), strict_executor)
        assert call.arguments == {"value": {"k": 1}}  # type: ignore[union-attr]
        (call,) = parse_openai_chat_calls(chat_call({"value": "[1]"}), loose_executor)
        assert call.arguments == {"value": "[1]"}  # type: ignore[union-attr]


def test_an_exported_name_map_carries_its_strictness() -> None:
    """A list of tools is exported through its name map, which remembers how: parsing with
    the same map (or the same tools) follows that export, and an unexported map is loose."""
    names = NameMap.from_specs([anything.spec])
    assert names.strict is False
    to_openai_chat_tools(names, strict=True)
    assert names.strict is True
    (call,) = parse_openai_chat_calls(chat_call({"value": "[1]", "count": None}), names)
    assert call.arguments == {"value": [1]}  # type: ignore[union-attr]
    other = NameMap.from_specs([anything.spec])  # another export of the same tools
    (call,) = parse_openai_chat_calls(chat_call({"value": "[1]"}), other)
    assert call.arguments == {"value": "[1]"}  # type: ignore[union-attr]
