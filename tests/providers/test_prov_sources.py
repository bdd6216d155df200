"""What export and parse functions take: a tool, tools, a catalogue (a ``Registry`` too), an
executor or a ready ``NameMap``, all giving the same definitions."""

from __future__ import annotations

from pathlib import Path

from toolrig import BaseTool, Catalog, ToolExecutor, action, tool
from toolrig.providers import (
    NameMap,
    parse_openai_chat_calls,
    to_anthropic_tools,
    to_mcp_tools,
    to_openai_chat_tools,
)
from toolrig.registry import Registry


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Notes(BaseTool):
    """Keeps notes."""

    @action
    def count(self, text: str) -> int:
        """Count the words of a text."""
        return len(text.split())


def test_every_kind_of_source_gives_the_same_definitions() -> None:
    notes = Notes()
    expected = to_openai_chat_tools([add, notes])
    catalog = Catalog([add, notes])
    registry = Registry([add, notes])
    with ToolExecutor([add, notes]) as executor:
        for source in (catalog, registry, executor, NameMap.from_tools([add, notes])):
            assert to_openai_chat_tools(source) == expected, type(source).__name__
    assert to_openai_chat_tools(add) == expected[:1]
    assert to_anthropic_tools(registry) == to_anthropic_tools([add, notes])
    assert to_mcp_tools(registry) == to_mcp_tools(catalog)
    registry.close()


def test_a_registry_is_read_as_it_is_now(tmp_path: Path) -> None:
    registry = Registry()
    assert to_openai_chat_tools(registry) == []
    (tmp_path / "echo.yaml").write_text(
        "name: echo\ndescription: Echo a text.\nparameters: [{name: text, type: string}]\n",
        encoding="utf-8",
    )
    assert registry.load(tmp_path).ok
    registry.add(add)
    names = [t["function"]["name"] for t in to_openai_chat_tools(registry)]
    assert names == ["echo", "add"]
    response = {
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
        ]
    }
    (call,) = parse_openai_chat_calls(response, registry)
    assert call.name == "add"  # type: ignore[union-attr]
    registry.close()
