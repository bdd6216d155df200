"""The names that left ``Registry`` are gone, not forwarded: each has one home now (listed in
CHANGELOG.md), and an old call fails at once instead of warning."""

from __future__ import annotations

import pytest

from toolrig import ToolExecutor, tool
from toolrig.registry import Registry

GONE = (
    "register_tool",
    "list_tools",
    "executor",
    "execute",
    "execute_sync",
    "search",
    "search_index",
    "select_tools_for_intent",
    "add_mcp_server",
)


@tool(tags=["text"])
def shout(text: str) -> str:
    """Upper-case a text, loudly."""
    return text.upper()


@pytest.mark.parametrize("name", GONE)
def test_the_old_name_is_gone(name: str) -> None:
    with Registry([shout]) as registry, pytest.raises(AttributeError):
        getattr(registry, name)


def test_what_replaces_them_answers() -> None:
    with Registry([shout]) as registry, ToolExecutor(registry) as executor:
        assert executor.execute_sync("shout", {"text": "hi"}).output == "HI"
        assert [s.name for s in registry.specs(tags=["text"])] == ["shout"]
        assert [t.spec.name for t in registry.tools()] == ["shout"]
