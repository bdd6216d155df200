"""The run-time context a tool may ask for by annotating a parameter with :class:`ToolContext`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolContext"]

ProgressCallback = Callable[[float, float | None, str | None], None]


@dataclass(slots=True, kw_only=True)
class ToolContext:
    """What the executor tells a running tool. Injected, never shown to the model.

    Declare it as a parameter (``ctx: ToolContext``) to receive it.
    """

    tool: str
    action: str | None
    tool_call_id: str
    attempt: int = 1
    deadline: float | None = None
    """``time.monotonic()`` value after which the call is abandoned, if it has a timeout."""
    state: Mapping[str, Any] = field(default_factory=dict)
    """Shared objects the application gave the executor (clients, settings, ...)."""
    cancel_event: threading.Event = field(default_factory=threading.Event)
    _progress: ProgressCallback | None = None

    @property
    def cancelled(self) -> bool:
        """True once the call timed out or was cancelled; long sync tools should check it."""
        return self.cancel_event.is_set()

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress (e.g. 3 of 10) to whoever listens (CLI, MCP client)."""
        if self._progress is not None:
            self._progress(progress, total, message)
