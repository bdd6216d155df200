"""The straight lines: the plainest calls without composing the path.

A call with no hook, middleware, time limit, retry, concurrency cap, dispatcher or tracing
would pass through every composed step doing nothing but awaiting the next one (a coroutine
each). `StraightLine` takes it straight: validate, announce, run, check, report, with
the same step functions (`._steps`) in the same order. ``run_sync`` runs a sync action in
the caller's thread; ``run_async`` is one coroutine, which shows when thousands run at once.
A test runs both lines and the composed path on the same calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from time import perf_counter
from time import time as now
from typing import Any, final

from toolrig.core.context._context import ProgressCallback, ToolContext
from toolrig.core.context._events import Listeners
from toolrig.core.context._runner import ToolRunner
from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._on_first_use import asyncio
from toolrig.core.result._result import ErrorInfo, ToolResult
from toolrig.core.schema._validation import ArgumentsInvalid
from toolrig.runtime._call import Call
from toolrig.runtime._deadlines import EXPIRED, Deadlines
from toolrig.runtime._events import ToolEvent
from toolrig.runtime._outcome import CallTimedOut, make_result, raised, timed_out, values_or
from toolrig.runtime._steps import announce, checked, context_for, report
from toolrig.runtime._threads import WorkerPool, grace_for

__all__ = ["StraightLine"]


@final
class StraightLine:
    """The straight lines of one pipeline (rebuilt when its settings change)."""

    __slots__ = ("_kept", "listeners", "runner", "state", "threads", "validate_output")

    def __init__(
        self,
        *,
        listeners: Listeners[ToolEvent],
        threads: WorkerPool,
        state: Mapping[str, Any],
        validate_output: bool,
        runner: ToolRunner,
    ) -> None:
        self.listeners = listeners
        self.threads = threads
        self.state = state
        self.validate_output = validate_output
        self.runner = runner
        """The pipeline, for calls a tool makes from inside this one (``ctx.run_tool``)."""
        self._kept: Deadlines | None = None

    def run_sync(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        strict: bool,
        progress: ProgressCallback | None,
    ) -> ToolResult:
        """The plainest blocking call (a sync tool in this thread: no time limit, hook,
        middleware or retry), as a straight line over the same steps, without the ~0.4 µs
        of driving a coroutine."""
        started_at, t0 = now(), perf_counter()
        try:
            values = action.validator.validate(args, strict=strict)
        except ArgumentsInvalid as exc:
            return self._refused(tool, action, args, exc, call_id, strict, started_at, t0)
        call = None  # built only for listeners; a context only for a tool that asks for one
        if self.listeners.items:
            call = self._announced(tool, action, values, call_id, strict, started_at, t0)
        ctx = None if action.context_param is None else self._context(action, call_id, progress)
        output = None
        try:
            output = action.call(values, ctx)
        except Exception as exc:
            error: ErrorInfo | None = raised(exc, action)
        else:
            error = checked(action, output, self.validate_output)
        result = make_result(action, output, error, call_id, started_at, t0, 1)
        return report(self.listeners, action, values, result, call, tool)

    async def run_async(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        strict: bool,
        progress: ProgressCallback | None,
        limit: float | None,
    ) -> ToolResult:
        """The plainest awaited call as one coroutine over the same steps: one coroutine
        per call, which shows when thousands run at once. ``limit``: seconds it may take."""
        started_at, t0 = now(), perf_counter()
        try:
            values = action.validator.validate(args, strict=strict)
        except ArgumentsInvalid as exc:
            return self._refused(tool, action, args, exc, call_id, strict, started_at, t0)
        call = None  # built only for listeners; a context only for a tool that asks for one
        if self.listeners.items:
            call = self._announced(tool, action, values, call_id, strict, started_at, t0)
        ctx = (
            None
            if action.context_param is None
            else context_for(action, call_id, 1, limit, progress, self.state, self.runner)
        )
        output = None
        bucket = task = None
        if limit is not None:
            task = asyncio.current_task()
            if task is not None:
                bucket = self._bucket(task, limit)
        try:
            if action.is_async:
                output = await action.call(values, ctx)
            else:
                threads = self.threads
                output = await threads.call(action.call, values, ctx, grace=grace_for(ctx))
        except asyncio.CancelledError:
            if bucket is not None and EXPIRED in bucket:
                assert task is not None
                assert limit is not None
                bucket = None
                if task.uncancel() == 0:  # cancelled for its limit alone
                    if ctx is not None:
                        ctx.cancel_event.set()
                    error: ErrorInfo | None = timed_out(CallTimedOut(limit, action))
                    return self._done(
                        tool, action, values, None, error, call, call_id, started_at, t0
                    )
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                if ctx is not None:
                    ctx.cancel_event.set()
                raise  # the caller's own cancellation is not ours to swallow
            error = ErrorInfo(code=ErrorCode.CANCELLED, message=f"`{action.name}` was cancelled.")
        except Exception as exc:
            error = raised(exc, action)
        else:
            error = checked(action, output, self.validate_output)
        finally:
            if bucket is not None:
                bucket.discard(task)
                if EXPIRED in bucket:  # the limit passed as it ended: it ran to its end
                    task.uncancel()  # type: ignore[union-attr]
        return self._done(tool, action, values, output, error, call, call_id, started_at, t0)

    def _done(
        self,
        tool: BaseTool,
        action: Action,
        values: dict[str, Any],
        output: Any,
        error: ErrorInfo | None,
        call: Call | None,
        call_id: str,
        started_at: float,
        t0: float,
    ) -> ToolResult:
        """The call's result, reported."""
        result = make_result(action, output, error, call_id, started_at, t0, 1)
        return report(self.listeners, action, values, result, call, tool)

    def _bucket(self, task: asyncio.Task[Any], limit: float) -> set[object]:
        """The bucket of deadlines ``task``'s call joins (one loop's are kept at a time)."""
        loop = task.get_loop()
        kept = self._kept
        if kept is None or kept.loop is not loop or kept.limit != limit:
            self._kept = kept = Deadlines(loop, limit)
        return kept.enter(task)

    def _refused(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        exc: ArgumentsInvalid,
        call_id: str,
        strict: bool,
        started_at: float,
        t0: float,
    ) -> ToolResult:
        """The result of a call whose arguments are invalid, reported."""
        result = make_result(action, None, exc.error, call_id, started_at, t0, 1)
        call = None
        if self.listeners.items:
            call = Call(
                owner=tool,
                target=action,
                arguments={},
                raw=args,
                tool_call_id=call_id,
                strict=strict,
                started_at=started_at,
                t0=t0,
            )
        return report(self.listeners, action, values_or(args), result, call, tool)

    def _announced(
        self,
        tool: BaseTool,
        action: Action,
        values: dict[str, Any],
        call_id: str,
        strict: bool,
        started_at: float,
        t0: float,
    ) -> Call:
        """The call, told to the listeners (it is built only for them)."""
        call = Call(
            owner=tool,
            target=action,
            arguments=values,
            raw=values,
            tool_call_id=call_id,
            strict=strict,
            started_at=started_at,
            t0=t0,
        )
        announce(self.listeners, action, call_id, values, call)
        return call

    def _context(
        self, action: Action, call_id: str, progress: ProgressCallback | None
    ) -> ToolContext | None:
        """The call's context, for a tool that asks for one."""
        return context_for(action, call_id, 1, None, progress, self.state, self.runner)
