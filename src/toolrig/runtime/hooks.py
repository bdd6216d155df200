"""Before/after hooks and call events: what an executor tells and asks others around a call."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolrig.core.action import Action
from toolrig.core.errors import ErrorCode
from toolrig.core.invoke import error_from_exception, make_result
from toolrig.core.result import ErrorInfo, ToolResult
from toolrig.core.validation import ArgumentValidator
from toolrig.runtime.calls import CallInfo
from toolrig.runtime.events import EventKind, Listener, ToolEvent, emit

__all__ = ["CallHooks", "PostHook", "PreHook", "hook_error", "values_or"]

logger = logging.getLogger("toolrig.executor")

PreHook = Callable[[CallInfo], Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None]
PostHook = Callable[[CallInfo, ToolResult], ToolResult | Awaitable[ToolResult | None] | None]


class CallHooks:
    """Hooks and listeners of an executor, and the steps that run them around each call."""

    strict: bool

    def __init__(self) -> None:
        self._pre: tuple[PreHook, ...] = ()
        self._post: tuple[PostHook, ...] = ()
        self._async_hooks = False
        self._listeners: tuple[Listener, ...] = ()

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

    def _validate(self, action: Action, args: Any, strict: bool | None) -> dict[str, Any]:
        validator: ArgumentValidator = action.validator
        return validator.validate(args, strict=self.strict if strict is None else strict)

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
        if not self._async_hooks:
            return self._finish_sync(
                action, values, output, error, call_id, started_at, t0, attempts
            )
        result = self._result(action, output, error, call_id, started_at, t0, attempts)
        for hook in self._post:
            replaced = self._after(hook, action, values, result, call_id, started_at, t0, attempts)
            if inspect.isawaitable(replaced):
                try:
                    replaced = await replaced
                except Exception as exc:
                    replaced = self._hook_failed(
                        hook, exc, action, call_id, started_at, t0, attempts
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
        for hook in self._post:  # sync hooks only here (async ones go through _finish)
            replaced = self._after(hook, action, values, result, call_id, started_at, t0, attempts)
            if isinstance(replaced, ToolResult):
                result = replaced
        self._report(action, values, result, attempts)
        return result

    def _after(
        self,
        hook: PostHook,
        action: Action,
        values: Mapping[str, Any] | None,
        result: ToolResult,
        call_id: str,
        started_at: float,
        t0: float,
        attempts: int,
    ) -> Any:
        """Run one post-hook: its replacement, ``None``, an awaitable, or the error it caused."""
        info = CallInfo(
            tool=action.tool, action=action.name, tool_call_id=call_id, arguments=values
        )
        try:
            return hook(info, result)
        except Exception as exc:
            return self._hook_failed(hook, exc, action, call_id, started_at, t0, attempts)

    def _hook_failed(
        self,
        hook: PostHook,
        exc: Exception,
        action: Action,
        call_id: str,
        started_at: float,
        t0: float,
        attempts: int,
    ) -> ToolResult:
        logger.exception("post-execute hook %r failed", hook, exc_info=exc)
        error = hook_error(exc, action)
        return self._result(action, None, error, call_id, started_at, t0, attempts)

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


def hook_error(exc: BaseException, action: Action) -> ErrorInfo:
    """The error for a hook that refused (``PermissionError``) or failed."""
    if isinstance(exc, PermissionError):
        return ErrorInfo(
            code=ErrorCode.PERMISSION_DENIED,
            message=f"The call to `{action.name}` was refused: {exc}",
        )
    return error_from_exception(exc, action.name)


def values_or(args: Any) -> Mapping[str, Any] | None:
    """``args`` when it is a mapping (what hooks and events are shown), else ``None``."""
    return args if isinstance(args, Mapping) else None
