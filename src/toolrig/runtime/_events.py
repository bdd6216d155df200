"""Events an executor emits while calls run: started, succeeded, failed, retried, guarded."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toolrig.core.result._result import ToolResult
from toolrig.runtime._call import Call
from toolrig.runtime._guardrails import GuardrailOutcome

__all__ = ["EventKind", "Listener", "ToolEvent"]


class EventKind(StrEnum):
    """What happened to a call."""

    STARTED = "started"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    RETRIED = "retried"
    GUARDED = "guarded"
    """A guardrail rejected, tripped or failed on the call (``ToolEvent.guardrail``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEvent:
    """One event: which call, which attempt, and the result when there is one."""

    kind: EventKind
    tool: str
    action: str
    tool_call_id: str
    attempt: int
    arguments: Mapping[str, Any] | None = None
    result: ToolResult | None = None
    delay: float | None = None
    """For ``retried``: seconds waited before the next attempt."""
    guardrail: GuardrailOutcome | None = None
    """For ``guarded``: what the guardrail decided."""
    call: Call | None = None
    """The call itself, as hooks and middleware see it (``None`` only for a name that names
    no tool: every path builds the ``Call`` when someone listens)."""


Listener = Callable[[ToolEvent], None]
