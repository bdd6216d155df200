"""Parameters from type hints refuse what their exported schema refuses; names and patterns are
checked as the schema language defines them."""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from toolrig import BaseTool, Tool, ToolDefinitionError, ToolParameter, action, tool


class Filters(BaseModel):
    rating: int = 1


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    rating: int = 1


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Point(BaseModel):
    x: int
    tags: set[str] = set()


LETTERS = r"^\p{L}+$"


@tool
def search(
    filters: Filters,
    loose: Loose | None = None,
    tags: set[str] | None = None,
    frozen: frozenset[int] = frozenset(),
    level: Level = Level.LOW,
    count: int = 0,
) -> dict[str, Any]:
    """Search."""
    return {"filters": filters, "tags": tags, "level": level}


def test_nested_models_refuse_unknown_keys_like_the_top_level() -> None:
    result = search.run(filters={"rating": 2, "ratng": 3})
    assert result.code == "invalid_arguments"
    assert "filters.ratng: unknown parameter; did you mean `rating`?" in result.error.message
    assert search.run(filters={"rating": 2}).success
    # a model that chooses to allow extra keys keeps its choice
    assert search.run(filters={}, loose={"rating": 2, "other": 1}).success


def test_sets_refuse_duplicates_as_their_schema_says() -> None:
    schema = search.spec.actions["search"].parameters["properties"]
    assert schema["tags"]["anyOf"][0]["uniqueItems"] is True
    result = search.run(filters={}, tags=["a", "a", "b"])
    assert result.code == "invalid_arguments"
    assert "tags: expected an array without duplicate items (1 found)" in result.error.message
    assert search.run(filters={}, frozen=[1, "1"]).code == "invalid_arguments"  # equal once coerced
    assert search.run(filters={}, tags=["a", "b"]).output["tags"] == {"a", "b"}


def test_an_int_enum_refuses_booleans() -> None:
    result = search.run(filters={}, level=True)
    assert result.code == "invalid_arguments"
    assert "level: expected 1 or 2, received true (boolean)" in result.error.message
    assert search.run(filters={}, level=2).output["level"] is Level.HIGH
    assert search.run({"filters": {}, "level": True}, strict=True).code == "invalid_arguments"


def test_choices_among_integers_refuse_booleans_and_the_reverse() -> None:
    @tool
    def choose(
        size: Literal[0, 1] = 0, flag: Literal[False] = False, mixed: Literal["a", 1] = 1
    ) -> str:
        """Choose."""
        return f"{size!r} {flag!r} {mixed!r}"

    assert "size: expected 0 or 1, received false" in choose.run(size=False).error.message
    assert "flag: expected false, received 0" in choose.run(flag=0).error.message
    assert 'mixed: expected "a" or 1, received true' in choose.run(mixed=True).error.message
    assert choose.run(size=1, flag=False, mixed="a").output == "1 False 'a'"


def test_nested_models_in_the_general_path_are_tightened_too() -> None:
    @tool
    def locate(point: Point, extra: Annotated[dict[str, Point], Field(description="More.")]) -> int:
        """Locate."""
        return point.x

    bad = locate.run(point={"x": 1, "y": 2}, extra={"a": {"x": 1, "tags": ["t", "t"]}})
    assert bad.code == "invalid_arguments"
    assert "point.y: unknown parameter" in bad.error.message
    assert "extra.a.tags: expected an array without duplicate items" in bad.error.message
    assert locate.run(point={"x": 1}, extra={}).success


def test_unicode_property_patterns_are_accepted_everywhere() -> None:
    pattern = LETTERS

    @tool
    def hinted(name: Annotated[str, Field(pattern=LETTERS)]) -> str:
        """Name."""
        return name

    declared = Tool(
        name="declared",
        func=lambda name: name,
        parameters=[ToolParameter(name="name", type="string", pattern=pattern)],
    )
    schema = Tool(
        name="schema",
        func=lambda name: name,
        parameters={
            "type": "object",
            "properties": {"name": {"type": "string", "pattern": pattern}},
        },
    )
    for t in (hinted, declared, schema):
        assert t.run(name="Zoë").success, t.spec.name
        assert t.run(name="Zoë1").code == "invalid_arguments", t.spec.name
    with pytest.raises(ValueError, match="not a valid regular expression"):
        Tool(
            name="bad",
            func=lambda name: name,
            parameters=[ToolParameter(name="name", type="string", pattern="(unclosed")],
        )


@pytest.mark.parametrize("name", [123, b"name", 1.5, ["x"]])
def test_a_name_that_is_not_text_is_a_definition_error(name: Any) -> None:
    with pytest.raises(ToolDefinitionError, match="a name must be a string"):
        Tool(name=name, func=lambda: None)
    with pytest.raises(ToolDefinitionError, match="a name must be a string"):
        tool(name=name)(lambda: None)


def test_a_tool_class_with_a_name_that_is_not_text_is_a_definition_error() -> None:
    def define() -> BaseTool:
        class Numbered(BaseTool):
            name = 7  # type: ignore[assignment]

            @action
            def go(self) -> None:
                """Go."""

        return Numbered()

    with pytest.raises(ToolDefinitionError, match="a name must be a string"):
        define()
