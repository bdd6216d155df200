"""What a run gives back: `AgentResult` (output, steps, messages, usage), the
`RunContext` tools and toolsets see, and `AgentRunError` for a run that failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Literal

from typing_extensions import TypeVar

from toolrig.agent._approval import PendingCall
from toolrig.agent._client import Usage
from toolrig.core.result._result import ToolResult
from toolrig.runtime._guardrails import GuardrailOutcome

__all__ = ["AgentResult", "AgentRunError", "AgentStep", "RunContext", "StopReason"]

OutputT = TypeVar("OutputT", default=str)
DepsT = TypeVar("DepsT", default=None)

StopReason = Literal[
    "answer",
    "completion",
    "approval",
    "max_steps",
    "time_budget",
    "usage_limit",
    "guardrail",
    "error",
]
"""Why a run ended: an answer or ``attempt_completion`` (done), calls awaiting ``approval``
(resume it), a budget spent (``usage_limit``: a ``RunLimits`` limit, named in ``error``), a
guardrail's tripwire (``guardrail``: raised as ``GuardrailTripped`` by default), or an
``error`` (raised as `AgentRunError` by default)."""


@dataclass(slots=True, kw_only=True)
class RunContext(Generic[DepsT]):
    """The run as toolsets' filters see it: its dependencies, ids and the current step."""

    deps: DepsT
    run_id: str
    session_id: str
    step: int = 0


@dataclass(slots=True, kw_only=True)
class AgentStep:
    """One model turn and the tool calls it made."""

    index: int
    text: str | None
    calls: list[dict[str, Any]] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration_ms: float = 0.0


@dataclass(slots=True, kw_only=True)
class AgentResult(Generic[OutputT]):
    """What a run produced: the typed output, every step, the messages, the tokens and why it
    stopped.

    ``output`` is ``None`` when the run has no final answer: it stopped for approval
    (``pending`` lists the calls), spent a budget, or failed (with ``raise_on_error=False``).
    """

    run_id: str
    output: OutputT | None
    stop_reason: StopReason
    steps: list[AgentStep]
    usage: Usage
    error: str | None = None
    session_id: str = ""
    """The conversation's id: ``agent.run(session_id=...)`` continues it (in any process when
    the agent has an execution log)."""
    new_messages: list[dict[str, Any]] = field(default_factory=list)
    """The messages this run added (the prompt, the model's turns, the tool results), in the
    client's provider format."""
    all_messages: list[dict[str, Any]] = field(default_factory=list)
    """The whole conversation, ready to pass as ``history=`` to a later run."""
    pending: list[PendingCall] = field(default_factory=list)
    """Calls awaiting a decision when ``stop_reason == "approval"``."""
    text: str | None = None
    """The model's last text."""
    guardrails: list[GuardrailOutcome] = field(default_factory=list)
    """What the guardrails decided other than allow (rejections, a tripwire, failures)."""
    cost: float | None = None
    """What the run spent: its ``usage`` at the model's price given as
    ``RunLimits(price=ModelPrice(...))`` (``None`` when no price is given)."""

    @property
    def completed(self) -> bool:
        """True when the model finished the task (an answer or ``attempt_completion``)."""
        return self.stop_reason in ("answer", "completion")


class AgentRunError(RuntimeError):
    """A run failed (the model could not be reached, or its output stayed invalid after the
    retry). ``result`` holds everything the run did before; pass ``raise_on_error=False`` to
    get the result instead of this exception."""

    def __init__(self, result: AgentResult[Any]) -> None:
        super().__init__(f"agent run {result.run_id} failed: {result.error}")
        self.result = result
