"""The MCP client at the edges of what another server may do, against a plain server made
with the ``mcp`` SDK alone (`paged_server`): a tool list over several pages is read to its
last page, and a call refused in that server's own words for "no such tool" is ``not_found``
and makes the client read the list again."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_support import WAIT

from toolrig import ToolExecutor
from toolrig.mcp import MCPToolSource, add_mcp_server
from toolrig.registry import Registry

SERVER = Path(__file__).resolve().parent / "paged_server.py"


@pytest.fixture
def paged() -> Iterator[tuple[Registry, MCPToolSource]]:
    registry = Registry()
    source = add_mcp_server(registry, command=[sys.executable, str(SERVER), "5"], prefix="p")
    try:
        yield registry, source
    finally:
        source.close()
        registry.close()


def test_every_page_of_the_tool_list_is_read(paged: tuple[Registry, MCPToolSource]) -> None:
    """Five tools, two to a page: three pages, the last one without ``nextCursor``."""
    registry, source = paged
    assert sorted(source.tools) == ["p__t0", "p__t1", "p__t2", "p__t3", "p__t4"]
    assert "p__t0" in registry and "p__t4" in registry


def test_another_servers_wording_of_unknown_tool_is_not_found(
    paged: tuple[Registry, MCPToolSource],
) -> None:
    registry, _ = paged
    with ToolExecutor(registry) as executor:
        assert executor.execute_sync("p__t0", {"drop": True}).output == "t0"  # t4 is gone
        gone = executor.execute_sync("p__t4", {})
        assert gone.code == "not_found", gone.error
        assert gone.error is not None and "Unknown tool: t4" in gone.error.message
        deadline = time.monotonic() + WAIT
        while "p__t4" in registry and time.monotonic() < deadline:  # the list is read again
            time.sleep(0.05)
        assert "p__t4" not in registry and "p__t3" in registry
