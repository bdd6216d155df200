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


async def _found(*args: str, query: str) -> list[str]:
    with http_server(*args) as (url, _proc):
        async with session("http", url) as client:
            found = await asyncio.wait_for(
                client.call_tool("search_tools", {"query": query, "k": 3}), WAIT
            )
            assert not found.is_error, found
            return [entry["name"] for entry in json.loads(found.content[0].text)]


async def test_meta_tools_rank_by_the_usage_in_an_execution_log(tmp_path: Path) -> None:
    from toolrig.storage import SQLiteExecutionLog

    catalog = str(ROOT / "examples" / "catalog")
    query = "analyze customer data"  # several analysers fit about as well
    first = await _found(catalog, "--meta-tools", query=query)
    log_path = tmp_path / "log.sqlite3"
    tool_name = first[1].split(".")[0]
    with SQLiteExecutionLog(log_path) as log:
        for _ in range(50):
            log.add_result(tool_name, "tool", None, None, None, "success", run_id="earlier")
    again = await _found(catalog, "--meta-tools", "--usage-log", str(log_path), query=query)
    assert again[0] == first[1], (first, again)


def test_serve_refuses_a_usage_log_it_cannot_use(tmp_path: Path) -> None:
    import subprocess

    from mcp_support import serve_argv, server_env

    for extra, message in [
        (["--usage-log", str(tmp_path / "log.db")], "add --meta-tools"),
        (["--meta-tools", "--usage-log", str(tmp_path / "missing.db")], "no execution log at"),
    ]:
        done = subprocess.run(
            serve_argv(*extra),
            capture_output=True,
            text=True,
            timeout=WAIT,
            env=server_env(),
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
