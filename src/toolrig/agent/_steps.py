"""The seam through which a durable engine records a run's steps.

An agent with `step_hooks` hands each model request and each tool call to them: the hooks run
it as one recorded step of a workflow (or give back the result recorded before a crash), so a
run driven again from its start after a crash repeats no step that had finished.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from toolrig.agent._client import LLMTurn
from toolrig.runtime._call_hooks import CallHooks

__all__ = ["StepHooks"]


class StepHooks(CallHooks, Protocol):
    """Where a run's model requests and tool calls run (a durable engine's steps)."""

    async def model_step(self, ask: Callable[[], Awaitable[LLMTurn]]) -> tuple[LLMTurn, bool]:
        """The model's turn (``ask()`` when it was not recorded before) and whether it was
        asked now (``False``: recorded before, so its log record is written already)."""
        ...
