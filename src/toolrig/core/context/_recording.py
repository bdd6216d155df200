"""The run a call belongs to, and where its one record goes: the recording scope.

Every call ends in the pipeline's report step; that step hands the finished call to the
scope that is current (a context variable), and the scope's sink (an execution log) writes
one record. Whoever starts work opens the scope — an agent run and each of its turns, a plan
and each of its steps, the console's try-it form, ``toolrig call``, the MCP server — and
nothing else writes call records. A call made with no scope open is not recorded.

The rules, one per kind of call:

* a call that runs (straight line or composed, local or on a queue's worker): one record
  when its result is final, retries included (``attempts``); a worker runs the call without
  a scope, the caller records it;
* a call the approval gate holds: no record while held (the run's status is ``held``); one
  record in the run that decides it, with the decision as its status (``denied``,
  ``answered``) or the outcome of running it;
* a nested call (``ctx.run_tool``): its own record, with ``parent_call_id`` the call it
  answers for;
* a plan step that never ran (a dependency failed, the plan stopped): one ``skipped`` record
  through `Recording.skipped`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolrig.core.result._result import ToolResult

__all__ = ["RECORDING", "CallSink", "Recording", "current_recording", "recording"]


class CallSink(Protocol):
    """Where a scope's records go (an execution log is one)."""

    def record_call(
        self,
        scope: Recording,
        result: ToolResult,
        arguments: Mapping[str, Any] | None,
        tool_version: str | None,
        status: str | None = None,
    ) -> None:
        """Write the one record of a finished call (``status``: instead of the one its
        result gives); never raises into the call."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Recording:
    """A run's recording scope: the sink, the run and where in the run a call is made."""

    sink: CallSink
    run_id: str
    step_id: str | None = None
    """The turn (``turn3``) or plan step the calls belong to."""
    session_id: str | None = None
    agent: str | None = None
    parent_call_id: str | None = None
    """Set for calls a tool makes from inside another (``ctx.run_tool``)."""
    cost: float | None = None
    """A cost to record when the call reports none (a plan step's estimate)."""

    def narrowed(self, **fields: Any) -> Recording:
        """This scope with ``fields`` changed (a turn, a step, a nested call)."""
        return replace(self, **fields)

    def record(
        self,
        result: ToolResult,
        arguments: Mapping[str, Any] | None,
        tool_version: str | None = None,
    ) -> None:
        """Hand a finished call to the sink (the report step calls this)."""
        self.sink.record_call(self, result, arguments, tool_version)

    def skipped(self, result: ToolResult, arguments: Mapping[str, Any] | None) -> None:
        """Record work that was due but never became a call (a plan step not run)."""
        self.sink.record_call(self, result, arguments, None, "skipped")


RECORDING: ContextVar[Recording | None] = ContextVar("toolrig_recording", default=None)


def current_recording() -> Recording | None:
    """The scope calls made here are recorded in (``None``: not recorded)."""
    return RECORDING.get()


@contextmanager
def recording(scope: Recording | None) -> Iterator[Recording | None]:
    """Make ``scope`` current for the calls made inside (``None``: record nothing)."""
    token = RECORDING.set(scope)
    try:
        yield scope
    finally:
        RECORDING.reset(token)
