"""Round trips: a registry imports the tools of a second `toolrig serve` and calls them."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_support import (
    EXTRA_YAML,
    WAIT,
    StreamWatch,
    http_server,
    serve_argv,
    server_env,
    write_tools,
)

from toolrig import Catalog, ToolExecutor
from toolrig.mcp import MCPToolSource, add_mcp_server, add_mcp_server_async
from toolrig.registry import Registry


@pytest.fixture
def registry() -> Iterator[Registry]:
    reg = Registry()
    yield reg
    reg.close()


@pytest.fixture
def executor(registry: Registry) -> Iterator[ToolExecutor]:
    with ToolExecutor(registry) as ex:
        yield ex


@pytest.fixture
def stdio_source(registry: Registry, tmp_path: Path) -> Iterator[MCPToolSource]:
    folder = write_tools(tmp_path / "tools")
    source = add_mcp_server(
        registry, command=serve_argv(str(folder)), env=server_env(), prefix="remote"
    )
    try:
        yield source
    finally:
        source.close()


def test_imported_tools_keep_schemas_and_run(
    registry: Registry, executor: ToolExecutor, stdio_source: MCPToolSource
) -> None:
    assert sorted(stdio_source.tools) == [
        "remote__add",
        "remote__boom",
        "remote__nap",
        "remote__pid",
    ]
    spec = registry.get("remote__add").spec
    action = spec.actions["remote__add"]
    assert action.parameters["required"] == ["a", "b"]
    assert spec.annotations.read_only is True
    assert "mcp" in spec.tags

    ok = executor.execute_sync("remote__add", {"a": 2, "b": 40})
    assert ok.success, ok
    assert ok.output == 42  # the server marked its result as wrapped: unwrapped here

    bad = executor.execute_sync("remote__add", {"a": "two"})
    assert bad.code == "invalid_arguments"  # checked here, before the wire

    failed = executor.execute_sync("remote__boom", {"reason": "disk"})
    assert failed.code == "execution_error"
    assert failed.error is not None and "RuntimeError: boom: disk" in failed.error.message

    remote_timeout = executor.execute_sync("remote__nap", {"seconds": 5})
    assert remote_timeout.code == "timeout"  # the remote's own code, carried back
    assert remote_timeout.error is not None and remote_timeout.error.retryable

    local_timeout = executor.execute_sync("remote__nap", {"seconds": 0.25}, timeout=0.05)
    assert local_timeout.code == "timeout"
    assert executor.execute_sync("remote__add", {"a": 1, "b": 1}).output == 2


def test_a_dead_server_is_an_execution_error_and_the_next_call_reconnects(
    executor: ToolExecutor, stdio_source: MCPToolSource
) -> None:
    first = executor.execute_sync("remote__pid")
    assert first.success, first
    pid = int(first.output)
    os.kill(pid, signal.SIGKILL)
    failed = executor.execute_sync("remote__add", {"a": 1, "b": 2})
    assert failed.code == "execution_error"
    assert failed.error is not None
    assert "is unavailable" in failed.error.message
    assert failed.error.retryable
    again = executor.execute_sync("remote__add", {"a": 1, "b": 2})
    assert again.output == 3, again
    second = executor.execute_sync("remote__pid")
    assert int(second.output) != pid


def test_http_import_follows_list_changed(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolrig.mcp._connection as mcp_connection

    watch = StreamWatch()
    monkeypatch.setattr(mcp_connection, "create_mcp_http_client", watch.client)
    folder = write_tools(tmp_path / "tools")
    with http_server(str(folder), "--watch", "--token", "t0k") as (url, _proc):
        source = add_mcp_server(registry, url=url, token="t0k", prefix="web")
        try:
            assert "web__add" in registry
            assert executor.execute_sync("web__add", {"a": 3, "b": 4}).output == 7
            watch.wait(WAIT)  # the notification stream opens after initialization
            (folder / "later.yaml").write_text(EXTRA_YAML, encoding="utf-8")
            deadline = time.monotonic() + WAIT
            while "web__added_later" not in registry and time.monotonic() < deadline:
                time.sleep(0.05)
            assert "web__added_later" in registry
            result = executor.execute_sync("web__added_later", {"a": 1, "b": 2})
            assert result.output == "3"
            (folder / "later.yaml").unlink()
            deadline = time.monotonic() + WAIT
            while "web__added_later" in registry and time.monotonic() < deadline:
                time.sleep(0.05)
            assert "web__added_later" not in registry
        finally:
            source.close()
        assert "web__add" not in registry


async def test_async_import_into_an_executor(tmp_path: Path) -> None:
    folder = write_tools(tmp_path / "tools")
    executor = ToolExecutor()
    source = await add_mcp_server_async(
        executor.catalog, command=serve_argv(str(folder)), env=server_env(), prefix="far"
    )
    try:
        results = await asyncio.wait_for(
            executor.execute_many([("far__add", {"a": i, "b": i}) for i in range(10)]), WAIT
        )
        assert [r.output for r in results] == [2 * i for i in range(10)]
    finally:
        await asyncio.to_thread(source.close)
        executor.close()
    assert len(executor) == 0


def test_wrong_arguments_are_refused_early() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        MCPToolSource(Catalog(), prefix="x")
    with pytest.raises(ValueError, match="invalid MCP server prefix"):
        MCPToolSource(Catalog(), prefix="bad prefix", url="http://127.0.0.1:1/mcp")


def test_a_registry_closes_its_sources_and_taken_names_stay(tmp_path: Path) -> None:
    from toolrig import tool

    @tool(name="own__add")
    def local_add(a: int, b: int) -> int:
        """A local tool whose name the import would take."""
        return a - b

    folder = write_tools(tmp_path / "tools")
    registry = Registry([local_add])
    source = add_mcp_server(
        registry, command=serve_argv(str(folder)), env=server_env(), prefix="own"
    )
    assert registry.get("own__add") is local_add  # not replaced by the remote tool
    assert "taken by another tool" in source.skipped["add"]
    assert "own__add" not in source.tools and "own__pid" in source.tools
    registry.close()  # closes the source it owns: the connection and its tools
    assert "own__pid" not in registry and "own__add" in registry
    assert not source._thread.is_alive()
    source.close()  # closing again is harmless
