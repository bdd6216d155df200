"""Human approval of tool calls, as a middleware of the one call pipeline.

An :class:`ApprovalPolicy` says which calls need a person's yes: tools by name, every tool
annotated ``destructive``, or any call a function picks. :func:`approval_gate` is a
middleware of the agent's own pipeline (``executor.with_middleware(approval_gate)``: the
caller's executor is left as it was); during an agent run it holds each such call that
was not approved yet, notes it as pending in the run's scope, and answers it without running.
The run then stops with the pending calls; a later run decides each (:class:`Deny`,
:class:`Answer`, or ``True``) and the approved ones go through the same pipeline again.
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
    "Answer",
    "ApprovalPolicy",
    "Decision",
    "Deny",
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


Decision: TypeAlias = bool | Deny | Answer
"""``True`` runs the call, ``False`` or :class:`Deny` refuses it, :class:`Answer` answers it
by hand."""


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
    held: dict[str, Call] = field(default_factory=dict)


SCOPE: ContextVar[RunScope | None] = ContextVar("toolrig_agent_scope", default=None)


async def approval_gate(call: Call, call_next: CallNext) -> ToolResult:
    """Middleware: hold a call that the current run's policy wants approved and that was not
    approved yet; pass every other call (and every call outside an agent run) on."""
    scope = SCOPE.get()
    if (
        scope is None
        or scope.policy is None
        or call.tool_call_id in scope.approved
        or not scope.policy.requires(call)
    ):
        return await call_next(call)
    scope.held[call.tool_call_id] = call
    return error_result(
        ErrorCode.PERMISSION_DENIED,
        f"`{call.target.name}` is {HELD}.",
        tool=call.target.tool,
        action=call.target.name,
        tool_call_id=call.tool_call_id,
        started_at=call.started_at,
    )


def decided_result(pending: PendingCall, decision: Decision) -> ToolResult | None:
    """The result a decision gives without running the call (``None``: run it)."""
    if decision is True:
        return None
    if isinstance(decision, Answer):
        return success_result(decision.output, tool=pending.tool, tool_call_id=pending.tool_call_id)
    reason = decision.reason if isinstance(decision, Deny) else Deny().reason
    return error_result(
        ErrorCode.PERMISSION_DENIED,
        f"The call was denied: {reason}",
        tool=pending.tool,
        tool_call_id=pending.tool_call_id,
    )
