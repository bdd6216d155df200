"""What the execution log says when a record cannot be written: never nothing.

A failed write (the database is gone, locked past its busy timeout, full, or refuses a value)
is counted per run (``failed_writes``, and a line in ``get_summary``), told to the log's failure
listeners as a `WriteFailure`, and warned about with a `LogWriteWarning`. The
caller of ``add_result`` also gets the exception; the recorder listener, which has no caller to
tell, stops there.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LogWriteWarning", "WriteFailure"]


class LogWriteWarning(RuntimeWarning):
    """A record could not be written to the execution log (the record is lost)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WriteFailure:
    """A record the execution log could not write."""

    run_id: str
    executor: str
    """The tool (or model, or plan) whose record was lost."""
    tool_call_id: str | None = None
    step_id: str | None = None
    error: str
    """Why, as ``ExceptionType: message``."""
