"""The steps of a call, as plain functions: validate, announce, attempt, report.

The composed path (`._links`) and the straight-line paths (`._pipeline`) call these
same functions, so every path validates, times, checks and reports a call the same way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from toolrig.core.context._context import ProgressCallback, ToolContext
from toolrig.core.context._events import Listeners
from toolrig.core.context._recording import RECORDING
from toolrig.core.context._runner import ToolRunner
from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._on_first_use import asyncio, lazy_logger, logging
from toolrig.core.result._result import ErrorInfo, ResultMetadata, ToolResult
from toolrig.runtime._budget import apply_budget
from toolrig.runtime._call import Call
from toolrig.runtime._events import EventKind, ToolEvent
from toolrig.runtime._outcome import (
    AttemptFailed,
    CallTimedOut,
    make_result,
    raised,
    timed_out,
    with_timeout,
)
from toolrig.runtime._tracing import log_fields
from toolrig.runtime._tracing import record_missing as trace_missing

__all__ = [
    "announce",
    "attempt",
    "checked",
    "context_for",
    "logger",
    "not_found",
    "refused",
    "report",
    "result_of",
]

logger = lazy_logger("toolrig.executor")


def context_for(
    action: Action,
    call_id: str,
    attempt_no: int,
    limit: float | None,
    progress: ProgressCallback | None,
    state: Mapping[str, Any],
    runner: ToolRunner | None,
) -> ToolContext:
    """The `ToolContext` of one attempt (``runner``: the pipeline, for nested calls)."""
    return ToolContext(
        tool=action.tool,
        action=action.name,
        tool_call_id=call_id,
        attempt=attempt_no,
        deadline=None if limit is None else time.monotonic() + limit,
        state=state,
        _progress=progress,
        _runner=runner,
    )


def checked(action: Action, output: Any, validate_output: bool) -> ErrorInfo | None:
    """The error of an output that breaks the action's declared output type, if any."""
    checker = action.output_validator
    return None if checker is None or not validate_output else checker.check(output)


def result_of(call: Call, output: Any, error: ErrorInfo | None) -> ToolResult:
    """The result of ``call``'s current attempt."""
    result = make_result(
        call.target, output, error, call.tool_call_id, call.started_at, call.t0, call.attempt
    )
    if call.extra is not None:
        result.metadata.extra = call.extra  # type: ignore[union-attr]
    return result


async def attempt(
    call: Call, state: Mapping[str, Any], validate_output: bool, pipeline: ToolRunner | None
) -> tuple[Any, ErrorInfo | None]:
    """Run one attempt of ``call`` on its runner under its time limit: the output and the
    error (``None`` when it succeeded and its output is valid)."""
    action, runner = call.target, call.runner
    assert runner is not None
    limit = call.timeout
    ctx = (
        None
        if action.context_param is None
        else context_for(
            action, call.tool_call_id, call.attempt, limit, call.progress, state, pipeline
        )
    )
    try:
        if runner.inline:  # nothing suspends: drive it to its end here
            coro = runner.attempt(call, ctx)
            try:
                coro.send(None)
            except StopIteration as done:
                output = done.value
            else:  # pragma: no cover - an inline runner never suspends
                coro.close()
                raise RuntimeError("an inline attempt suspended")
        elif limit is None or runner.bounded:
            output = await runner.attempt(call, ctx)
        else:
            output = await with_timeout(runner.attempt(call, ctx), limit, action, ctx)
    except asyncio.CancelledError:
        task = None if runner.inline else asyncio.current_task()
        if task is not None and task.cancelling():
            if ctx is not None:
                ctx.cancel_event.set()
            raise  # the caller's own cancellation is not ours to swallow
        return None, ErrorInfo(code=ErrorCode.CANCELLED, message=f"`{action.name}` was cancelled.")
    except CallTimedOut as exc:
        return None, timed_out(exc)
    except AttemptFailed as exc:
        return None, exc.error
    except Exception as exc:
        return None, raised(exc, action)
    return output, checked(action, output, validate_output)


def announce(
    listeners: Listeners[ToolEvent],
    action: Action,
    call_id: str,
    values: Mapping[str, Any],
    call: Call | None,
) -> None:
    """Tell listeners a call with valid arguments starts."""
    listeners.emit(
        ToolEvent(
            kind=EventKind.STARTED,
            tool=action.tool,
            action=action.name,
            tool_call_id=call_id,
            attempt=1,
            arguments=values,
            call=call,
        )
    )


def report(
    listeners: Listeners[ToolEvent],
    action: Action,
    values: Mapping[str, Any] | None,
    result: ToolResult,
    call: Call | None,
    owner: BaseTool | None = None,
) -> ToolResult:
    """The call's one exit: its result budget (`._budget`: the result returned may be cut),
    its record (in the current recording scope), the outcome event and a log line.
    ``owner`` is the tool that ran (its version is recorded)."""
    result = apply_budget(result, owner)
    scope = RECORDING.get()
    if scope is not None:
        scope.record(result, values, None if owner is None else owner.spec.version)
    if listeners.items:
        meta = result.metadata
        listeners.emit(
            ToolEvent(
                kind=EventKind.SUCCEEDED if result.success else EventKind.FAILED,
                tool=action.tool,
                action=action.name,
                tool_call_id=meta.tool_call_id if meta else "",
                attempt=meta.attempts if meta else 1,
                arguments=values,
                result=result,
                call=call,
            )
        )
    if result.error is not None:
        if logger.isEnabledFor(logging.INFO):
            logger.info(
                "%s failed [%s]: %s",
                action.name,
                result.error.code,
                result.error.message.splitlines()[0] if result.error.message else "",
                extra=log_fields(result),
            )
    elif logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s succeeded", action.name, extra=log_fields(result))
    return result


def not_found(
    listeners: Listeners[ToolEvent],
    traced: bool,
    name: str,
    message: str,
    call_id: str,
    action: str | None = None,
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
    return refused(listeners, traced, result)


def refused(
    listeners: Listeners[ToolEvent],
    traced: bool,
    result: ToolResult,
    arguments: Mapping[str, Any] | None = None,
) -> ToolResult:
    """Report a call answered before it could reach a tool (a name that names nothing, a
    disabled tool, a call the model's response did not let be read): its record, its
    event and its log line, as for every other call."""
    meta = result.metadata
    name = meta.tool if meta else "?"
    call_id = meta.tool_call_id if meta else ""
    scope = RECORDING.get()
    if scope is not None:
        scope.record(result, arguments)
    if listeners.items:
        listeners.emit(
            ToolEvent(
                kind=EventKind.FAILED,
                tool=name,
                action=(meta.action if meta else None) or "",
                tool_call_id=call_id,
                attempt=0,
                result=result,
            )
        )
    if traced:
        trace_missing(name, call_id, result)
    if logger.isEnabledFor(logging.INFO):
        code = result.error.code if result.error else "?"
        logger.info("%s failed [%s]", name, code, extra=log_fields(result))
    return result
