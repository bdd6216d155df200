"""The agent loop through the real openai and anthropic SDK clients, against a scripted model
server on 127.0.0.1 that checks every request it receives."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from scripted_llm import ScriptedLLM, Turn, tool_names, tool_results

from toolrig import ToolExecutor, tool
from toolrig.agent import Agent, AgentRunError, LLMConfig, decide_next_action, make_client
from toolrig.storage import SQLiteExecutionLog

PROVIDERS = ["openai", "anthropic"]
STARTS: dict[str, float] = {}


@tool
async def lookup_price(item: str) -> float:
    """Price of an item in euros.

    Args:
        item: Item name.
    """
    STARTS[item] = time.perf_counter()
    await asyncio.sleep(0.5)
    return {"apple": 0.5, "pear": 0.75}[item]


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


def config(provider: str, server: ScriptedLLM) -> LLMConfig:
    base = f"{server.url}/v1" if provider == "openai" else server.url
    return LLMConfig(
        provider=provider,
        model="scripted",
        base_url=base,
        api_key="test-key",  # type: ignore[arg-type]
        max_retries=0,
        timeout=10,
    )


def agent(provider: str, server: ScriptedLLM, **kwargs: Any) -> Agent:
    return Agent(
        "Shopper",
        "You compute shopping totals.",
        config(provider, server),
        [lookup_price, multiply],
        **kwargs,
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_multi_step_run_with_parallel_calls_and_completion(provider: str, tmp_path: Path) -> None:
    def second(request: dict[str, Any]) -> Turn:
        results = tool_results(request)
        assert results["c1"] == ("0.5", False) and results["c2"] == ("0.75", False), results
        return Turn(calls=[("multiply", {"a": 0.75, "b": 4}, "c3")])

    def third(request: dict[str, Any]) -> Turn:
        assert tool_results(request)["c3"] == ("3.0", False)
        return Turn(
            text="Done.", calls=[("attempt_completion", {"result": "4 pears cost 3.0 EUR"}, "c4")]
        )

    script = [
        Turn(
            text="Looking up prices.",
            calls=[
                ("lookup_price", {"item": "apple"}, "c1"),
                ("lookup_price", {"item": "pear"}, "c2"),
            ],
        ),
        second,
        third,
    ]
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    with ScriptedLLM(script) as server:
        result = agent(provider, server, log=log).run("What do 4 pears cost?", run_id="shop-1")
    assert server.errors == []
    assert result.stop_reason == "completion" and result.output == "4 pears cost 3.0 EUR"
    assert len(result.steps) == 3 and [len(s.calls) for s in result.steps] == [2, 1, 1]
    # in turn, the second lookup would start 0.5 s after the first
    assert abs(STARTS["apple"] - STARTS["pear"]) < 0.3  # the two lookups ran in parallel
    assert result.usage.input_tokens == 101 + 102 + 103 and result.usage.output_tokens == 30
    first = server.requests[0]
    assert sorted(tool_names(first)) == ["attempt_completion", "lookup_price", "multiply"]
    if provider == "openai":
        assert (
            first["messages"][0]["role"] == "system"
            and "Shopper" in first["messages"][0]["content"]
        )
        spec = next(t for t in first["tools"] if t["function"]["name"] == "lookup_price")[
            "function"
        ]
        assert spec["parameters"]["properties"]["item"]["description"] == "Item name."
    else:
        assert "Shopper" in first["system"]
        spec = next(t for t in first["tools"] if t["name"] == "lookup_price")
        assert spec["input_schema"]["required"] == ["item"]
    records = log.get_run("shop-1")
    kinds = [(r.executor_type, r.executor) for r in records]
    assert kinds.count(("llm", "scripted")) == 3
    assert ("tool", "lookup_price") in kinds and ("tool", "attempt_completion") in kinds
    log.close()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_error_is_sent_back_and_corrected(provider: str) -> None:
    def second(request: dict[str, Any]) -> Turn:
        text, is_error = tool_results(request)["bad"]
        assert is_error and "invalid_arguments" in text and "item" in text, text
        return Turn(calls=[("lookup_price", {"item": "apple"}, "good")])

    def third(request: dict[str, Any]) -> Turn:
        assert tool_results(request)["good"] == ("0.5", False)
        return Turn(text="An apple costs 0.5 EUR.")

    script = [Turn(calls=[("lookup_price", {"itme": "apple"}, "bad")]), second, third]
    with ScriptedLLM(script) as server:
        result = agent(provider, server).run("Price of an apple?")
    assert server.errors == []
    assert result.stop_reason == "answer" and result.output == "An apple costs 0.5 EUR."
    assert result.steps[0].results[0].code == "invalid_arguments"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_tool_call_arguments(provider: str) -> None:
    def second(request: dict[str, Any]) -> Turn:
        text, is_error = tool_results(request)["broken"]
        assert is_error and "not valid JSON" in text, text
        return Turn(text="Sorry, fixed.")

    script = [Turn(calls=[("multiply", '{"a": 2, "b": ', "broken")]), second]
    with ScriptedLLM(script) as server:
        result = agent(provider, server).run("2 times 3?")
    assert server.errors == []
    assert result.stop_reason == "answer"
    assert result.steps[0].results[0].code == "invalid_arguments"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_step_budget(provider: str) -> None:
    script = [Turn(calls=[("multiply", {"a": i, "b": 2}, f"m{i}")]) for i in range(5)]
    with ScriptedLLM(script) as server:
        result = agent(provider, server, max_steps=3).run("Keep multiplying.")
    assert result.stop_reason == "max_steps" and len(result.steps) == 3
    assert len(server.requests) == 3


def test_time_budget() -> None:
    def slow(request: dict[str, Any]) -> Turn:
        time.sleep(0.5)
        return Turn(text="late")

    with ScriptedLLM([slow]) as server:
        result = agent("openai", server, time_budget=0.2).run("Hurry.")
    assert result.stop_reason == "time_budget"


def test_server_errors_raise_or_are_reported_on_request() -> None:
    with ScriptedLLM([]) as server:  # answers 500 to everything
        with pytest.raises(AgentRunError, match="InternalServerError"):
            agent("openai", server).run("Anything?")
        result = agent("openai", server, raise_on_error=False).run("Anything?")
    assert result.stop_reason == "error" and "InternalServerError" in (result.error or "")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_decide_next_action(provider: str) -> None:
    def check(request: dict[str, Any]) -> Turn:
        prompt = str(request["messages"][-1]["content"])
        assert "Results so far:\nRun r: 1 results" in prompt, prompt
        return Turn(calls=[("multiply", {"a": 2, "b": 21}, "d1")])

    with ScriptedLLM([check]) as server:
        client = make_client(config(provider, server))
        executor = ToolExecutor([lookup_price, multiply])
        decision = asyncio.run(
            decide_next_action(
                client, "What is 2 x 21?", executor, summary="Run r: 1 results (1 ok, 0 failed)."
            )
        )
    assert server.errors == []
    assert decision.tool == "multiply" and decision.params == {"a": 2, "b": 21}
    assert decision.call_name == "multiply" and not decision.done


def test_tools_per_turn_offers_only_the_tools_that_fit() -> None:
    @tool
    def send_email(to: str, subject: str) -> str:
        """Send an email message to a recipient."""
        return "sent"

    @tool
    def book_flight(origin: str, destination: str) -> str:
        """Book a plane flight between two airports."""
        return "booked"

    @tool
    def water_plants(zone: int) -> str:
        """Turn on the garden sprinklers to water the plants."""
        return "watering"

    def check(request: dict[str, Any]) -> Turn:
        offered = set(tool_names(request))
        assert offered == {"lookup_price", "attempt_completion"}, offered
        return Turn(text="An apple costs 0.5 EUR.")

    with ScriptedLLM([check]) as server:
        shopper = Agent(
            "Shopper",
            "You compute prices.",
            config("openai", server),
            [lookup_price, send_email, book_flight, water_plants, multiply],
            tools_per_turn=1,
        )
        result = shopper.run("What is the price of an apple item?")
    assert server.errors == [] and result.stop_reason == "answer"


def test_tools_per_turn_prefers_tools_the_log_shows_in_use(tmp_path: Path) -> None:
    @tool
    def road_weather(city: str) -> str:
        """Weather forecast for a city's roads."""
        return "icy"

    @tool
    def sky_weather(city: str) -> str:
        """Weather forecast for a city's sky."""
        return "clear"

    prompt = "Weather forecast for Oslo, the city"
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    offered: list[str] = []

    def call_the_offered_tool(request: dict[str, Any]) -> Turn:
        names = [n for n in tool_names(request) if n != "attempt_completion"]
        offered.append(names[0])
        assert len(names) == 1, names
        return Turn(calls=[(names[0], {"city": "Oslo"}, "c1")])

    def forecaster(server: ScriptedLLM) -> Agent:
        return Agent(
            "Forecaster",
            "You forecast.",
            config("openai", server),
            [road_weather, sky_weather],
            tools_per_turn=1,
            log=log,
        )

    with ScriptedLLM([call_the_offered_tool, Turn(text="Done.")]) as server:
        first = forecaster(server)
        assert first.run(prompt).stop_reason == "answer"
    assert server.errors == []
    assert first._index.usage == {offered[0]: 1}  # the call is counted at once
    other = ({"road_weather", "sky_weather"} - {offered[0]}).pop()
    for _ in range(20):
        log.add_result(other, "tool", None, None, None, "success", run_id="earlier")
    with ScriptedLLM([call_the_offered_tool, Turn(text="Done.")]) as server:
        assert forecaster(server).run(prompt).stop_reason == "answer"
    assert server.errors == [] and offered[1] == other
    log.close()


def test_an_agent_on_a_registry_follows_it_and_leaves_it_as_it_was() -> None:
    from toolrig.registry import Registry

    registry = Registry([lookup_price])
    script = [
        Turn(calls=[("multiply", {"a": 2, "b": 3}, "m1")]),
        Turn(calls=[("attempt_completion", {"result": "6"}, "done")]),
    ]
    with ScriptedLLM(script) as server:
        shopper = Agent("Shopper", "You compute.", config("openai", server), registry)
        registry.add(multiply)  # added after the agent was built
        result = shopper.run("2 times 3?")
        asyncio.run(shopper.aclose())
    assert server.errors == []
    assert result.stop_reason == "completion" and result.output == "6"
    assert result.steps[0].results[0].output == 6.0
    assert sorted(tool_names(server.requests[0])) == [
        "attempt_completion",
        "lookup_price",
        "multiply",
    ]
    assert registry.names() == ["lookup_price", "multiply"]  # attempt_completion not added
    assert shopper.catalog is registry
    registry.close()


def test_an_agent_on_an_executor_runs_calls_through_it() -> None:
    from toolrig.runtime import Call, CallNext

    seen: list[str] = []

    async def record(call: Call, call_next: CallNext) -> Any:
        seen.append(call.tool)
        return await call_next(call)

    executor = ToolExecutor([multiply], middleware=[record])
    script = [
        Turn(calls=[("multiply", {"a": 2, "b": 3}, "m1")]),
        Turn(calls=[("attempt_completion", {"result": "6"}, "done")]),
    ]
    with ScriptedLLM(script) as server:
        shopper = Agent("Shopper", "You compute.", config("anthropic", server), executor)
        assert shopper.executor is executor
        result = shopper.run("2 times 3?")
        asyncio.run(shopper.aclose())
    assert server.errors == [] and result.stop_reason == "completion"
    assert tool_names(server.requests[0]) == ["multiply", "attempt_completion"]
    assert seen == ["multiply", "attempt_completion"]
    assert executor.catalog.names() == ["multiply"]
    assert executor.execute_sync("multiply", {"a": 1, "b": 2}).output == 2.0  # still open
    executor.close()


def test_an_agent_exports_its_tools_once_while_they_do_not_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolrig.providers._openai as openai_format

    made: list[str] = []
    export_one = openai_format._function

    def counted(entry: Any, strict: bool) -> dict[str, Any]:
        made.append(entry.provider_name)
        return export_one(entry, strict)

    monkeypatch.setattr(openai_format, "_function", counted)
    executor = ToolExecutor([multiply])
    script = [
        Turn(calls=[("multiply", {"a": 2, "b": 3}, "m1")]),
        Turn(calls=[("multiply", {"a": 6, "b": 2}, "m2")]),
        Turn(calls=[("attempt_completion", {"result": "12"}, "done")]),
    ]
    with ScriptedLLM(script) as server:
        agent = Agent("Calc", "You compute.", config("openai", server), executor)
        assert agent.run("2 times 3, times 2?").stop_reason == "completion"
        executor.catalog.add(lookup_price)  # a change: exported again on the next run
        script2 = [Turn(calls=[("attempt_completion", {"result": "ok"}, "d2")])]
    assert server.errors == [] and made.count("multiply") == 1  # three turns, one export
    with ScriptedLLM(script2) as server2:
        agent.client = make_client(config("openai", server2))
        agent.run("again")
    assert made.count("multiply") == 2 and made.count("lookup_price") == 1
