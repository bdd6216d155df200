"""Time limits told apart (the tool's own, a shorter or longer one per call, the executor's
default) and calls of `execute_many` running at the same time, shown by rendezvous rather than
by timings: each call waits until all of them have started, which only concurrent calls can do."""

from __future__ import annotations

import asyncio
import threading

import pytest

from runtime_timing import Beside
from toolrig import ToolContext, ToolExecutor, tool

WAIT = 10.0  # seconds: the bound of every rendezvous
SYNC_WAIT = 5.0  # seconds: the bound of a rendezvous of worker threads


@tool(timeout=3.0)
async def slow_async(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "finished"


@tool(timeout=3.0)
def slow_sync(seconds: float, ctx: ToolContext) -> str:
    """Sleep in a worker thread (stopping early when told to), then answer."""
    ctx.cancel_event.wait(seconds)
    return "finished"


@tool(timeout=0.2)
async def short_fuse(seconds: float) -> str:
    """A tool whose own limit is short."""
    await asyncio.sleep(seconds)
    return "finished"


@tool
async def unlimited(seconds: float) -> str:
    """A tool without a limit of its own."""
    await asyncio.sleep(seconds)
    return "finished"


@pytest.mark.parametrize("name", ["slow_async", "slow_sync"])
async def test_a_per_call_limit_shorter_than_the_tools_own_applies(name: str) -> None:
    with ToolExecutor([slow_async, slow_sync]) as executor, Beside(0.25) as ref:
        result = await executor.execute(name, {"seconds": 2.5}, timeout=0.25)
    assert result.code == "timeout" and result.error is not None
    assert "within 0.25 s" in result.error.message, result.error.message  # not the tool's 3 s
    assert result.error.retryable
    assert ref.elapsed < ref.bound(0.25), ref.elapsed  # at the call's limit, not the sleep's end


async def test_the_tools_own_limit_applies_without_a_per_call_one() -> None:
    with ToolExecutor([short_fuse], default_timeout=30.0) as executor:
        result = await executor.execute("short_fuse", {"seconds": 5})
    assert result.code == "timeout" and result.error is not None
    assert "within 0.2 s" in result.error.message, result.error.message


async def test_a_per_call_limit_longer_than_the_tools_own_applies() -> None:
    with ToolExecutor([short_fuse]) as executor:
        result = await executor.execute("short_fuse", {"seconds": 0.5}, timeout=20.0)
        unlimited_call = await executor.execute("short_fuse", {"seconds": 0.5}, timeout=None)
    assert result.success and result.output == "finished", result.error
    assert unlimited_call.success, unlimited_call.error


async def test_the_executor_default_applies_only_to_tools_without_their_own() -> None:
    with ToolExecutor([unlimited, short_fuse], default_timeout=0.2) as executor:
        timed_out = await executor.execute("unlimited", {"seconds": 5})
        assert timed_out.code == "timeout" and timed_out.error is not None
        assert "within 0.2 s" in timed_out.error.message
    with ToolExecutor([short_fuse], default_timeout=0.05) as executor:
        own = await executor.execute("short_fuse", {"seconds": 0.1})
        assert own.success, own.error  # its own 0.2 s, not the executor's 0.05 s


def test_a_per_call_limit_applies_on_the_blocking_path() -> None:
    with ToolExecutor([slow_sync, slow_async]) as executor:
        for name in ("slow_sync", "slow_async"):
            result = executor.execute_sync(name, {"seconds": 2.5}, timeout=0.25)
            assert result.code == "timeout" and result.error is not None, (name, result)
            assert "within 0.25 s" in result.error.message


async def test_execute_many_runs_async_calls_at_the_same_time() -> None:
    count = 5
    arrived = 0
    everyone = asyncio.Event()

    @tool
    async def meet(i: int) -> int:
        """Wait until every call has arrived."""
        nonlocal arrived
        arrived += 1
        if arrived == count:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), WAIT)
        return i

    with ToolExecutor([meet]) as executor:
        results = await asyncio.wait_for(
            executor.execute_many([("meet", {"i": i}) for i in range(count)]), WAIT * 2
        )
    assert [r.output for r in results] == list(range(count)), [r.error for r in results]


async def test_execute_many_runs_sync_calls_at_the_same_time() -> None:
    count = 4
    barrier = threading.Barrier(count, timeout=SYNC_WAIT)

    @tool
    def meet(i: int) -> int:
        """Wait in a worker thread until every call has arrived."""
        barrier.wait()
        return i

    with ToolExecutor([meet]) as executor:
        results = await asyncio.wait_for(
            executor.execute_many(
                [{"name": "meet", "arguments": {"i": i}, "id": f"c{i}"} for i in range(count)]
            ),
            WAIT * 2,
        )
    assert [r.output for r in results] == list(range(count)), [r.error for r in results]
    assert [r.metadata.tool_call_id for r in results if r.metadata] == [
        f"c{i}" for i in range(count)
    ]


def test_execute_many_sync_runs_calls_at_the_same_time() -> None:
    count = 3
    barrier = threading.Barrier(count, timeout=SYNC_WAIT)

    @tool
    def meet(i: int) -> int:
        """Wait in a worker thread until every call has arrived."""
        barrier.wait()
        return i

    with ToolExecutor([meet]) as executor:
        results = executor.execute_many_sync([("meet", {"i": i}) for i in range(count)])
    assert [r.output for r in results] == list(range(count)), [r.error for r in results]
