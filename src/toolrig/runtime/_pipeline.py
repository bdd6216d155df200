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
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolrig.core._action import Action
from toolrig.core._background import run_sync
from toolrig.core._base import BaseTool
from toolrig.core._context import ProgressCallback, ToolContext
from toolrig.core._errors import ErrorCode
from toolrig.core._events import Listeners
from toolrig.core._ids import new_call_id
from toolrig.core._result import ErrorInfo, ResultMetadata, ToolResult, error_from_exception
from toolrig.core._suggest import not_found_message
from toolrig.core._validation import ArgumentsInvalid
from toolrig.runtime._calls import CallInfo
from toolrig.runtime._events import EventKind, Listener, ToolEvent
from toolrig.runtime._process import ProcessRunner
from toolrig.runtime._retry import RetryPolicy
from toolrig.runtime._threads import WorkerPool

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

logger = logging.getLogger("toolrig.executor")

PreHook = Callable[[CallInfo], Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None]
"""``hook(call)`` before a call: return a mapping to replace the arguments, raise to refuse."""
PostHook = Callable[[CallInfo, ToolResult], ToolResult | Awaitable[ToolResult | None] | None]
"""``hook(call, result)`` after a call: return a result to replace it."""


class Unset:
    """The type of :data:`UNSET`: an option left out (the tool's or executor's default)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = Unset()
"""Marks an option left out (use the tool's or executor's default); ``None`` means "none"."""


@dataclass(slots=True, kw_only=True)
class Call:
    """A call whose arguments are valid, as middleware see it (they may change any field)."""

    tool: BaseTool
    action: Action
    arguments: dict[str, Any]
    """The validated arguments."""
    tool_call_id: str
    timeout: float | None
    """Seconds each attempt may take (``None``: no limit)."""
    max_retries: int
    progress: ProgressCallback | None = None
    started_at: float = 0.0
    """When the call began (``time.time()``)."""
    t0: float = 0.0
    """When the call began (``time.perf_counter()``), for its duration."""

    @property
    def info(self) -> CallInfo:
        """The call as hooks are told of it."""
        return CallInfo(
            tool=self.action.tool,
            action=self.action.name,
            tool_call_id=self.tool_call_id,
            arguments=self.arguments,
        )


CallNext = Callable[[Call], Awaitable[ToolResult]]
"""The rest of the pipeline, as a middleware calls it."""
Middleware = Callable[[Call, CallNext], Awaitable[ToolResult]]
"""``async def middleware(call, call_next) -> ToolResult``: wraps the attempts of each call."""


class Pipeline:
    """The call path and its policy: time limits, retries, strictness, hooks and middleware.

    ``default_timeout`` applies to tools without their own ``timeout`` (``None``: no limit).
    ``max_concurrency`` caps calls running at once on the async path (``None``: no cap).
    ``strict`` refuses type coercion (``"5"`` for an integer) unless overridden per call.
    ``state`` is handed to tools that ask for a :class:`~toolrig.ToolContext`.
    """

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
        """Whether blocking calls of plain actions may take the straight-line path."""
        self._plain = (
            not self._pre
            and not self._post
            and self._chain is None
            and self._max_concurrency is None
            and self._default_timeout is None
        )

    # -- extension points ----------------------------------------------------------------
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

    # -- running a given tool ------------------------------------------------------------
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
            message = not_found_message(f"{tool.spec.name}.{action}", {tool.spec.name: tool.spec})
            return self._not_found(tool.spec.name, message, call_id, action=str(action))
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
            message = not_found_message(f"{tool.spec.name}.{action}", {tool.spec.name: tool.spec})
            return self._not_found(tool.spec.name, message, call_id, action=str(action))
        return self._run_now(tool, bound, arguments, call_id, UNSET, strict, None, None)

    def close(self) -> None:
        """Stop the worker threads (running calls finish first)."""
        self._pool.shutdown()

    # -- the pipeline --------------------------------------------------------------------
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
                output = await self._pool.run(action.call, values, ctx)
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
                    output = await self._pool.run(action.call, values, ctx)
                else:
                    output = await _with_timeout(
                        self._pool.run(action.call, values, ctx), limit, action, ctx
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
                )
        elif logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s succeeded", action.name)

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
        return result

    # -- policy --------------------------------------------------------------------------
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


def _link(middleware: Middleware, call_next: CallNext) -> CallNext:
    async def step(call: Call) -> ToolResult:
        return await middleware(call, call_next)

    return step


def _result(
    action: Action,
    output: Any,
    error: ErrorInfo | None,
    call_id: str,
    started_at: float,
    t0: float,
    attempts: int,
) -> ToolResult:
    """The result with its metadata (duration measured from ``t0``; none when ``t0`` is 0)."""
    # Same as ``ToolResult(..., metadata=ResultMetadata(...))`` at two thirds of the cost: a
    # fresh slotted object filled slot by slot skips packing keywords for ``__init__``. Every
    # field is set here; a test compares the outcome with the constructors' field by field.
    meta = _new(ResultMetadata)
    meta.tool = action.tool
    meta.action = action.name
    meta.tool_call_id = call_id
    meta.started_at = started_at
    meta.duration_ms = (time.perf_counter() - t0) * 1000.0 if t0 else 0.0
    meta.attempts = attempts
    meta.cost = None
    meta.extra = None
    result = _new(ToolResult)
    result.success = error is None
    result.output = None if error is not None else output
    result.error = error
    result.metadata = meta
    return result


_new = object.__new__


def _hook_error(exc: BaseException, action: Action) -> ErrorInfo:
    """The error for a hook that refused (``PermissionError``) or failed."""
    if isinstance(exc, PermissionError):
        return ErrorInfo(
            code=ErrorCode.PERMISSION_DENIED,
            message=f"The call to `{action.name}` was refused: {exc}",
        )
    return error_from_exception(exc, action.name)


def _raised(exc: Exception, action: Action) -> ErrorInfo:
    """The error for an exception the tool raised."""
    logger.debug("tool %s raised", action.tool, exc_info=True)
    return error_from_exception(exc, action.name)


def _values_or(args: Any) -> Mapping[str, Any] | None:
    """``args`` when it is a mapping (what hooks and events are shown), else ``None``."""
    return args if isinstance(args, Mapping) else None


async def _with_timeout(
    awaitable: Awaitable[Any], limit: float, action: Action, ctx: ToolContext | None
) -> Any:
    cm = asyncio.timeout(limit)
    try:
        async with cm:
            return await awaitable
    except TimeoutError:
        if not cm.expired():
            raise  # the tool's own TimeoutError
        if ctx is not None:
            ctx.cancel_event.set()
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        raise _CallTimedOut(limit, action) from None


class _CallTimedOut(Exception):
    def __init__(self, limit: float, action: Action) -> None:
        self.limit = limit
        super().__init__(f"`{action.name}` did not finish within {limit:g} s")
