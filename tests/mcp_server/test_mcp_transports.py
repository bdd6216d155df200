"""The real MCP client against `toolrig serve`, over stdio (a subprocess) and streamable HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp.shared.exceptions import MCPError
from mcp_support import (
    EXTRA_YAML,
    WAIT,
    StreamWatch,
    http_server,
    serve_argv,
    session,
    write_tools,
)


@contextmanager
def _served(transport: str, *args: str) -> Iterator[Any]:
    """What ``session`` needs to reach ``toolrig serve ARGS`` over ``transport``."""
    if transport == "stdio":
        yield serve_argv(*args)
        return
    with http_server(*args) as (url, _proc):
        yield url


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_list_and_call_contract(transport: str, tmp_path: Path) -> None:
    folder = write_tools(tmp_path / "tools")
    with _served(transport, str(folder)) as target:
        async with session(transport, target) as client:
            listing = await asyncio.wait_for(client.list_tools(), WAIT)
            tools = {t.name: t for t in listing.tools}
            assert set(tools) == {"add", "boom", "nap", "pid"}
            add = tools["add"]
            assert add.input_schema["required"] == ["a", "b"]
            assert add.input_schema["properties"]["a"]["type"] == "integer"
            assert add.output_schema is not None
            assert add.output_schema["properties"]["result"] == {"type": "integer"}
            assert add.annotations is not None
            assert add.annotations.read_only_hint is True
            assert add.annotations.idempotent_hint is True

            ok = await asyncio.wait_for(client.call_tool("add", {"a": 2, "b": 40}), WAIT)
            assert not ok.is_error
            assert ok.structured_content == {"result": 42}
            assert isinstance(ok.content[0], mcp_types.TextContent)
            assert ok.content[0].text == "42"

            bad = await asyncio.wait_for(client.call_tool("add", {"a": "two", "c": 1}), WAIT)
            assert bad.is_error
            error = (bad.meta or {})["toolrig/error"]
            assert error["code"] == "invalid_arguments"
            assert {d["path"] for d in error["details"]} == {"a", "b", "c"}
            assert "Invalid arguments for `add`" in bad.content[0].text  # type: ignore[union-attr]

            failed = await asyncio.wait_for(client.call_tool("boom", {"reason": "disk"}), WAIT)
            assert failed.is_error
            assert (failed.meta or {})["toolrig/error"]["code"] == "execution_error"
            assert "RuntimeError: boom: disk" in failed.content[0].text  # type: ignore[union-attr]

            slow = await asyncio.wait_for(client.call_tool("nap", {"seconds": 5}), WAIT)
            assert slow.is_error
            assert (slow.meta or {})["toolrig/error"]["code"] == "timeout"

            with pytest.raises(MCPError) as info:
                await asyncio.wait_for(client.call_tool("ad", {"a": 1, "b": 2}), WAIT)
            assert info.value.code == mcp_types.INVALID_PARAMS
            assert "Did you mean 'add'?" in info.value.message


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_list_changed_after_a_file_edit_under_watch(transport: str, tmp_path: Path) -> None:
    folder = write_tools(tmp_path / "tools")
    changed = asyncio.Event()

    def on_message(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changed.set()

    watch = StreamWatch()
    with _served(transport, str(folder), "--watch") as target:
        async with session(transport, target, on_message=on_message, watch=watch) as client:
            before = await asyncio.wait_for(client.list_tools(), WAIT)
            assert "added_later" not in {t.name for t in before.tools}
            if transport == "http":  # stdio has one stream, open from the start
                await watch.await_open(WAIT)
            (folder / "later.yaml").write_text(EXTRA_YAML, encoding="utf-8")
            await asyncio.wait_for(changed.wait(), WAIT)
            after = await asyncio.wait_for(client.list_tools(), WAIT)
            assert "added_later" in {t.name for t in after.tools}
            result = await asyncio.wait_for(client.call_tool("added_later", {"a": 1, "b": 2}), WAIT)
            assert result.content[0].text == "3"  # type: ignore[union-attr]


async def test_http_bearer_token_is_required(tmp_path: Path) -> None:
    import httpx

    with http_server("--demo", "--token", "s3cret") as (url, _proc):
        async with httpx.AsyncClient(timeout=WAIT) as raw:
            refused = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Bearer")
            wrong = await raw.post(url, json={}, headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401
        async with session("http", url, token="s3cret") as client:
            listing = await asyncio.wait_for(client.list_tools(), WAIT)
            assert "add" in {t.name for t in listing.tools}


def test_cli_refuses_a_public_bind_without_token() -> None:
    import subprocess

    from mcp_support import server_env

    done = subprocess.run(
        serve_argv("--transport", "http", "--host", "0.0.0.0", "--port", "0"),
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=server_env(),
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "refusing to serve on '0.0.0.0' without a token" in done.stderr
