"""Only JSON data passes, read as JSON reads it, on every way of defining a tool and in both
modes: what the fuzzer (``bench/fuzz.py``) found accepted or refused against the exported schema.

* strict calls take the whole arguments as JSON text (the wire form) and an array for a set;
* ``Any`` parameters refuse what JSON cannot hold (objects, ``NaN``, keys that are not text);
* ``NaN``/``Infinity`` are refused inside nested models too;
* text with a lone surrogate is refused for ``str`` parameters;
* integers past Python's int-to-text limit are compared exactly (type hints) or refused with a
  clear message (JSON Schema), never waved through ``minimum``/``maximum``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import BaseModel

from toolrig import BaseTool, Tool, ToolExecutor, ToolResult, action, tool
from toolrig.registry import Registry

HUGE = 10**5000  # past Python's 4,300-digit int-to-text limit


class Point(BaseModel):
    x: float
    y: float = 0.0


@tool
def echo(value: Any = None) -> Any:
    """Return the value."""
    return value


@tool
def unique(tags: set[str]) -> int:
    """Count distinct tags."""
    return len(tags)


@tool
def place(point: Point, note: str = "", extra: dict | None = None) -> float:  # type: ignore[type-arg]
    """Place a point."""
    return point.x


@tool
def bounded(n: int) -> int:
    """A bounded integer, checked by type hints."""
    return n


declared = Tool(
    name="declared",
    description="An age and a name, declared as JSON Schema.",
    func=lambda **values: values,
    parameters={
        "type": "object",
        "properties": {
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "name": {"type": "string", "maxLength": 20},
            "any": {},
        },
    },
)


class Notes(BaseTool):
    """Notes with one action."""

    @action
    def write(self, text: str, tags: set[str] | None = None) -> int:
        """Write a note."""
        return len(text) + len(tags or ())


def code(result: ToolResult) -> str | None:
    return result.code


@pytest.mark.parametrize("strict", [False, True])
def test_the_whole_arguments_as_json_text_are_accepted_strict_or_not(strict: bool) -> None:
    assert echo.run('{"value": [1, {"a": 2}]}', strict=strict).output == [1, {"a": 2}]
    assert declared.run('{"age": 30}', strict=strict).output == {"age": 30}
    assert Notes().execute("write", '{"text": "ab"}', strict=strict).output == 2
    # the values inside are still read strictly: "3" is not an integer there
    if strict:
        assert code(declared.run('{"age": "30"}', strict=True)) == "invalid_arguments"
        assert code(bounded.run('{"n": "3"}', strict=True)) == "invalid_arguments"
    # broken JSON text is the caller's mistake, told as such
    broken = bounded.run('{"n": 1', strict=strict)
    assert code(broken) == "invalid_arguments", broken.to_text()


@pytest.mark.parametrize("strict", [False, True])
def test_an_array_is_the_wire_form_of_a_set_in_strict_mode_too(strict: bool) -> None:
    assert unique.run({"tags": ["a", "b"]}, strict=strict).output == 2
    assert unique.run('{"tags": ["a", "b", "c"]}', strict=strict).output == 3
    assert unique.run({"tags": {"a", "b"}}, strict=strict).output == 2  # a Python caller's set
    dup = unique.run({"tags": ["a", "a"]}, strict=strict)
    assert code(dup) == "invalid_arguments"
    assert "without duplicate items (1 found)" in dup.error.message  # type: ignore[union-attr]
    assert code(unique.run({"tags": ["a", 1]}, strict=strict)) == "invalid_arguments"
    assert Notes().execute("write", {"text": "", "tags": ["x", "y"]}, strict=strict).output == 2


NOT_JSON: list[tuple[Any, str]] = [
    (math.nan, "not a JSON number"),
    (math.inf, "not a JSON number"),
    ([1, {"deep": [-math.inf]}], "at [1]['deep'][0]"),
    (object(), "not JSON data"),
    ({1: "int key"}, "keys must be strings"),
    (b"\xff", "not JSON data"),
    ({"a"}, "send an array"),
    ("lone \ud800", "not valid Unicode"),
    ({"\udfff": 1}, "not valid Unicode"),
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(("value", "said"), NOT_JSON)
def test_an_any_parameter_refuses_what_json_cannot_hold(
    value: Any, said: str, strict: bool
) -> None:
    for result in (
        echo.run({"value": value}, strict=strict),
        ToolExecutor([echo]).execute_sync("echo", {"value": value}, strict=strict),
        declared.run({"any": value}, strict=strict),
    ):
        assert code(result) == "invalid_arguments", result.to_text()
        assert said in result.error.message or "JSON" in result.error.message  # type: ignore[union-attr]
    assert said in echo.run({"value": value}, strict=strict).error.message  # type: ignore[union-attr]


@pytest.mark.parametrize("strict", [False, True])
def test_an_any_parameter_still_takes_every_json_value(strict: bool) -> None:
    for value in [None, True, 0, HUGE, -1.5, "é中", [], {"a": [1, None, {"b": "c"}]}, ("t", 1)]:
        result = echo.run({"value": value}, strict=strict)
        assert result.success, (value if value is not HUGE else "HUGE", result.to_text())
    assert echo.run('{"value": {"k": [1, 2.5, "x", null, false]}}', strict=strict).success


@pytest.mark.parametrize("strict", [False, True])
def test_nan_and_infinity_are_refused_inside_nested_models(strict: bool) -> None:
    for bad in (math.nan, math.inf, -math.inf):
        result = place.run({"point": {"x": 1.0, "y": bad}}, strict=strict)
        assert code(result) == "invalid_arguments", result.to_text()
        assert "point.y: expected a finite number" in result.error.message  # type: ignore[union-attr]
        assert code(place.run({"point": {"x": bad}}, strict=strict)) == "invalid_arguments"
    assert place.run({"point": {"x": 1.5}}, strict=strict).output == 1.5


@pytest.mark.parametrize("strict", [False, True])
def test_text_with_a_lone_surrogate_is_refused(strict: bool) -> None:
    for result in (
        place.run({"point": {"x": 1}, "note": "bad \ud800"}, strict=strict),
        Notes().execute("write", {"text": "\udfff"}, strict=strict),
        declared.run({"name": "\ud800"}, strict=strict),
        place.run({"point": {"x": 1}, "extra": {"\ud800": 1}}, strict=strict),
    ):
        assert code(result) == "invalid_arguments", result.to_text()
        result.to_json().encode("utf-8")  # and the answer itself is clean
    assert place.run({"point": {"x": 1}, "note": "é中 ok"}, strict=strict).success


@pytest.mark.parametrize("strict", [False, True])
def test_a_plain_dict_parameter_takes_only_text_keys(strict: bool) -> None:
    assert code(place.run({"point": {"x": 1}, "extra": {1: 2}}, strict=strict)) == (
        "invalid_arguments"
    )
    assert place.run({"point": {"x": 1}, "extra": {"1": 2}}, strict=strict).success


@pytest.mark.parametrize("strict", [False, True])
def test_integers_past_the_text_limit_are_never_waved_through_bounds(strict: bool) -> None:
    # JSON Schema tools: jsonschema-rs reads numbers through str(), which raises past 4,300
    # digits, and the number then passed `minimum` and `maximum`; now it is refused, saying why
    for value in (HUGE, -HUGE, 10**4300):
        result = declared.run({"age": value}, strict=strict)
        assert code(result) == "invalid_arguments", result.to_text()
        message = result.error.message  # type: ignore[union-attr]
        assert "digits" in message and "send a smaller number" in message, message
    assert declared.run({"age": 10**4299 % 151}, strict=strict).success
    assert code(declared.run({"age": 10**4299}, strict=strict)) == "invalid_arguments"
    # type hints: pydantic compares them exactly, so a huge valid integer passes
    assert bounded.run({"n": HUGE}, strict=strict).output == HUGE


def test_a_yaml_tool_refuses_huge_integers_and_broken_text(tmp_path: Any) -> None:
    (tmp_path / "count.yaml").write_text(
        "name: count\ndescription: Count.\nparameters:\n"
        "  - {name: n, type: integer, minimum: 0, maximum: 100}\n"
        "  - {name: title, type: string, max_length: 50, required: false}\n",
        encoding="utf-8",
    )
    registry = Registry()
    assert registry.load(tmp_path).ok
    registry.bind("count")(lambda **values: values)
    executor = ToolExecutor(registry)
    for strict in (False, True):
        for args in ({"n": -HUGE}, {"n": HUGE}, {"n": 5, "title": "\ud800"}):
            result = executor.execute_sync("count", args, strict=strict)
            assert code(result) == "invalid_arguments", result.to_text()
        assert executor.execute_sync("count", '{"n": 5}', strict=strict).output == {"n": 5}
