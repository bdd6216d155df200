"""Unknown arguments are rejected, not ignored, whichever way the tool was defined: a function
(`@tool`, its schema built directly or through pydantic), a `BaseTool` method (`@action`), an
explicit `ActionSchema`, `Tool(...)` from declared parameters or from a JSON Schema, a YAML
definition, an imported OpenAI-style function definition. The function is never called."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from toolrig import (
    ActionSchema,
    BaseTool,
    Tool,
    ToolExecutor,
    ToolParameter,
    action,
    tool,
)
from toolrig.providers import tool_from_function_definition
from toolrig.registry import Registry

CALLS: list[dict[str, Any]] = []


def _record(**kwargs: Any) -> str:
    CALLS.append(kwargs)
    return "done"


class Point(BaseModel):
    x: int
    y: int


def by_decorator() -> BaseTool:
    @tool
    def greet(name: str) -> str:
        """Greet someone."""
        return _record(name=name)

    return greet


def by_decorator_through_pydantic() -> BaseTool:
    @tool
    def greet(name: str, where: Point | None = None) -> str:
        """Greet someone (a model-typed parameter: the schema is built by pydantic)."""
        return _record(name=name)

    return greet


def by_action_method() -> BaseTool:
    class Greeter(BaseTool):
        """Greets."""

        name = "greet"

        @action
        def greet(self, name: str) -> str:
            """Greet someone."""
            return _record(name=name)

    return Greeter()


def by_action_schema() -> BaseTool:
    class Greeter(BaseTool):
        """Greets."""

        name = "greet"
        actions = [
            ActionSchema(
                name="greet",
                description="Greet someone.",
                parameters=[ToolParameter(name="name", type="string")],
                output_type="string",
            )
        ]

        def greet(self, name: str) -> str:
            return _record(name=name)

    return Greeter()


def by_declared_parameters() -> BaseTool:
    return Tool(
        name="greet",
        description="Greet someone.",
        parameters=[ToolParameter(name="name", type="string")],
        func=_record,
    )


def by_json_schema() -> BaseTool:
    return Tool(
        name="greet",
        description="Greet someone.",
        parameters={"type": "object", "properties": {"name": {"type": "string"}}},
        func=_record,
    )


def by_function_definition() -> BaseTool:
    definition = {
        "name": "greet",
        "description": "Greet someone.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    }
    return tool_from_function_definition(definition, _record)


WAYS: dict[str, Callable[[], BaseTool]] = {
    "decorator": by_decorator,
    "decorator-pydantic": by_decorator_through_pydantic,
    "action-method": by_action_method,
    "action-schema": by_action_schema,
    "declared-parameters": by_declared_parameters,
    "json-schema": by_json_schema,
    "function-definition": by_function_definition,
}


def _check_refused(executor: ToolExecutor, name: str) -> None:
    CALLS.clear()
    for args in ({"name": "ada", "nmae": "x"}, {"name": "ada", "extra": {"deep": 1}}):
        result = executor.execute_sync(name, args)
        assert not result.success and result.error is not None, args
        assert result.code == "invalid_arguments", result.error
        unknown = next(k for k in args if k != "name")
        assert [d["path"] for d in result.error.details] == [unknown], result.error.details
        assert result.error.details[0]["problem"] == "extra_forbidden"
        assert f"- {unknown}: unknown parameter" in result.error.message
    # one wording, whichever validator: a separator before the list, with or without a guess
    lines = executor.execute_sync(name, {"name": "a", "nmae": "x", "extra": 1}).to_text()
    assert "- nmae: unknown parameter; did you mean `name`? Valid names here: name" in lines
    assert "- extra: unknown parameter. Valid names here: name" in lines
    assert CALLS == []  # refused before the function ran
    ok = executor.execute_sync(name, {"name": "ada"})
    assert ok.success and ok.output == "done", ok.error
    assert CALLS == [{"name": "ada"}]


@pytest.mark.parametrize("way", list(WAYS))
def test_unknown_arguments_are_rejected(way: str) -> None:
    with ToolExecutor([WAYS[way]()]) as executor:
        _check_refused(executor, "greet")


@pytest.mark.parametrize("way", list(WAYS))
async def test_unknown_arguments_are_rejected_on_the_async_path(way: str) -> None:
    executor = ToolExecutor([WAYS[way]()])
    try:
        CALLS.clear()
        result = await executor.execute("greet", {"name": "ada", "nmae": "x"}, timeout=5)
        assert result.code == "invalid_arguments" and CALLS == []
    finally:
        executor.close()


def test_unknown_arguments_are_rejected_for_a_yaml_definition(tmp_path: Path) -> None:
    (tmp_path / "greet.yaml").write_text(
        textwrap.dedent(
            """\
            name: greet
            description: Greet someone.
            parameters:
              - {name: name, type: string, required: true}
            """
        ),
        encoding="utf-8",
    )
    registry = Registry()
    try:
        registry.bind("greet")(_record)
        assert registry.load(tmp_path).ok
        with ToolExecutor(registry) as executor:
            _check_refused(executor, "greet")
    finally:
        registry.close()
