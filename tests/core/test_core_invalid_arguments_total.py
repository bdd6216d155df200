"""Building the invalid-arguments answer never fails: deep, huge or unencodable arguments give a
clean ``invalid_arguments`` result on every entry point, never ``execution_error`` and never an
exception."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from cpu_clock import CPU
from toolrig import BaseTool, Tool, ToolExecutor, ToolResult, action, tool


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


class Raises:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@tool
def tagged(tags: list[str], count: int = 0) -> int:
    """Count tags."""
    return len(tags) + count


@tool
def unique_tags(tags: set[str]) -> int:
    """Count distinct tags."""
    return len(tags)


declared = Tool(
    name="declared",
    description="Count tags (declared as JSON Schema).",
    func=lambda tags, count=0: len(tags) + count,
    parameters={
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "count": {"type": "integer", "default": 0},
        },
        "required": ["tags"],
    },
)


class Tags(BaseTool):
    """Tags as a tool class."""

    name = "tags_tool"

    @action
    def count(self, tags: list[str]) -> int:
        """Count tags."""
        return len(tags)


executor = ToolExecutor([tagged, unique_tags, declared])

REPRODUCERS: dict[str, Any] = {
    "list nested 2,000 deep": {"tags": nested(2000)},
    "extra argument 10**5000": {"tags": ["a"], "extra": 10**5000},
    "huge integer where text is expected": {"tags": [10**5000]},
    "lone surrogates with unique items": {"tags": ["\ud800", "\ud800"]},
    "deeply nested JSON text": "[" * 5000 + "]" * 5000,
    "deeply nested JSON text as a value": {"tags": "[" * 5000 + "]" * 5000},
    "object whose repr raises": {"tags": [Raises()]},
    "NaN": {"tags": ["a"], "count": float("nan")},
    "extra argument nested deep": {"tags": ["a"], "extra": nested(5000)},
}

Entry = Callable[[str, Any], ToolResult]


def _by_tool_run(name: str, args: Any) -> ToolResult:
    target = {"tagged": tagged, "unique_tags": unique_tags, "declared": declared}[name]
    return target.run(args)


def _by_execute_sync(name: str, args: Any) -> ToolResult:
    return executor.execute_sync(name, args)


def _by_execute(name: str, args: Any) -> ToolResult:
    import asyncio

    return asyncio.run(executor.execute(name, args))


ENTRIES: dict[str, Entry] = {
    "Tool.run": _by_tool_run,
    "ToolExecutor.execute_sync": _by_execute_sync,
    "ToolExecutor.execute": _by_execute,
}


def _check(result: ToolResult) -> None:
    assert result.code == "invalid_arguments", result.to_text()[:300]
    message = result.error.message
    assert message.startswith("Invalid arguments for `")
    assert len(message) < 4000
    for text in (result.to_text(), result.to_json(), result.to_pretty()):
        text.encode("utf-8")  # every rendering encodes
    json.loads(result.to_json())


@pytest.mark.parametrize("case", list(REPRODUCERS))
@pytest.mark.parametrize("entry", list(ENTRIES))
@pytest.mark.parametrize("name", ["tagged", "unique_tags", "declared"])
def test_hostile_arguments_give_a_clean_invalid_arguments(name: str, entry: str, case: str) -> None:
    args = REPRODUCERS[case]
    if name == "tagged" and case == "lone surrogates with unique items":
        args = {"tags": ["\ud800"], "count": "\ud800"}  # a list[str] takes any text
    _check(ENTRIES[entry](name, args))


@pytest.mark.parametrize("case", list(REPRODUCERS))
def test_tool_classes_answer_the_same(case: str) -> None:
    args = REPRODUCERS[case]
    if case == "lone surrogates with unique items":
        args = {"tags": "\ud800", "extra": "\ud800"}
    _check(Tags().execute("count", args))


def test_the_message_says_what_is_wrong() -> None:
    deep = declared.run({"tags": nested(2000)})
    assert "nested deeper than 256 levels" in deep.error.message
    assert "(2" in deep.error.message and "levels deep)" in deep.error.message  # short path
    huge = tagged.run({"tags": ["a"], "extra": 10**5000})
    assert "extra: unknown parameter" in huge.error.message
    assert "integer of about 5001 digits" in huge.error.details[0]["received"]
    surrogate = declared.run({"tags": ["\ud800", "\ud800"]})
    assert "tags[0]: text with an unpaired surrogate" in surrogate.error.message
    text = tagged.run("[" * 5000 + "]" * 5000)
    assert "arguments must be a JSON object" in text.error.message
    nan = declared.run({"tags": ["a"], "count": float("nan")})
    assert "count: nan is not a JSON number" in nan.error.message


def test_building_the_message_is_bounded() -> None:
    wide = {"tags": [["x"] * 1000 for _ in range(1000)]}  # a million items
    with CPU() as cpu:
        result = tagged.run(wide)
    assert result.code == "invalid_arguments"
    assert cpu.seconds < 5, cpu.seconds
    assert "... and 980 more problems" in result.error.message
    assert len(result.error.message) < 4000


def test_deep_data_is_refused_before_a_validator_can_exhaust_its_stack() -> None:
    recursive = Tool(
        name="tree",
        func=lambda node: 1,
        parameters={
            "type": "object",
            "$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            "properties": {"node": {"$ref": "#/$defs/node"}},
        },
    )
    assert recursive.run({"node": nested(100)}).success
    assert recursive.run({"node": nested(100_000)}).code == "invalid_arguments"
