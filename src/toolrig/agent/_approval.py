"""Human approval of tool calls, as a middleware of the one call pipeline.

An `ApprovalPolicy` says which calls need a person's yes: tools by name, every tool
annotated ``destructive``, or any call a function picks. `approval_gate` is a
middleware of the agent's own pipeline (``executor.with_middleware(approval_gate)``: the
caller's executor is left as it was); during an agent run it holds each such call that
was not approved yet, notes it as pending in the run's scope, and answers it without running.
The run then stops with the pending calls (unless the agent's ``on_approval`` decides them
at once); a later run decides each (``True``, `Deny`, `Answer`, `Edit` or
`AllowForSession`) and the approved ones go through the same pipeline again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ToolResult, error_result, success_result
from toolrig.runtime._call import Call, CallNext

__all__ = [
    "AllowForSession",
    "Answer",
    "ApprovalPolicy",
    "Decision",
    "Deny",
    "Edit",
    "PendingCall",
    "RunScope",
    "approval_gate",
]

HELD = "awaiting approval"


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalPolicy:
    """Which calls need approval: ``tools`` by name, all ``destructive`` tools, or those for
    which ``when(call)`` is true."""

    tools: Collection[str] = ()
    destructive: bool = False
    when: Callable[[Call], bool] | None = None

    def requires(self, call: Call) -> bool:
        """Whether ``call`` must wait for a person's decision."""
        if call.tool in self.tools:
            return True
        if self.destructive:
            spec = call.owner.spec
            if spec.action_annotations(call.target.name).destructive:
                return True
        return self.when is not None and bool(self.when(call))


@dataclass(frozen=True, slots=True, kw_only=True)
class Deny:
    """Refuse a pending call; the model reads ``reason``."""

    reason: str = "The user did not approve this call."


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """Do not run a pending call; hand the model ``output`` as its result."""

    output: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Edit:
    """Run a pending call with ``arguments`` instead of the model's.

    The arguments are validated like a model's (a refusal runs nothing, and the model reads
    it); the model's own turn is left as it sent it, and the tool message it reads starts with
    a note giving the arguments that ran and ``reason``."""

    arguments: dict[str, Any]
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class AllowForSession:
    """Run a pending call, and every later call of the same tool in this session without
    asking: a standing rule, stored with the session's policy (other tools are still held)."""


Decision: TypeAlias = bool | Deny | Answer | Edit | AllowForSession
"""``True`` runs the call, ``False`` or `Deny` refuses it, `Answer` answers it by hand,
`Edit` runs it with other arguments, `AllowForSession` runs it and its tool's later calls."""

DECISION_TYPES = (bool, Deny, Answer, Edit, AllowForSession)
"""The types a decision may have."""


def decision_problem(decision: object) -> str | None:
    """Why ``decision`` is not one (``None`` when it is)."""
    if not isinstance(decision, DECISION_TYPES):
        return (
            f"{type(decision).__name__} is not a decision (True, False, Deny, Answer, Edit or "
            "AllowForSession)"
        )
    if isinstance(decision, Edit) and not isinstance(decision.arguments, dict):
        return f"an Edit's arguments are a dict, not {type(decision.arguments).__name__}"
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class PendingCall:
    """A call held for a decision: its id, the name the model called and the arguments."""

    tool_call_id: str
    name: str
    arguments: dict[str, Any]
    tool: str
    """The tool in the catalogue that would run."""


@dataclass(slots=True, kw_only=True)
class RunScope:
    """What the gate knows of the run making the current calls."""

    policy: ApprovalPolicy | None
    approved: set[str] = field(default_factory=set)
    decided: dict[str, Deny | Answer] = field(default_factory=dict)
    """Held calls a person denied or answered: the gate gives them their decision's result
    (so they are reported and recorded like every call) instead of running them."""
    held: dict[str, Call] = field(default_factory=dict)
    allowed: set[str] = field(default_factory=set)
    """Tools a person allowed for the session (`AllowForSession`): their calls pass."""


SCOPE: ContextVar[RunScope | None] = ContextVar("toolrig_agent_scope", default=None)


async def approval_gate(call: Call, call_next: CallNext) -> ToolResult:
    """Middleware: hold a call that the current run's policy wants approved and that was not
    approved yet; pass every other call (and every call outside an agent run) on."""
    scope = SCOPE.get()
    if scope is None:
        return await call_next(call)
    decision = scope.decided.get(call.tool_call_id)
    if decision is not None:
        return decided_result(call, decision)
    if (
        scope.policy is None
        or call.tool_call_id in scope.approved
        or call.tool in scope.allowed
        or not scope.policy.requires(call)
    ):
        return await call_next(call)
    scope.held[call.tool_call_id] = call
    result = error_result(
        ErrorCode.PERMISSION_DENIED,
        f"`{call.target.name}` is {HELD}.",
        tool=call.target.tool,
        action=call.target.name,
        tool_call_id=call.tool_call_id,
        started_at=call.started_at,
    )
    assert result.metadata is not None
    result.metadata.decision = "held"
    return result


def as_decided(decision: Decision) -> Deny | Answer | None:
    """The decision as the gate applies it (``None``: run the call)."""
    if decision is True or isinstance(decision, (Edit, AllowForSession)):
        return None
    if isinstance(decision, (Deny, Answer)):
        return decision
    return Deny()


def decided_result(call: Call, decision: Deny | Answer) -> ToolResult:
    """The result a person's decision gives a held call without running it."""
    target = call.target
    if isinstance(decision, Answer):
        result = success_result(
            decision.output,
            tool=target.tool,
            action=target.name,
            tool_call_id=call.tool_call_id,
            started_at=call.started_at,
        )
        word = "answered"
    else:
        result = error_result(
            ErrorCode.PERMISSION_DENIED,
            f"The call was denied: {decision.reason}",
            tool=target.tool,
            action=target.name,
            tool_call_id=call.tool_call_id,
            started_at=call.started_at,
        )
        word = "denied"
    assert result.metadata is not None
    result.metadata.decision = word
    return result
