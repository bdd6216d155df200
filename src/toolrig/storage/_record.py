"""``ExecutionRecord`` and ``RecordStatus``: one recorded execution, as every backend stores
it and every reader (queries, the run summary) gets it back.

A module of its own so the log and the summary both build on it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolrig.core.context._events import Outcome

__all__ = ["LEGACY_STATUS", "ExecutionRecord", "RecordStatus", "status_of"]


RecordStatus = Outcome
"""What happened to a recorded call, in the one outcome vocabulary: ``succeeded``,
``failed``, ``skipped``."""

LEGACY_STATUS = {"success": Outcome.SUCCEEDED, "error": Outcome.FAILED}
"""Status words of logs written before the vocabulary was unified; migrations rewrite them,
and writers and queries still accept them."""


def status_of(word: str) -> Outcome:
    """The outcome a status word names (legacy words included); ``ValueError`` otherwise."""
    legacy = LEGACY_STATUS.get(word)
    if legacy is not None:
        return legacy
    try:
        return Outcome(word)
    except ValueError:
        raise ValueError(
            f"status must be one of {[o.value for o in Outcome]}, got {word!r}"
        ) from None


@dataclass(slots=True, kw_only=True)
class ExecutionRecord:
    """One recorded execution: a tool call, a plan step or an agent turn."""

    id: int | None = None
    run_id: str
    step_id: str | None = None
    tool_call_id: str | None = None
    executor: str
    """The tool (or model, or plan) that ran."""
    executor_type: str = "tool"
    action: str | None = None
    input_data: Any = None
    output: Any = None
    status: str
    error_code: str | None = None
    error_message: str | None = None
    started_at: float
    """Seconds since the epoch."""
    finished_at: float
    duration_ms: float
    attempts: int = 1
    cost: float | None = None
    tool_version: str | None = None
    """The version of the tool that ran, when the writer knew it."""

    @property
    def ok(self) -> bool:
        """True for a successful record."""
        return self.status == Outcome.SUCCEEDED
