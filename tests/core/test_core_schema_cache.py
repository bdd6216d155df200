"""Compiled validators are shared between schemas with the same JSON text."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic_core import ValidationError

from toolrig.core.schema_compiler import compile_schema


def schema(limit: int = 5) -> dict:
    return {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "maximum": limit}},
        "required": ["q"],
    }


def test_the_same_schema_text_gets_the_same_validator() -> None:
    first = compile_schema(schema())
    reordered = dict(reversed(list(schema().items())))  # key order does not matter
    assert compile_schema(reordered) is first
    assert compile_schema(schema(6)) is not first  # another constraint, another validator
    assert compile_schema(schema(), forbid_extra=False) is not first


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
