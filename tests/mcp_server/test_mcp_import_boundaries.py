"""Importing another server's tools, boundary by boundary (docs/mcp.md, "Importing"), against
a plain server made with the ``mcp`` SDK alone (`paged_server`, two tools to a page).

The promise: every tool of the server is added as ``prefix__name``, whatever the number of
pages of its list; a name already held by a tool the source did not add stays as it is and
the remote tool is listed in ``source.skipped``; arguments are checked locally first (against
the remote's schema); closing the source removes the tools it added, and only those.

| promise | boundary | test |
|---|---|---|
| every page | 0 tools; 1 (half a page); 2 (one page exactly); 3; 4 (two exactly) | `..._page` |
| names | each tool as `prefix__name`, nothing else added | `..._page` |
| a held name | a local `p__t1` stays; the remote `t1` is in `skipped`, why | `..._held_name` |
| checked locally | an argument of the wrong type: `invalid_arguments`, not sent | `..._held_name` |
| close | the source's tools removed; the local tool kept | `..._held_name` |

Breaks tried (each made the named test fail, then was undone): the client's listing loop
stopping after the first page (``..._page`` from 3 tools); a held name replaced by the
remote tool (``..._held_name``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolrig import ToolExecutor, tool
from toolrig.mcp import add_mcp_server
from toolrig.registry import Registry

SERVER = Path(__file__).resolve().parent / "paged_server.py"


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4])
def test_every_tool_of_every_page(count: int) -> None:
    registry = Registry()
    source = add_mcp_server(registry, command=[sys.executable, str(SERVER), str(count)], prefix="p")
    try:
        expected = [f"p__t{i}" for i in range(count)]
        assert sorted(source.tools) == expected
        assert sorted(registry.names()) == expected
    finally:
        source.close()
        registry.close()


def test_a_held_name_stays_and_close_removes_only_the_source_s() -> None:
    @tool(name="p__t1")
    def local(text: str = "") -> str:
        """The local tool of that name."""
        return "local"

    registry = Registry()
    registry.add(local)
    source = add_mcp_server(registry, command=[sys.executable, str(SERVER), "3"], prefix="p")
    try:
        assert "taken" in source.skipped["t1"]  # by its remote name, with the reason
        assert sorted(source.tools) == ["p__t0", "p__t2"]
        with ToolExecutor(registry) as executor:
            assert executor.execute_sync("p__t1", {}).output == "local"
            assert executor.execute_sync("p__t0", {}).output == "t0"
            wrong = executor.execute_sync("p__t2", {"drop": "not a boolean at all"})
            assert wrong.code == "invalid_arguments"
            assert executor.execute_sync("p__t2", {}).output == "t2"  # t2 still there: not sent
    finally:
        source.close()
    assert registry.names() == ["p__t1"]
    registry.close()
