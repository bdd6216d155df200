"""Compiled validators are shared between schemas with the same meaning."""

from __future__ import annotations

from datetime import date

import pytest

from toolrig.core.schema._json_schema import SchemaViolation, compile_json_schema
from toolrig.core.schema._schema_compiler import compile_schema


def schema(limit: int = 5, description: str = "") -> dict:
    return {
        "type": "object",
        "description": description,
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "maximum": limit}},
        "required": ["q"],
    }


def test_the_same_schema_gets_the_same_validator() -> None:
    first = compile_json_schema(schema()).validator
    assert compile_json_schema(schema()).validator is first
    assert compile_json_schema(schema(6)).validator is not first  # another constraint
    assert compile_json_schema(schema(), forbid_extra=True).validator is not first
    # annotations are not compiled: tools differing only in descriptions share a validator
    assert compile_json_schema(schema(description="other words")).validator is first
    reordered = dict(reversed(list(schema().items())))  # compiled again, same meaning
    again = compile_json_schema(reordered)
    assert again.is_valid({"q": "x", "n": 5}) and not again.is_valid({"q": "x", "n": 6})


def test_true_is_not_one_and_a_tuple_is_not_a_list() -> None:
    flag = {"type": "object", "properties": {"a": {"const": True}}}
    one = {"type": "object", "properties": {"a": {"const": 1}}}
    assert compile_json_schema(flag).validator is not compile_json_schema(one).validator
    assert compile_json_schema(flag).is_valid({"a": True})
    assert not compile_json_schema(flag).is_valid({"a": 1})
    assert not compile_json_schema(one).is_valid({"a": True})


def test_a_shared_validator_keeps_each_schemas_meaning() -> None:
    strict, loose = compile_schema(schema()), compile_schema(schema(), forbid_extra=False)
    with pytest.raises(SchemaViolation, match="extra: unknown parameter"):
        strict.validate_python({"q": "x", "extra": 1})
    assert loose.validate_python({"q": "x", "extra": 1})["q"] == "x"
    with pytest.raises(ValueError, match="less than or equal to 5"):
        compile_schema(schema(5)).validate_python({"q": "x", "n": 6})
    assert compile_schema(schema(6)).validate_python({"q": "x", "n": 6})["n"] == 6


def test_a_schema_holding_python_objects_in_annotations_still_compiles() -> None:
    with_object = {
        "type": "object",
        "properties": {"day": {"type": "string", "default": date(2026, 1, 1)}},
    }
    compiled = compile_json_schema(with_object)
    assert compiled.is_valid({"day": "x"}) and not compiled.is_valid({"day": 1})


def test_a_schema_checked_before_is_not_checked_again_but_owns_its_copy() -> None:
    from toolrig.core.schema import _json_schema

    nullable = {"type": "object", "properties": {"n": {"type": "integer", "nullable": True}}}
    first = compile_json_schema(nullable, forbid_extra=True)
    calls: list[object] = []
    original = _json_schema.keyword_problems
    _json_schema.keyword_problems = lambda s: calls.append(s) or original(s)  # type: ignore[assignment]
    try:
        second = compile_json_schema(dict(nullable), forbid_extra=True)
        assert calls == []  # the keyword check and the copy were not redone
        compile_json_schema(nullable)  # forbid_extra differs: checked
        assert len(calls) == 1
    finally:
        _json_schema.keyword_problems = original  # type: ignore[assignment]
    assert second.validator is first.validator
    assert second.enforced == first.enforced  # nullable rewritten, extra keys refused
    assert second.enforced["additionalProperties"] is False
    assert second.enforced is not first.enforced  # each holds its own copy
    assert second.is_valid({"n": None}) and not second.is_valid({"n": None, "x": 1})


def test_a_schema_that_failed_is_refused_every_time() -> None:
    bad = {"type": "object", "properties": {"n": {"type": "integr"}}}
    for _ in range(2):
        with pytest.raises(ValueError, match="integr"):
            compile_json_schema(bad)


def counted(minimum: int, default: object) -> dict:
    return {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "n": {"type": "integer", "minimum": minimum, "default": default},
        },
        "required": ["q"],
    }


def test_defaults_found_to_hold_are_not_checked_again_but_each_schema_is() -> None:
    from toolrig import Tool
    from toolrig.core.define import _action
    from toolrig.core.model._errors import ToolDefinitionError

    def run(q: str, n: int) -> str:
        return q * n

    Tool("first", "Repeats.", counted(1, 2), run)
    calls: list[object] = []
    original = _action._check_defaults
    _action._check_defaults = lambda s, c: calls.append(s) or original(s, c)  # type: ignore[assignment]
    try:
        again = Tool("again", "Repeats.", counted(1, 2), run)
        assert calls == []  # an equal schema: its defaults hold
        for schema in (counted(3, 2), counted(1, True), counted(3, 2)):  # each refused each time
            with pytest.raises(ToolDefinitionError, match="breaks its own constraints"):
                Tool("bad", "Repeats.", schema, run)
        assert len(calls) == 3
    finally:
        _action._check_defaults = original  # type: ignore[assignment]
    assert again.run({"q": "ab"}).output == "abab"  # the default is still filled in
