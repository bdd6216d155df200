"""A catalogue too big for one prompt, served over MCP as two meta-tools: search, then call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mcp_support import WAIT, http_server, session, write_tools

ROOT = Path(__file__).resolve().parents[2]


async def test_meta_tools_over_mcp(tmp_path: Path) -> None:
    folder = write_tools(tmp_path / "tools")
    catalog = ROOT / "examples" / "catalog"
    args = (str(folder), str(catalog), "--import-path", str(ROOT / "examples"), "--meta-tools")
    with http_server(*args) as (url, _proc):
        async with session("http", url) as client:
            listing = await asyncio.wait_for(client.list_tools(), WAIT)
            assert sorted(t.name for t in listing.tools) == ["call_tool", "search_tools"]

            found = await asyncio.wait_for(
                client.call_tool("search_tools", {"query": "extract hashtags from texts"}), WAIT
            )
            assert not found.is_error
            names = [entry["name"] for entry in json.loads(found.content[0].text)]
            assert "hashtag_analyzer" in names[:3]

            called = await asyncio.wait_for(
                client.call_tool(
                    "call_tool",
                    {"name": "hashtag_analyzer", "arguments": {"text_data": ["#a #b", "#a"]}},
                ),
                WAIT,
            )
            assert not called.is_error, called
            assert "#a" in called.content[0].text

            wrong = await asyncio.wait_for(
                client.call_tool("call_tool", {"name": "add", "arguments": {"a": "x", "b": 1}}),
                WAIT,
            )
            assert wrong.is_error and "invalid_arguments" in wrong.content[0].text
