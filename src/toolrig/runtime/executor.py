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
    Collection,
    Coroutine,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import Any

from toolrig.core.action import Action
from toolrig.core.background import run_sync
from toolrig.core.base import BaseTool
from toolrig.core.context import ProgressCallback, ToolContext
from toolrig.core.errors import ErrorCode, ToolDefinitionError, ToolNotFoundError
from toolrig.core.function_tool import Tool
from toolrig.core.ids import new_call_id
from toolrig.core.invoke import error_from_exception, make_result
from toolrig.core.result import ErrorInfo, ResultMetadata, ToolResult
from toolrig.core.suggest import closest
from toolrig.core.validation import ArgumentsInvalid
from toolrig.runtime.calls import CallInfo, ToolCall, as_tool_call
from toolrig.runtime.events import EventKind, Listener, ToolEvent, emit
from toolrig.runtime.retry import RetryPolicy
from toolrig.runtime.threads import WorkerPool

__all__ = ["UNSET", "ToolExecutor"]

logger = logging.getLogger("toolrig.executor")


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""Marks an option left out (use the tool's or executor's default); ``None`` means "none"."""

PreHook = Callable[[CallInfo], Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None]
PostHook = Callable[[CallInfo, ToolResult], ToolResult | Awaitable[ToolResult | None] | None]


class ToolExecutor:
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
        self._tools: dict[str, BaseTool] = {}
        self._index: dict[str, tuple[BaseTool, Action]] = {}
        self._pre: tuple[PreHook, ...] = ()
        self._post: tuple[PostHook, ...] = ()
        self._async_hooks = False
        self._listeners: tuple[Listener, ...] = ()
        self._pool = WorkerPool(max_workers)
        for item in tools:
            self.register(item)

    # -- the collection of tools ---------------------------------------------------------------
    def register(
        self, tool: BaseTool | type[BaseTool] | Callable[..., Any], *, replace: bool = False
    ) -> BaseTool:
        """Add a tool (an instance, a tool class, or a plain function to wrap with ``@tool``).

        A name already taken is an error unless ``replace``; nothing changes when it fails.
        """
        if isinstance(tool, type) and issubclass(tool, BaseTool):
            tool = tool()
        elif not isinstance(tool, BaseTool):
            if not callable(tool):
                raise ToolDefinitionError(
                    "register", f"expected a tool or a function, got {tool!r}"
                )
            tool = Tool(func=tool)
        name = tool.spec.name
        if name in self._tools and not replace:
            raise ToolDefinitionError(
                name, "a tool with this name is already registered; pass replace=True"
            )
        self.swap(add=[tool])
        return tool

    def unregister(self, name: str) -> BaseTool:
        """Remove and return the tool called ``name``; raises :class:`ToolNotFoundError`."""
        tool = self.get(name)
        self.swap(remove=[name])
        return tool

    def swap(self, add: Sequence[BaseTool] = (), remove: Collection[str] = ()) -> None:
        """Register ``add`` (replacing tools of the same names) and drop ``remove`` in one
        atomic step: calls see either the old set or the new one, never a mix.

        Validates first; on a name given twice or a call-name collision it raises
        :class:`ToolDefinitionError` and changes nothing. Building the tables once makes
        loading thousands of tools linear, where registering one by one is quadratic.
        """
        if not add and not remove:
            return
        replaced = {t.spec.name for t in add} | set(remove)
        tools = {k: v for k, v in self._tools.items() if k not in replaced}
        if replaced.isdisjoint(self._tools):
            index = dict(self._index)
        else:
            index = {k: v for k, v in self._index.items() if v[0].spec.name not in replaced}
        for tool in add:
            name = tool.spec.name
            if name in tools:
                raise ToolDefinitionError(name, "the same tool name is given twice")
            for key, entry in _index_entries(tool).items():
                other = index.get(key)
                if other is not None:
                    raise ToolDefinitionError(
                        name, f"call name {key!r} collides with tool {other[0].spec.name!r}"
                    )
                index[key] = entry
            tools[name] = tool
        self._tools, self._index = tools, index  # publish both at once

    def get(self, name: str) -> BaseTool:
        """The tool called ``name``; raises :class:`ToolNotFoundError` with suggestions."""
        try:
            return self._tools[name]
        except KeyError:
            raise ToolNotFoundError(name, closest(name, self._tools)) from None

    def list_tools(self) -> list[BaseTool]:
        """Registered tools in registration order."""
        return list(self._tools.values())

    def tool_names(self) -> list[str]:
        """Registered tool names in registration order."""
        return list(self._tools)

    def resolve(self, name: str) -> Action | None:
        """The action a call name refers to (``tool``, ``tool.action`` or ``tool__action``)."""
        entry = self._index.get(name)
        return None if entry is None else entry[1]

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(list(self._tools.values()))

    # -- hooks and events ------------------------------------------------------------------
    def add_pre_hook(self, hook: PreHook) -> None:
        """``hook(call)`` runs before each call; returning a mapping replaces the arguments
        (they are validated again); raising ``ToolError``/``PermissionError`` refuses the call."""
        self._pre = (*self._pre, hook)
        self._async_hooks = self._async_hooks or inspect.iscoroutinefunction(hook)

    def add_post_hook(self, hook: PostHook) -> None:
        """``hook(call, result)`` runs after each call; returning a result replaces it."""
        self._post = (*self._post, hook)
        self._async_hooks = self._async_hooks or inspect.iscoroutinefunction(hook)

    def add_listener(self, listener: Listener) -> None:
        """``listener(event)`` is told when calls start, succeed, fail and are retried."""
        self._listeners = (*self._listeners, listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop telling ``listener``."""
        self._listeners = tuple(x for x in self._listeners if x is not listener)

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

    def missing_message(self, name: str) -> str:
        """Why ``name`` names no tool or action here, with the closest valid names."""
        tool_name, _, action_name = str(name).replace("__", ".").partition(".")
        tool = self._tools.get(tool_name) if isinstance(name, str) else None
        if tool is not None and tool.spec.is_multi_action:
            actions = tool.get_action_names()
            near = closest(action_name, actions) if action_name else []
            message = (
                f"Tool `{tool_name}` has no action {action_name!r}; action not found."
                if action_name
                else f"Tool `{tool_name}` has several actions; name one."
            )
            if near:
                message += f" Did you mean {' or '.join(repr(f'{tool_name}.{a}') for a in near)}?"
            message += f" Available: {', '.join(f'{tool_name}.{a}' for a in actions)}."
        else:
            near = closest(str(name), self._index) if isinstance(name, str) else []
            message = f"Tool {name!r} not found."
            if near:
                message += f" Did you mean {' or '.join(repr(n) for n in near)}?"
            listed = sorted({k for k, (t, a) in self._index.items() if "__" not in k})
            message += f" Available tools: {', '.join(listed[:50]) or '(none)'}."
        return message

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

    def _validate(self, action: Action, args: Any, strict: bool | None) -> dict[str, Any]:
        return action.validator.validate(args, strict=self.strict if strict is None else strict)

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
                action, values_or(args), None, _hook_error(exc, action), call_id, started_at, t0, 1
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
                action, values_or(args), None, _hook_error(exc, action), call_id, started_at, t0, 1
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

    def _emit_started(self, action: Action, call_id: str, values: Mapping[str, Any]) -> None:
        emit(
            self._listeners,
            ToolEvent(
                kind=EventKind.STARTED,
                tool=action.tool,
                action=action.name,
                tool_call_id=call_id,
                attempt=1,
                arguments=values,
            ),
        )

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

    async def _apply_pre(
        self, action: Action, values: dict[str, Any], call_id: str, strict: bool | None
    ) -> dict[str, Any]:
        for hook in self._pre:
            replaced = hook(
                CallInfo(
                    tool=action.tool, action=action.name, tool_call_id=call_id, arguments=values
                )
            )
            if inspect.isawaitable(replaced):
                replaced = await replaced
            if replaced is not None:
                values = self._validate(action, replaced, strict)
        return values

    def _apply_pre_sync(
        self, action: Action, values: dict[str, Any], call_id: str, strict: bool | None
    ) -> dict[str, Any]:
        for hook in self._pre:
            replaced = hook(
                CallInfo(
                    tool=action.tool, action=action.name, tool_call_id=call_id, arguments=values
                )
            )
            if replaced is not None:
                values = self._validate(action, replaced, strict)
        return values

    def _result(
        self,
        action: Action,
        output: Any,
        error: ErrorInfo | None,
        call_id: str,
        started_at: float,
        t0: float,
        attempts: int,
    ) -> ToolResult:
        return make_result(
            action,
            output=None if error else output,
            error=error,
            call_id=call_id,
            started_at=started_at,
            t0=t0,
            attempts=attempts,
        )

    async def _finish(
        self,
        action: Action,
        values: Mapping[str, Any] | None,
        output: Any,
        error: ErrorInfo | None,
        call_id: str,
        started_at: float,
        t0: float,
        attempts: int,
    ) -> ToolResult:
        result = self._result(action, output, error, call_id, started_at, t0, attempts)
        for hook in self._post:
            try:
                replaced = hook(
                    CallInfo(
                        tool=action.tool, action=action.name, tool_call_id=call_id, arguments=values
                    ),
                    result,
                )
                if inspect.isawaitable(replaced):
                    replaced = await replaced
            except Exception as exc:
                logger.exception("post-execute hook %r failed", hook)
                replaced = self._result(
                    action, None, _hook_error(exc, action), call_id, started_at, t0, attempts
                )
            if isinstance(replaced, ToolResult):
                result = replaced
        self._report(action, values, result, attempts)
        return result

    def _finish_sync(
        self,
        action: Action,
        values: Mapping[str, Any] | None,
        output: Any,
        error: ErrorInfo | None,
        call_id: str,
        started_at: float,
        t0: float,
        attempts: int,
    ) -> ToolResult:
        result = make_result(
            action,
            output=None if error else output,
            error=error,
            call_id=call_id,
            started_at=started_at,
            t0=t0,
            attempts=attempts,
        )
        if not self._post:
            self._report(action, values, result, attempts)
            return result
        for hook in self._post:
            try:
                replaced = hook(
                    CallInfo(
                        tool=action.tool, action=action.name, tool_call_id=call_id, arguments=values
                    ),
                    result,
                )
            except Exception as exc:
                logger.exception("post-execute hook %r failed", hook)
                replaced = self._result(
                    action, None, _hook_error(exc, action), call_id, started_at, t0, attempts
                )
            if isinstance(replaced, ToolResult):
                result = replaced
        self._report(action, values, result, attempts)
        return result

    def _report(
        self, action: Action, values: Mapping[str, Any] | None, result: ToolResult, attempts: int
    ) -> None:
        if self._listeners:
            kind = EventKind.SUCCEEDED if result.success else EventKind.FAILED
            emit(
                self._listeners,
                ToolEvent(
                    kind=kind,
                    tool=action.tool,
                    action=action.name,
                    tool_call_id=result.metadata.tool_call_id if result.metadata else "",
                    attempt=attempts,
                    arguments=values,
                    result=result,
                ),
            )
        if result.error is not None:
            if logger.isEnabledFor(logging.INFO):
                logger.info(
                    "%s failed [%s]: %s",
                    action.name,
                    result.error.code,
                    result.error.message.splitlines()[0],
                )
        elif logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "%s succeeded in %.3f ms",
                action.name,
                result.metadata.duration_ms if result.metadata else 0.0,
            )


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


def _hook_error(exc: BaseException, action: Action) -> ErrorInfo:
    if isinstance(exc, PermissionError):
        return ErrorInfo(
            code=ErrorCode.PERMISSION_DENIED,
            message=f"The call to `{action.name}` was refused: {exc}",
        )
    return error_from_exception(exc, action.name)


def values_or(args: Any) -> Mapping[str, Any] | None:
    return args if isinstance(args, Mapping) else None


def _merge(arguments: Mapping[str, Any] | str | None, kwargs: dict[str, Any]) -> Any:
    if arguments is None:
        return kwargs
    if isinstance(arguments, Mapping):
        return {**arguments, **kwargs}
    return arguments


async def _ready(result: ToolResult) -> ToolResult:
    return result


def _index_entries(tool: BaseTool) -> dict[str, tuple[BaseTool, Action]]:
    spec = tool.spec
    entries: dict[str, tuple[BaseTool, Action]] = {}
    if not spec.is_multi_action:
        entries[spec.name] = (tool, tool._bound[next(iter(spec.actions))])
        return entries
    for name in spec.actions:
        action = tool._bound[name]
        entries[f"{spec.name}.{name}"] = (tool, action)
        entries[f"{spec.name}__{name}"] = (tool, action)
    return entries
