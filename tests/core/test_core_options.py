"""Tool options: declared once, accepted by every way to build a tool, and read from the spec."""

from __future__ import annotations

import inspect
import textwrap
import typing
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from toolrig import (
    ActionSpec,
    BaseTool,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolCost,
    ToolDefinitionError,
    ToolSpec,
    action,
    tool,
)
from toolrig.core.model._option_keys import ActionOptionsDict, ToolOptionsDict
from toolrig.core.model._options import ActionOptions, ToolIcon, ToolOptions

OPTIONS: dict[str, Any] = {
    "display_name": "Adder",
    "version": "1.2.3",
    "when_to_use": "When two numbers must be added.",
    "type": "math",
    "layer": "core",
    "tags": ("sum", "numbers"),
    "annotations": ToolAnnotations(read_only=True, idempotent=True),
    "timeout": 5.0,
    "max_retries": 2,
    "max_result_chars": 1_000,
    "isolation": "process",
    "runs_on": "heavy",
    "dependencies": ("parser",),
    "cost": ToolCost(base_cost=0.5),
    "examples": ("add 1 and 2",),
    "scopes": ("math:add",),
    "icons": (
        ToolIcon(src="https://example.com/add.png", mime_type="image/png", sizes=("48x48",)),
    ),
}
"""A value other than the default for every option."""

YAML = """
name: add
description: Add two numbers.
display_name: Adder
version: 1.2.3
when_to_use: When two numbers must be added.
type: math
layer: core
tags: [sum, numbers]
annotations: {read_only: true, idempotent: true}
timeout: 5
max_retries: 2
max_result_chars: 1000
isolation: process
runs_on: heavy
dependencies: [parser]
cost: {base_cost: 0.5}
examples: [add 1 and 2]
scopes: [math:add]
icons: [{src: "https://example.com/add.png", mimeType: image/png, sizes: [48x48]}]
parameters:
  - {name: a, type: integer}
  - {name: b, type: integer}
"""

FIELDS = ("name", "description", *ToolOptions.model_fields)


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_the_keyword_dicts_have_exactly_the_models_fields() -> None:
    assert set(ToolOptionsDict.__annotations__) == set(ToolOptions.model_fields)
    assert set(ActionOptionsDict.__annotations__) == set(ActionOptions.model_fields)
    assert ToolOptionsDict.__required_keys__ == ActionOptionsDict.__required_keys__ == frozenset()
    assert set(OPTIONS) == set(ToolOptions.model_fields)  # this file covers every option


def test_the_tool_class_declares_every_option_for_type_checkers() -> None:
    assert set(FIELDS) <= set(BaseTool.__annotations__)


def test_specs_inherit_the_options_and_keep_their_keys() -> None:
    assert issubclass(ToolSpec, ToolOptions) and issubclass(ActionSpec, ActionOptions)
    spec = tool(**OPTIONS)(add).spec
    assert set(spec.model_dump()) == {"name", "description", "actions", *ToolOptions.model_fields}
    assert set(spec.actions["add"].model_dump()) == {
        "name",
        "parameters",
        "output_type",
        *ActionOptions.model_fields,
    }
    assert spec.options == ToolOptions(**OPTIONS)


def test_the_decorator_takes_every_keyword_the_class_takes() -> None:
    def keywords(func: Callable[..., Any], skip: set[str]) -> dict[str, Any]:
        params = inspect.signature(func).parameters.values()
        return {p.name: (p.kind, p.annotation) for p in params if p.name not in skip}

    configured = next(
        o for o in typing.get_overloads(tool) if "func" not in inspect.signature(o).parameters
    )
    assert keywords(configured, set()) == keywords(Tool.__init__, {"self", "func"}) | {
        name: (inspect.Parameter.KEYWORD_ONLY, annotation)
        for name, (_, annotation) in keywords(Tool.__init__, {"self", "func"}).items()
        if name in ("name", "description", "parameters")
    }


def _decorated() -> BaseTool:
    return tool(**OPTIONS)(add)


def _constructed() -> BaseTool:
    return Tool("add", "Add two numbers.", None, add, **OPTIONS)


def _from_options_object() -> BaseTool:
    return Tool("add", "Add two numbers.", None, add, options=ToolOptions(**OPTIONS))


def _class() -> BaseTool:
    def run(self: BaseTool, a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    body = {"__doc__": "Add two numbers.", "name": "add", **OPTIONS, "run": action(name="add")(run)}
    return type("Adder", (BaseTool,), body)()  # type: ignore[no-any-return]


def _assembled() -> BaseTool:
    made = _decorated()
    return BaseTool.from_actions(made.spec, {"add": made.get_action("add")})  # type: ignore[dict-item]


def _yaml(tmp_path: Path) -> BaseTool:
    from toolrig.registry import Registry

    (tmp_path / "add.yaml").write_text(textwrap.dedent(YAML))
    registry = Registry()
    assert registry.load(tmp_path / "add.yaml").ok
    return registry.get("add")


BUILDERS: dict[str, Callable[..., BaseTool]] = {
    "decorator": _decorated,
    "Tool()": _constructed,
    "Tool(options=...)": _from_options_object,
    "class": _class,
    "assembled from data": _assembled,
}


@pytest.mark.parametrize("way", [*BUILDERS, "yaml"])
def test_every_option_reads_the_spec_however_the_tool_was_built(way: str, tmp_path: Path) -> None:
    made = _yaml(tmp_path) if way == "yaml" else BUILDERS[way]()
    for field in FIELDS:
        assert getattr(made, field) == getattr(made.spec, field), field
    assert made.spec.options == ToolOptions(**OPTIONS)
    assert (made.name, made.description) == ("add", "Add two numbers.")


def test_setting_an_option_on_a_tool_is_refused() -> None:
    made = _decorated()
    with pytest.raises(AttributeError, match="frozen"):
        made.timeout = 1  # type: ignore[misc]
    assert made.timeout == 5.0


def test_a_class_declares_its_options_once() -> None:
    class Greeter(BaseTool):
        """Greets."""

        tags = ("hello",)
        timeout = 2.0

        @action
        def greet(self, who: str) -> str:
            """Greet someone."""
            return f"hi {who}"

    class LoudGreeter(Greeter):
        max_retries = 1

    assert "timeout" not in Greeter.__dict__  # read into the spec, not left to disagree with it
    assert (Greeter.name, Greeter.timeout, Greeter.tags) == ("greeter", 2.0, ("hello",))
    greeter, loud = Greeter(), LoudGreeter()
    assert (greeter.timeout, greeter.tags) == (2.0, ("hello",))
    assert (loud.name, loud.tags, loud.max_retries) == ("loud_greeter", ("hello",), 1)
    assert loud.description == "Greets." and loud.get_action_names() == ["greet"]


def test_option_problems_are_reported_together_with_their_fields() -> None:
    with pytest.raises(ToolDefinitionError) as info:
        Tool("bad name!", func=add, timeout=-1, tags="sum", version="one")
    problems = info.value.problems
    assert len(problems) == 4
    assert {getattr(p, "loc", None) for p in problems} == {
        ("name",),
        ("timeout",),
        ("tags",),
        ("version",),
    }
    assert "`tags` must be a list of strings, not one string" in str(info.value)


def test_action_options_are_checked_when_the_class_is_written() -> None:
    with pytest.raises(ToolDefinitionError, match="examples"):
        action(examples="one string")


def test_a_declared_output_schema_keeps_the_signature_validation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolrig.core.define._signature import describe_function as describe

    calls: list[str] = []

    def counted(func: Callable[..., Any], **kwargs: Any) -> Any:
        calls.append(func.__name__)
        return describe(func, **kwargs)

    monkeypatch.setattr("toolrig.core.define._signature.describe_function", counted)

    def weekday(day: date) -> Any:
        return {"weekday": day.strftime("%A")}

    schema = {"type": "object", "properties": {"weekday": {"type": "string"}}}
    made = Tool(func=weekday, output_schema=schema)
    assert calls == ["weekday"]  # the signature is read once
    assert made.spec.actions["weekday"].output_schema == schema
    assert made.spec.actions["weekday"].output_type == "object"
    assert made.run(day="2024-02-29").output == {"weekday": "Thursday"}  # a date arrived

    broken = Tool(func=lambda: {"weekday": 3}, name="broken", parameters={}, output_schema=schema)
    assert broken.run().code == "invalid_output"


def test_action_takes_an_output_schema() -> None:
    class Clock(BaseTool):
        @action(output_schema={"type": "string", "enum": ["tick", "tock"]}, examples=["tick"])
        def tick(self, ctx: ToolContext) -> Any:
            """Tick."""
            return "tick" if ctx.tool_call_id else "boom"

        @action
        def boom(self) -> Any:
            """Boom."""
            return "boom"

    clock = Clock()
    assert clock.spec.actions["tick"].output_schema == {"type": "string", "enum": ["tick", "tock"]}
    assert clock.spec.actions["tick"].examples == ("tick",)
    assert clock.execute("tick").output == "tick"


def test_the_decorator_takes_parameters_and_display_name() -> None:
    from toolrig import ToolParameter

    @tool(
        parameters=[ToolParameter(name="text", type="string", min_length=1)],
        display_name="Shout",
        dependencies=["source"],
        output_description="The text in capitals.",
    )
    def shout(**values: Any) -> str:
        """Shout the text."""
        return str(values["text"]).upper()

    assert shout.display_name == "Shout" and shout.dependencies == ("source",)
    assert shout.spec.actions["shout"].output_description == "The text in capitals."
    assert shout.run(text="hi").output == "HI"
    assert shout.run(text="").code == "invalid_arguments"
