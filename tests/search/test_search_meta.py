"""``search_tools`` / ``call_tool`` through the executor, and the top-k tools of a turn."""

from __future__ import annotations

import pytest

from toolrig import ToolExecutor, tool
from toolrig.search import SearchConfig, ToolIndex, meta_tools, tools_for_turn


@tool
def add_numbers(a: int, b: int) -> int:
    """Add two integers and return their sum."""
    return a + b


@tool
def get_weather(city: str) -> str:
    """Current weather and forecast for a city."""
    return f"sunny in {city}"


@tool
def fail_loudly() -> None:
    """A tool that always fails."""
    raise RuntimeError("boom")


@pytest.fixture
def executor() -> ToolExecutor:
    catalogue = ToolExecutor([add_numbers, get_weather, fail_loudly])
    index = ToolIndex([t.spec for t in catalogue], config=SearchConfig(embedders=()))
    front = ToolExecutor(meta_tools(index, catalogue, k=2))
    yield front
    front.close()
    catalogue.close()


def test_search_tools_lists_names_descriptions_and_parameters(executor: ToolExecutor) -> None:
    result = executor.execute_sync("search_tools", {"query": "sum of two numbers"})
    assert result.success, result.error
    first = result.output[0]
    assert first["name"] == "add_numbers"
    assert first["description"].startswith("Add two integers")
    assert set(first["parameters"]["properties"]) == {"a", "b"}
    assert len(result.output) <= 2  # the default k given to meta_tools
    empty = executor.execute_sync("search_tools", {"query": "  "})
    assert not empty.success and empty.error.code == "invalid_arguments"
    assert "query is empty" in empty.error.message


def test_call_tool_runs_through_the_executor(executor: ToolExecutor) -> None:
    result = executor.execute_sync(
        "call_tool", {"name": "add_numbers", "arguments": {"a": 2, "b": 3}}
    )
    assert result.success and result.output == 5
    weather = executor.execute_sync("call_tool", name="get_weather", arguments={"city": "Oslo"})
    assert weather.output == "sunny in Oslo"


def test_call_tool_passes_errors_on_for_the_model(executor: ToolExecutor) -> None:
    bad = executor.execute_sync("call_tool", {"name": "add_numbers", "arguments": {"a": "x"}})
    assert not bad.success and bad.error.code == "invalid_arguments"
    assert "- b: required parameter is missing" in bad.error.message  # the missing one named
    assert {d["path"] for d in bad.error.details} == {"a", "b"}
    missing = executor.execute_sync("call_tool", {"name": "nope", "arguments": {}})
    assert missing.error.code == "not_found" and "search_tools" in missing.error.hint
    failed = executor.execute_sync("call_tool", {"name": "fail_loudly"})
    assert failed.error.code == "execution_error" and "boom" in failed.error.message
    loop = executor.execute_sync("call_tool", {"name": "call_tool", "arguments": {}})
    assert not loop.success


def test_tools_for_turn_names_whole_tools() -> None:
    catalogue = ToolExecutor([add_numbers, get_weather])
    index = ToolIndex([t.spec for t in catalogue], config=SearchConfig(embedders=()))
    assert tools_for_turn(index, catalogue, "weather forecast for Rome", k=1) == ["get_weather"]
    catalogue.close()


def test_call_tool_counts_successful_calls_for_the_usage_prior() -> None:
    catalogue = ToolExecutor([add_numbers, get_weather, fail_loudly])
    index = ToolIndex([t.spec for t in catalogue], config=SearchConfig(embedders=()))
    front = ToolExecutor(meta_tools(index, catalogue))
    for _ in range(3):
        called = front.execute_sync("call_tool", name="get_weather", arguments={"city": "Oslo"})
        assert called.success and called.output == "sunny in Oslo", called.error
    front.execute_sync("call_tool", name="fail_loudly")
    front.execute_sync("call_tool", name="add_numbers", arguments={"a": "x", "b": 1})
    assert index.usage == {"get_weather": 3}  # failed and refused calls are not counted
    front.close()
    catalogue.close()
