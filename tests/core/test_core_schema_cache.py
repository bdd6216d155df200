"""Compiled validators are shared between schemas with the same content."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic_core import ValidationError

from toolrig.core._schema_compiler import compile_schema


def schema(limit: int = 5) -> dict:
    return {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "maximum": limit}},
        "required": ["q"],
    }


def test_the_same_schema_gets_the_same_validator() -> None:
    first = compile_schema(schema())
    assert compile_schema(schema()) is first
    assert compile_schema(schema(6)) is not first  # another constraint, another validator
    assert compile_schema(schema(), forbid_extra=False) is not first
    reordered = dict(reversed(list(schema().items())))  # compiled again, same meaning
    again = compile_schema(reordered)
    assert again is not first
    assert again.validate_python({"q": "x", "n": 5}) == first.validate_python({"q": "x", "n": 5})


def test_true_is_not_one_and_a_tuple_is_not_a_list() -> None:
    flag = {"type": "object", "properties": {"a": {"type": "integer", "default": True}}}
    one = {"type": "object", "properties": {"a": {"type": "integer", "default": 1}}}
    assert compile_schema(flag) is not compile_schema(one)
    assert compile_schema(flag) is compile_schema(
        {"type": "object", "properties": {"a": {"type": "integer", "default": True}}}
    )


def test_a_shared_validator_keeps_each_schemas_meaning() -> None:
    strict, loose = compile_schema(schema()), compile_schema(schema(), forbid_extra=False)
    with pytest.raises(ValidationError):
        strict.validate_python({"q": "x", "extra": 1})
    assert loose.validate_python({"q": "x", "extra": 1})["q"] == "x"
    with pytest.raises(ValidationError):
        compile_schema(schema(5)).validate_python({"q": "x", "n": 6})
    assert compile_schema(schema(6)).validate_python({"q": "x", "n": 6})["n"] == 6


def test_a_schema_holding_python_objects_is_compiled_on_its_own() -> None:
    with_object = {
        "type": "object",
        "properties": {"day": {"type": "string", "default": date(2026, 1, 1)}},
    }
    assert compile_schema(with_object) is not compile_schema(with_object)
