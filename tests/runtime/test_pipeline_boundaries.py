"""The promises of a call's steps, tried on every path a call can take.

A call takes one of four paths: the straight sync line (``execute_sync``, nothing to
compose), the straight async line (``execute``), the composed path (any middleware), and the
composed path run for a blocking caller (``execute_sync`` with a time limit). Each promise
below holds on each path that can take it.

Each promise (its boundary), and the test that tries it:

- listeners hear ``started`` with the tool, action, call id, attempt and the validated
  arguments, then the outcome with the result and its attempt count; invalid arguments: only
  the outcome (every path): ``test_events_name_the_call_on_every_path``;
- a tool's context names its tool, action, call id and attempt, carries the executor's state,
  reports progress to the caller and nests calls on the same pipeline (every path):
  ``test_the_context_describes_its_own_call``;
- the context's deadline is the call's limit from now (the default limit for an async tool
  that says nothing):
  ``test_the_context_deadline_is_the_calls_limit``;
- a tool cancelled from inside is a ``cancelled`` result naming the action (every path):
  ``test_a_tool_cancelled_from_inside_answers_cancelled``; the caller's own cancellation
  propagates and sets the context's cancel event: ``test_the_callers_cancellation_propagates``;
- a timeout is a retryable ``timeout`` with a hint (async and thread tools):
  ``test_a_timeout_is_retryable_and_says_what_to_do``; it names the action and the limit and
  sets the context's cancel event, and a ``TimeoutError`` the tool raises itself is not the
  call's limit: ``test_a_limit_stops_the_call_and_tells_its_context``;
- output checking follows ``validate_output`` (every path):
  ``test_output_checking_follows_the_setting``;
- the duration is measured from the call's start on the composed path:
  ``test_the_duration_is_measured_on_the_composed_path``;
- a hook raising ``PermissionError`` denies, one failing otherwise fails, and neither runs the
  tool: ``test_a_refusing_hook_denies_and_a_failing_hook_fails``;
- events show arguments that are a mapping and ``None`` for any other value:
  ``test_events_show_arguments_only_when_they_are_a_mapping``;
- a failed call logs one INFO line naming the action, its code and the message's first line,
  a succeeded one a DEBUG line, each with the call's structured fields:
  ``test_log_lines_name_the_call_and_carry_its_fields``; a result without metadata (made by a
  post-hook) is still reported, with an empty id and one attempt (absent values):
  ``test_a_result_a_post_hook_made_without_metadata_is_still_reported``;
- a name that names nothing: one ``not_found`` result with a hint and metadata, one
  ``failed`` event (attempt 0), one INFO log line, and nothing else (no ``started``), from
  every entry point: ``test_a_missing_name_answers_the_same_everywhere``; a missing action of
  a known tool is named in the metadata and the event:
  ``test_a_missing_action_of_a_known_tool_is_named_in_the_answer``; traced, one span:
  ``tests/tracing/test_tracing_pipeline.py``;
- a strict call refuses what a lax one coerces, set per call or per executor (every path):
  ``test_strict_calls_refuse_what_lax_ones_coerce``;
- the `Call` listeners get holds the tool and action objects, the strict flag and the result's
  start time, and for refused arguments what was given:
  ``test_listeners_see_the_whole_call``;
- a result's start time and duration are those of the call (a refused call included):
  ``test_a_result_is_timed_from_its_start_on_every_path``;
- a sync tool on the one-coroutine line gets its context, and when the caller gives up it is
  given a grace period if it can see that, else interrupted:
  ``test_a_sync_tool_on_the_async_line_gets_its_context_and_grace``;
- a failing post-hook or middleware answers for the call (naming the action, keeping the
  call's metadata) and is logged with its traceback:
  ``test_a_failing_post_hook_answers_for_the_call_and_is_logged``,
  ``test_a_failing_middleware_answers_for_the_call_and_is_logged``;
- a post-hook is given every failed call too (the tool raised, arguments or a pre-hook
  refused, the limit struck) and may answer for it (the failure path):
  ``test_a_post_hook_sees_every_failed_call_and_may_answer_for_it``;
- arguments a pre-hook gives are validated with the call's strictness, and a refusal keeps
  the call's id, start time and one attempt:
  ``test_a_pre_hooks_arguments_are_validated_as_the_callers_were``;
- only retryable failures are retried, each retry told with its delay, and the outcome
  counts the attempts: ``test_retries_only_what_is_retryable_and_tell_each_retry``; the wait
  between attempts does not block the event loop:
  ``test_a_retry_waits_without_blocking_the_loop``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest

from runtime_timing import Beside
from toolrig import ToolContext, ToolExecutor, ToolResult, tool
from toolrig.core.model._errors import ErrorCode
from toolrig.runtime import DEFAULT_TIMEOUT, Call, CallNext, EventKind, ToolEvent


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def add_async(a: int, b: int) -> int:
    """Add two integers, awaiting."""
    return a + b


async def _through(call: Call, call_next: CallNext) -> ToolResult:
    """A middleware that changes nothing: its presence composes the path."""
    return await call_next(call)


PATHS = ("straight-sync", "straight-async", "composed-async", "composed-blocking")


def _run(
    path: str, executor: ToolExecutor, name: str, args: dict[str, Any], **options: Any
) -> ToolResult:
    """Call ``name`` on ``path`` (the executor is built for that path by `_executor`)."""
    if path in ("straight-sync", "composed-blocking"):
        if path == "composed-blocking":
            options.setdefault("timeout", 30.0)
        return executor.execute_sync(name, args, **options)
    return asyncio.run(executor.execute(name, args, **options))  # type: ignore[arg-type]


def _executor(path: str, tools: list[Any], **settings: Any) -> ToolExecutor:
    middleware = [_through] if path.startswith("composed") else []
    return ToolExecutor(tools, middleware=middleware, **settings)


@pytest.mark.parametrize("path", PATHS)
def test_events_name_the_call_on_every_path(path: str) -> None:
    executor = _executor(path, [add])
    events: list[ToolEvent] = []
    executor.add_listener(events.append)
    result = _run(path, executor, "add", {"a": "1", "b": 2}, tool_call_id="c-7")
    assert result.output == 3
    assert [e.kind for e in events] == [EventKind.STARTED, EventKind.SUCCEEDED]
    started, done = events
    for event in events:
        assert (event.tool, event.action, event.tool_call_id) == ("add", "add", "c-7")
        assert event.attempt == 1
        assert type(event.call) is Call
    assert started.arguments == {"a": 1, "b": 2}  # the validated values, not the raw text
    assert done.arguments == {"a": 1, "b": 2}
    assert done.result is result

    failing = _executor(path, [add])
    failed: list[ToolEvent] = []
    failing.add_listener(failed.append)
    refused = _run(path, failing, "add", {"a": "one", "b": 2}, tool_call_id="c-8")
    assert [e.kind for e in failed] == [EventKind.FAILED]  # no start for invalid arguments
    assert failed[0].result is refused and failed[0].tool_call_id == "c-8"
    assert failed[0].attempt == 1 and failed[0].action == "add"


@pytest.mark.parametrize("path", PATHS)
def test_the_context_describes_its_own_call(path: str) -> None:
    seen: list[ToolContext] = []

    @tool
    async def inner(n: int) -> int:
        """Double."""
        return n * 2

    @tool
    async def outer(n: int, ctx: ToolContext) -> int:
        """Report progress and call ``inner``."""
        seen.append(ctx)
        ctx.report_progress(1, 2, "half")
        nested = await ctx.run_tool(inner, "inner", {"n": n})
        return int(nested.output)

    progress: list[tuple[float, float | None, str | None]] = []
    executor = _executor(path, [outer, inner], state={"tenant": "t1"})
    calls: list[ToolEvent] = []
    executor.add_listener(calls.append)
    result = _run(
        path,
        executor,
        "outer",
        {"n": 4},
        tool_call_id="c-9",
        progress=lambda done, total, message: progress.append((done, total, message)),
    )
    assert result.success, result.error
    assert result.output == 8
    (ctx,) = seen
    assert (ctx.tool, ctx.action, ctx.tool_call_id, ctx.attempt) == ("outer", "outer", "c-9", 1)
    assert ctx.state == {"tenant": "t1"}
    assert progress == [(1, 2, "half")]
    # the nested call ran on this pipeline: its listener heard it, under the caller's id
    assert [(e.tool, e.kind) for e in calls if e.tool == "inner"] == [
        ("inner", EventKind.STARTED),
        ("inner", EventKind.SUCCEEDED),
    ]


@pytest.mark.parametrize("path", PATHS)
def test_the_context_deadline_is_the_calls_limit(path: str) -> None:
    deadlines: list[float | None] = []

    @tool
    async def look(ctx: ToolContext) -> bool:
        """Note the deadline."""
        deadlines.append(ctx.deadline)
        return True

    executor = _executor(path, [look])
    before = time.monotonic()
    limited = "composed" in path  # a limit sends a blocking call off the straight line
    options = {"timeout": 5.0} if limited else {}
    assert _run(path, executor, "look", {}, **options).success
    (deadline,) = deadlines
    if limited:
        assert deadline is not None
        assert before + 4.0 < deadline <= time.monotonic() + 5.0
    else:  # an async tool runs on an event loop: a call that says nothing has the default
        assert deadline is not None
        assert before + DEFAULT_TIMEOUT - 1 < deadline <= time.monotonic() + DEFAULT_TIMEOUT


@pytest.mark.parametrize("path", PATHS)
def test_a_tool_cancelled_from_inside_answers_cancelled(path: str) -> None:
    @tool
    async def gives_up() -> int:
        """Cancel itself."""
        raise asyncio.CancelledError

    result = _run(path, _executor(path, [gives_up]), "gives_up", {})
    assert not result.success and result.error is not None
    assert result.error.code == ErrorCode.CANCELLED
    assert result.error.message == "`gives_up` was cancelled."


@pytest.mark.parametrize("path", ["straight-async", "composed-async"])
def test_the_callers_cancellation_propagates(path: str) -> None:
    contexts: list[ToolContext] = []

    @tool
    async def waits(ctx: ToolContext) -> int:
        """Wait for a long time."""
        contexts.append(ctx)
        await asyncio.sleep(30)
        return 1

    executor = _executor(path, [waits])

    async def scenario() -> None:
        task = asyncio.ensure_future(executor.execute("waits", {}))
        for _ in range(2_000):  # until the tool runs (polling: the tool is the thing tested)
            if contexts:
                break
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert contexts[0].cancel_event.is_set()


@pytest.mark.parametrize("kind", ["async", "thread"])
def test_a_timeout_is_retryable_and_says_what_to_do(kind: str) -> None:
    if kind == "async":

        @tool
        async def slow() -> int:
            """Sleep."""
            await asyncio.sleep(5)
            return 1

    else:

        @tool
        def slow() -> int:
            """Sleep in a thread."""
            time.sleep(3)
            return 1

    executor = ToolExecutor([slow], middleware=[_through])
    with Beside(0.05) as ref:
        result = executor.execute_sync("slow", {}, timeout=0.05)
    assert ref.elapsed < ref.bound(0.05), ref.elapsed  # at the limit, not at the tool's end
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert result.error.retryable
    assert result.error.hint == "The tool took too long; try a smaller request or try again later."


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("check", [True, False])
def test_output_checking_follows_the_setting(path: str, check: bool) -> None:
    @tool
    def wrong() -> int:
        """Answer text where a number is declared."""
        return "not a number"  # type: ignore[return-value]

    result = _run(path, _executor(path, [wrong], validate_output=check), "wrong", {})
    if check:
        assert result.error is not None and result.error.code == ErrorCode.INVALID_OUTPUT
        assert result.output is None  # the refused output is not handed on
    else:
        assert result.success and result.output == "not a number"


def test_the_duration_is_measured_on_the_composed_path() -> None:
    @tool
    async def pause() -> int:
        """Sleep 50 ms."""
        await asyncio.sleep(0.05)
        return 1

    result = _run("composed-async", _executor("composed-async", [pause]), "pause", {})
    assert result.metadata is not None
    assert 45.0 <= result.metadata.duration_ms < 5_000.0


@pytest.fixture
def executor_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="toolrig.executor")
    return caplog


def _records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The one line a call's outcome logs (not the traceback line of a tool that raised)."""
    return [r for r in caplog.records if r.name == "toolrig.executor" and r.exc_info is None]


@pytest.mark.parametrize("path", PATHS)
def test_log_lines_name_the_call_and_carry_its_fields(
    path: str, executor_log: pytest.LogCaptureFixture
) -> None:
    @tool
    def boom() -> int:
        """Fail."""
        raise ValueError("first line\nsecond line")

    executor = _executor(path, [add, boom])
    _run(path, executor, "add", {"a": 1, "b": 2}, tool_call_id="ok-1")
    bad = _run(path, executor, "boom", {}, tool_call_id="bad-1")
    assert bad.error is not None and "\n" in bad.error.message
    succeeded, failed = _records(executor_log)
    assert bad.error.message.startswith("`boom` failed")
    (traceback,) = [r for r in executor_log.records if r.exc_info is not None]
    assert (traceback.levelno, traceback.getMessage()) == (logging.DEBUG, "tool boom raised")
    assert traceback.exc_info is not None and isinstance(traceback.exc_info[1], ValueError)
    assert (succeeded.levelno, succeeded.getMessage()) == (logging.DEBUG, "add succeeded")
    first_line = bad.error.message.splitlines()[0]
    assert (failed.levelno, failed.getMessage()) == (
        logging.INFO,
        f"boom failed [{bad.error.code}]: {first_line}",
    )
    for record, call_id, code in ((succeeded, "ok-1", None), (failed, "bad-1", bad.error.code)):
        fields = record.__dict__
        assert fields["tool_call_id"] == call_id
        assert (fields["tool"], fields["action"]) == (record.getMessage().split()[0],) * 2
        assert fields["attempts"] == 1
        assert fields["duration_ms"] >= 0.0
        assert fields["error_code"] == code


def _missing_everywhere() -> list[Callable[[ToolExecutor], ToolResult]]:
    return [
        lambda ex: ex.execute_sync("nope", {}, tool_call_id="m-1"),
        lambda ex: asyncio.run(ex.execute("nope", {}, tool_call_id="m-1")),
        lambda ex: ex.execute_sync("nope", {}, tool_call_id="m-1", timeout=5.0),
    ]


@pytest.mark.parametrize("middleware", [False, True])
@pytest.mark.parametrize("entry", range(3))
def test_a_missing_name_answers_the_same_everywhere(
    entry: int, middleware: bool, executor_log: pytest.LogCaptureFixture
) -> None:
    executor = ToolExecutor([add], middleware=[_through] if middleware else [])
    events: list[ToolEvent] = []
    executor.add_listener(events.append)
    before = time.time()
    result = _missing_everywhere()[entry](executor)
    assert not result.success and result.error is not None
    assert result.error.code == ErrorCode.NOT_FOUND
    assert "nope" in result.error.message
    assert result.error.hint == "Call one of the available tools by its exact name."
    meta = result.metadata
    assert meta is not None
    assert (meta.tool, meta.action, meta.tool_call_id) == ("nope", None, "m-1")
    assert before <= meta.started_at <= time.time()
    assert meta.duration_ms == 0.0
    assert len(events) == 1  # one failed event and nothing else (no start)
    (event,) = events
    assert (event.kind, event.tool, event.action) == (EventKind.FAILED, "nope", "")
    assert (event.tool_call_id, event.attempt, event.result) == ("m-1", 0, result)
    (line,) = _records(executor_log)
    assert (line.levelno, line.getMessage()) == (logging.INFO, "nope failed [not_found]")
    assert line.__dict__["tool_call_id"] == "m-1"
    assert line.__dict__["error_code"] == ErrorCode.NOT_FOUND


def test_a_limit_stops_the_call_and_tells_its_context() -> None:
    """Past its limit a call answers ``timeout`` naming the action and the limit, and its
    context's cancel event is set (the tool is told to stop); a ``TimeoutError`` the tool
    raises itself within the limit is the tool's own failure, not the call's limit."""
    contexts: list[ToolContext] = []

    @tool
    async def slow(ctx: ToolContext) -> int:
        """Sleep."""
        contexts.append(ctx)
        await asyncio.sleep(5)
        return 1

    @tool
    async def own_timeout() -> int:
        """Raise a timeout of its own at once."""
        raise TimeoutError("the upstream service timed out")

    executor = ToolExecutor([slow, own_timeout], middleware=[_through])
    result = executor.execute_sync("slow", {}, timeout=0.05)
    assert result.error is not None
    assert result.error.message == "`slow` did not finish within 0.05 s"
    assert contexts[0].cancel_event.is_set()
    own = executor.execute_sync("own_timeout", {}, timeout=5.0)
    assert own.error is not None
    assert "the upstream service timed out" in own.error.message
    assert "did not finish within" not in own.error.message


@pytest.mark.parametrize("path", ["composed-async", "composed-blocking"])
def test_a_refusing_hook_denies_and_a_failing_hook_fails(path: str) -> None:
    ran: list[int] = []

    @tool
    def guarded(n: int) -> int:
        """Count."""
        ran.append(n)
        return n

    def refuse(call: Call) -> None:
        if call.arguments["n"] == 1:
            raise PermissionError("not on Sundays")
        if call.arguments["n"] == 2:
            raise RuntimeError("the hook itself broke")

    executor = _executor(path, [guarded])
    executor.add_pre_hook(refuse)
    refused = _run(path, executor, "guarded", {"n": 1})
    assert refused.error is not None
    assert refused.error.code == ErrorCode.PERMISSION_DENIED
    assert refused.error.message == "The call to `guarded` was refused: not on Sundays"
    broken = _run(path, executor, "guarded", {"n": 2})
    assert broken.error is not None and broken.error.code != ErrorCode.PERMISSION_DENIED
    assert broken.error.message.startswith("`guarded` failed")
    assert "the hook itself broke" in broken.error.message
    assert ran == []  # neither refused call ran
    assert _run(path, executor, "guarded", {"n": 3}).output == 3


@pytest.mark.parametrize("path", PATHS)
def test_events_show_arguments_only_when_they_are_a_mapping(path: str) -> None:
    """Invalid arguments reach listeners as they were given when they are a mapping, and
    as ``None`` when they are not one (a list, say)."""
    executor = _executor(path, [add])
    events: list[ToolEvent] = []
    executor.add_listener(events.append)
    _run(path, executor, "add", {"a": "x", "b": 1})
    executor.execute_sync("add", ["not", "a", "mapping"])  # type: ignore[arg-type]
    read_only = MappingProxyType({"a": "y", "b": 1})  # a mapping that is not a dict
    _run(path, executor, "add", read_only)  # type: ignore[arg-type]
    assert [e.arguments for e in events] == [{"a": "x", "b": 1}, None, read_only]


def test_a_missing_action_of_a_known_tool_is_named_in_the_answer(
    executor_log: pytest.LogCaptureFixture,
) -> None:
    executor = ToolExecutor([add])
    events: list[ToolEvent] = []
    executor.add_listener(events.append)
    result = executor.pipeline.run_tool_sync(add, "subtract", {}, tool_call_id="m-2")
    assert result.error is not None and result.error.code == ErrorCode.NOT_FOUND
    assert result.metadata is not None
    assert (result.metadata.tool, result.metadata.action) == ("add", "subtract")
    assert result.metadata.duration_ms == 0.0
    assert [(e.kind, e.tool, e.action, e.attempt) for e in events] == [
        (EventKind.FAILED, "add", "subtract", 0)
    ]


@pytest.mark.parametrize("path", ["composed-async", "composed-blocking"])
def test_a_result_a_post_hook_made_without_metadata_is_still_reported(
    path: str, executor_log: pytest.LogCaptureFixture
) -> None:
    """A post-hook may answer with a bare result (no metadata, an empty message): the
    outcome event and the log line still go out, with an empty id and one attempt."""
    from toolrig import ErrorInfo

    def replace(call: Call, result: ToolResult) -> ToolResult:
        return ToolResult(success=False, error=ErrorInfo(code="policy", message=""))

    executor = _executor(path, [add])
    executor.add_post_hook(replace)
    events: list[ToolEvent] = []
    executor.add_listener(events.append)
    result = _run(path, executor, "add", {"a": 1, "b": 2}, tool_call_id="p-1")
    assert result.metadata is None and result.error is not None
    done = events[-1]
    assert (done.kind, done.tool_call_id, done.attempt) == (EventKind.FAILED, "", 1)
    assert done.result is result
    (line,) = _records(executor_log)
    assert line.getMessage() == "add failed [policy]: "


@pytest.mark.parametrize("path", PATHS)
def test_strict_calls_refuse_what_lax_ones_coerce(path: str) -> None:
    executor = _executor(path, [add])
    assert _run(path, executor, "add", {"a": "1", "b": 2}).output == 3
    strict = _run(path, executor, "add", {"a": "1", "b": 2}, strict=True)
    assert strict.error is not None and strict.error.code == ErrorCode.INVALID_ARGUMENTS
    assert _run(path, _executor(path, [add], strict=True), "add", {"a": "1", "b": 2}).error


@pytest.mark.parametrize("path", PATHS)
def test_listeners_see_the_whole_call(path: str) -> None:
    """The `Call` an event carries holds the tool and action objects, the strict flag, the
    start time of the result, and for refused arguments what was given (nothing validated)."""
    executor = _executor(path, [add])
    events: list[ToolEvent] = []
    executor.add_listener(events.append)
    ok = _run(path, executor, "add", {"a": 1, "b": 2}, tool_call_id="w-1")
    given = {"a": "1", "b": 2}  # valid for a lax call, refused by a strict one
    refused = _run(path, executor, "add", given, strict=True, tool_call_id="w-2")
    assert refused.error is not None
    cases = ((events[0], ok, False, "w-1"), (events[-1], refused, True, "w-2"))
    for event, result, strict, call_id in cases:
        call = event.call
        assert call is not None and result.metadata is not None
        assert call.owner is add and call.target is add.get_action("add")
        assert call.strict is strict and call.tool_call_id == call_id
        assert call.started_at == result.metadata.started_at
        assert 0.0 < call.t0 <= time.perf_counter()
    assert events[-1].call is not None
    assert events[-1].call.raw == given and events[-1].call.arguments == {}
    assert events[0].call is not None and events[0].call.arguments == {"a": 1, "b": 2}
    assert events[0].call.raw == {"a": 1, "b": 2}  # what the tool is given, validated
    events.clear()  # an accepted strict call: every event of it says strict
    assert _run(path, executor, "add", {"a": 1, "b": 2}, strict=True, tool_call_id="w-3").success
    assert events and all(e.call is not None and e.call.strict is True for e in events)


@pytest.mark.parametrize("path", PATHS)
def test_a_result_is_timed_from_its_start_on_every_path(path: str) -> None:
    @tool
    def pause() -> int:
        """Sleep 20 ms."""
        time.sleep(0.02)
        return 1

    executor = _executor(path, [pause, add])
    for name, args, least in (("pause", {}, 20.0), ("add", {"a": "x", "b": 1}, 0.0)):
        before = time.time()
        started = time.perf_counter()
        result = _run(path, executor, name, args)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        meta = result.metadata
        assert meta is not None
        assert before <= meta.started_at <= time.time()
        assert least <= meta.duration_ms <= elapsed_ms
        assert meta.duration_ms > 0.0


def test_a_sync_tool_on_the_async_line_gets_its_context_and_grace() -> None:
    """A sync tool run on a worker thread by the one-coroutine line gets its context; when
    the caller gives up, a tool that can see it (it takes a context) is given a grace period
    to stop by itself, and one that cannot is interrupted: the caller sees its own
    cancellation either way."""
    stopped_by_itself: list[bool] = []
    running = threading.Event()

    @tool
    def watches(ctx: ToolContext) -> int:
        """Work until told to stop."""
        running.set()
        while not ctx.cancelled:
            time.sleep(0.002)
        stopped_by_itself.append(True)
        return 0

    steps_after_cancel: list[int] = []
    cancelled_at: list[float] = []

    @tool
    def blind() -> int:
        """Work without looking."""
        running.set()
        for _ in range(2_000):
            time.sleep(0.002)
            if cancelled_at:
                steps_after_cancel.append(1)
        return 0

    executor = ToolExecutor([watches, blind])

    async def give_up(name: str) -> None:
        running.clear()
        task = asyncio.ensure_future(executor.execute(name, {}))
        for _ in range(2_000):
            if running.is_set():
                break
            await asyncio.sleep(0.001)
        cancelled_at.append(time.monotonic())
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.3)  # past the grace period, on the loop that set it

    asyncio.run(give_up("watches"))
    assert stopped_by_itself == [True]
    cancelled_at.clear()
    asyncio.run(give_up("blind"))
    # interrupted at once: at most the step under way when the caller gave up (the grace
    # period, 50 ms, would have let it take many more 2 ms steps)
    assert len(steps_after_cancel) <= 3


@pytest.mark.parametrize("path", ["composed-async", "composed-blocking"])
def test_a_failing_post_hook_answers_for_the_call_and_is_logged(
    path: str, executor_log: pytest.LogCaptureFixture
) -> None:
    def broken(call: Call, result: ToolResult) -> ToolResult:
        raise RuntimeError("audit store down")

    executor = _executor(path, [add])
    executor.add_post_hook(broken)
    result = _run(path, executor, "add", {"a": 1, "b": 2}, tool_call_id="h-1")
    assert result.success is False and result.output is None
    assert result.error is not None and result.error.message.startswith("`add` failed")
    assert result.metadata is not None and result.metadata.tool_call_id == "h-1"
    (line,) = [r for r in executor_log.records if r.exc_info is not None]
    assert line.getMessage() == f"post-execute hook {broken!r} failed"
    assert line.exc_info is not None and isinstance(line.exc_info[1], RuntimeError)


@pytest.mark.parametrize("path", ["composed-async", "composed-blocking"])
def test_a_pre_hooks_arguments_are_validated_as_the_callers_were(path: str) -> None:
    """Arguments a pre-hook gives are validated with the call's own strictness; a refusal
    keeps the call's id, start time and one attempt."""

    def to_text(call: Call) -> dict[str, Any]:
        return {"a": "1", "b": 2}

    executor = _executor(path, [add])
    executor.add_pre_hook(to_text)
    assert _run(path, executor, "add", {"a": 5, "b": 5}).output == 3
    before = time.time()
    strict = _run(path, executor, "add", {"a": 5, "b": 5}, strict=True, tool_call_id="s-1")
    assert strict.error is not None and strict.error.code == ErrorCode.INVALID_ARGUMENTS
    meta = strict.metadata
    assert meta is not None and meta.tool_call_id == "s-1" and meta.attempts == 1
    assert before <= meta.started_at <= time.time() and meta.duration_ms > 0.0

    def refuse(call: Call) -> None:
        raise PermissionError("closed")

    refusing = _executor(path, [add])
    refusing.add_pre_hook(refuse)
    refused = _run(path, refusing, "add", {"a": 1, "b": 2}, tool_call_id="s-2")
    meta = refused.metadata
    assert meta is not None and meta.tool_call_id == "s-2" and meta.attempts == 1
    assert before <= meta.started_at <= time.time() and meta.duration_ms > 0.0


@pytest.mark.parametrize("path", ["composed-async", "composed-blocking"])
def test_a_failing_middleware_answers_for_the_call_and_is_logged(
    path: str, executor_log: pytest.LogCaptureFixture
) -> None:
    async def broken(call: Call, call_next: CallNext) -> ToolResult:
        raise RuntimeError("policy store down")

    executor = ToolExecutor([add], middleware=[broken])
    result = _run(path, executor, "add", {"a": 1, "b": 2})
    assert result.error is not None and result.error.message.startswith("`add` failed")
    assert "policy store down" in result.error.message
    (line,) = [r for r in executor_log.records if r.exc_info is not None]
    assert line.getMessage() == "middleware failed on add"


@pytest.mark.parametrize("path", ["composed-async", "composed-blocking"])
def test_retries_only_what_is_retryable_and_tell_each_retry(path: str) -> None:
    from toolrig import RetryableToolError, RetryPolicy, ToolError

    attempts: list[int] = []

    @tool
    def flaky(fail: int, ctx: ToolContext) -> int:
        """Fail ``fail`` times, retryably."""
        attempts.append(ctx.attempt)
        if ctx.attempt <= fail:
            raise RetryableToolError("busy")
        return ctx.attempt

    @tool
    def broken() -> int:
        """Fail for good."""
        attempts.append(0)
        raise ToolError("no such record")

    policy = RetryPolicy(initial_delay=0.001, max_delay=0.002, jitter=False)
    executor = _executor(path, [flaky, broken], retry=policy)
    events: list[ToolEvent] = []
    executor.add_listener(events.append)
    result = _run(path, executor, "flaky", {"fail": 2}, max_retries=3, tool_call_id="r-1")
    assert result.output == 3 and attempts == [1, 2, 3]
    assert (events[-1].kind, events[-1].attempt) == (EventKind.SUCCEEDED, 3)
    retried = [e for e in events if e.kind == EventKind.RETRIED]
    assert [e.attempt for e in retried] == [1, 2]
    for event in retried:
        assert (event.tool, event.action, event.tool_call_id) == ("flaky", "flaky", "r-1")
        assert event.delay is not None and 0.0 < event.delay <= 0.002
        assert event.result is not None and event.result.error is not None
        assert event.call is not None and event.call.tool_call_id == "r-1"
    attempts.clear()
    assert _run(path, executor, "broken", {}, max_retries=3).error is not None
    assert attempts == [0]  # not retryable: one attempt


def test_a_retry_waits_without_blocking_the_loop() -> None:
    """Between attempts of an awaited call the event loop keeps running other work."""
    from toolrig import RetryableToolError, RetryPolicy

    @tool
    async def once_busy(ctx: ToolContext) -> int:
        """Fail the first time."""
        if ctx.attempt == 1:
            raise RetryableToolError("busy")
        return ctx.attempt

    policy = RetryPolicy(initial_delay=0.2, max_delay=0.2, jitter=False)
    executor = ToolExecutor([once_busy], retry=policy, middleware=[_through])

    async def scenario() -> tuple[ToolResult, int]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        result = await executor.execute("once_busy", {}, max_retries=1)
        ticker.cancel()
        return result, ticks

    result, ticks = asyncio.run(scenario())
    assert result.output == 2
    assert ticks >= 5  # the 0.2 s wait let the ticker run (a blocking wait would not)


@tool
def explode(a: int) -> int:
    """Always fails."""
    raise RuntimeError(f"boom {a}")


@tool
async def stall(a: int) -> int:
    """Sleeps past any limit a test gives it."""
    await asyncio.sleep(30)
    return a


@pytest.mark.parametrize("path", PATHS)
def test_a_post_hook_sees_every_failed_call_and_may_answer_for_it(path: str) -> None:
    """The failure path: a post-hook is given the failed result (the tool raised, the
    arguments were refused, a pre-hook refused, the limit struck), not only the successes, and
    the result it returns is the call's answer."""
    seen: list[tuple[str, str | None]] = []

    def audit(call: Call, result: ToolResult) -> ToolResult | None:
        seen.append((call.action, result.code))
        if result.code == "execution_error":
            return ToolResult(success=True, output="recovered", metadata=result.metadata)
        return None

    def refuse_negative(call: Call) -> None:
        if call.arguments.get("a", 0) < 0:
            raise PermissionError("no negatives")

    executor = _executor(path, [add, explode, stall])
    executor.add_pre_hook(refuse_negative)
    executor.add_post_hook(audit)
    recovered = _run(path, executor, "explode", {"a": 1})
    assert recovered.success and recovered.output == "recovered"
    assert _run(path, executor, "add", {"a": "x", "b": 1}).code == "invalid_arguments"
    assert _run(path, executor, "add", {"a": -1, "b": 1}).code == "permission_denied"
    assert _run(path, executor, "stall", {"a": 1}, timeout=0.05).code == "timeout"
    assert _run(path, executor, "add", {"a": 1, "b": 1}).output == 2
    assert seen == [
        ("explode", "execution_error"),
        ("add", "invalid_arguments"),
        ("add", "permission_denied"),
        ("stall", "timeout"),
        ("add", None),
    ]
