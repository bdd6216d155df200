"""What :meth:`Agent.stream` yields while a run goes on: the model's text as it arrives, each
tool call as it starts and finishes, calls held for approval, and the final result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeAlias

from typing_extensions import TypeVar

from toolrig.agent._approval import PendingCall
from toolrig.agent._client import TextDelta
from toolrig.agent._result import AgentResult
from toolrig.core.result._result import ToolResult

__all__ = [
    "AgentEvent",
    "ApprovalRequired",
    "FinalOutput",
    "PartialOutput",
    "TextDelta",
    "ToolCallFinished",
    "ToolCallStarted",
]

OutputT = TypeVar("OutputT", default=str)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallStarted:
    """A call the model made is about to run (arguments as the model sent them)."""

    tool_call_id: str
    name: str
    arguments: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallFinished:
    """A call finished; ``result`` is what the model will read (errors included)."""

    tool_call_id: str
    name: str
    result: ToolResult


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequired:
    """The run stops here: these calls wait for a decision (resume with ``approvals=``)."""

    pending: list[PendingCall] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class FinalOutput(Generic[OutputT]):
    """The run ended; the last event of every stream."""

    result: AgentResult[OutputT]

    @property
    def output(self) -> OutputT | None:
        """The typed output (``None`` when the run has none)."""
        return self.result.output


@dataclass(frozen=True, slots=True, kw_only=True)
class PartialOutput:
    """A typed answer as far as the model has written it, while its JSON streams: the data so
    far (objects with the fields begun, strings cut where the text is), not yet validated.
    Only with an ``output_type`` other than ``str``, for answers given as text."""

    data: Any


AgentEvent: TypeAlias = (
    TextDelta
    | PartialOutput
    | ToolCallStarted
    | ToolCallFinished
    | ApprovalRequired
    | FinalOutput[Any]
)
"""Any event of :meth:`Agent.stream`."""
