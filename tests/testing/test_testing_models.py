"""``toolrig.testing``: the scripted and function test models, through the client interface."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from pydantic import BaseModel

from toolrig import BaseTool, ToolCall, ToolExecutor, ToolResult, action, tool
from toolrig.agent import LLMClient, LLMTurn, TextDelta, Usage
from toolrig.providers import execute_calls
from toolrig.testing import FunctionModel, ModelScriptError, ModelTurn, ScriptedModel


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Notes(BaseTool):
    """Keep notes."""

    name = "notes"

    @action
    def write(self, text: str) -> str:
        """Write a note."""
        return f"noted: {text}"


async def play(model: LLMClient, tools: Any, prompt: str = "Go.") -> list[LLMTurn]:
    """Drive ``model`` as an agent loop does, until it answers without calls."""
    executor = ToolExecutor(tools)
    conversation = model.start(prompt, system="Be brief.")
    turns = []
    for _ in range(5):
        turn = await model.complete(conversation, executor)
        turns.append(turn)
        model.add_turn(conversation, turn)
        if not turn.calls:
            break
        model.add_results(conversation, turn, await execute_calls(executor, turn.calls))
    executor.close()
    return turns


def test_a_script_plays_in_order_and_its_calls_run() -> None:
    model = ScriptedModel(
        [
            ModelTurn(
                text="Working.", calls=[("add", {"a": 1, "b": 2}), ("notes.write", {"text": "x"})]
            ),
            ModelTurn(
                calls=[ToolCall(name="add", arguments={"a": 3, "b": 3}, tool_call_id="mine")]
            ),
            "All done.",
        ]
    )
    turns = asyncio.run(play(model, [add, Notes()]))
    assert [t.text for t in turns] == ["Working.", None, "All done."]
    assert [(c.name, c.tool_call_id) for c in turns[0].calls if isinstance(c, ToolCall)] == [
        ("add", "call_1"),
        ("notes__write", "call_2"),
    ]
    assert [t.stop_reason for t in turns] == ["tool_calls", "tool_calls", "stop"]
    assert model.remaining == 0 and len(model.requests) == 3
    first, last = model.requests[0], model.requests[-1]
    assert first.messages[0] == {"role": "system", "content": "Be brief."}
    assert sorted(first.tool_names) == ["add", "notes__write"]  # what a provider is shown
    sent = first.tools[0]["function"]
    assert sent["name"] == "add" and sent["parameters"]["required"] == ["a", "b"]
    tool_messages = [m for m in last.messages if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages] == [
        ("call_1", "3"),
        ("call_2", "noted: x"),
        ("mine", "6"),
    ]


def test_the_script_running_out_is_a_clear_error() -> None:
    model = ScriptedModel([ModelTurn(calls=[("add", {"a": 1, "b": 1})])])
    with pytest.raises(ModelScriptError, match=r"script ran out: request 2 came after all 1 "):
        asyncio.run(play(model, [add]))


def test_a_conversation_the_api_would_refuse_is_an_error() -> None:
    async def broken_loop() -> None:
        model = ScriptedModel([ModelTurn(calls=[("add", {"a": 1, "b": 1})]), "never"])
        conversation = model.start("Go.")
        turn = await model.complete(conversation, [add])
        # the loop forgets model.add_turn(...): the tool result answers no call
        results = await execute_calls(ToolExecutor([add]), turn.calls)
        model.add_results(conversation, turn, results)
        await model.complete(conversation, [add])

    with pytest.raises(ModelScriptError, match="role 'tool' must be a response to a preceding"):
        asyncio.run(broken_loop())

    async def unanswered() -> None:
        model = ScriptedModel([ModelTurn(calls=[("add", {"a": 1, "b": 1})]), "never"])
        conversation = model.start("Go.")
        model.add_turn(conversation, await model.complete(conversation, [add]))
        model.add_user(conversation, "and?")
        await model.complete(conversation, [add])

    with pytest.raises(ModelScriptError, match="no response to: call_1"):
        asyncio.run(unanswered())


class Verdict(BaseModel):
    label: str
    score: float


@dataclasses.dataclass
class Point:
    x: int
    y: int


@pytest.mark.parametrize(
    ("output", "text"),
    [
        (Verdict(label="good", score=0.9), '{"label":"good","score":0.9}'),
        (Point(1, 2), '{"x": 1, "y": 2}'),
        (42, "42"),
        (None, "null"),
    ],
)
def test_typed_output_is_sent_as_json_text(output: Any, text: str) -> None:
    turns = asyncio.run(play(ScriptedModel([ModelTurn(output=output)]), [add]))
    assert turns[0].text == text


def test_a_turn_is_text_or_output_and_calls_are_calls() -> None:
    with pytest.raises(ValueError, match="either text= or output="):
        ModelTurn(text="x", output=1)
    with pytest.raises(TypeError, match="a scripted call must be a ToolCall"):
        ModelTurn(calls=[42])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="a model turn must be a ModelTurn or a str"):
        ScriptedModel([3])  # type: ignore[list-item]


def test_broken_arguments_become_an_error_result_the_model_reads() -> None:
    model = ScriptedModel([ModelTurn(calls=[("add", '{"a": 1,')]), "Sorry."])
    turns = asyncio.run(play(model, [add]))
    bad = turns[0].calls[0]
    assert isinstance(bad, ToolResult) and bad.code == "invalid_arguments"
    assert "not valid JSON" in model.requests[1].messages[-1]["content"]


def test_usage_is_counted_or_given() -> None:
    model = ScriptedModel(
        ["one two three", ModelTurn(text="x", usage=Usage(input_tokens=7, output_tokens=1))]
    )
    conversation = model.start("four five")
    first = asyncio.run(model.complete(conversation, None))
    second = asyncio.run(model.complete(conversation, None))
    assert (first.usage.input_tokens, first.usage.output_tokens) == (2, 3)
    assert (second.usage.input_tokens, second.usage.output_tokens) == (7, 1)


def test_stream_yields_word_deltas_then_the_turn() -> None:
    async def collect(model: LLMClient) -> list[Any]:
        return [event async for event in model.stream(model.start("Hi"), [add])]

    events = asyncio.run(
        collect(
            ScriptedModel([ModelTurn(text="Hello  big world", calls=[("add", {"a": 1, "b": 2})])])
        )
    )
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert deltas == ["Hello  ", "big ", "world"] and "".join(deltas) == "Hello  big world"
    assert isinstance(events[-1], LLMTurn) and len(events[-1].calls) == 1
    assert sum(isinstance(e, LLMTurn) for e in events) == 1
    calls_only = asyncio.run(collect(ScriptedModel([ModelTurn(calls=[("add", {"a": 1, "b": 2})])])))
    assert len(calls_only) == 1 and isinstance(calls_only[0], LLMTurn)


def test_a_function_model_decides_from_the_messages_and_tools() -> None:
    seen_tools: list[list[str]] = []

    async def decide(
        messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> ModelTurn | str:
        seen_tools.append([t["function"]["name"] for t in tools])
        last = messages[-1]
        if last["role"] == "tool":
            return f"The answer is {last['content']}."
        numbers = [int(w) for w in last["content"].split() if w.isdigit()]
        return ModelTurn(calls=[("add", {"a": numbers[0], "b": numbers[1]})])

    model = FunctionModel(decide)
    turns = asyncio.run(play(model, [add], prompt="add 20 and 22"))
    assert turns[-1].text == "The answer is 42." and seen_tools == [["add"], ["add"]]


def test_a_function_model_must_return_a_turn() -> None:
    model = FunctionModel(lambda messages, tools: {"text": "no"})  # type: ignore[arg-type,return-value]
    with pytest.raises(ModelScriptError, match="returned no turn"):
        asyncio.run(model.complete(model.start("Hi"), None))


def test_the_default_stream_of_a_client_is_its_turn_as_one_delta() -> None:
    """A client that only implements ``complete`` still streams: one delta, then the turn."""

    async def collect() -> list[Any]:
        model = ScriptedModel(["All at once.", ModelTurn(calls=[("add", {"a": 1, "b": 2})])])
        first = [e async for e in LLMClient.stream(model, model.start("Hi"), [add])]
        model2 = ScriptedModel([ModelTurn(calls=[("add", {"a": 1, "b": 2})])])
        second = [e async for e in LLMClient.stream(model2, model2.start("Hi"), [add])]
        return [first, second]

    first, second = asyncio.run(collect())
    assert first[0] == TextDelta(text="All at once.") and isinstance(first[1], LLMTurn)
    assert len(first) == 2 and len(second) == 1 and isinstance(second[0], LLMTurn)
