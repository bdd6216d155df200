"""What the call pipeline is made of, apart from the path a call takes through it.

Its configuration (time limits, retries, strictness, concurrency, state), its extension points
(pre- and post-hooks, middleware, listeners), the events it emits, and the *attempt loop*: one
action run until it succeeds, fails for good or runs out of retries, each attempt in this
thread (the blocking fast path), in a child process (``isolation="process"``), awaited (async
tools) or on a worker thread (sync tools), under its time limit. :class:`~toolrig.runtime.
Pipeline` adds the path itself.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from toolrig.core._action import Action
from toolrig.core._base import BaseTool
from toolrig.core._context import ProgressCallback, ToolContext
from toolrig.core._errors import ErrorCode
from toolrig.core._events import Listeners
from toolrig.core._result import ErrorInfo, ResultMetadata, ToolResult
from toolrig.runtime._call import Call, CallNext, Middleware, PostHook, PreHook, Unset
from toolrig.runtime._events import EventKind, Listener, ToolEvent
from toolrig.runtime._outcome import CallTimedOut as _CallTimedOut
from toolrig.runtime._outcome import link as _link
from toolrig.runtime._outcome import make_result as _result
from toolrig.runtime._outcome import raised as _raised
from toolrig.runtime._outcome import with_timeout as _with_timeout
from toolrig.runtime._process import ProcessRunner
from toolrig.runtime._retry import RetryPolicy
from toolrig.runtime._threads import WorkerPool
from toolrig.runtime._threads import grace_for as _grace
from toolrig.runtime._tracing import follow as _follow_tracing
from toolrig.runtime._tracing import log_fields as _log_fields
from toolrig.runtime._tracing import record_missing as _trace_missing
from toolrig.runtime._tracing import tracing_enabled as _tracing_enabled

__all__ = ["PipelineSteps"]

logger = logging.getLogger("toolrig.executor")


class PipelineSteps:
    """The pipeline's configuration, extension points, events and attempt loop (see
    :class:`~toolrig.runtime.Pipeline` for the options)."""

    def __init__(
        self,
        *,
        default_timeout: float | None = None,
        max_concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        strict: bool = False,
        validate_output: bool = True,
        state: Mapping[str, Any] | None = None,
        max_workers: int = 32,
        middleware: Sequence[Middleware] = (),
    ) -> None:
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1 (or None for no limit)")
        if default_timeout is not None and default_timeout <= 0:
            raise ValueError("default_timeout must be positive (or None for no limit)")
        self._default_timeout = default_timeout
        self.retry = retry or RetryPolicy()
        self.strict = strict
        self.validate_output = validate_output
        self.state: Mapping[str, Any] = state or {}
        self._max_concurrency = max_concurrency
        self._semaphores: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}
        self._pool = WorkerPool(max_workers)
        self._processes = ProcessRunner(max_workers)
        self._pre: tuple[PreHook, ...] = ()
        self._post: tuple[PostHook, ...] = ()
        self._async_hooks = False
        self._listeners: Listeners[ToolEvent] = Listeners()
        self._listening = False  # a plain flag: testing the list itself costs a call per check
        self._middleware: tuple[Middleware, ...] = ()
        self._chain: CallNext | None = None
        for item in middleware:
            self.add_middleware(item)
        self._plain = False
        self._update_plain()
        _follow_tracing(self._update_plain)

    @property
    def default_timeout(self) -> float | None:
        """Seconds an attempt may take when its tool sets no ``timeout`` (``None``: no limit)."""
        return self._default_timeout

    @default_timeout.setter
    def default_timeout(self, value: float | None) -> None:
        if value is not None and value <= 0:
            raise ValueError("default_timeout must be positive (or None for no limit)")
        self._default_timeout = value
        self._update_plain()

    def _update_plain(self) -> None:
        """Whether blocking calls of plain actions may take the straight-line path (not while
        tracing is on: the switch calls this, so the straight line never checks for it)."""
        self._traced = _tracing_enabled()
        self._plain = (
            not self._traced
            and not self._pre
            and not self._post
            and self._chain is None
            and self._max_concurrency is None
            and self._default_timeout is None
        )

    def add_pre_hook(self, hook: PreHook) -> None:
        """``hook(call)`` runs before each call; returning a mapping replaces the arguments
        (they are validated again); raising ``ToolError``/``PermissionError`` refuses the call."""
        self._pre = (*self._pre, hook)
        self._async_hooks = self._async_hooks or inspect.iscoroutinefunction(hook)
        self._update_plain()

    def add_post_hook(self, hook: PostHook) -> None:
        """``hook(call, result)`` runs after each call; returning a result replaces it."""
        self._post = (*self._post, hook)
        self._async_hooks = self._async_hooks or inspect.iscoroutinefunction(hook)
        self._update_plain()

    def add_middleware(self, middleware: Middleware) -> None:
        """Wrap the attempts of every valid call; the first added is the outermost."""
        self._middleware = (*self._middleware, middleware)
        chain: CallNext = self._attempts_of
        for outer in reversed(self._middleware):
            chain = _link(outer, chain)
        self._chain = chain
        self._update_plain()

    def add_listener(self, listener: Listener) -> None:
        """``listener(event)`` is told when calls start, succeed, fail and are retried."""
        self._listeners.add(listener)
        self._listening = True

    def remove_listener(self, listener: Listener) -> None:
        """Stop telling ``listener``."""
        self._listeners.remove(listener)
        self._listening = bool(self._listeners)

    def close(self) -> None:
        """Stop the worker threads (running calls finish first)."""
        self._pool.shutdown()

    async def _attempts_of(self, call: Call) -> ToolResult:
        """The innermost step of the middleware chain."""
        return await self._attempts(
            call.action,
            call.arguments,
            call.tool_call_id,
            call.timeout,
            call.max_retries,
            call.progress,
            False,
            call.tool.spec.isolation == "process",
            call.started_at or time.time(),
            call.t0 or time.perf_counter(),
        )

    async def _attempts(
        self,
        action: Action,
        values: dict[str, Any],
        call_id: str,
        limit: float | None,
        retries: int,
        progress: ProgressCallback | None,
        inline: bool,
        isolated: bool,
        started_at: float,
        t0: float,
    ) -> ToolResult:
        """Run the action until it succeeds, fails for good, or runs out of retries: in this
        thread (``inline``), in a child process (``isolated``), awaited (async) or on a worker
        thread (sync)."""
        attempt = 1
        while True:
            ctx = (
                None
                if action.context_param is None
                else self._context(action, call_id, attempt, limit, progress)
            )
            output: Any = None
            error: ErrorInfo | None
            try:
                if inline:
                    output = action.call(values, ctx)
                elif isolated:
                    run = self._processes.run(action, values, ctx)
                    if limit is None:
                        output = await run
                    else:
                        output = await _with_timeout(run, limit, action, ctx)
                elif action.is_async:
                    if limit is None:
                        output = await action.call(values, ctx)
                    else:
                        output = await _with_timeout(action.call(values, ctx), limit, action, ctx)
                elif limit is None:
                    output = await self._pool.call(action.call, values, ctx, grace=_grace(ctx))
                else:
                    output = await _with_timeout(
                        self._pool.call(action.call, values, ctx, grace=_grace(ctx)),
                        limit,
                        action,
                        ctx,
                    )
            except asyncio.CancelledError:
                task = None if inline else asyncio.current_task()
                if task is not None and task.cancelling():
                    if ctx is not None:
                        ctx.cancel_event.set()
                    raise  # the caller's own cancellation is not ours to swallow
                error = ErrorInfo(
                    code=ErrorCode.CANCELLED, message=f"`{action.name}` was cancelled."
                )
            except _CallTimedOut as exc:
                error = ErrorInfo(
                    code=ErrorCode.TIMEOUT,
                    message=str(exc),
                    retryable=True,
                    hint="The tool took too long; try a smaller request or try again later.",
                )
            except Exception as exc:
                error = _raised(exc, action)
            else:
                error = self._checked(action, output)
            delay = self._retry_delay(action, error, call_id, attempt, retries, started_at, t0)
            if delay is None:
                return _result(action, output, error, call_id, started_at, t0, attempt)
            if inline:  # driven in the caller's thread, with no event loop to yield to
                time.sleep(delay)  # noqa: ASYNC251
            else:
                await asyncio.sleep(delay)
            attempt += 1

    def _started(self, action: Action, call_id: str, values: Mapping[str, Any]) -> None:
        self._listeners.emit(
            ToolEvent(
                kind=EventKind.STARTED,
                tool=action.tool,
                action=action.name,
                tool_call_id=call_id,
                attempt=1,
                arguments=values,
            )
        )

    def _checked(self, action: Action, output: Any) -> ErrorInfo | None:
        """The error of an output that breaks the action's declared output type, if any."""
        checker = action.output_validator
        return None if checker is None or not self.validate_output else checker.check(output)

    def _report(self, action: Action, values: Mapping[str, Any] | None, result: ToolResult) -> None:
        """The outcome event, and a log line."""
        if self._listening:
            self._listeners.emit(
                ToolEvent(
                    kind=EventKind.SUCCEEDED if result.success else EventKind.FAILED,
                    tool=action.tool,
                    action=action.name,
                    tool_call_id=result.metadata.tool_call_id if result.metadata else "",
                    attempt=result.metadata.attempts if result.metadata else 1,
                    arguments=values,
                    result=result,
                )
            )
        if result.error is not None:
            if logger.isEnabledFor(logging.INFO):
                logger.info(
                    "%s failed [%s]: %s",
                    action.name,
                    result.error.code,
                    result.error.message.splitlines()[0] if result.error.message else "",
                    extra=_log_fields(result),
                )
        elif logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s succeeded", action.name, extra=_log_fields(result))

    def _not_found(
        self, name: str, message: str, call_id: str, *, action: str | None = None
    ) -> ToolResult:
        """The one structured answer to a call of something that does not exist."""
        result = ToolResult(
            success=False,
            error=ErrorInfo(
                code=ErrorCode.NOT_FOUND,
                message=message,
                hint="Call one of the available tools by its exact name.",
            ),
            metadata=ResultMetadata(
                tool=str(name),
                action=action,
                tool_call_id=call_id,
                started_at=time.time(),
                duration_ms=0.0,
            ),
        )
        if self._listening:
            self._listeners.emit(
                ToolEvent(
                    kind=EventKind.FAILED,
                    tool=str(name),
                    action=action or "",
                    tool_call_id=call_id,
                    attempt=0,
                    result=result,
                )
            )
        if self._traced:
            _trace_missing(str(name), call_id, result)
        if logger.isEnabledFor(logging.INFO):
            logger.info("%s failed [not_found]", name, extra=_log_fields(result))
        return result

    def _limit(self, tool: BaseTool, timeout: float | Unset | None) -> float | None:
        if not isinstance(timeout, Unset):
            return timeout
        own = tool.spec.timeout
        return own if own is not None else self._default_timeout

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            assert self._max_concurrency is not None
            sem = self._semaphores[loop] = asyncio.Semaphore(self._max_concurrency)
        return sem

    def _context(
        self,
        action: Action,
        call_id: str,
        attempt: int,
        limit: float | None,
        progress: ProgressCallback | None,
    ) -> ToolContext:
        return ToolContext(
            tool=action.tool,
            action=action.name,
            tool_call_id=call_id,
            attempt=attempt,
            deadline=None if limit is None else time.monotonic() + limit,
            state=self.state,
            _progress=progress,
        )

    def _retry_delay(
        self,
        action: Action,
        error: ErrorInfo | None,
        call_id: str,
        attempt: int,
        retries: int,
        started_at: float,
        t0: float,
    ) -> float | None:
        """Seconds to wait before another attempt (telling listeners), or ``None`` to stop."""
        if error is None or not self.retry.should_retry(error, attempt, retries):
            return None
        delay = self.retry.delay(attempt)
        if self._listening:
            self._listeners.emit(
                ToolEvent(
                    kind=EventKind.RETRIED,
                    tool=action.tool,
                    action=action.name,
                    tool_call_id=call_id,
                    attempt=attempt,
                    delay=delay,
                    result=_result(action, None, error, call_id, started_at, t0, attempt),
                )
            )
        return delay
