"""ToolExecutor: registry of instances, sync/async/many execution, timeouts, retries, hooks."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import pytest

from runtime_timing import Beside
from toolrig import (
    BaseTool,
    Call,
    EventKind,
    RetryableToolError,
    RetryPolicy,
    ToolCall,
    ToolContext,
    ToolDefinitionError,
    ToolError,
    ToolEvent,
    ToolExecutor,
    ToolNotFoundError,
    ToolResult,
    action,
    tool,
)

FAST_RETRY = RetryPolicy(initial_delay=0.001, max_delay=0.005)


@tool
def add(a: int, b: int, note: str = "") -> int:
    """Add two integers."""
    return a + b


@tool
async def slow_async(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "done"


class Math(BaseTool):
    """Arithmetic."""

    @action
    def mul(self, a: int, b: int) -> int:
        """Multiply."""
        return a * b

    @action
    def div(self, a: int, b: int) -> float:
        """Divide."""
        return a / b


@pytest.fixture
def executor() -> ToolExecutor:
    return ToolExecutor([add, slow_async, Math()], retry=FAST_RETRY)


def test_collection_api(executor: ToolExecutor) -> None:
    catalog = executor.catalog
    assert catalog.names() == ["add", "slow_async", "math"]
    assert len(executor) == 3 and "add" in executor and "nope" not in executor
    assert catalog.get("add") is add
    assert [t.spec.name for t in catalog.tools()] == ["add", "slow_async", "math"]
    with pytest.raises(ToolNotFoundError) as info:
        catalog.get("ad")
    assert info.value.suggestions == ["add"] and "Did you mean 'add'?" in str(info.value)
    with pytest.raises(ToolDefinitionError, match="already registered"):
        catalog.add(add)
    catalog.add(add, replace=True)
    assert catalog.remove("add") is add
    assert "add" not in executor and executor.execute_sync("add", a=1, b=2).code == "not_found"

    def plain(x: int) -> int:
        return x

    catalog.add(plain)
    assert executor.execute_sync("plain", x=3).output == 3

    for gone in ("register", "unregister", "swap", "get", "resolve", "list_tools", "tool_names"):
        assert not hasattr(executor, gone), gone  # the catalogue's, reached as executor.catalog


def test_sync_execution_and_action_names(executor: ToolExecutor) -> None:
    result = executor.execute_sync("add", {"a": 1, "b": 2})
    assert result.success and result.output == 3
    meta = result.metadata
    assert meta.tool == "add" and meta.action == "add" and meta.attempts == 1
    assert meta.tool_call_id.startswith("call_") and meta.duration_ms >= 0
    assert (
        executor.execute_sync("add", a=1, b=2, tool_call_id="mine").metadata.tool_call_id == "mine"
    )
    assert executor.execute_sync("math.mul", a=3, b=4).output == 12
    assert executor.execute_sync("math__mul", a=3, b=4).output == 12
    assert executor.execute_sync("add", '{"a": 5, "b": 6}').output == 11


def test_not_found_answers_with_closest_names(executor: ToolExecutor) -> None:
    missing = executor.execute_sync("addd", a=1)
    assert missing.code == "not_found" and "Did you mean 'add'" in missing.error.message
    bad_action = executor.execute_sync("math.mull", a=1, b=2)
    assert bad_action.code == "not_found"
    assert (
        "no action 'mull'" in bad_action.error.message and "'math.mul'" in bad_action.error.message
    )
    bare = executor.execute_sync("math", a=1)
    assert bare.code == "not_found" and "math.div" in bare.error.message


def test_exceptions_become_execution_errors(executor: ToolExecutor) -> None:
    result = executor.execute_sync("math.div", a=1, b=0)
    assert result.code == "execution_error"
    assert (
        "ZeroDivisionError" in result.error.message and "division by zero" in result.error.message
    )


async def test_async_execution(executor: ToolExecutor) -> None:
    assert (await executor.execute("add", a=2, b=3)).output == 5
    assert (await executor.execute("slow_async", seconds=0)).output == "done"
    assert (await executor.execute("math.mul", {"a": 2, "b": 5})).output == 10
    missing = await executor.execute("add", {"a": 1})
    assert missing.code == "invalid_arguments" and "required" in missing.error.message


async def test_execute_many_keeps_order_and_isolates_failures(executor: ToolExecutor) -> None:
    calls: list[Any] = [
        ToolCall(name="slow_async", arguments={"seconds": 0.05}, tool_call_id="first"),
        ("add", {"a": 1, "b": 1}),
        {"name": "math.div", "arguments": {"a": 1, "b": 0}, "id": "boom"},
        {"name": "nope"},
        42,
        ("add", '{"a": 2, "b": 2}'),
    ]
    results = await executor.execute_many(calls)
    assert [r.success for r in results] == [True, True, False, False, False, True]
    assert results[0].metadata.tool_call_id == "first" and results[0].output == "done"
    assert results[2].metadata.tool_call_id == "boom" and results[2].code == "execution_error"
    assert results[3].code == "not_found" and results[4].code == "invalid_arguments"
    assert results[5].output == 4
    assert [r.output for r in executor.execute_many_sync([("add", {"a": 1, "b": 2})])] == [3]


async def test_calls_run_concurrently(executor: ToolExecutor) -> None:
    with Beside(0.2) as ref:
        results = await executor.execute_many([("slow_async", {"seconds": 0.2})] * 20)
    assert all(r.success for r in results)
    # all twenty end about when one does (one by one: 4 s; two at a time: 2 s)
    assert ref.elapsed < ref.bound(0.2), (ref.elapsed, ref.lateness)


async def test_async_timeout_cancels_the_tool() -> None:
    cancelled = asyncio.Event()

    @tool(timeout=0.1)
    async def hang() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    ex = ToolExecutor([hang])
    with Beside(0.1) as ref:
        result = await ex.execute("hang")
    assert result.code == "timeout" and "0.1 s" in result.error.message
    # at the limit, within the promised 100 ms plus what this machine adds right now (the
    # tool itself would take 10 s)
    assert result.error.retryable and 0.09 < ref.elapsed < ref.bound(0.1 + 0.1)
    assert cancelled.is_set()
    # a per-call timeout overrides the tool's; None removes it
    assert (await ex.execute("hang", timeout=0.05)).code == "timeout"


async def test_sync_tool_past_its_timeout_returns_on_time_and_is_told_to_stop() -> None:
    finished = threading.Event()
    told = threading.Event()

    @tool(timeout=0.1)
    def busy(ctx: ToolContext) -> str:
        for _ in range(300):  # 3 s unless told to stop
            if ctx.cancelled:
                told.set()
                break
            time.sleep(0.01)
        finished.set()
        return "late"

    ex = ToolExecutor([busy])
    with Beside(0.1) as ref:
        result = await ex.execute("busy")
    assert result.code == "timeout" and ref.elapsed < ref.bound(0.1 + 0.1), ref.lateness
    # the worker thread cannot be killed; it sees ctx.cancelled and stops by itself
    assert await asyncio.to_thread(finished.wait, 2.0)
    assert told.is_set()
    # execute_sync honours the limit too
    with Beside(0.1) as ref:
        assert ex.execute_sync("busy").code == "timeout"
    assert ref.elapsed < ref.bound(0.1 + 0.1), (ref.elapsed, ref.lateness)


async def test_sync_tools_do_not_block_the_event_loop() -> None:
    @tool
    def block(seconds: float) -> str:
        time.sleep(seconds)
        return "ok"

    ex = ToolExecutor([block])
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        for _ in range(10):
            await asyncio.sleep(0.01)
            ticks += 1

    result, _ = await asyncio.gather(ex.execute("block", seconds=0.2), ticker())
    assert result.output == "ok" and ticks == 10


def test_retries_with_backoff_only_for_retryable_failures() -> None:
    attempts: list[int] = []

    @tool(max_retries=3)
    def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise RetryableToolError("service busy")
        return "ok"

    @tool(max_retries=3)
    def broken(x: int) -> int:
        attempts.append(1)
        raise ValueError("bug")

    ex = ToolExecutor([flaky, broken], retry=FAST_RETRY)
    events: list[ToolEvent] = []
    ex.add_listener(events.append)
    result = ex.execute_sync("flaky")
    assert result.output == "ok" and result.metadata.attempts == 3
    assert [e.kind for e in events] == [
        EventKind.STARTED,
        EventKind.RETRIED,
        EventKind.RETRIED,
        EventKind.SUCCEEDED,
    ]
    attempts.clear()
    assert ex.execute_sync("broken", x=1).metadata.attempts == 1  # not retryable
    assert ex.execute_sync("broken", x="bad").metadata.attempts == 1  # invalid arguments
    assert len(attempts) == 1
    attempts.clear()
    exhausted = ex.execute_sync("flaky", max_retries=1)
    assert exhausted.code == "execution_error" and exhausted.metadata.attempts == 2


async def test_timeouts_are_retried() -> None:
    calls = 0

    @tool(timeout=0.05, max_retries=2)
    async def sometimes_slow() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(1)
        return "fast now"

    ex = ToolExecutor([sometimes_slow], retry=FAST_RETRY)
    result = await ex.execute("sometimes_slow")
    assert result.output == "fast now" and result.metadata.attempts == 2


def test_backoff_grows_exponentially_with_jitter() -> None:
    policy = RetryPolicy(initial_delay=0.1, max_delay=1.0, multiplier=2.0, jitter=False)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5)] == [0.1, 0.2, 0.4, 0.8, 1.0]
    jittered = RetryPolicy(initial_delay=0.1, max_delay=1.0)
    samples = {jittered.delay(3) for _ in range(50)}
    assert len(samples) > 1 and all(0 <= s <= 0.4 for s in samples)


async def test_concurrency_limit() -> None:
    running = 0
    peak = 0

    @tool
    async def work() -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.02)
        running -= 1

    ex = ToolExecutor([work], max_concurrency=3)
    results = await ex.execute_many([("work", {})] * 12)
    assert all(r.success for r in results) and peak == 3
    assert ex.execute_sync("work").success
    # the settings live in the policy: a replaced one holds for the calls that follow
    ex.pipeline.policy = ex.pipeline.policy.replace(max_concurrency=5)
    peak = 0
    results = await ex.execute_many([("work", {})] * 12)
    assert all(r.success for r in results) and peak == 5


def test_pre_and_post_hooks() -> None:
    seen: list[Call] = []

    def clamp(call: Call) -> dict[str, Any] | None:
        seen.append(call)
        if call.arguments and call.arguments.get("b", 0) > 100:
            return {**call.arguments, "b": 100}
        return None

    def deny_negative(call: Call) -> None:
        if call.arguments and call.arguments["a"] < 0:
            raise PermissionError("negative numbers are not allowed")

    def tag(call: Call, result: ToolResult) -> ToolResult | None:
        if result.success:
            result.output = {"value": result.output, "call": call.tool_call_id}
            return result
        return None

    ex = ToolExecutor([add])
    ex.add_pre_hook(clamp)
    ex.add_pre_hook(deny_negative)
    ex.add_post_hook(tag)
    result = ex.execute_sync("add", a=1, b=500, tool_call_id="c9")
    assert result.output == {"value": 101, "call": "c9"}
    assert seen[0].tool == "add" and seen[0].arguments == {"a": 1, "b": 500}
    denied = ex.execute_sync("add", a=-1, b=1)
    assert denied.code == "permission_denied" and "negative" in denied.error.message

    def break_args(call: Call) -> dict[str, Any]:
        return {"a": "x"}

    ex.add_pre_hook(break_args)
    assert ex.execute_sync("add", a=1, b=2).code == "invalid_arguments"


async def test_async_hooks_and_events_on_the_async_path() -> None:
    async def double_b(call: Call) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {**(call.arguments or {}), "b": call.arguments["b"] * 2} if call.arguments else {}

    events: list[tuple[str, str]] = []
    ex = ToolExecutor([add])
    ex.add_pre_hook(double_b)
    ex.add_listener(lambda e: events.append((e.kind, e.tool_call_id)))
    ex.add_listener(lambda e: 1 / 0)  # a broken listener never breaks the call
    assert (await ex.execute("add", a=1, b=2, tool_call_id="x")).output == 5
    assert ex.execute_sync("add", a=1, b=2, tool_call_id="y").output == 5  # via the loop
    assert events == [("started", "x"), ("succeeded", "x"), ("started", "y"), ("succeeded", "y")]
    ex.execute_sync("add", a="bad", b=1, tool_call_id="z")
    assert events[-1] == ("failed", "z")


def test_failures_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    ex = ToolExecutor([add])
    with caplog.at_level(logging.INFO, logger="toolrig"):
        ex.execute_sync("add", a="x", b=1)
    assert any("invalid_arguments" in r.getMessage() for r in caplog.records)


async def test_tool_errors_choose_their_code() -> None:
    @tool
    def guarded(path: str) -> str:
        raise ToolError(
            "outside the sandbox", code="permission_denied", hint="Use a relative path."
        )

    result = await ToolExecutor([guarded]).execute("guarded", path="/etc/passwd")
    assert result.code == "permission_denied" and result.error.hint == "Use a relative path."


async def test_caller_cancellation_propagates_and_tool_cancellation_is_a_result() -> None:
    @tool
    async def self_cancelling() -> None:
        raise asyncio.CancelledError

    ex = ToolExecutor([self_cancelling, slow_async])
    assert (await ex.execute("self_cancelling")).code == "cancelled"
    task = asyncio.create_task(ex.execute("slow_async", seconds=5))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_default_timeout_and_bad_settings() -> None:
    @tool
    def sleepy() -> str:
        time.sleep(0.3)
        return "ok"

    ex = ToolExecutor([sleepy], default_timeout=0.05)
    assert ex.execute_sync("sleepy").code == "timeout"
    assert ex.execute_sync("sleepy", timeout=None).output == "ok"
    with pytest.raises(ValueError, match="max_concurrency"):
        ToolExecutor(max_concurrency=0)


def test_context_receives_state_and_progress() -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    @tool
    def job(steps: int, ctx: ToolContext) -> str:
        for i in range(steps):
            ctx.report_progress(i + 1, steps, f"step {i + 1}")
        return str(ctx.state["db"])

    ex = ToolExecutor([job], state={"db": "sqlite://"})
    result = ex.execute_sync("job", steps=2, progress=lambda p, t, m: progress.append((p, t, m)))
    assert result.output == "sqlite://"
    assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]


async def test_a_failing_post_hook_becomes_the_result() -> None:
    def broken(call: Call, result: ToolResult) -> ToolResult:
        raise RuntimeError("audit store down")

    async def refusing(call: Call, result: ToolResult) -> ToolResult:
        raise PermissionError("output withheld")

    sync_ex = ToolExecutor([add])
    sync_ex.add_post_hook(broken)
    failed = sync_ex.execute_sync("add", a=1, b=2)
    assert failed.code == "execution_error" and "audit store down" in failed.error.message

    async_ex = ToolExecutor([add])
    async_ex.add_post_hook(refusing)
    refused = await async_ex.execute("add", a=1, b=2)
    assert refused.code == "permission_denied" and "output withheld" in refused.error.message
