"""Defining a tool compiles no validator; the first call compiles it and validates as before.

The JSON Schema of a function tool is built without pydantic for the common annotations; the
schemas (and what validation accepts, coerces and rejects) equal those of the pydantic path,
which still serves every other annotation. Definition-time errors stay at definition time.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from datetime import date, datetime
from typing import Annotated, Any, Literal, Optional
from uuid import UUID

import pytest
from pydantic import BaseModel, Field

from toolrig import BaseTool, Tool, ToolContext, ToolDefinitionError, action, tool
from toolrig.core.define import _signature as signature
from toolrig.core.define._signature import describe_function
from toolrig.core.schema._type_schema import Unsupported


class Color(enum.Enum):
    """A colour."""

    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int


def shop(
    item: str,
    quantity: Annotated[int, Field(ge=1, le=99)] = 1,
    color: Color = Color.RED,
    tags: list[str] | None = None,
    mode: Literal["fast", "slow"] = "fast",
    when: date | None = None,
    budget: Annotated[float, Field(gt=0, description="In euros.")] = 10.0,
) -> dict[str, Any]:
    """Buy something.

    Args:
        item: What to buy.
        quantity: How many.
        color: Which colour.
        tags: Labels to attach.
    """
    return {"item": item, "quantity": quantity, "color": color.value, "tags": tags, "mode": mode}


def _pydantic_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Route every definition through pydantic, as before the direct path existed."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise Unsupported("forced")

    monkeypatch.setattr(signature, "arguments_schemas", refuse)
    monkeypatch.setattr(signature, "value_schemas", refuse)


def test_defining_a_tool_compiles_no_validator() -> None:
    t = tool(shop)
    assert t.action.validator.compiled is False
    assert t.action.output_validator is not None
    assert t.action.output_validator.compiled is False
    assert t.spec.actions["shop"].parameters["properties"]["quantity"]["maximum"] == 99


def test_the_first_call_compiles_and_later_calls_reuse_it() -> None:
    t = tool(shop)
    first = t.run({"item": "pen", "quantity": "3"})
    assert first.success and first.output["quantity"] == 3
    validator = t.action.validator
    assert validator.compiled and t.action.output_validator.compiled  # type: ignore[union-attr]
    compiled = validator._validator
    assert t.run({"item": "pen"}).success
    assert validator._validator is compiled  # compiled once


def test_a_tool_class_compiles_once_for_all_its_instances() -> None:
    class Shop(BaseTool):
        @action
        def buy(self, item: str, quantity: int = 1) -> str:
            """Buy."""
            return f"{quantity} x {item}"

    one, two = Shop(), Shop()
    assert one.get_action("buy").validator.compiled is False  # type: ignore[union-attr]
    assert one.execute("buy", {"item": "pen"}).output == "1 x pen"
    assert two.get_action("buy").validator.compiled  # type: ignore[union-attr]


CALLS: list[dict[str, Any]] = [
    {"item": "pen"},
    {"item": "pen", "quantity": "3", "color": "blue", "tags": ["a"], "when": "2026-01-02"},
    {"item": "pen", "quantity": 0},
    {"item": "pen", "quantity": 100, "color": "green", "mode": "medium"},
    {"item": 5, "budget": -1},
    {"item": "pen", "tags": '["x", "y"]'},
    {"item": "pen", "colour": "red"},
    {},
    {"item": "pen", "when": "not a date", "budget": "cheap"},
]


def _outcomes(t: Tool, strict: bool) -> list[Any]:
    out = []
    for arguments in CALLS:
        result = t.run(arguments, strict=strict)
        error = result.error
        out.append(
            (
                result.success,
                result.output,
                None if error is None else (error.code, error.message, error.hint, error.details),
            )
        )
    return out


@pytest.mark.parametrize("strict", [False, True])
def test_the_first_calls_validate_exactly_as_the_pydantic_path(
    monkeypatch: pytest.MonkeyPatch, strict: bool
) -> None:
    lazy = tool(shop)
    direct = _outcomes(lazy, strict)
    _pydantic_only(monkeypatch)
    eager = tool(shop)
    assert eager.action.validator.compiled  # the pydantic path compiles at definition time
    assert direct == _outcomes(eager, strict)


def test_output_is_checked_on_first_use_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    def count(n: int) -> list[int]:
        """Count."""
        return ["one"] * n  # type: ignore[list-item]

    lazy = tool(count).run({"n": 2})
    _pydantic_only(monkeypatch)
    eager = tool(count).run({"n": 2})
    assert not lazy.success and lazy.error is not None and eager.error is not None
    assert lazy.error.code == eager.error.code == "invalid_output"
    assert lazy.error.message == eager.error.message


# -- the schemas are the ones the pydantic path produces ------------------------------------------


def _fn(annotation: str, default: str | None = None, returns: str = "dict") -> Callable[..., Any]:
    params = f"value: {annotation}" + ("" if default is None else f" = {default}")
    source = (
        f"def probe(first: str, {params}) -> {returns}:\n"
        '    """Probe a type.\n\n    Args:\n        first: The first one.\n'
        '        value: The value.\n\n    Returns:\n        Something.\n    """\n'
    )
    namespace: dict[str, Any] = {
        "Annotated": Annotated,
        "Any": Any,
        "Color": Color,
        "Field": Field,
        "Literal": Literal,
        "Optional": Optional,
        "Point": Point,
        "UUID": UUID,
        "date": date,
        "datetime": datetime,
    }
    exec(source, namespace)
    fn: Callable[..., Any] = namespace["probe"]
    return fn


PROBES: list[tuple[str, str | None, str]] = [
    ("int", None, "dict"),
    ("int", "3", "int"),
    ("float", "0.5", "float"),
    ("bool", "False", "bool"),
    ("str", "'x'", "str"),
    ("Optional[int]", "None", "Optional[int]"),
    ("int | None", "None", "list[int]"),
    ("list[str]", "['a']", "list[str]"),
    ("dict[str, int]", "{}", "dict[str, Any]"),
    ("tuple[int, str]", "(1, 'a')", "tuple[int, ...]"),
    ("set[int]", None, "set[str]"),
    ("Literal['a', 'b']", "'a'", "Literal['a', 'b']"),
    ("Literal[1, 2, 3]", "2", "Optional[Literal['x']]"),
    ("Color", "Color.RED", "str"),
    ("Optional[Color]", "None", "dict"),
    ("list[Color]", None, "dict"),
    ("Annotated[int, Field(ge=1, le=10)]", "5", "dict"),
    ("Annotated[str, Field(min_length=2, pattern='^[a-z]+$')]", None, "str"),
    ("Annotated[float, Field(description='Own text.', title='T')]", None, "float"),
    ("Annotated[list[int], Field(max_length=3, examples=[[1, 2]])]", None, "dict"),
    ("date", None, "date"),
    ("datetime | None", "None", "datetime"),
    ("UUID", None, "UUID"),
    ("Any", "None", "Any"),
    ("Point", None, "Point"),
    ("list[Point]", None, "Point | None"),
    ("Annotated[int, Field(alias='v')]", None, "dict"),
]


@pytest.mark.parametrize(("annotation", "default", "returns"), PROBES, ids=repr)
def test_described_functions_equal_the_pydantic_path(
    monkeypatch: pytest.MonkeyPatch, annotation: str, default: str | None, returns: str
) -> None:
    fn = _fn(annotation, default, returns)
    direct = describe_function(fn, subject="probe")
    with monkeypatch.context() as patched:
        _pydantic_only(patched)
        through_pydantic = describe_function(fn, subject="probe")
    for name in ("parameters", "output_schema", "output_type", "description", "context_param"):
        mine, theirs = getattr(direct, name), getattr(through_pydantic, name)
        assert json.dumps(mine, default=repr) == json.dumps(theirs, default=repr), name


def _no_parameters() -> str:
    """Nothing to give."""
    return "ok"


def _with_context(ctx: ToolContext, query: str, /, limit: int = 3) -> list[str]:
    """Uses the context; `query` is positional-only."""
    return [query] * limit


def _undocumented(a, b=2.5, *, c: bool = True):  # type: ignore[no-untyped-def]
    return a


@pytest.mark.parametrize("fn", [_no_parameters, _with_context], ids=lambda f: f.__name__)
def test_other_signatures_equal_the_pydantic_path(
    monkeypatch: pytest.MonkeyPatch, fn: Callable[..., Any]
) -> None:
    direct = describe_function(fn, subject="probe")
    _pydantic_only(monkeypatch)
    through_pydantic = describe_function(fn, subject="probe")
    for name in ("parameters", "output_schema", "output_type", "context_param", "positional_only"):
        assert getattr(direct, name) == getattr(through_pydantic, name), name


def test_an_unannotated_parameter_without_default_is_still_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="`a` has no type annotation"):
        tool(_undocumented)


# -- definition-time errors stay at definition time -----------------------------------------------


def test_every_signature_problem_is_reported_at_decoration_time() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @tool
        def bad(*items: str, untyped, **options: str) -> None:  # type: ignore[no-untyped-def]
            """Bad."""

    text = str(info.value)
    assert "*items" in text and "untyped" in text and "**options" in text


def test_an_unsupported_type_is_refused_at_decoration_time() -> None:
    class Opaque:
        pass

    with pytest.raises(ToolDefinitionError, match="value"):

        @tool
        def takes(value: Opaque) -> None:
            """Takes."""


def test_a_bad_pattern_is_refused_at_decoration_time() -> None:
    with pytest.raises(Exception, match="regex"):

        @tool
        def takes(value: Annotated[str, Field(pattern="(")]) -> None:
            """Takes."""


def test_a_schema_tools_defaults_are_still_checked_at_definition_time() -> None:
    with pytest.raises(ToolDefinitionError, match=r"limit.*default 500"):
        Tool(
            name="limited",
            description="Limited.",
            parameters={
                "type": "object",
                "properties": {"limit": {"type": "integer", "maximum": 100, "default": 500}},
            },
            func=lambda limit=500: limit,
        )
