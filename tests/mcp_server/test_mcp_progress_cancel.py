"""Progress and cancellation through an in-process streamable-HTTP server (tools observable)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from mcp_support import WAIT, StreamWatch, serving, session

from toolrig import ToolContext, tool
from toolrig.mcp import ToolServer
from toolrig.registry import Registry

started = asyncio.Event()
cancelled = asyncio.Event()


@tool
async def count(n: int, ctx: ToolContext) -> int:
    """Count to n, reporting each step."""
    for i in range(1, n + 1):
        ctx.report_progress(i, n, f"step {i}")
        await asyncio.sleep(0)
    return n


@tool
def count_in_thread(n: int, ctx: ToolContext) -> int:
    """Count to n in a worker thread, reporting each step."""
    for i in range(1, n + 1):
        ctx.report_progress(i, n, None)
    return n


@tool
async def wait_forever(ctx: ToolContext) -> str:
    """Never finishes unless cancelled."""
    started.set()
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        cancelled.set()
        raise
    return "unreachable"


class _Recorder:
    """A progress callback that keeps what it is told."""

    def __init__(self) -> None:
        self.reports: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.reports.append((progress, total, message))


@pytest.fixture
def registry() -> Registry:
    reg = Registry()
    for item in (count, count_in_thread, wait_forever):
        reg.add(item)
    return reg


async def test_progress_reaches_the_client_in_order(registry: Registry) -> None:
    async with serving(ToolServer(registry)) as url, session("http", url) as client:
        for name in ("count", "count_in_thread"):
            seen = _Recorder()

            result = await asyncio.wait_for(
                client.call_tool(name, {"n": 5}, progress_callback=seen), WAIT
            )
            assert result.structured_content == {"result": 5}
            assert [p for p, _, _ in seen.reports] == [1, 2, 3, 4, 5], name
            assert all(total == 5 for _, total, _ in seen.reports)
    registry.close()


async def test_client_cancellation_cancels_the_running_call(registry: Registry) -> None:
    started.clear()
    cancelled.clear()
    async with serving(ToolServer(registry)) as url, session("http", url) as client:
        call = asyncio.create_task(client.call_tool("wait_forever", {}))
        await asyncio.wait_for(started.wait(), WAIT)  # the call runs on the server
        assert not call.done()
        call.cancel()  # the SDK sends notifications/cancelled for an abandoned request
        with contextlib.suppress(asyncio.CancelledError):
            await call
        await asyncio.wait_for(cancelled.wait(), WAIT)
        # the connection still serves calls afterwards
        again = await asyncio.wait_for(client.call_tool("count", {"n": 1}), WAIT)
        assert again.structured_content == {"result": 1}
    registry.close()


async def test_registry_add_and_remove_notify_clients(registry: Registry) -> None:
    import mcp_types

    changes = asyncio.Queue[object]()

    def on_message(message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changes.put_nowait(message)

    @tool
    def extra() -> str:
        """An extra tool."""
        return "x"

    watch = StreamWatch()
    async with (
        serving(ToolServer(registry)) as url,
        session("http", url, on_message=on_message, watch=watch) as client,
    ):
        await asyncio.wait_for(client.list_tools(), WAIT)
        await watch.await_open(WAIT)  # the notification stream opens after initialization
        registry.add(extra)
        await asyncio.wait_for(changes.get(), WAIT)
        assert "extra" in {t.name for t in (await client.list_tools()).tools}
        registry.remove("extra")
        await asyncio.wait_for(changes.get(), WAIT)
        assert "extra" not in {t.name for t in (await client.list_tools()).tools}
    registry.close()
