"""The seam through which a durable engine guards the calls of a run it keeps.

A plan runner (and an agent run) with `CallHooks` hands each tool call to them: the hooks may
give back a result recorded before a crash, refuse to repeat a call lost mid-way, or run it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from toolrig.core.model._options import ToolAnnotations
from toolrig.core.result._result import ToolResult

__all__ = ["CallHooks"]


class CallHooks(Protocol):
    """Where a run's tool calls run (a durable engine's steps)."""

    async def call_step(
        self,
        name: str,
        call_id: str,
        annotations: ToolAnnotations | None,
        run: Callable[[], Awaitable[ToolResult]],
    ) -> ToolResult:
        """The result of call ``name``: ``run()`` when it was not recorded before;
        ``annotations`` (``None``: no such tool) say whether a call lost mid-way may run
        again."""
        ...
