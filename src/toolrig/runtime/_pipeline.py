"""The one call pipeline every call goes through, whoever makes it.

    validate → pre-hooks → [started] → middleware → attempts → result → post-hooks → [outcome]

An *attempt* runs the action (awaited when async, on a worker thread when sync, or inline in
the caller's thread on the blocking fast path) under the call's time limit, then checks the
output; a retryable failure is tried again per the :class:`RetryPolicy`. *Middleware* wrap the
attempts of every call whose arguments are valid: each receives the :class:`Call` and the next
step, ``await call_next(call)``, as in ASGI or httpx transports; approval, tracing and dispatch
to other machines plug in there. Every outcome is a :class:`~toolrig.ToolResult`: nothing
escapes but the caller's own cancellation.

The pipeline is written once, as a coroutine. The blocking fast path (a sync tool with no time
limit, no async hook, no middleware and no concurrency cap) drives that same coroutine in the
caller's thread: nothing in it suspends, so it finishes on its first step.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Coroutine, Mapping
from typing import Any

from toolrig.core._action import Action
from toolrig.core._background import run_sync
from toolrig.core._base import BaseTool
from toolrig.core._context import ProgressCallback, ToolContext
from toolrig.core._errors import ErrorCode
from toolrig.core._ids import new_call_id
from toolrig.core._result import ErrorInfo, ToolResult, error_from_exception
from toolrig.core._suggest import not_found_message
from toolrig.core._validation import ArgumentsInvalid
from toolrig.runtime._call import (
    UNSET,
    Call,
    CallNext,
    Middleware,
    PostHook,
    PreHook,
    Unset,
)
from toolrig.runtime._calls import CallInfo
from toolrig.runtime._outcome import hook_error as _hook_error
from toolrig.runtime._outcome import make_result as _result
from toolrig.runtime._outcome import raised as _raised
from toolrig.runtime._outcome import values_or as _values_or
from toolrig.runtime._steps import PipelineSteps, logger
from toolrig.runtime._threads import grace_for as _grace
from toolrig.runtime._tracing import traced_call as _traced

__all__ = [
    "UNSET",
    "Call",
    "CallNext",
    "Middleware",
    "Pipeline",
    "PostHook",
    "PreHook",
    "Unset",
]


class Pipeline(PipelineSteps):
    """The call path and its policy: time limits, retries, strictness, hooks and middleware.

    ``default_timeout`` applies to tools without their own ``timeout`` (``None``: no limit).
    ``max_concurrency`` caps calls running at once on the async path (``None``: no cap).
    ``strict`` refuses type coercion (``"5"`` for an integer) unless overridden per call.
    ``state`` is handed to tools that ask for a :class:`~toolrig.ToolContext`.
    ``max_workers`` bounds the worker threads of sync calls (and, separately, the child
    processes of tools with ``isolation="process"``) running at once.
    """

    async def run_tool(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """Run ``action`` of ``tool`` (which need not be in any catalogue) through the pipeline."""
        call_id = tool_call_id or new_call_id()
        bound = tool.get_action(action)
        if bound is None:
            return self._missing_action(tool, action, call_id)
        return await self._start(tool, bound, arguments, call_id, UNSET, strict, None, None)

    def run_tool_sync(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """Blocking :meth:`run_tool`."""
        call_id = tool_call_id or new_call_id()
        bound = tool.get_action(action)
        if bound is None:
            return self._missing_action(tool, action, call_id)
        return self._run_now(tool, bound, arguments, call_id, UNSET, strict, None, None)

    def _missing_action(self, tool: BaseTool, action: str, call_id: str) -> ToolResult:
        """The not-found answer to an action ``tool`` does not have."""
        message = not_found_message(f"{tool.spec.name}.{action}", {tool.spec.name: tool.spec})
        return self._not_found(tool.spec.name, message, call_id, action=str(action))

    def _start(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        timeout: float | Unset | None,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
    ) -> Coroutine[Any, Any, ToolResult]:
        """The call as a coroutine (under the concurrency cap when there is one)."""
        if self._plain and action.plain and timeout is UNSET and not max_retries:
            return self._call_plain_async(action, args, call_id, strict, progress)
        limit = self._limit(tool, timeout)
        run = self._call(tool, action, args, call_id, limit, strict, max_retries, progress, False)
        if self._traced:
            run = _traced(run, action, call_id)
        return run if self._max_concurrency is None else self._limited(run)

    def _run_now(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        timeout: float | Unset | None,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
    ) -> ToolResult:
        """The call, blocking: in this thread when nothing can suspend, else on the
        background loop."""
        if (
            self._plain
            and action.plain
            and not action.is_async
            and not max_retries
            and timeout is UNSET
        ):
            return self._call_plain(action, args, call_id, strict, progress)
        if (
            not action.is_async
            and not self._async_hooks
            and self._chain is None
            and self._max_concurrency is None
            and self._limit(tool, timeout) is None
            and tool.spec.isolation == "thread"
        ):
            coro = self._call(
                tool, action, args, call_id, None, strict, max_retries, progress, True
            )
            if self._traced:
                coro = _traced(coro, action, call_id)
            try:
                coro.send(None)
            except StopIteration as done:
                result: ToolResult = done.value
                return result
            coro.close()  # unreachable by construction: nothing on this path suspends
            raise RuntimeError("the inline call path suspended")
        return run_sync(
            self._start(tool, action, args, call_id, timeout, strict, max_retries, progress)
        )

    def _call_plain(
        self,
        action: Action,
        args: Any,
        call_id: str,
        strict: bool | None,
        progress: ProgressCallback | None,
    ) -> ToolResult:
        """:meth:`_call` for the plainest blocking call (a sync tool in this thread: no time
        limit, no hook, no middleware, no retry), as a straight line: the same steps and the
        same result (a test runs both on the same calls), without the ~0.4 µs of driving a
        coroutine."""
        started_at, t0 = time.time(), time.perf_counter()
        ready = self._plain_start(action, args, call_id, strict, progress, started_at, t0)
        if isinstance(ready, ToolResult):
            return ready
        values, ctx = ready
        try:
            output = action.call(values, ctx)
        except Exception as exc:
            return self._plain_end(
                action, values, None, _raised(exc, action), call_id, started_at, t0
            )
        return self._plain_end(
            action, values, output, self._checked(action, output), call_id, started_at, t0
        )

    async def _call_plain_async(
        self,
        action: Action,
        args: Any,
        call_id: str,
        strict: bool | None,
        progress: ProgressCallback | None,
    ) -> ToolResult:
        """:meth:`_call` for the plainest awaited call (no time limit, hook, middleware or
        retry) as one coroutine: the same steps and result (tested), one coroutine fewer per
        call, which shows when thousands run at once."""
        started_at, t0 = time.time(), time.perf_counter()
        ready = self._plain_start(action, args, call_id, strict, progress, started_at, t0)
        if isinstance(ready, ToolResult):
            return ready
        values, ctx = ready
        try:
            if action.is_async:
                output = await action.call(values, ctx)
            else:
                output = await self._pool.call(action.call, values, ctx, grace=_grace(ctx))
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                if ctx is not None:
                    ctx.cancel_event.set()
                raise  # the caller's own cancellation is not ours to swallow
            error = ErrorInfo(code=ErrorCode.CANCELLED, message=f"`{action.name}` was cancelled.")
            return self._plain_end(action, values, None, error, call_id, started_at, t0)
        except Exception as exc:
            return self._plain_end(
                action, values, None, _raised(exc, action), call_id, started_at, t0
            )
        return self._plain_end(
            action, values, output, self._checked(action, output), call_id, started_at, t0
        )

    def _plain_start(
        self,
        action: Action,
        args: Any,
        call_id: str,
        strict: bool | None,
        progress: ProgressCallback | None,
        started_at: float,
        t0: float,
    ) -> tuple[dict[str, Any], ToolContext | None] | ToolResult:
        """Validate and announce a plain call: its values and context, or its final result."""
        try:
            values = action.validator.validate(
                args, strict=self.strict if strict is None else strict
            )
        except ArgumentsInvalid as exc:
            result = _result(action, None, exc.error, call_id, started_at, t0, 1)
            self._report(action, _values_or(args), result)
            return result
        if self._listening:
            self._started(action, call_id, values)
        if action.context_param is None:
            return values, None
        return values, self._context(action, call_id, 1, None, progress)

    def _plain_end(
        self,
        action: Action,
        values: dict[str, Any],
        output: Any,
        error: ErrorInfo | None,
        call_id: str,
        started_at: float,
        t0: float,
    ) -> ToolResult:
        result = _result(action, output, error, call_id, started_at, t0, 1)
        self._report(action, values, result)
        return result

    async def _limited(self, run: Coroutine[Any, Any, ToolResult]) -> ToolResult:
        async with self._semaphore():
            return await run

    async def _call(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        limit: float | None,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
        inline: bool,
    ) -> ToolResult:
        """The pipeline itself; ``limit`` is the resolved time limit of each attempt."""
        started_at, t0 = time.time(), time.perf_counter()
        strict = self.strict if strict is None else strict
        try:
            values = action.validator.validate(args, strict=strict)
            if self._pre:
                values = await self._apply_pre(action, values, call_id, strict)
        except ArgumentsInvalid as exc:
            return await self._finish(
                action,
                _values_or(args),
                _result(action, None, exc.error, call_id, started_at, t0, 1),
            )
        except Exception as exc:  # a pre-hook refused or failed
            error = _hook_error(exc, action)
            return await self._finish(
                action, _values_or(args), _result(action, None, error, call_id, started_at, t0, 1)
            )
        if self._listening:
            self._started(action, call_id, values)
        retries = tool.spec.max_retries if max_retries is None else max_retries
        if self._chain is None:
            isolated = tool.spec.isolation == "process"
            result = await self._attempts(
                action, values, call_id, limit, retries, progress, inline, isolated, started_at, t0
            )
        else:
            call = Call(
                tool=tool,
                action=action,
                arguments=values,
                tool_call_id=call_id,
                timeout=limit,
                max_retries=retries,
                progress=progress,
                started_at=started_at,
                t0=t0,
            )
            try:
                result = await self._chain(call)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a middleware failed: the call still gets its answer
                logger.exception("middleware failed on %s", action.name)
                error = error_from_exception(exc, action.name)
                result = _result(action, None, error, call_id, started_at, t0, 1)
        if self._post:
            return await self._finish(action, values, result)
        self._report(action, values, result)
        return result

    async def _apply_pre(
        self, action: Action, values: dict[str, Any], call_id: str, strict: bool
    ) -> dict[str, Any]:
        for hook in self._pre:
            info = CallInfo(
                tool=action.tool, action=action.name, tool_call_id=call_id, arguments=values
            )
            replaced = hook(info)
            if inspect.isawaitable(replaced):
                replaced = await replaced
            if replaced is not None:
                values = action.validator.validate(replaced, strict=strict)
        return values

    async def _finish(
        self, action: Action, values: Mapping[str, Any] | None, result: ToolResult
    ) -> ToolResult:
        """Post-hooks (each may replace the result), then the outcome event and log line."""
        for hook in self._post:
            info = CallInfo(
                tool=action.tool,
                action=action.name,
                tool_call_id=result.metadata.tool_call_id if result.metadata else "",
                arguments=values,
            )
            try:
                replaced = hook(info, result)
                if inspect.isawaitable(replaced):
                    replaced = await replaced
            except Exception as exc:
                logger.exception("post-execute hook %r failed", hook, exc_info=exc)
                replaced = ToolResult(
                    success=False, error=_hook_error(exc, action), metadata=result.metadata
                )
            if isinstance(replaced, ToolResult):
                result = replaced
        self._report(action, values, result)
        return result
