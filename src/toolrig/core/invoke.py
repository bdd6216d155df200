"""Run one action once: validate, call, check the output, and answer with a :class:`ToolResult`.

Policies (timeouts, retries, hooks, concurrency) belong to :class:`toolrig.ToolExecutor`; this
module is the part every path shares.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

from toolrig.core.action import Action
from toolrig.core.background import run_sync
from toolrig.core.context import ToolContext
from toolrig.core.errors import ErrorCode, ToolError
from toolrig.core.ids import new_call_id
from toolrig.core.result import ErrorInfo, ResultMetadata, ToolResult
from toolrig.core.validation import ArgumentsInvalid

__all__ = ["error_from_exception", "invoke", "invoke_async", "make_result"]

logger = logging.getLogger("toolrig")

_MAX_MESSAGE = 2000


def error_from_exception(exc: BaseException, subject: str) -> ErrorInfo:
    """The model-facing error for an exception raised inside a tool."""
    if isinstance(exc, ToolError):
        return ErrorInfo(
            code=exc.code,
            message=exc.message,
            hint=exc.hint,
            details=exc.details,
            retryable=exc.retryable,
        )
    text = str(exc)
    if len(text) > _MAX_MESSAGE:
        text = text[:_MAX_MESSAGE] + f"... [{len(text) - _MAX_MESSAGE} characters cut]"
    name = type(exc).__name__
    if isinstance(exc, TimeoutError):
        return ErrorInfo(
            code=ErrorCode.TIMEOUT,
            message=f"`{subject}` timed out: {name}: {text}".rstrip(": "),
            retryable=True,
        )
    if isinstance(exc, PermissionError):
        return ErrorInfo(
            code=ErrorCode.PERMISSION_DENIED, message=f"`{subject}` was refused: {name}: {text}"
        )
    return ErrorInfo(
        code=ErrorCode.EXECUTION_ERROR,
        message=f"`{subject}` failed: {name}: {text}" if text else f"`{subject}` failed: {name}",
        retryable=isinstance(exc, ConnectionError),
    )


def make_result(
    action: Action,
    *,
    output: Any = None,
    error: ErrorInfo | None = None,
    call_id: str,
    started_at: float,
    t0: float,
    attempts: int = 1,
) -> ToolResult:
    """Assemble the result with its metadata (duration measured from ``t0``)."""
    # Same as ``ResultMetadata(...)`` / ``ToolResult(...)``, at half the cost: calling a class
    # with keywords packs them into a dict for ``__init__``; calling ``__init__`` itself does not.
    meta = _new(ResultMetadata)
    _init_metadata(
        meta,
        tool=action.tool,
        action=action.name,
        tool_call_id=call_id,
        started_at=started_at,
        duration_ms=(time.perf_counter() - t0) * 1000.0,
        attempts=attempts,
    )
    result = _new(ToolResult)
    _init_result(result, success=error is None, output=output, error=error, metadata=meta)
    return result


_new = object.__new__
_init_metadata = ResultMetadata.__init__
_init_result = ToolResult.__init__


def _context(action: Action, call_id: str, state: Mapping[str, Any] | None) -> ToolContext | None:
    if action.context_param is None:
        return None
    return ToolContext(
        tool=action.tool, action=action.name, tool_call_id=call_id, state=state or {}
    )


def invoke(
    action: Action,
    arguments: Any,
    *,
    strict: bool = False,
    tool_call_id: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> ToolResult:
    """Run ``action`` once in this thread (an async action runs on the background loop)."""
    started_at, t0 = time.time(), time.perf_counter()
    call_id = tool_call_id or new_call_id()
    try:
        values = action.validator.validate(arguments, strict=strict)
    except ArgumentsInvalid as exc:
        return make_result(action, error=exc.error, call_id=call_id, started_at=started_at, t0=t0)
    try:
        output = action.call(values, _context(action, call_id, state))
        if action.is_async:
            output = run_sync(output)
    except Exception as exc:
        return _failed(action, exc, call_id, started_at, t0)
    return _checked(action, output, call_id, started_at, t0)


async def invoke_async(
    action: Action,
    arguments: Any,
    *,
    strict: bool = False,
    tool_call_id: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> ToolResult:
    """Run ``action`` once; a sync action runs in a worker thread so the loop never blocks."""
    started_at, t0 = time.time(), time.perf_counter()
    call_id = tool_call_id or new_call_id()
    try:
        values = action.validator.validate(arguments, strict=strict)
    except ArgumentsInvalid as exc:
        return make_result(action, error=exc.error, call_id=call_id, started_at=started_at, t0=t0)
    ctx = _context(action, call_id, state)
    try:
        if action.is_async:
            output = await action.call(values, ctx)
        else:
            output = await asyncio.to_thread(action.call, values, ctx)
    except Exception as exc:
        return _failed(action, exc, call_id, started_at, t0)
    return _checked(action, output, call_id, started_at, t0)


def _failed(
    action: Action, exc: Exception, call_id: str, started_at: float, t0: float
) -> ToolResult:
    logger.debug("tool %s raised", action.tool, exc_info=True)
    error = error_from_exception(exc, action.spec.name)
    return make_result(action, error=error, call_id=call_id, started_at=started_at, t0=t0)


def _checked(action: Action, output: Any, call_id: str, started_at: float, t0: float) -> ToolResult:
    error = None if action.output_validator is None else action.output_validator.check(output)
    return make_result(
        action,
        output=None if error else output,
        error=error,
        call_id=call_id,
        started_at=started_at,
        t0=t0,
    )
