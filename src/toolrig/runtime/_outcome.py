"""Results and errors as the pipeline builds them: a result with its metadata (filled slot by
slot, the hot path's cost), the errors of hooks and tools, and the time limit of an attempt."""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Mapping
from typing import Any, final

from toolrig.core.context._context import ToolContext
from toolrig.core.define._action import Action
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._on_first_use import asyncio, lazy_logger
from toolrig.core.result._result import ErrorInfo, ResultMetadata, ToolResult, error_from_exception
from toolrig.runtime._call import Call, CallNext, Middleware

__all__ = [
    "AttemptFailed",
    "CallTimedOut",
    "hook_error",
    "link",
    "make_result",
    "raised",
    "timed_out",
    "values_or",
    "with_timeout",
]

logger = lazy_logger("toolrig.executor")


def link(middleware: Middleware, call_next: CallNext) -> CallNext:
    """``call_next`` wrapped in ``middleware``: one step of the middleware chain."""
    return _Linked(middleware, call_next)


@final
class _Linked:
    """A middleware bound to the rest of the chain. Calling it hands back the middleware's own
    coroutine (no coroutine of its own: a frame and an await fewer per step, per call)."""

    __slots__ = ("call_next", "middleware")

    def __init__(self, middleware: Middleware, call_next: CallNext) -> None:
        self.middleware = middleware
        self.call_next = call_next

    def __call__(self, call: Call) -> Awaitable[ToolResult]:
        return self.middleware(call, self.call_next)


def make_result(
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
    meta.decision = None
    meta.result_handle = None
    meta.result_chars = None
    result = _new(ToolResult)
    result.success = error is None
    result.output = None if error is not None else output
    result.error = error
    result.metadata = meta
    return result


_new = object.__new__


def hook_error(exc: BaseException, action: Action) -> ErrorInfo:
    """The error for a hook that refused (``PermissionError``) or failed."""
    if isinstance(exc, PermissionError):
        return ErrorInfo(
            code=ErrorCode.PERMISSION_DENIED,
            message=f"The call to `{action.name}` was refused: {exc}",
        )
    return error_from_exception(exc, action.name)


def raised(exc: Exception, action: Action) -> ErrorInfo:
    """The error for an exception the tool raised."""
    logger.debug("tool %s raised", action.tool, exc_info=True)
    return error_from_exception(exc, action.name)


def values_or(args: Any) -> Mapping[str, Any] | None:
    """``args`` when it is a mapping (what hooks and events are shown), else ``None``."""
    return args if type(args) is dict or isinstance(args, Mapping) else None


async def with_timeout(
    awaitable: Awaitable[Any], limit: float, action: Action, ctx: ToolContext | None
) -> Any:
    """``await awaitable`` within ``limit`` seconds, else `CallTimedOut` (the tool's
    own ``TimeoutError`` passes through); the context is told to stop."""
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
        raise CallTimedOut(limit, action) from None


def timed_out(exc: CallTimedOut) -> ErrorInfo:
    """The error of an attempt that ran past its time limit."""
    return ErrorInfo(
        code=ErrorCode.TIMEOUT,
        message=str(exc),
        retryable=True,
        hint="The tool took too long; try a smaller request or try again later.",
    )


class CallTimedOut(Exception):
    """An attempt ran past its time limit."""

    def __init__(self, limit: float, action: Action) -> None:
        super().__init__(f"`{action.name}` did not finish within {limit:g} s")


class AttemptFailed(Exception):
    """Raised by a runner whose attempt failed with a known error (a worker's answer, say):
    the call's error is ``error`` as it is, retried when it is retryable."""

    def __init__(self, error: ErrorInfo) -> None:
        self.error = error
        super().__init__(error.message)
