"""Decisions applied to a held turn: which calls run (an edited one with its new arguments),
which get their decision's result from the gate, which tools stand allowed for the session, and
what the model reads of an edited call.

The model's own turn is never rewritten: providers check the calls of an assistant turn
against what they sent (Anthropic's signed thinking, Gemini's thought signatures sit beside
them), so an edit is told in the tool message instead, a note ahead of the result, which every
provider's tool-result type accepts as it accepts any result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from toolrig.agent._approval import (
    AllowForSession,
    Decision,
    Edit,
    PendingCall,
    RunScope,
    as_decided,
)
from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import ParsedCall
from toolrig.runtime._request import ToolCall

__all__ = ["DecidedTurn", "edit_note"]


class DecidedTurn:
    """The decisions of a held turn's calls, given to the run's approval scope."""

    def __init__(
        self, scope: RunScope, held: Sequence[PendingCall], decisions: Mapping[str, Decision]
    ) -> None:
        self.edits: dict[str, Edit] = {}
        for pending in held:
            call_id = pending.tool_call_id
            decision = decisions[call_id]
            gated = as_decided(decision)
            if gated is None:
                scope.approved.add(call_id)
            else:
                scope.decided[call_id] = gated
            if isinstance(decision, AllowForSession):
                scope.allowed.add(pending.tool)
            if isinstance(decision, Edit):
                self.edits[call_id] = decision

    def calls(self, calls: Sequence[ParsedCall]) -> list[ParsedCall]:
        """``calls`` with each edited one carrying its edited arguments (validated by the
        pipeline like the model's)."""
        return [
            ToolCall(
                name=call.name,
                arguments=dict(self.edits[call.tool_call_id].arguments),
                tool_call_id=call.tool_call_id,
            )
            if isinstance(call, ToolCall) and call.tool_call_id in self.edits
            else call
            for call in calls
        ]

    def model_view(self, results: Sequence[ToolResult]) -> list[ToolResult]:
        """``results`` as the model reads them: an edited call's with the note first."""
        out = []
        for result in results:
            meta = result.metadata
            edit = self.edits.get(meta.tool_call_id) if meta is not None else None
            out.append(result if edit is None else noted(result, edit))
        return out


def edit_note(edit: Edit, *, outcome: str) -> str:
    """What the model is told of an edit of its call: ``outcome`` is ``ran``, ``refused``
    (the arguments were invalid) or ``failed`` (its result is an error, said after it)."""
    why = f" ({edit.reason})" if edit.reason else ""
    shown = json.dumps(edit.arguments, ensure_ascii=False, sort_keys=True, default=str)
    if outcome == "ran":
        return f"[A person edited the arguments of this call{why}; it ran with {shown}.]"
    if outcome == "refused":
        return (
            f"[A person edited the arguments of this call{why} to {shown}; they were refused, "
            "so the call did not run.]"
        )
    return f"[A person edited the arguments of this call{why} to {shown}.]"


def noted(result: ToolResult, edit: Edit) -> ToolResult:
    """``result`` with the note of ``edit`` ahead of what the model reads."""
    if result.error is not None:
        refused = result.error.code == ErrorCode.INVALID_ARGUMENTS
        note = edit_note(edit, outcome="refused" if refused else "failed")
        return replace(
            result, error=replace(result.error, message=f"{note} {result.error.message}")
        )
    note = edit_note(edit, outcome="ran")
    if isinstance(result.output, str):
        return replace(result, output=f"{note}\n{result.output}")
    return replace(result, output={"note": note, "result": result.output})
