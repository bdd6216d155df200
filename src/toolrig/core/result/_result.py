"""The structured answer of every tool call: `ToolResult` and its renderings.

Every rendering is total: ``to_dict``, ``to_json``, ``to_text``, ``to_pretty`` and ``render``
never raise, whatever the output holds, and the JSON ones always produce valid JSON (the rules
for what JSON cannot carry are those of `toolrig.core.result._jsonable`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, overload

from toolrig.core.model._errors import ErrorCode, ToolError, ToolResultError
from toolrig.core.model._ids import new_call_id
from toolrig.core.model._names import ActionRef
from toolrig.core.result._content import content_blocks, content_notice
from toolrig.core.result._jsonable import clean_text, to_jsonable

__all__ = [
    "ErrorInfo",
    "ResultMetadata",
    "ToolResult",
    "error_from_exception",
    "error_result",
    "success_result",
    "to_jsonable",
]

RenderType = Literal["object", "dict", "json", "str", "pretty"]


@dataclass(slots=True, kw_only=True)
class ErrorInfo:
    """Why a call failed, in words the model can act on."""

    code: str
    """One of `ErrorCode` (stable), or a tool-specific code."""
    message: str
    """What went wrong, written for the model (and the developer reading logs)."""
    hint: str | None = None
    """What to do next, e.g. how to fix the arguments."""
    details: Any = None
    """Structured data, e.g. the list of argument problems with their paths."""
    retryable: bool = False
    """Whether trying the same call again may succeed (timeouts, transient failures)."""

    def to_dict(self, *, drop_empty: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = to_jsonable(
            {
                "code": self.code,
                "message": self.message,
                "hint": self.hint,
                "details": self.details,
                "retryable": self.retryable,
            }
        )
        if drop_empty:
            return {k: v for k, v in data.items() if v not in (None, False, [], {}, "")}
        return data


@dataclass(slots=True, kw_only=True)
class ResultMetadata:
    """Facts about one call: which tool, which call id, when, how long, how many attempts."""

    tool: str
    action: str | None = None
    tool_call_id: str
    started_at: float
    """Wall-clock start, seconds since the epoch (rendered as ISO 8601)."""
    duration_ms: float = 0.0
    attempts: int = 1
    cost: float | None = None
    extra: dict[str, Any] | None = None
    decision: str | None = None
    """How a person decided a call held for approval: ``held`` (not yet), ``denied`` or
    ``answered``; ``None`` for a call that ran (approved or never held)."""
    result_handle: str | None = None
    """Set when the output was cut to the call's result budget: the handle ``read_result``
    reads the whole output by (``toolrig://results/<handle>`` over MCP)."""
    result_chars: int | None = None
    """With ``result_handle``: the length of the whole output's text, in characters."""

    def to_dict(self, *, drop_empty: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = to_jsonable(
            {
                "tool": self.tool,
                "action": self.action,
                "tool_call_id": self.tool_call_id,
                "started_at": _iso(self.started_at),
                "duration_ms": _rounded(self.duration_ms),
                "attempts": self.attempts,
                "cost": self.cost,
                "extra": self.extra,
                **({"decision": self.decision} if self.decision else {}),
                **(
                    {"result_handle": self.result_handle, "result_chars": self.result_chars}
                    if self.result_handle
                    else {}
                ),
            }
        )
        if drop_empty:
            return {k: v for k, v in data.items() if v not in (None, {}, "")}
        return data


def _iso(timestamp: Any) -> Any:
    try:
        return datetime.fromtimestamp(timestamp, UTC).isoformat()
    except (TypeError, ValueError, OverflowError, OSError):
        return timestamp


def _rounded(value: Any) -> Any:
    try:
        return round(value, 3)
    except (TypeError, ValueError, OverflowError):
        return value


def _dumps(data: Any, *, indent: int | None = None) -> str:
    """JSON text of data made by `to_jsonable` (which always serialises; the fallback
    only guards against a subclass of ``ToolResult`` rendering something else)."""
    try:
        return json.dumps(
            data,
            ensure_ascii=False,
            allow_nan=False,
            indent=indent,
            separators=None if indent else (",", ":"),
        )
    except (TypeError, ValueError, RecursionError):
        return json.dumps(to_jsonable(data), ensure_ascii=False, allow_nan=False, indent=indent)


@dataclass(slots=True, kw_only=True)
class ToolResult:
    """The outcome of a tool call. Never an exception: failures are data with a stable code."""

    success: bool
    output: Any = None
    error: ErrorInfo | None = None
    metadata: ResultMetadata | None = None

    @property
    def code(self) -> str | None:
        """The error code, or ``None`` on success."""
        return None if self.error is None else self.error.code

    def unwrap(self) -> Any:
        """Return the output, or raise `ToolResultError` if the call failed."""
        if self.error is not None:
            raise ToolResultError(self.error.code, self.error.message)
        return self.output

    def to_dict(self, *, include_metadata: bool = True, drop_empty: bool = False) -> dict[str, Any]:
        """A JSON-serialisable dict; outputs that are not JSON-native are converted."""
        data: dict[str, Any] = {"success": self.success, "output": to_jsonable(self.output)}
        data["error"] = None if self.error is None else self.error.to_dict(drop_empty=drop_empty)
        if include_metadata:
            data["metadata"] = (
                None if self.metadata is None else self.metadata.to_dict(drop_empty=drop_empty)
            )
        if drop_empty:
            data = {k: v for k, v in data.items() if k == "success" or v not in (None, {}, "")}
        return data

    def to_json(self, *, include_metadata: bool = True, drop_empty: bool = True) -> str:
        """Compact JSON text of `to_dict` (always valid JSON)."""
        return _dumps(self.to_dict(include_metadata=include_metadata, drop_empty=drop_empty))

    def to_text(self) -> str:
        """The compact string a model reads as the tool's answer."""
        if self.error is None:
            if isinstance(self.output, str):
                return clean_text(self.output)
            blocks = content_blocks(self.output)
            if blocks is not None:  # rich content: text as is, a notice for the rest
                return "\n".join(clean_text(content_notice(b)) for b in blocks)
            return _dumps(to_jsonable(self.output))
        error = self.error
        text = f"Error [{_text(error.code)}]: {_text(error.message)}"
        if error.hint:
            text += f"\nHint: {_text(error.hint)}"
        return text

    def to_pretty(self, *, include_metadata: bool = True) -> str:
        """A multi-line rendering for people (logs, terminals)."""
        meta = self.metadata
        name = (
            "?"
            if meta is None
            else ActionRef.of_record(_text(meta.tool), meta.action and _text(meta.action)).call_name
        )
        lines = [f"{'OK' if self.success else 'FAILED'}  {name}"]
        if self.error is None:
            body = (
                clean_text(self.output)
                if isinstance(self.output, str)
                else _dumps(to_jsonable(self.output), indent=2)
            )
            lines.append("output: " + body.replace("\n", "\n        "))
        else:
            lines.append(
                f"error:  [{_text(self.error.code)}] "
                + _text(self.error.message).replace("\n", "\n        ")
            )
            if self.error.hint:
                lines.append(f"hint:   {_text(self.error.hint)}")
        if include_metadata and meta is not None:
            data = meta.to_dict()
            lines.append(
                f"call:   {data['tool_call_id']}  {_number(data['duration_ms'], '.2f')} ms  "
                f"attempts={data['attempts']}"
                + ("" if data["cost"] is None else f"  cost={_number(data['cost'], 'g')}")
            )
        return "\n".join(lines)

    @overload
    def render(
        self, as_type: Literal["object"], *, include_metadata: bool = ..., drop_empty: bool = ...
    ) -> ToolResult: ...
    @overload
    def render(
        self, as_type: Literal["dict"], *, include_metadata: bool = ..., drop_empty: bool = ...
    ) -> dict[str, Any]: ...
    @overload
    def render(
        self,
        as_type: Literal["json", "str", "pretty"] = ...,
        *,
        include_metadata: bool = ...,
        drop_empty: bool = ...,
    ) -> str: ...
    def render(
        self,
        as_type: RenderType = "str",
        *,
        include_metadata: bool = True,
        drop_empty: bool = False,
    ) -> ToolResult | dict[str, Any] | str:
        """Render as ``object`` (itself), ``dict``, ``json``, ``str`` (compact) or ``pretty``."""
        if as_type == "object":
            return self
        if as_type == "dict":
            return self.to_dict(include_metadata=include_metadata, drop_empty=drop_empty)
        if as_type == "json":
            return self.to_json(include_metadata=include_metadata, drop_empty=drop_empty)
        if as_type == "pretty":
            return self.to_pretty(include_metadata=include_metadata)
        if as_type == "str":
            return self.to_text()
        raise ValueError(
            f"unknown as_type {as_type!r}; use one of 'object', 'dict', 'json', 'str', 'pretty'"
        )

    def __str__(self) -> str:
        return self.to_text()


def _text(value: Any) -> str:
    """A message part as safe text, whatever a tool or hook put there."""
    converted = to_jsonable(value)
    return converted if isinstance(converted, str) else _dumps(converted)


def _number(value: Any, spec: str) -> str:
    try:
        return format(value, spec)
    except (TypeError, ValueError):
        return _text(value)


def _metadata(
    tool: str, action: str | None, tool_call_id: str | None, started_at: float | None
) -> ResultMetadata:
    import time

    return ResultMetadata(
        tool=tool,
        action=action,
        tool_call_id=tool_call_id or new_call_id(),
        started_at=time.time() if started_at is None else started_at,
    )


def success_result(
    output: Any = None,
    *,
    tool: str = "",
    action: str | None = None,
    tool_call_id: str | None = None,
    started_at: float | None = None,
) -> ToolResult:
    """A successful `ToolResult` carrying ``output``."""
    return ToolResult(
        success=True, output=output, metadata=_metadata(tool, action, tool_call_id, started_at)
    )


def error_result(
    code: ErrorCode | str,
    message: str,
    *,
    hint: str | None = None,
    details: Any = None,
    retryable: bool = False,
    tool: str = "",
    action: str | None = None,
    tool_call_id: str | None = None,
    started_at: float | None = None,
) -> ToolResult:
    """A failed `ToolResult` with an error code the caller and the model can act on."""
    return ToolResult(
        success=False,
        error=ErrorInfo(
            code=str(code), message=message, hint=hint, details=details, retryable=retryable
        ),
        metadata=_metadata(tool, action, tool_call_id, started_at),
    )


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
    try:
        text = str(exc)
    except Exception:  # an exception whose own __str__ fails must not escape the call
        text = "(its message could not be rendered)"
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
