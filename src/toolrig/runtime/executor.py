"""``ToolExecutor``: holds tools and runs calls with validation, timeouts, retries and hooks.

Per call: look up → validate (compiled) → pre-hooks → run (async tools awaited, sync tools on
a worker thread; a timeout when one applies) → check the output → post-hooks → events. Every
outcome is a :class:`~toolrig.ToolResult`; nothing escapes except the caller's own cancellation.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import (
    Awaitable,
    Callable,
    Coroutine,
    Iterable,
    Mapping,
)
from typing import Any

from toolrig.core.action import Action
from toolrig.core.background import run_sync
from toolrig.core.base import BaseTool
from toolrig.core.context import ProgressCallback, ToolContext
from toolrig.core.errors import ErrorCode
from toolrig.core.ids import new_call_id
from toolrig.core.invoke import error_from_exception, make_result
from toolrig.core.result import ErrorInfo, ResultMetadata, ToolResult
from toolrig.core.validation import ArgumentsInvalid
from toolrig.runtime.calls import ToolCall, as_tool_call
from toolrig.runtime.events import EventKind, ToolEvent, emit
from toolrig.runtime.hooks import CallHooks, hook_error, values_or
from toolrig.runtime.retry import RetryPolicy
from toolrig.runtime.threads import WorkerPool
from toolrig.runtime.toolset import ToolSet

__all__ = ["UNSET", "ToolExecutor"]

logger = logging.getLogger("toolrig.executor")


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""Marks an option left out (use the tool's or executor's default); ``None`` means "none"."""


class ToolExecutor(ToolSet, CallHooks):
    """Registers tools and executes calls to them, always answering with a ``ToolResult``.

    ``default_timeout`` applies to tools without their own ``timeout`` (``None``: no limit).
    ``max_concurrency`` caps calls running at once on the async path (``None``: no cap).
    ``strict`` refuses type coercion (``"5"`` for an integer) unless overridden per call.
    ``state`` is handed to tools that ask for a :class:`~toolrig.ToolContext`.
    """

    def __init__(
        self,
        tools: Iterable[BaseTool | Callable[..., Any]] = (),
        *,
        default_timeout: float | None = None,
        max_concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        strict: bool = False,
        validate_output: bool = True,
        state: Mapping[str, Any] | None = None,
        max_workers: int = 32,
    ) -> None:
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1 (or None for no limit)")
        if default_timeout is not None and default_timeout <= 0:
            raise ValueError("default_timeout must be positive (or None for no limit)")
        self.default_timeout = default_timeout
        self.retry = retry or RetryPolicy()
        self.strict = strict
        self.validate_output = validate_output
        self.state: Mapping[str, Any] = state or {}
        self._max_concurrency = max_concurrency
        self._semaphores: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}
        ToolSet.__init__(self)
        CallHooks.__init__(self)
        self._pool = WorkerPool(max_workers)
        for item in tools:
            self.register(item)

    # -- running -------------------------------------------------------------------------
    def execute(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        /,
        *,
        tool_call_id: str | None = None,
        timeout: float | None = UNSET,
        strict: bool | None = None,
        max_retries: int | None = None,
        progress: ProgressCallback | None = None,
        **kwargs: Any,
    ) -> Coroutine[Any, Any, ToolResult]:
        """Run the tool or action ``name`` with ``arguments`` (a mapping, JSON text, or keywords).

        ``timeout`` overrides the tool's (``None``: no limit); ``max_retries`` likewise. Returns
        a coroutine to await (or to wrap in a task), resolving to the call's ``ToolResult``.
        """
        # A plain function returning the worker coroutine saves one coroutine layer per call,
        # which shows on bursts of thousands of concurrent calls.
        entry = self._index.get(name)
        call_id = tool_call_id or new_call_id()
        if entry is None:
            return _ready(self._not_found(name, call_id, time.time(), time.perf_counter()))
        args: Any = _merge(arguments, kwargs) if kwargs or arguments is None else arguments
        run = self._run(entry[0], entry[1], args, call_id, timeout, strict, max_retries, progress)
        if self._max_concurrency is None:
            return run
        return self._limited(run)

    async def _limited(self, run: Coroutine[Any, Any, ToolResult]) -> ToolResult:
        async with self._semaphore():
            return await run

    def execute_sync(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        /,
        *,
        tool_call_id: str | None = None,
        timeout: float | None = UNSET,
        strict: bool | None = None,
        max_retries: int | None = None,
        progress: ProgressCallback | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Blocking :meth:`execute` for scripts.

        A sync tool without a time limit runs right here in the calling thread (the fast path).
        Async tools, time limits, async hooks and a concurrency cap go through a background loop.
        """
        entry = self._index.get(name)
        args: Any = _merge(arguments, kwargs) if kwargs or arguments is None else arguments
        if (
            entry is not None
            and not entry[1].is_async
            and not self._async_hooks
            and self._max_concurrency is None
            and self._limit(entry[0], timeout) is None
        ):
            return self._run_inline(
                entry[0],
                entry[1],
                args,
                tool_call_id or new_call_id(),
                strict,
                max_retries,
                progress,
            )
        return run_sync(
            self.execute(
                name,
                args,
                tool_call_id=tool_call_id,
                timeout=timeout,
                strict=strict,
                max_retries=max_retries,
                progress=progress,
            )
        )

    async def execute_many(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any] | tuple[Any, ...]],
        *,
        timeout: float | None = UNSET,
    ) -> list[ToolResult]:
        """Run calls concurrently; results come back in the calls' order, failures isolated.

        A call is a :class:`ToolCall`, a ``(name, arguments)`` pair or a mapping with ``name``,
        ``arguments`` and optionally ``id``.
        """
        jobs: list[Awaitable[ToolResult]] = []
        for item in calls:
            if type(item) is tuple and len(item) == 2 and type(item[0]) is str:
                # the common ``(name, arguments)`` pair, without building a ToolCall first
                jobs.append(self.execute(item[0], item[1], timeout=timeout))
                continue
            call = as_tool_call(item)
            if isinstance(call, ToolResult):
                jobs.append(_ready(call))
            else:
                jobs.append(
                    self.execute(
                        call.name, call.arguments, tool_call_id=call.tool_call_id, timeout=timeout
                    )
                )
        return list(await asyncio.gather(*jobs))

    def execute_many_sync(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any] | tuple[Any, ...]],
        *,
        timeout: float | None = UNSET,
    ) -> list[ToolResult]:
        """Blocking :meth:`execute_many`."""
        return run_sync(self.execute_many(list(calls), timeout=timeout))

    def close(self) -> None:
        """Stop the worker threads (running calls finish first)."""
        self._pool.shutdown()

    def __enter__(self) -> ToolExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -----------------------------------------------------------------------
    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            assert self._max_concurrency is not None
            sem = self._semaphores[loop] = asyncio.Semaphore(self._max_concurrency)
        return sem

    def _limit(self, tool: BaseTool, timeout: float | None) -> float | None:
        if timeout is not UNSET:
            return timeout
        spec_timeout = tool._spec.timeout
        return spec_timeout if spec_timeout is not None else self.default_timeout

    def _not_found(self, name: str, call_id: str, started_at: float, t0: float) -> ToolResult:
        error = ErrorInfo(
            code=ErrorCode.NOT_FOUND,
            message=self.missing_message(name),
            hint="Call one of the available tools by its exact name.",
        )
        result = ToolResult(
            success=False,
            error=error,
            metadata=ResultMetadata(
                tool=str(name),
                tool_call_id=call_id,
                started_at=started_at,
                duration_ms=(time.perf_counter() - t0) * 1000.0,
            ),
        )
        if self._listeners:
            emit(
                self._listeners,
                ToolEvent(
                    kind=EventKind.FAILED,
                    tool=str(name),
                    action="",
                    tool_call_id=call_id,
                    attempt=0,
                    result=result,
                ),
            )
        return result

    def _context(
        self,
        action: Action,
        call_id: str,
        attempt: int,
        limit: float | None,
        progress: ProgressCallback | None,
    ) -> ToolContext | None:
        if action.context_param is None:
            return None
        return ToolContext(
            tool=action.tool,
            action=action.name,
            tool_call_id=call_id,
            attempt=attempt,
            deadline=None if limit is None else time.monotonic() + limit,
            state=self.state,
            _progress=progress,
        )

    async def _run(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        timeout: float | None,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
    ) -> ToolResult:
        started_at, t0 = time.time(), time.perf_counter()
        try:
            values = action.validator.validate(
                args, strict=self.strict if strict is None else strict
            )
            if self._pre:
                values = await self._apply_pre(action, values, call_id, strict)
        except ArgumentsInvalid as exc:
            return await self._finish(
                action, values_or(args), None, exc.error, call_id, started_at, t0, 1
            )
        except Exception as exc:  # a pre-hook refused or failed
            return await self._finish(
                action, values_or(args), None, hook_error(exc, action), call_id, started_at, t0, 1
            )
        if self._listeners:
            self._emit_started(action, call_id, values)
        limit = self._limit(tool, timeout)
        retries = tool._spec.max_retries if max_retries is None else max_retries
        attempt = 1
        while True:
            ctx = (
                None
                if action.context_param is None
                else self._context(action, call_id, attempt, limit, progress)
            )
            error: ErrorInfo | None
            output: Any = None
            try:
                if action.is_async:
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
                task = asyncio.current_task()
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
                logger.debug("tool %s raised", action.tool, exc_info=True)
                error = error_from_exception(exc, action.name)
            else:
                error = self._check_output(action, output)
            delay = self._retry_delay(action, error, call_id, attempt, retries, started_at, t0)
            if delay is None:
                break
            await asyncio.sleep(delay)
            attempt += 1
        if self._post:
            return await self._finish(
                action, values, output, error, call_id, started_at, t0, attempt
            )
        return self._finish_sync(action, values, output, error, call_id, started_at, t0, attempt)

    def _run_inline(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
    ) -> ToolResult:
        started_at, t0 = time.time(), time.perf_counter()
        try:
            values = action.validator.validate(
                args, strict=self.strict if strict is None else strict
            )
            if self._pre:
                values = self._apply_pre_sync(action, values, call_id, strict)
        except ArgumentsInvalid as exc:
            return self._finish_sync(
                action, values_or(args), None, exc.error, call_id, started_at, t0, 1
            )
        except Exception as exc:
            return self._finish_sync(
                action, values_or(args), None, hook_error(exc, action), call_id, started_at, t0, 1
            )
        if self._listeners:
            self._emit_started(action, call_id, values)
        retries = tool._spec.max_retries if max_retries is None else max_retries
        attempt = 1
        while True:
            output: Any = None
            error: ErrorInfo | None
            try:
                output = action.call(
                    values,
                    None
                    if action.context_param is None
                    else self._context(action, call_id, attempt, None, progress),
                )
            except Exception as exc:
                logger.debug("tool %s raised", action.tool, exc_info=True)
                error = error_from_exception(exc, action.name)
            else:
                error = self._check_output(action, output)
            delay = self._retry_delay(action, error, call_id, attempt, retries, started_at, t0)
            if delay is None:
                break
            time.sleep(delay)
            attempt += 1
        return self._finish_sync(action, values, output, error, call_id, started_at, t0, attempt)

    def _check_output(self, action: Action, output: Any) -> ErrorInfo | None:
        checker = action.output_validator
        return None if checker is None or not self.validate_output else checker.check(output)

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
        if self._listeners:
            failed = make_result(
                action,
                error=error,
                call_id=call_id,
                started_at=started_at,
                t0=t0,
                attempts=attempt,
            )
            emit(
                self._listeners,
                ToolEvent(
                    kind=EventKind.RETRIED,
                    tool=action.tool,
                    action=action.name,
                    tool_call_id=call_id,
                    attempt=attempt,
                    delay=delay,
                    result=failed,
                ),
            )
        return delay


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


def _merge(arguments: Mapping[str, Any] | str | None, kwargs: dict[str, Any]) -> Any:
    if arguments is None:
        return kwargs
    if isinstance(arguments, Mapping):
        return {**arguments, **kwargs}
    return arguments


async def _ready(result: ToolResult) -> ToolResult:
    return result
