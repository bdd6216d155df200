"""Argument and output validation's promises, boundary by boundary
(`toolrig.core.schema._validation`).

The promise: ``validate`` returns the arguments or raises `ArgumentsInvalid` with one message
that names every problem by path, what was expected and what was received, whatever the
arguments hold; lax calls decode JSON text sent for an object or array, strict calls take the
arguments as the wire form without coercion; a tool's output that does not match its type is
``invalid_output``, the tool's fault.

| boundary                      | test                                                            |
|-------------------------------|-----------------------------------------------------------------|
| entry points: a dict, the     | `test_each_entry_point_strict_and_lax`                          |
| whole arguments as JSON text  |                                                                 |
| (padded too), strict and lax  |                                                                 |
| strict: wire form: no         | `test_strict_reads_what_json_cannot_carry_as_python`            |
| coercion; what JSON cannot    |                                                                 |
| carry is checked as Python    |                                                                 |
| failure path: each kind of    | `test_each_problem_kind_is_worded_for_the_model`                |
| problem: missing, unknown     |                                                                 |
| (nested names), not an        |                                                                 |
| object, bad JSON text, a      |                                                                 |
| value of the wrong type       |                                                                 |
| a message from a validator:   | `test_a_validators_own_message`                                 |
| first letter, ``JSON`` kept,  |                                                                 |
| cut at 300 characters         |                                                                 |
| a validator that raises       | `test_a_validator_that_crashes_is_an_invalid_arguments`         |
| something else, or recurses:  |                                                                 |
| still an `ArgumentsInvalid`   |                                                                 |
| inputs pydantic cannot encode | `test_inputs_pydantic_cannot_encode`                            |
| (lone surrogates): the value  |                                                                 |
| is still shown                |                                                                 |
| JSON text decoded: an object  | `test_json_text_is_decoded_where_a_container_was_expected`      |
| or array parameter, nested in |                                                                 |
| a list, padded with spaces;   |                                                                 |
| strict never                  |                                                                 |
| scope: only where a container | `test_json_text_is_decoded_only_where_a_container_was_expected` |
| was expected; the caller's    |                                                                 |
| arguments are not changed     |                                                                 |
| absent or bad text: the       | `test_json_text_is_decoded_only_where_a_container_was_expected` |
| original error stands         |                                                                 |
| compiled on first use: not    | `test_a_validator_is_compiled_on_first_use_by_either_entry`     |
| before, once, by a strict     |                                                                 |
| JSON-text call too            |                                                                 |
| the hint: names each          | `test_the_hint_names_the_parameters`                            |
| parameter, built once         |                                                                 |
| output: wrong type: path,     | `test_output_that_does_not_match_is_the_tools_fault`            |
| pydantic's message, the       |                                                                 |
| value; the tool's fault       |                                                                 |
| an output validator that      | `test_output_that_does_not_match_is_the_tools_fault`            |
| recurses                      |                                                                 |
"""

from __future__ import annotations

import math
from datetime import date
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, Json
from pydantic_core import SchemaValidator, core_schema

from toolrig import tool
from toolrig.core.schema._validation import ArgumentsInvalid, ArgumentValidator, OutputValidator


class Point(BaseModel):
    model_config = ConfigDict(extra="forbid")

    x: int
    y: int = 0


@tool
def place(n: int, point: Point | None = None, points: list[Point] | None = None) -> int:
    """Place points."""
    return n + (point.x if point else 0) + sum(p.x for p in points or [])


def _problems(arguments: Any, *, strict: bool = False) -> tuple[str, list[dict[str, Any]]]:
    with pytest.raises(ArgumentsInvalid) as caught:
        place.action.validator.validate(arguments, strict=strict)
    error = caught.value.error
    assert error.code == "invalid_arguments"
    assert str(caught.value) == error.message
    return error.message, error.details or []


def _valid(arguments: Any, *, strict: bool = False) -> dict[str, Any]:
    return place.action.validator.validate(arguments, strict=strict)


def test_each_entry_point_strict_and_lax() -> None:
    for strict in (False, True):
        assert _valid({"n": 1}, strict=strict) == {"n": 1}
        assert _valid('{"n": 1}', strict=strict)["n"] == 1
        assert _valid('  {"n": 2, "point": {"x": 3}}', strict=strict)["point"] == Point(x=3)
    assert _valid({"n": "5"}) == {"n": 5}  # lax: safe coercion
    assert _valid('{"n": "5"}')["n"] == 5
    for strict_form in ({"n": "5"}, '{"n": "5"}', ' {"n": 5.5}'):
        message, details = _problems(strict_form, strict=True)
        assert details[0]["path"] == "n", strict_form
        assert details[0]["received"] in ('"5" (string)', "5.5 (number)"), details
        assert "expected" in message


def test_strict_reads_what_json_cannot_carry_as_python() -> None:
    # NaN is refused as a number; a JSON text of it would not even be written.
    _, details = _problems({"n": math.nan}, strict=True)
    assert [d["path"] for d in details] == ["n"]
    # An integer past the int-to-text limit is read exactly, not refused by json.dumps.
    huge = 10**5000
    assert _valid({"n": huge}, strict=True)["n"] == huge
    # ... and the rest is still strict: "5" is not an integer there.
    _, details = _problems({"n": huge, "point": {"x": "5"}}, strict=True)
    assert [d["path"] for d in details] == ["point.x"]

    @tool
    def label(s: str, n: int = 0) -> str:
        """Label."""
        return s

    @tool
    def on(day: date) -> str:
        """On a day."""
        return day.isoformat()

    # a dict of JSON values is read as its JSON text: an ISO date is the wire form of a date
    assert on.action.validator.validate({"day": "2024-02-29"}, strict=True) == {
        "day": date(2024, 2, 29)
    }
    # bytes are not JSON: checked as Python, strictly (no bytes for a str)
    with pytest.raises(ArgumentsInvalid):
        label.action.validator.validate({"s": b"x"}, strict=True)
    assert label.action.validator.validate({"s": b"x"}) == {"s": "x"}
    # An object json.dumps cannot write: still a validation error, not a crash.
    _, details = _problems({"n": object()}, strict=True)
    assert [d["path"] for d in details] == ["n"]
    # Text that is not an object's JSON: the arguments are not an object.
    for text in ("[1]", "5", ""):
        message, details = _problems(text, strict=True)
        assert details[0]["problem"] in ("dict_type", "model_type"), text
        assert "arguments must be a JSON object of named parameters" in message


def test_each_problem_kind_is_worded_for_the_model() -> None:
    message, details = _problems({})
    assert details == [
        {
            "path": "n",
            "problem": "missing",
            "expected": "an integer",
            "received": None,
        }
    ]
    assert "- n: required parameter is missing (expected an integer)" in message

    @tool
    def move(to: Point) -> int:
        """Move."""
        return to.x

    with pytest.raises(ArgumentsInvalid) as caught:
        move.action.validator.validate({"to": {"x": 1, "z": 2}})
    (unknown,) = caught.value.error.details or []
    assert unknown["path"] == "to.z" and unknown["problem"] == "extra_forbidden"
    assert unknown["expected"] == ["x", "y"]  # the names valid *there*, not the top level
    assert "Valid names here: x, y" in caught.value.error.message
    _, details = _problems({"n": 1, "point": {"x": 1, "z": 2}})  # under a union: no names
    assert (details[0]["path"], details[0]["problem"]) == ("point.z", "extra_forbidden")
    _, details = _problems({"n": 1, "m": 2})
    assert details[0]["expected"] == ["n", "point", "points"]

    message, details = _problems([1, 2])
    assert details[0]["expected"] == "an object"
    assert details[0]["received"] == "[1, 2] (array)"
    assert "arguments must be a JSON object of named parameters, received [1, 2]" in message

    message, details = _problems('{"n": ', strict=True)
    assert details[0]["problem"] == "json_invalid"
    assert details[0]["expected"] == "JSON text"
    assert details[0]["received"] == '"{\\"n\\": " (string)'
    assert "not valid JSON text (EOF while parsing" in message
    assert "Invalid JSON" not in message  # pydantic's prefix is dropped

    message, details = _problems({"n": "seven"})
    assert details[0]["expected"].startswith("a valid integer")  # "Input should be " dropped
    assert (
        '- n: expected a valid integer, unable to parse string as an integer, received "seven"'
        in message
    )


def _even(value: int) -> int:
    if value % 2:
        raise ValueError("Must be even" + "!" * 1000)
    return value


def test_a_validators_own_message() -> None:
    @tool
    def evens(
        n: Annotated[int, AfterValidator(_even)], blob: Json[dict[str, int]] | None = None
    ) -> int:
        """Even numbers only."""
        return n

    with pytest.raises(ArgumentsInvalid) as caught:
        evens.action.validator.validate({"n": 3})
    (problem,) = caught.value.error.details or []
    assert problem["expected"].startswith("value error, Must be even!")  # first letter lowered
    assert len(problem["expected"]) == 300  # pydantic's message is cut at 300 characters
    with pytest.raises(ArgumentsInvalid) as caught:
        evens.action.validator.validate({"n": 2, "blob": 5})
    (problem,) = caught.value.error.details or []
    assert problem["expected"].startswith("JSON input should be")  # "JSON" stays as it is


def _crash(value: int) -> int:
    raise RuntimeError("boom")


def _recurse(value: int) -> int:
    raise RecursionError


def test_a_validator_that_crashes_is_an_invalid_arguments() -> None:
    @tool
    def crashing(n: Annotated[int, AfterValidator(_crash)]) -> int:
        """Crashes."""
        return n

    @tool
    def deep(n: Annotated[int, AfterValidator(_recurse)]) -> int:
        """Recurses."""
        return n

    for strict in (False, True):
        with pytest.raises(ArgumentsInvalid) as caught:
            crashing.action.validator.validate({"n": 1}, strict=strict)
        error = caught.value.error
        assert "checking the arguments failed (RuntimeError)" in error.message
        assert error.details == [
            {
                "path": "(arguments)",
                "problem": "validator_error",
                "expected": None,
                "received": None,
            }
        ]
        assert error.message == (
            "Invalid arguments for `crashing`: 1 problem.\n"
            "- (arguments): checking the arguments failed (RuntimeError)"
        )
        assert error.hint is not None and "n (integer, required)" in error.hint
        assert "boom" not in error.message
        with pytest.raises(ArgumentsInvalid) as caught:
            deep.action.validator.validate({"n": 1}, strict=strict)
        assert caught.value.error.message == "Invalid arguments for `deep`: nested too deeply."


def test_inputs_pydantic_cannot_encode() -> None:
    message, details = _problems({"n": "\ud800x"})
    assert details[0]["path"] == "n"
    assert "received" in message and "x" in str(details[0]["received"])
    message, details = _problems({"n": 1, "point": {"x": "\udc00"}})
    assert details[0]["path"] == "point.x"
    assert details[0]["received"] is not None


def test_json_text_is_decoded_where_a_container_was_expected() -> None:
    assert _valid({"n": 1, "point": '{"x": 4}'})["point"] == Point(x=4)
    assert _valid({"n": 1, "point": '   {"x": 4}  '})["point"] == Point(x=4)
    assert _valid({"n": 1, "points": '[{"x": 1}, {"x": 2}]'})["points"] == [Point(x=1), Point(x=2)]
    decoded = _valid({"n": 1, "points": [{"x": 1}, '{"x": 5}']})
    assert decoded["points"] == [Point(x=1), Point(x=5)]
    assert place.run(n=1, points=['{"x": 5}', '{"x": 6}']).output == 12
    # strict: the wire form is taken as it is
    _, details = _problems({"n": 1, "point": '{"x": 4}'}, strict=True)
    assert details[0]["path"].startswith("point")


def test_json_text_is_decoded_only_where_a_container_was_expected() -> None:
    arguments = {"n": 1, "points": [{"x": 1}, '{"x": 5}'], "point": '{"x": 2}'}
    snapshot = repr(arguments)
    _valid(arguments)
    assert repr(arguments) == snapshot  # the caller's arguments are not changed
    # an integer parameter given JSON text of an array is not decoded into it
    _, details = _problems({"n": "[1]"})
    assert (details[0]["path"], details[0]["received"]) == ("n", '"[1]" (string)')
    # text that is not JSON, not a container, or empty: the original error stands
    for text in ('{"x": ', "[1, 2]", "", "   ", "x", "5", '"{}"', "{'x': 1}"):
        _, details = _problems({"n": 1, "point": text})
        assert details and all(d["path"].startswith("point") for d in details), text
    _, details = _problems({"n": 1, "point": '{"x": NaN}'})
    assert details[0]["path"].startswith("point")
    _, details = _problems({"n": 1, "points": '{"x": 1}'})  # an object where a list is wanted
    assert details[0]["path"].startswith("points")
    # whole arguments as text that is not an object
    for text in ("[1]", "nope", "  "):
        _, details = _problems(text)
        assert details[0]["problem"] in ("dict_type", "model_type"), text


def test_a_validator_is_compiled_on_first_use_by_either_entry() -> None:
    compiled: list[SchemaValidator] = []
    schema = core_schema.typed_dict_schema(
        {"a": core_schema.typed_dict_field(core_schema.int_schema())}
    )

    def compile_() -> SchemaValidator:
        compiled.append(SchemaValidator(schema))
        return compiled[-1]

    props = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    for first in ('{"a": 1}', {"a": 1}):
        compiled.clear()
        validator = ArgumentValidator(compile_, props, "t")
        assert validator.compiled is False and compiled == []
        assert validator.validate(first, strict=True) == {"a": 1}
        assert validator.compiled is True and len(compiled) == 1
        assert validator.validate({"a": "2"}) == {"a": 2}
        assert len(compiled) == 1  # once
    # ... on the Python path too (a set is not JSON, so the dict is checked as Python)
    for first_strict in ('{"a": "1"}', {"a": "1"}, {"a": "1", "z": {1}}):
        validator = ArgumentValidator(compile_, props, "t")
        with pytest.raises(ArgumentsInvalid):
            validator.validate(first_strict, strict=True)
    eager = ArgumentValidator(SchemaValidator(schema), props, "t")
    assert eager.compiled is True
    output = OutputValidator(compile_, "t")
    assert output.compiled is False
    assert output.check({"a": 1}) is None
    assert output.compiled is True


def test_the_hint_names_the_parameters() -> None:
    validator = place.action.validator
    hint = validator.hint()
    assert hint.startswith("Fix the arguments listed above and call `place` again.")
    assert "n (integer, required)" in hint
    assert validator.hint() is hint  # built once
    with pytest.raises(ArgumentsInvalid) as caught:
        validator.validate({})
    assert caught.value.error.hint == hint


def test_output_that_does_not_match_is_the_tools_fault() -> None:
    @tool
    def count() -> list[int]:
        """Count."""
        return [1, "two", 3, "four"]  # type: ignore[list-item]

    result = count.run()
    assert result.code == "invalid_output"
    assert result.error is not None
    assert result.error.message.startswith(
        "`count` returned output that does not match its declared type:\n- [1]: Input should be"
    )
    lines = result.error.message.split("\n")
    assert len(lines) == 3
    assert lines[1].startswith("- [1]: ") and lines[1].endswith('got "two" (string)')
    assert lines[2].startswith("- [3]: ") and lines[2].endswith('got "four" (string)')
    assert result.error.hint == (
        "A fault of the tool, not of the call: do not retry with other arguments."
    )
    schema = core_schema.no_info_after_validator_function(_recurse, core_schema.int_schema())
    deep = OutputValidator(SchemaValidator(schema), "deep")
    error = deep.check(1)
    assert error is not None and error.message.endswith("- (output): nested too deeply")
    assert error.message.startswith("`deep` returned output that does not match")
    assert OutputValidator(SchemaValidator(core_schema.int_schema()), "ok").check(1) is None
