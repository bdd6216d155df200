"""The names that left ``Registry``: each still works, with a ``DeprecationWarning`` naming
what replaces it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from registry_helpers import simple, write

from toolrig import ToolExecutor, tool
from toolrig.registry import IntentMap, Registry


@tool(tags=["text"])
def shout(text: str) -> str:
    """Upper-case a text, loudly."""
    return text.upper()


@tool
def whisper(text: str) -> str:
    """Lower-case a text, in a whisper."""
    return text.lower()


@pytest.fixture
def loaded(registry: Registry) -> Registry:
    registry.add(shout)
    return registry


def test_execute_sync(loaded: Registry) -> None:
    with pytest.warns(DeprecationWarning, match=r"ToolExecutor\(registry\)\.execute_sync"):
        result = loaded.execute_sync("shout", {"text": "hi"})
    assert result.output == "HI"


async def test_execute(loaded: Registry) -> None:
    with pytest.warns(DeprecationWarning, match=r"ToolExecutor\(registry\)\.execute"):
        result = await loaded.execute("shout", {"text": "hi"})
    assert result.output == "HI"


def test_executor(loaded: Registry) -> None:
    with pytest.warns(DeprecationWarning, match=r"use ToolExecutor\(registry\)"):
        executor = loaded.executor
    assert isinstance(executor, ToolExecutor) and executor.catalog is loaded
    assert executor.execute_sync("shout", {"text": "hi"}).output == "HI"


def test_list_tools(loaded: Registry) -> None:
    with pytest.warns(DeprecationWarning, match=r"Registry\.specs"):
        specs = loaded.list_tools(tags=["text"])
    assert specs == loaded.specs(tags=["text"]) and [s.name for s in specs] == ["shout"]


def test_register_tool(registry: Registry, executor: ToolExecutor, tmp_path: Path) -> None:
    with pytest.warns(DeprecationWarning, match=r"Registry\.bind"):

        @registry.register_tool("echo")
        def echo(text: str) -> str:
            return f"echo:{text}"

    assert registry.load(write(tmp_path / "echo.yaml", simple("echo"))).ok
    assert executor.execute_sync("echo", {"text": "x"}).output == "echo:x"


def test_search(loaded: Registry) -> None:
    with pytest.warns(DeprecationWarning, match=r"ToolIndex\.follow\(registry\)"):
        hits = loaded.search("upper-case a text", k=1)
    assert [h.tool for h in hits] == ["shout"]


def test_search_index(loaded: Registry) -> None:
    from toolrig.search import ToolIndex

    with pytest.warns(DeprecationWarning, match=r"ToolIndex\.follow\(registry\)"):
        index = loaded.search_index()
    assert isinstance(index, ToolIndex)
    loaded.add(whisper)
    assert "whisper" in {h.tool for h in index.search("whisper", k=5)}  # it follows


def test_select_tools_for_intent(loaded: Registry) -> None:
    loaded.intents = IntentMap({("text", "loud"): ["shout"]})
    with pytest.warns(DeprecationWarning, match=r"toolrig\.search\.select_tools_for_intent"):
        chosen = loaded.select_tools_for_intent(("text", "loud"))
    assert chosen == ["shout"]


def test_add_mcp_server(registry: Registry) -> None:
    pytest.importorskip("mcp")
    demo = [sys.executable, "-m", "toolrig.cli.main", "serve", "--demo"]
    with pytest.warns(DeprecationWarning, match=r"toolrig\.mcp\.add_mcp_server\(registry"):
        source = registry.add_mcp_server(prefix="demo", command=demo)
    assert "demo__add" in registry and source.catalog is registry
    registry.close()  # the registry owns the source: closing it disconnects and removes
    assert "demo__add" not in registry
