"""Streaming: ``Agent.stream`` tells the model's text as it arrives (the SDKs' own streaming),
each tool call as it starts and finishes, calls held for approval, and the final output."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from agent_support import config

from llm_server import ScriptedLLM, Turn, tool_results
from toolrig import tool
from toolrig.agent import (
    Agent,
    AgentRunError,
    ApprovalPolicy,
    ApprovalRequired,
    FinalOutput,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from toolrig.testing import ModelTurn, ScriptedModel


@tool
async def slow_double(n: int) -> int:
    """Double a number, slowly."""
    await asyncio.sleep(0.3 if n == 1 else 0.0)
    return 2 * n


def _kinds(events: list[Any]) -> list[str]:
    kinds: list[str] = []
    for event in events:
        name = type(event).__name__
        if not (kinds and kinds[-1] == name == "TextDelta"):
            kinds.append(name)
    return kinds


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_events_arrive_in_order_with_text_before_the_turn_ends(provider: str) -> None:
    gate = threading.Event()

    def answer(request: dict[str, Any]) -> Turn:
        results = tool_results(request)
        assert results["one"] == ("2", False) and results["two"] == ("4", False)
        return Turn(text="Doubled: two and four.")

    script = [
        Turn(
            text="Let me double both.",
            calls=[("slow_double", {"n": 1}, "one"), ("slow_double", {"n": 2}, "two")],
        ),
        answer,
    ]

    async def run() -> list[Any]:
        events: list[Any] = []
        agent = Agent("Calc", "You double.", config(provider, server), [slow_double])
        async for event in agent.stream("Double 1 and 2."):
            if isinstance(event, TextDelta):
                gate.set()  # the server holds the rest of its answer until we saw this
            events.append(event)
        await agent.aclose()
        return events

    with ScriptedLLM(script, gate=gate) as server:
        events = asyncio.run(run())
    assert server.errors == [] and server.refusals == [] and not server.gate_timed_out
    assert _kinds(events) == [
        "TextDelta",
        "ToolCallStarted",
        "ToolCallStarted",
        "ToolCallFinished",
        "ToolCallFinished",
        "TextDelta",
        "FinalOutput",
    ]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.tool_call_id for e in finished] == ["two", "one"]  # as each finished
    assert [e.result.output for e in finished] == [4, 2]
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.name, e.arguments) for e in started] == [
        ("slow_double", {"n": 1}),
        ("slow_double", {"n": 2}),
    ]
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == "Let me double both.Doubled: two and four."
    assert len(deltas) > 2
    final = events[-1]
    assert isinstance(final, FinalOutput) and final.output == "Doubled: two and four."
    assert all(r.get("stream") is True for r in server.requests)


def test_a_held_call_is_told_then_the_stream_ends() -> None:
    model = ScriptedModel([ModelTurn(calls=[("slow_double", {"n": 2}, "c")])])
    agent = Agent(
        "Calc", "You double.", model, [slow_double], approval=ApprovalPolicy(tools={"slow_double"})
    )

    async def run() -> list[Any]:
        return [event async for event in agent.stream("Double 2.")]

    events = asyncio.run(run())
    assert _kinds(events) == ["ToolCallStarted", "ApprovalRequired", "FinalOutput"]
    held = events[1]
    assert isinstance(held, ApprovalRequired) and held.pending[0].tool_call_id == "c"
    assert events[-1].result.stop_reason == "approval"


def test_a_failed_streamed_run_raises_in_place_of_its_final_event() -> None:
    async def run(**kwargs: Any) -> list[Any]:
        with ScriptedLLM([]) as server:  # answers 500 to everything
            agent = Agent("Calc", "You double.", config("openai", server), **kwargs)
            return [event async for event in agent.stream("Double 2.")]

    with pytest.raises(AgentRunError, match="InternalServerError"):
        asyncio.run(run())
    events = asyncio.run(run(raise_on_error=False))
    assert len(events) == 1 and events[0].result.stop_reason == "error"


def test_the_time_budget_bounds_a_streamed_turn() -> None:
    async def run() -> list[Any]:
        with ScriptedLLM([Turn(text="late")], delay=2.0) as server:
            agent = Agent("Calc", "You double.", config("openai", server), time_budget=0.3)
            return [event async for event in agent.stream("Hurry.")]

    events = asyncio.run(run())
    assert len(events) == 1 and events[0].result.stop_reason == "time_budget"


def _recorded(log: Any, run_id: str) -> list[tuple[Any, ...]]:
    """What the log holds of a run, without what differs from run to run (ids, times) and
    the one setting that tells a streamed turn's input from a plain one's."""
    out = []
    for r in log.query(run_id=run_id):
        given = r.input_data
        if r.executor_type == "llm" and isinstance(given, dict):
            settings = dict(given["settings"])
            assert isinstance(settings.pop("streaming"), bool)
            given = {**given, "settings": settings}
        out.append(
            (r.executor_type, r.executor, r.action, r.tool_call_id, given, r.output, r.status)
        )
    return out


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_a_streamed_run_records_what_a_plain_run_records(provider: str, tmp_path: Any) -> None:
    """The tool form: the same script answered with and without streaming leaves the same
    records (the model's turns, the calls, their outputs) and the same result."""
    from toolrig.storage import SQLiteExecutionLog

    def script() -> list[Any]:
        return [
            Turn(text="Doubling.", calls=[("slow_double", {"n": 2}, "c1")]),
            Turn(text="It is 4."),
        ]

    async def both(log: SQLiteExecutionLog) -> tuple[Any, Any]:
        with ScriptedLLM(script()) as plain_server:
            model = config(provider, plain_server)
            agent = Agent("Calc", "You double.", model, [slow_double], log=log)
            plain = await agent.arun("Double 2.")
            await agent.aclose()
        with ScriptedLLM(script()) as streamed_server:
            model = config(provider, streamed_server)
            agent = Agent("Calc", "You double.", model, [slow_double], log=log)
            events = [e async for e in agent.stream("Double 2.")]
            await agent.aclose()
        final = events[-1]
        assert isinstance(final, FinalOutput)
        return plain, final.result

    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    plain, streamed = asyncio.run(both(log))
    assert plain.output == streamed.output == "It is 4."
    assert _recorded(log, plain.run_id) == _recorded(log, streamed.run_id)
    assert len(_recorded(log, plain.run_id)) == 3  # two turns of the model and one call
    assert [s.usage for s in plain.steps] == [s.usage for s in streamed.steps]
    log.close()
