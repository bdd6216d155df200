"""``ExecutionRecord`` and ``RecordStatus``: one recorded execution, as every backend stores
it and every reader (queries, the run summary) gets it back.

A module of its own so the log and the summary both build on it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["LEGACY_STATUS", "ExecutionRecord", "RecordStatus", "status_of"]


class RecordStatus(StrEnum):
    """What happened to a recorded call, step or model turn."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    """The call ran (or was refused by validation, a hook, a limit) and did not succeed."""
    SKIPPED = "skipped"
    """Due but never run: a plan step whose dependency failed, or after the plan stopped."""
    DENIED = "denied"
    """A person refused the call it was held for: not a tool error."""
    ANSWERED = "answered"
    """A person answered the call by hand instead of running it."""


LEGACY_STATUS = {"success": RecordStatus.SUCCEEDED, "error": RecordStatus.FAILED}
"""Status words of logs written before the vocabulary was unified; migrations rewrite them,
and writers and queries still accept them."""


def status_of(word: str) -> RecordStatus:
    """The status a word names (legacy words included); ``ValueError`` otherwise."""
    legacy = LEGACY_STATUS.get(word)
    if legacy is not None:
        return legacy
    try:
        return RecordStatus(word)
    except ValueError:
        raise ValueError(
            f"status must be one of {[o.value for o in RecordStatus]}, got {word!r}"
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
    error_hint: str | None = None
    """The hint sent with the error (the model read ``Error [code]: message`` then
    ``Hint: hint``)."""
    parent_call_id: str | None = None
    """For a call a tool made from inside another: that call's id."""

    @property
    def ok(self) -> bool:
        """True for a successful record."""
        return self.status == RecordStatus.SUCCEEDED

    @property
    def sent_text(self) -> str | None:
        """The error exactly as the model read it (``None`` for a record without one)."""
        if self.error_message is None and self.error_code is None:
            return None
        text = f"Error [{self.error_code or self.status}]: {self.error_message or ''}"
        return f"{text}\nHint: {self.error_hint}" if self.error_hint else text
