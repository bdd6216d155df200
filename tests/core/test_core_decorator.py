"""@tool: schemas from type hints, defaults and docstrings; definition-time errors."""

from __future__ import annotations

import enum
from datetime import date, datetime
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from toolrig import Tool, ToolContext, ToolDefinitionError, tool


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip_code: Annotated[str, Field(pattern=r"^\d{5}$")]


class Person(BaseModel):
    name: str
    address: Address
    nicknames: list[str] = []


def params_of(t: Tool) -> dict:
    return t.spec.actions[t.spec.name].parameters


def test_bare_and_configured_decorator_build_tools() -> None:
    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    @tool(name="echo_text", description="Repeat the text.", tags=["util"], timeout=3)
    def echo(text: str) -> str:
        return text

    assert isinstance(ping, Tool) and ping.spec.name == "ping"
    assert ping.spec.description == "Answer pong."
    assert echo.spec.name == "echo_text"
    assert echo.spec.description == "Repeat the text."
    assert echo.spec.tags == ("util",) and echo.spec.timeout == 3
    # the decorated object still calls the function directly
    assert echo("hi") == "hi"
    assert ping.run().output == "pong"


def test_schema_covers_the_supported_types() -> None:
    @tool
    def everything(
        s: str,
        i: int,
        f: float,
        b: bool,
        items: list[int],
        mapping: dict[str, float],
        pair: tuple[int, str],
        mode: Literal["fast", "deep"],
        color: Color,
        maybe: int | None,
        either: int | str,
        when: datetime,
        day: date,
        person: Person,
        bounded: Annotated[int, Field(ge=1, le=10, description="one to ten")] = 5,
        code: Annotated[str, Field(min_length=2, max_length=4, pattern="^[A-Z]+$")] = "AB",
    ) -> dict[str, int]:
        return {}

    p = params_of(everything)
    props = p["properties"]
    assert props["s"]["type"] == "string"
    assert props["i"]["type"] == "integer"
    assert props["f"]["type"] == "number"
    assert props["b"]["type"] == "boolean"
    assert props["items"] == {"type": "array", "items": {"type": "integer"}}
    assert props["mapping"]["additionalProperties"] == {"type": "number"}
    assert props["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert props["mode"]["enum"] == ["fast", "deep"]
    assert "$ref" in props["color"] and p["$defs"]["Color"]["enum"] == ["red", "blue"]
    assert {"type": "null"} in props["maybe"]["anyOf"]
    assert props["when"]["format"] == "date-time"
    assert props["day"]["format"] == "date"
    assert p["$defs"]["Address"]["properties"]["zip_code"]["pattern"] == r"^\d{5}$"
    assert props["bounded"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "description": "one to ten",
        "default": 5,
    }
    assert props["code"]["minLength"] == 2 and props["code"]["maxLength"] == 4
    required = set(p["required"])
    assert "bounded" not in required and "code" not in required
    assert {"s", "i", "person", "maybe"} <= required
    # no auto-generated titles
    assert "title" not in p and "title" not in props["s"]


def test_validated_values_arrive_as_python_types() -> None:
    seen: dict = {}

    @tool
    def capture(person: Person, color: Color, when: datetime, pair: tuple[int, str]) -> None:
        seen.update(person=person, color=color, when=when, pair=pair)

    result = capture.run(
        person={"name": "Ann", "address": {"street": "Main", "zip_code": "12345"}},
        color="red",
        when="2026-01-02T03:04:05Z",
        pair=[1, "x"],
    )
    assert result.success, result.error
    assert isinstance(seen["person"], Person) and seen["person"].address.zip_code == "12345"
    assert seen["color"] is Color.RED
    assert seen["when"].year == 2026 and seen["pair"] == (1, "x")
    bad = capture.run(
        person={"name": "Ann", "address": {"street": "Main", "zip_code": "12"}},
        color="green",
        when="yesterday",
        pair=[1, "x"],
    )
    assert bad.code == "invalid_arguments"
    assert "person.address.zip_code" in bad.error.message
    assert "color" in bad.error.message and "when" in bad.error.message


@pytest.mark.parametrize(
    "doc",
    [
        # Google
        """Search the catalogue.

        Args:
            query: Words to look for.
            limit: How many results at most.

        Returns:
            The matching entries.
        """,
        # NumPy
        """Search the catalogue.

        Parameters
        ----------
        query : str
            Words to look for.
        limit : int
            How many results at most.

        Returns
        -------
        list
            The matching entries.
        """,
        # Sphinx
        """Search the catalogue.

        :param query: Words to look for.
        :param limit: How many results at most.
        :returns: The matching entries.
        """,
    ],
    ids=["google", "numpy", "sphinx"],
)
def test_docstring_styles_give_descriptions(doc: str) -> None:
    def search(query: str, limit: int = 10) -> list[str]:
        return []

    search.__doc__ = doc
    t = tool(search)
    props = params_of(t)["properties"]
    assert t.spec.description == "Search the catalogue."
    assert props["query"]["description"] == "Words to look for."
    assert props["limit"]["description"] == "How many results at most."
    assert t.spec.actions["search"].output_description == "The matching entries."
    assert t.spec.actions["search"].output_type == "array"


def test_context_parameter_is_injected_and_hidden() -> None:
    @tool
    def whoami(name: str, ctx: ToolContext) -> str:
        return f"{name}:{ctx.tool}:{ctx.tool_call_id}"

    props = params_of(whoami)["properties"]
    assert list(props) == ["name"]
    result = whoami.run(name="x", tool_call_id="call-7")
    assert result.output == "x:whoami:call-7"


async def test_async_function_tool() -> None:
    @tool
    async def double(x: int) -> int:
        return 2 * x

    assert (await double.arun(x=4)).output == 8
    assert double.run(x="5").output == 10  # sync entry point runs the coroutine too


def test_unsupported_signatures_fail_at_decoration_naming_each_parameter() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        @tool
        def bad(a, *args: int, b, **kwargs: int) -> None:  # type: ignore[no-untyped-def]
            pass

    text = str(info.value)
    assert "`a`" in text and "`*args`" in text and "`b`" in text and "`**kwargs`" in text
    assert "4 problems" in text


def test_unannotated_parameter_with_default_takes_the_default_type() -> None:
    @tool
    def f(n=3) -> int:  # type: ignore[no-untyped-def]
        return n  # type: ignore[no-any-return]

    assert params_of(f)["properties"]["n"]["type"] == "integer"


def test_unsupported_type_names_the_parameter() -> None:
    class Opaque:
        pass

    with pytest.raises(ToolDefinitionError, match="parameter `thing`"):

        @tool
        def g(thing: Opaque) -> None:
            pass


def test_generator_functions_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="generator"):

        @tool
        def gen(n: int):  # type: ignore[no-untyped-def]
            yield n


def test_metadata_fields_are_carried() -> None:
    from toolrig import ToolAnnotations

    @tool(
        when_to_use="When the user asks for the time.",
        tags=["time"],
        timeout=2.5,
        max_retries=2,
        version="1.2.3",
        annotations=ToolAnnotations(read_only=True, idempotent=True),
        examples=["what time is it?"],
    )
    def now() -> str:
        return "noon"

    spec = now.spec
    assert spec.when_to_use == "When the user asks for the time."
    assert spec.tags == ("time",) and spec.timeout == 2.5 and spec.max_retries == 2
    assert spec.version == "1.2.3" and spec.annotations.read_only is True
    assert spec.annotations.destructive is None and spec.examples == ("what time is it?",)

    def later() -> None:
        pass

    with pytest.raises(ToolDefinitionError, match="semantic version"):
        tool(version="one")(later)


def test_a_summary_wrapped_over_lines_stays_whole() -> None:
    @tool
    def wrapped(x: int) -> int:
        """Do a thing whose summary is long enough
        to wrap onto a second line.

        More detail here.

        Args:
            x: The input.
        """
        return x

    assert wrapped.spec.description == (
        "Do a thing whose summary is long enough to wrap onto a second line.\n\nMore detail here."
    )
    assert params_of(wrapped)["properties"]["x"]["description"] == "The input."
