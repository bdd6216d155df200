"""Agent runs as traces: one ``invoke_agent`` span, a ``chat`` span per model request and an
``execute_tool`` span per tool call, all children of the agent's span; token usage on the
``chat`` spans and in total on the agent's; a failed model request as ``error.type``."""

from __future__ import annotations

import pytest
from opentelemetry.trace import SpanKind, StatusCode
from tracing_support import Spans, parent_of, span_id

from toolrig import tool
from toolrig.agent import Agent, Usage
from toolrig.testing import FunctionModel, ModelTurn, ScriptedModel


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def mul(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def _script() -> ScriptedModel:
    return ScriptedModel(
        [
            ModelTurn(
                calls=[("add", {"a": 2, "b": 3}, "call_a"), ("mul", {"a": 2, "b": 3}, "call_m")],
                usage=Usage(input_tokens=40, output_tokens=12),
            ),
            ModelTurn(text="5 and 6.", usage=Usage(input_tokens=70, output_tokens=4)),
        ],
        model="scripted-1",
    )


async def test_an_agent_run_with_two_tool_calls(spans: Spans) -> None:
    agent: Agent[None, str] = Agent("calculator", "You compute.", _script(), [add, mul])
    result = await agent.arun("What are 2 + 3 and 2 * 3?")
    await agent.aclose()
    assert result.output == "5 and 6."

    run = spans.one("invoke_agent calculator")
    chats = spans.named("chat scripted-1")
    add_span = spans.one("execute_tool add")
    mul_span = spans.one("execute_tool mul")
    assert run.kind is SpanKind.INTERNAL and run.parent is None
    assert len(chats) == 2

    # every chat and every tool call is a child of the agent's span, in one trace
    for child in [*chats, add_span, mul_span]:
        assert parent_of(child) == span_id(run), child.name
        assert child.context.trace_id == run.context.trace_id  # type: ignore[union-attr]
    first, second = sorted(chats, key=lambda s: s.start_time or 0)
    assert first.end_time <= add_span.start_time  # type: ignore[operator]
    assert add_span.end_time <= second.start_time  # type: ignore[operator]
    assert mul_span.end_time <= second.start_time  # type: ignore[operator]

    assert run.attributes is not None
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.agent.name"] == "calculator"
    assert run.attributes["gen_ai.request.model"] == "scripted-1"
    assert run.attributes["gen_ai.usage.input_tokens"] == 110
    assert run.attributes["gen_ai.usage.output_tokens"] == 16
    assert first.kind is SpanKind.CLIENT
    assert first.attributes is not None
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.request.model"] == "scripted-1"
    assert first.attributes["gen_ai.provider.name"] == "test"
    assert (
        first.attributes["gen_ai.usage.input_tokens"],
        first.attributes["gen_ai.usage.output_tokens"],
    ) == (40, 12)
    assert add_span.attributes is not None and mul_span.attributes is not None
    assert add_span.attributes["gen_ai.tool.call.id"] == "call_a"
    assert mul_span.attributes["gen_ai.tool.call.id"] == "call_m"
    assert run.status.status_code is StatusCode.UNSET


async def test_a_failed_model_request_marks_both_spans(spans: Spans) -> None:
    def broken(messages: object, tools: object) -> ModelTurn:
        raise ConnectionError("the model is unreachable")

    agent: Agent[None, str] = Agent("calculator", "You compute.", FunctionModel(broken), [add])
    with pytest.raises(Exception, match="unreachable"):
        await agent.arun("What is 2 + 3?")
    await agent.aclose()
    run = spans.one("invoke_agent calculator")
    (chat,) = [s for s in spans.all() if s.name.startswith("chat ")]
    assert chat.attributes is not None and run.attributes is not None
    assert chat.attributes["error.type"] == "ConnectionError"
    assert chat.status.status_code is StatusCode.ERROR
    assert run.status.status_code is StatusCode.ERROR
    assert parent_of(chat) == span_id(run)


async def test_a_streamed_run_has_the_same_tree(spans: Spans) -> None:
    agent: Agent[None, str] = Agent("calculator", "You compute.", _script(), [add, mul])
    events = [event async for event in agent.stream("What are 2 + 3 and 2 * 3?")]
    await agent.aclose()
    assert events
    run = spans.one("invoke_agent calculator")
    children = [s for s in spans.all() if s is not run]
    assert sorted(s.name for s in children) == [
        "chat scripted-1",
        "chat scripted-1",
        "execute_tool add",
        "execute_tool mul",
    ]
    assert all(parent_of(s) == span_id(run) for s in children)
