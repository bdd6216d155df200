"""``ExecutionRecord`` and ``RecordStatus``: one recorded execution, as every backend stores
it and every reader (queries, the run summary) gets it back.

A module of its own so the log and the summary both build on it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["ExecutionRecord", "RecordStatus"]


class RecordStatus(StrEnum):
    """What happened to a recorded call."""

    SUCCESS = "success"
    ERROR = "error"
    SKIPPED = "skipped"


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

    @property
    def ok(self) -> bool:
        """True for a successful record."""
        return self.status == RecordStatus.SUCCESS
