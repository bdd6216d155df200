"""The one call pipeline: every entry point answers alike, tools called directly keep their own
limits, middleware wrap each valid call, and the straight-line fast path equals the general one."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from runtime_timing import Beside
from toolrig import (
    BaseTool,
    RetryPolicy,
    Tool,
    ToolContext,
    ToolExecutor,
    ToolResult,
    action,
    tool,
)
from toolrig.providers import run_tool_calls, run_tool_calls_sync
from toolrig.registry import Registry
from toolrig.runtime import Call, CallNext


@tool
def scale(x: int, factor: int = 2) -> int:
    """Scale a number."""
    return x * factor


@tool(timeout=0.1)
def slow(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "done"


@tool(timeout=0.1)
async def slow_async(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "done"


class Counter(BaseTool):
    """Counts."""

    name = "counter"

    @action
    def bump(self, n: int, ctx: ToolContext) -> str:
        """Bump by n."""
        return f"{n} from {ctx.tool_call_id}"


def _openai_response(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}


def _essence(result: ToolResult) -> tuple[Any, ...]:
    assert result.error is not None
    return (result.success, result.error.code, result.error.message, result.error.hint)


def test_the_same_bad_call_gets_the_same_structured_error_everywhere() -> None:
    bad = {"x": "many"}
    executor = ToolExecutor([scale])
    answers = [
        executor.execute_sync("scale", bad),
        asyncio.run(executor.execute("scale", bad)),
        scale.run(bad),
        asyncio.run(scale.arun(bad)),
        scale.execute("scale", bad),
        asyncio.run(scale.aexecute("scale", bad)),
        ToolExecutor(Registry([scale])).execute_sync("scale", bad),
    ]
    first = _essence(answers[0])
    assert first[1] == "invalid_arguments" and "x" in first[2]
    assert all(_essence(a) == first for a in answers)
    (message,) = run_tool_calls_sync(_openai_response("scale", bad), executor, provider="openai")
    assert message["role"] == "tool" and first[2] in message["content"]
    (message,) = asyncio.run(
        run_tool_calls(_openai_response("scale", bad), executor, provider="openai")
    )
    assert first[2] in message["content"]


def test_an_unknown_name_gets_the_one_not_found_answer() -> None:
    executor = ToolExecutor([scale, Counter])
    by_name = executor.execute_sync("scael", {})
    assert by_name.error is not None and by_name.error.code == "not_found"
    assert by_name.error.message == executor.catalog.missing_message("scael")
    assert "Did you mean 'scale'?" in by_name.error.message
    by_action = executor.execute_sync("counter.bmp", {"n": 1})
    direct = Counter().execute("bmp", {"n": 1})
    assert by_action.error is not None and direct.error is not None
    assert by_action.error.message == direct.error.message
    assert "Did you mean 'counter.bump'?" in direct.error.message
    assert direct.metadata is not None and direct.metadata.tool == "counter"


@pytest.mark.parametrize("target", [slow, slow_async], ids=["sync", "async"])
def test_a_tool_called_directly_keeps_its_own_timeout(target: Tool) -> None:
    with Beside(0.1) as ref:
        result = target.run(seconds=3.0)
    assert result.error is not None and result.error.code == "timeout", result
    # at the tool's 0.1 s limit (plus what this machine adds now), not after its 3 s sleep
    assert ref.elapsed < ref.bound(0.1 + 0.1), (ref.elapsed, ref.lateness)
    assert asyncio.run(target.arun(seconds=3.0)).code == "timeout"
    assert target.run(seconds=0.0).output == "done"


def test_a_class_tool_called_directly_gets_its_context() -> None:
    result = Counter().execute("bump", {"n": "5"})
    assert result.success and result.output.startswith("5 from call_")


def test_middleware_wrap_each_valid_call_outermost_first() -> None:
    seen: list[str] = []

    async def outer(call: Call, call_next: CallNext) -> ToolResult:
        seen.append(f"outer:{call.arguments['x']}")
        result = await call_next(call)
        seen.append("outer done")
        return result

    async def inner(call: Call, call_next: CallNext) -> ToolResult:
        seen.append("inner")
        call.arguments = {**call.arguments, "factor": 10}  # middleware may change the call
        return await call_next(call)

    executor = ToolExecutor([scale], middleware=[outer, inner])
    assert executor.execute_sync("scale", {"x": "3"}).output == 30  # coerced, then changed
    assert seen == ["outer:3", "inner", "outer done"]
    seen.clear()
    assert executor.execute_sync("scale", {"x": "three"}).code == "invalid_arguments"
    assert seen == []  # invalid calls never reach middleware


def test_middleware_can_refuse_and_a_failing_one_still_answers() -> None:
    async def refuse(call: Call, call_next: CallNext) -> ToolResult:
        from toolrig import ErrorCode, error_result

        return error_result(ErrorCode.PERMISSION_DENIED, f"{call.action} needs approval")

    refused = ToolExecutor([scale], middleware=[refuse]).execute_sync("scale", {"x": 1})
    assert refused.code == "permission_denied" and "needs approval" in refused.error.message  # type: ignore[union-attr]

    async def broken(call: Call, call_next: CallNext) -> ToolResult:
        raise RuntimeError("tracer down")

    failed = ToolExecutor([scale], middleware=[broken]).execute_sync("scale", {"x": 1})
    assert failed.code == "execution_error" and "tracer down" in failed.error.message  # type: ignore[union-attr]


def test_retries_happen_inside_middleware() -> None:
    attempts: list[int] = []
    wrapped: list[int] = []

    @tool(max_retries=2)
    def flaky(n: int, ctx: ToolContext) -> int:
        """Fails twice."""
        attempts.append(ctx.attempt)
        if ctx.attempt < 3:
            raise ConnectionError("try again")
        return n

    async def count(call: Call, call_next: CallNext) -> ToolResult:
        wrapped.append(1)
        return await call_next(call)

    executor = ToolExecutor(
        [flaky], middleware=[count], retry=RetryPolicy(initial_delay=0.001, jitter=False)
    )
    result = executor.execute_sync("flaky", {"n": 4})
    assert result.output == 4 and attempts == [1, 2, 3] and wrapped == [1]
    assert result.metadata is not None and result.metadata.attempts == 3


CALLS = [
    {"x": 2},
    {"x": "7", "factor": 3},
    {"x": "seven"},
    {},
    {"x": 1, "extra": True},
    "not json",
    '{"x": 5}',
    None,
    [1, 2],
    {"x": 10**30},
]


@pytest.mark.parametrize("arguments", CALLS, ids=[repr(c)[:30] for c in CALLS])
def test_the_fast_path_answers_as_the_general_path(arguments: Any) -> None:
    plain = ToolExecutor([scale])
    general = ToolExecutor([scale])

    async def passthrough(call: Call, call_next: CallNext) -> ToolResult:
        return await call_next(call)

    general.add_middleware(passthrough)
    events: list[tuple[str, str]] = []
    for executor, label in ((plain, "plain"), (general, "general")):
        executor.add_listener(lambda e, label=label: events.append((label, e.kind)))
    fast = plain.execute_sync("scale", arguments)
    slow_path = general.execute_sync("scale", arguments)
    assert (fast.success, fast.output, fast.error) == (
        slow_path.success,
        slow_path.output,
        slow_path.error,
    )
    awaited = asyncio.run(plain.execute("scale", arguments))  # the one-coroutine path
    assert (awaited.success, awaited.output, awaited.error) == (
        fast.success,
        fast.output,
        fast.error,
    )
    plain_kinds = [k for w, k in events if w == "plain"]
    assert plain_kinds[: len(plain_kinds) // 2] == [k for w, k in events if w == "general"]


def test_a_bound_method_listener_can_be_removed() -> None:
    class Watcher:
        def __init__(self) -> None:
            self.kinds: list[str] = []

        def on_event(self, event: Any) -> None:
            self.kinds.append(event.kind)

    watcher = Watcher()
    executor = ToolExecutor([scale])
    executor.add_listener(watcher.on_event)
    executor.execute_sync("scale", {"x": 1})
    executor.remove_listener(watcher.on_event)  # a new bound-method object, equal to the first
    executor.execute_sync("scale", {"x": 1})
    assert watcher.kinds == ["started", "succeeded"]
    registry = Registry()
    registry.add_change_listener(watcher.on_event)
    registry.remove_change_listener(watcher.on_event)
    registry.add(scale)
    assert watcher.kinds == ["started", "succeeded"]


def test_results_built_slot_by_slot_equal_the_constructors() -> None:
    import dataclasses

    from toolrig import ErrorInfo, ResultMetadata
    from toolrig.runtime._outcome import make_result as _result

    action = scale.get_action("scale")
    assert action is not None
    error = ErrorInfo(code="timeout", message="late")
    for output, err in ((6, None), (None, error)):
        built = _result(action, output, err, "call_1", 12.5, 0.0, 2)
        expected = ToolResult(
            success=err is None,
            output=output,
            error=err,
            metadata=ResultMetadata(
                tool="scale", action="scale", tool_call_id="call_1", started_at=12.5, attempts=2
            ),
        )
        assert built == expected
        assert {f.name for f in dataclasses.fields(ResultMetadata)} == {
            "tool",
            "action",
            "tool_call_id",
            "started_at",
            "duration_ms",
            "attempts",
            "cost",
            "extra",
            "decision",
            "result_handle",
            "result_chars",
        }
        assert {f.name for f in dataclasses.fields(ToolResult)} == {
            "success",
            "output",
            "error",
            "metadata",
        }


@tool
async def ascale(x: int, factor: int = 2) -> int:
    """Scale a number, awaited."""
    if x < 0:
        raise ValueError("negative")
    return x * factor


@pytest.mark.parametrize(
    "arguments", [*CALLS, {"x": -1}], ids=[repr(c)[:30] for c in [*CALLS, {"x": -1}]]
)
def test_the_one_coroutine_path_answers_as_the_general_path(arguments: Any) -> None:
    async def passthrough(call: Call, call_next: CallNext) -> ToolResult:
        return await call_next(call)

    plain = ToolExecutor([ascale])
    general = ToolExecutor([ascale], middleware=[passthrough])
    fast = asyncio.run(plain.execute("ascale", arguments))
    slow_path = asyncio.run(general.execute("ascale", arguments))
    assert (fast.success, fast.output, fast.error) == (
        slow_path.success,
        slow_path.output,
        slow_path.error,
    )


def test_the_callers_cancellation_passes_through_the_one_coroutine_path() -> None:
    started = asyncio.Event()

    @tool
    async def wait_forever() -> str:
        """Never answers."""
        started.set()
        await asyncio.sleep(60)
        return "late"

    async def scenario() -> None:
        task = asyncio.ensure_future(ToolExecutor([wait_forever]).execute("wait_forever"))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
