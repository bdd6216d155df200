"""Tools defined from JSON Schema enforce every keyword of it, or refuse the schema at definition
time saying why; safe coercion, defaults and messages keep working."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from toolrig import Tool, ToolDefinitionError


def make(properties: dict[str, Any], **schema: Any) -> Tool:
    parameters = {"type": "object", "properties": properties, **schema}
    return Tool(
        name="t", description="A tool.", func=lambda **values: values, parameters=parameters
    )


def accepts(t: Tool, arguments: Any, *, strict: bool = False) -> bool:
    result = t.run(arguments, strict=strict)
    assert result.success or result.code == "invalid_arguments", result.to_text()
    return result.success


# -- what was dropped is enforced ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"not": {"type": "string"}}, 1, "x"),
        ({"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}}, 15, 12),
        ({"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}}, 2, 4),
        ({"type": "array", "contains": {"const": "x"}}, ["a", "x"], ["a"]),
        ({"type": "array", "contains": {"const": 1}, "maxContains": 1}, [1, 2], [1, 1]),
        ({"dependentRequired": {"a": ["b"]}}, {"a": 1, "b": 2}, {"a": 1}),
        ({"dependentSchemas": {"a": {"required": ["b"]}}}, {"b": 1}, {"a": 1}),
        ({"patternProperties": {"^n_": {"type": "integer"}}}, {"n_x": 1}, {"n_x": "1.5"}),
        ({"propertyNames": {"maxLength": 3}}, {"abc": 1}, {"abcd": 1}),
        (
            {"properties": {"a": {}}, "unevaluatedProperties": False},
            {"a": 1},
            {"a": 1, "b": 2},
        ),
        ({"prefixItems": [{"type": "string"}], "unevaluatedItems": False}, ["a"], ["a", 1]),
        ({"properties": {"a": {}}, "minProperties": 1}, {"a": 1}, {}),
        ({"properties": {"a": {}}, "maxProperties": 1}, {"a": 1}, {"a": 1, "b": 2}),
        ({"minimum": 5}, 5, 4),  # no type: the keywords still apply
        ({"maxLength": 2}, "ab", "abc"),
        ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, -1, 1),  # exactly one
        ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 0.5, 2),
        ({"$ref": "#/$defs/small", "maximum": 3}, 2, 4),  # a $ref's siblings apply
        ({"const": 1, "type": "integer", "minimum": 2}, None, 1),
        ({"enum": [1, 2, 3], "maximum": 2}, 2, 3),
        ({"anyOf": [{"type": "integer"}], "minimum": 2}, 2, 1),
        ({"oneOf": [{"type": "integer"}], "maximum": 2}, 2, 3),
        ({"allOf": [{"type": "integer"}], "maximum": 2}, 2, 3),
        ({"const": False}, False, 0),  # false is not 0
        ({"enum": [False, "x"]}, False, 0),
        ({"const": 0}, 0, False),
        ({"type": "string", "format": "date"}, "2024-01-01", "20240101"),
    ],
)
def test_every_keyword_is_enforced(schema: dict[str, Any], good: Any, bad: Any) -> None:
    t = make({"v": schema}, required=["v"], **{"$defs": {"small": {"type": "integer"}}})
    if good is not None:
        assert accepts(t, {"v": good}, strict=True), (schema, good)
    assert not accepts(t, {"v": bad}, strict=True), (schema, bad)


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date", "2024-02-29", "2023-02-29"),
        ("date-time", "2024-01-01T10:00:00Z", "2024-01-01 10:00"),
        ("time", "10:00:00+02:00", "25:00:00Z"),
        ("email", "a@example.com", "a@@example"),
        ("uri", "https://example.com/a?b=c", "//example.com"),
        ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08-aa98-11ea-b4aa-73b441d1638"),
        ("ipv4", "192.168.0.1", "256.0.0.1"),
        ("ipv6", "::1", "12345::"),
        ("regex", "^a+$", "^(abc"),
    ],
)
def test_formats_are_checked(fmt: str, good: str, bad: str) -> None:
    t = make({"v": {"type": "string", "format": fmt}})
    assert accepts(t, {"v": good})
    result = t.run({"v": bad})
    assert result.code == "invalid_arguments"
    assert f"v: expected a valid {fmt} string" in result.error.message


def test_the_exported_schema_is_the_one_given() -> None:
    parameters = {
        "type": "object",
        "properties": {"v": {"type": "integer", "description": "A number.", "nullable": True}},
        "required": ["v"],
    }
    given = copy.deepcopy(parameters)
    t = Tool(name="t", func=lambda v: v, parameters=parameters)
    assert parameters == given  # never mutated
    assert t.spec.actions["t"].parameters == given


# -- what cannot be enforced is refused ------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            {"minimun": 5},
            r"properties\.v\.minimun: unknown keyword `minimun` \(did you mean `minimum`\?\)",
        ),
        ({"type": "strng"}, r"unknown type 'strng'; did you mean 'string'\?"),
        ({"type": "string", "format": "colour"}, r"format 'colour' is not checked"),
        (
            {"dependencies": {"a": ["b"]}},
            r"`dependencies` belongs to another draft.*dependentRequired",
        ),
        ({"additionalItems": False}, r"`additionalItems` belongs to another draft"),
        ({"items": [{"type": "string"}]}, r"a list of schemas is `prefixItems` in draft 2020-12"),
        ({"$ref": "https://example.com/schema.json"}, r"external references are not fetched"),
        ({"$ref": "#/$defs/missing"}, r"does not exist"),
        ({"type": "string", "pattern": "(unclosed"}, r"pattern"),
        ({"minimum": "5"}, r"properties\.v\.minimum"),
        ({"nullable": "yes"}, r"nullable: must be true or false"),
    ],
)
def test_what_would_be_ignored_is_refused_with_its_reason(
    schema: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        make({"v": schema})


def test_custom_meta_schemas_and_old_draft_ref_siblings_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="not a standard JSON Schema draft"):
        make({"v": {}}, **{"$schema": "https://example.com/my-meta-schema"})
    with pytest.raises(ToolDefinitionError, match=r"beside `\$ref`.*are ignored"):
        make(
            {"v": {"$ref": "#/definitions/n", "maximum": 3}},
            **{
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": {"n": {"type": "integer"}},
            },
        )


def test_extensions_annotations_and_other_drafts_are_accepted() -> None:
    t = make(
        {
            "v": {
                "type": "integer",
                "x-unit": "cm",
                "title": "V",
                "examples": [1],
                "deprecated": True,
            }
        }
    )
    assert accepts(t, {"v": 1})
    old = make(
        {"v": {"type": "array", "items": [{"type": "integer"}], "additionalItems": False}},
        **{"$schema": "http://json-schema.org/draft-07/schema#"},
    )
    assert accepts(old, {"v": [1]}) and not accepts(old, {"v": [1, 2]})


def test_openapi_nullable_and_number_formats_are_enforced() -> None:
    t = make(
        {
            "n": {"type": "integer", "format": "int32", "nullable": True},
            "e": {"type": "string", "enum": ["a", "b"], "nullable": True},
        }
    )
    assert accepts(t, {"n": None, "e": None}) and accepts(t, {"n": 2**31 - 1, "e": "a"})
    assert not accepts(t, {"n": 2**31}) and not accepts(t, {"e": "c"})


def test_no_unicode_property_pattern_is_refused() -> None:
    t = make({"name": {"type": "string", "pattern": r"^\p{L}+$"}})
    assert accepts(t, {"name": "Zoë"}) and not accepts(t, {"name": "Zoë1"})


# -- coercion, defaults, messages ----------------------------------------------------------------


def test_safe_coercion_outside_strict_mode() -> None:
    t = make(
        {
            "n": {"type": "integer", "maximum": 10},
            "x": {"type": "number"},
            "on": {"type": "boolean"},
            "maybe": {"type": ["integer", "null"]},
            "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "obj": {"type": "object", "properties": {"k": {"type": "integer"}}},
            "items": {"type": "array", "items": {"type": "integer"}},
            "text": {"type": "string"},
        }
    )
    result = t.run(
        {
            "n": "5",
            "x": "0.25",
            "on": "true",
            "maybe": "7",
            "either": "8",
            "obj": '{"k": "9"}',
            "items": ["1", 2],
            "text": "5",
        }
    )
    assert result.success, result.to_text()
    assert result.output == {
        "n": 5,
        "x": 0.25,
        "on": True,
        "maybe": 7,
        "either": 8,
        "obj": {"k": 9},
        "items": [1, 2],
        "text": "5",
    }
    assert not accepts(t, {"n": "5"}, strict=True)
    assert not accepts(t, {"n": "5.5"}) and not accepts(t, {"x": "NaN"})
    over = t.run({"n": "50"})  # coerced, then still checked in full
    assert "n: expected a number less than or equal to 10, received 50" in over.error.message
    assert t.run('{"n": 3}').output == {"n": 3}  # arguments as JSON text
    # the whole arguments as JSON text are the wire form, strict or not; the values inside are
    # still read strictly
    assert t.run('{"n": 3}', strict=True).output == {"n": 3}
    assert not accepts(t, '{"n": "3"}', strict=True)


def test_defaults_are_filled_where_unambiguous() -> None:
    t = make(
        {
            "limit": {"type": "integer", "default": 10},
            "tags": {"type": "array", "default": []},
            "filters": {
                "type": "object",
                "properties": {"lang": {"type": "string", "default": "en"}},
            },
            "shared": {"$ref": "#/$defs/shared"},
        },
        **{
            "$defs": {
                "shared": {"type": "object", "properties": {"on": {"default": True}}},
            }
        },
    )
    arguments = {"filters": {}, "shared": {}}
    first = t.run(arguments).output
    assert first == {
        "limit": 10,
        "tags": [],
        "filters": {"lang": "en"},
        "shared": {"on": True},
    }
    assert arguments == {"filters": {}, "shared": {}}  # the caller's arguments are untouched
    first["tags"].append("x")
    assert t.run({}).output["tags"] == []  # a mutable default is fresh for each call


def test_every_problem_is_listed_with_path_expected_and_received() -> None:
    t = make(
        {
            "texts": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "model": {"enum": ["small", "large"]},
            "batch": {"type": "integer", "maximum": 100},
            "pick": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
            "filters": {
                "type": "object",
                "properties": {"rating": {"type": "integer", "minimum": 1}},
                "required": ["rating"],
            },
        },
        required=["texts", "model"],
    )
    result = t.run(
        {"texts": [], "modle": "large", "batch": 500, "pick": [1], "filters": {"rating": 0}},
        strict=True,
    )
    message = result.error.message
    assert "5 problems" in message or "6 problems" in message, message
    assert "- texts: expected an array of at least 1 item, received [] (array)" in message
    assert "- model: required parameter is missing (expected one of " in message
    assert "- modle: unknown parameter; did you mean `model`?" in message
    assert "- batch: expected a number less than or equal to 100, received 500" in message
    assert "- pick: expected exactly one of: an integer; a string, received [1]" in message
    assert "- filters.rating: expected a number greater than or equal to 1" in message
    assert all({"path", "problem", "expected", "received"} <= set(d) for d in result.error.details)
    assert "Parameters: texts (array, required), model (" in result.error.hint


def test_outputs_are_checked_without_coercion() -> None:
    t = Tool(
        name="t",
        func=lambda: {"n": "5"},
        parameters={"type": "object", "properties": {}},
        output_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    )
    result = t.run({})
    assert result.code == "invalid_output"
    assert 'n: expected an integer, received "5" (string)' in result.error.message
