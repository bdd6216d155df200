"""The names a call is known by on its way through the pipeline: hooks, middleware and the
:class:`Call` they see, and :data:`UNSET` for an option left to its default."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolrig.core._action import Action
from toolrig.core._base import BaseTool
from toolrig.core._context import ProgressCallback
from toolrig.core._result import ToolResult
from toolrig.runtime._calls import CallInfo

__all__ = ["UNSET", "Call", "CallNext", "Middleware", "PostHook", "PreHook", "Unset"]

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
