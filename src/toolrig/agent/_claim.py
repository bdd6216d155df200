"""Deciding held calls claims them first: one conditional write to the session, before any
tool runs, so that a decision sent to several runs at once (two reviewers, a retried web
request) runs each approved call once.

The claim is the session store's versioned save (``UPDATE ... WHERE session_id = ? AND version
= ?``, checked by its row count): of the runs that read the held turn, exactly one writes the
claim; the others, and every later run that decides the same calls, get
`AlreadyDecided` and run nothing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from toolrig.agent._approval import AllowForSession, Answer, Decision, Deny, Edit, PendingCall
from toolrig.storage._runs import DecisionTaken, StoredDecision
from toolrig.storage._sessions import SessionConflict, SessionState, SessionStore

__all__ = [
    "PAST",
    "AlreadyDecided",
    "as_decision",
    "check_not_decided",
    "claim_held",
    "edit_record",
    "record_decisions",
    "stored",
]


class AlreadyDecided(RuntimeError):
    """The calls this run was asked to decide were decided by another run (or are being
    decided right now); nothing ran. ``claimed_by`` is that run's id when known."""

    def __init__(
        self,
        session_id: str,
        call_ids: Sequence[str],
        claimed_by: str | None,
        *,
        detail: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.call_ids = list(call_ids)
        self.claimed_by = claimed_by
        by = f" by run {claimed_by!r}" if claimed_by else ""
        how = f" ({detail})" if detail else ""
        super().__init__(
            f"call(s) {', '.join(self.call_ids)} of session {session_id!r} were already "
            f"decided{by}{how}; nothing ran in this run. Load the session to see what is held "
            "now (the execution log has what the deciding run did)"
        )


def check_not_decided(state: SessionState, decisions: Mapping[str, Decision] | None) -> None:
    """Raise `AlreadyDecided` when the held turn is claimed (by a run deciding it now,
    or one that stopped before it saved), or when ``decisions`` name calls that are no longer
    held but were used in this session."""
    pending = state.pending or {}
    held = [p["id"] for p in pending.get("pending", [])]
    claim = pending.get("claim")
    if claim is not None:
        raise AlreadyDecided(state.session_id, held, claim.get("run_id"))
    if not decisions:
        return
    used = set(state.call_ids)
    gone = sorted(c for c in decisions if c not in held and c in used)
    if gone:
        raise AlreadyDecided(state.session_id, gone, None)


def claim_held(
    store: SessionStore,
    state: SessionState,
    held: Sequence[PendingCall],
    decisions: Mapping[str, Decision],
    run_id: str,
) -> SessionState:
    """Write the claim on the held turn of ``state`` and return the state as written;
    `AlreadyDecided` when another run wrote first."""
    assert state.pending is not None
    claim = {
        "run_id": run_id,
        "at": time.time(),
        "decisions": {p.tool_call_id: _word(decisions[p.tool_call_id]) for p in held},
    }
    try:
        return store.save(replace(state, pending={**state.pending, "claim": claim}))
    except SessionConflict:
        now = store.load(state.session_id)
        claimed = ((now.pending or {}).get("claim") or {}) if now is not None else {}
        raise AlreadyDecided(
            state.session_id, [p.tool_call_id for p in held], claimed.get("run_id")
        ) from None


def record_decisions(
    store: SessionStore,
    session_id: str,
    held: Sequence[PendingCall],
    decisions: Mapping[str, Decision],
    by: str,
) -> dict[str, Decision]:
    """Record ``decisions`` as the decisions of the held calls, each unless one is recorded
    already (the console, another run): the first decision of a call is the one that
    stands (returned, by call id), and a different one raises `AlreadyDecided` before
    anything runs."""
    standing: dict[str, Decision] = {}
    for pending in held:
        decision = decisions[pending.tool_call_id]
        try:
            kept = store.decide(
                stored(session_id, pending.tool_call_id, decision, by, pending.arguments)
            )
        except DecisionTaken as taken:
            first = taken.existing
            raise AlreadyDecided(
                session_id,
                [pending.tool_call_id],
                None,
                detail=f"it was {_past(first.kind)}"
                + (f" by {first.decided_by}" if first.decided_by else ""),
            ) from None
        standing[pending.tool_call_id] = as_decision(kept)
    return standing


def as_decision(kept: StoredDecision) -> Decision:
    """A stored decision as ``approvals=`` takes it."""
    if kept.kind == "allow":
        return True
    if kept.kind == "allow_session":
        return AllowForSession()
    if kept.kind == "answer":
        return Answer(output=kept.output)
    if kept.kind == "edit":
        return Edit(arguments=dict(kept.output["arguments"]), reason=kept.reason or "")
    return Deny(reason=kept.reason) if kept.reason else Deny()


def stored(
    session_id: str,
    call_id: str,
    decision: Decision,
    by: str,
    proposed: dict[str, Any] | None = None,
) -> StoredDecision:
    """A decision as the store keeps it (an `Edit` with the model's ``proposed`` arguments
    beside the ones that run)."""
    if decision is True or isinstance(decision, AllowForSession):
        kind = "allow" if decision is True else "allow_session"
        return StoredDecision(session_id=session_id, tool_call_id=call_id, kind=kind, decided_by=by)
    if isinstance(decision, Edit):
        return StoredDecision(
            session_id=session_id,
            tool_call_id=call_id,
            kind="edit",
            reason=decision.reason or None,
            output=edit_record(decision.arguments, proposed),
            decided_by=by,
        )
    if isinstance(decision, Answer):
        return StoredDecision(
            session_id=session_id,
            tool_call_id=call_id,
            kind="answer",
            output=decision.output,
            decided_by=by,
        )
    reason = decision.reason if isinstance(decision, Deny) else Deny().reason
    return StoredDecision(
        session_id=session_id, tool_call_id=call_id, kind="deny", reason=reason, decided_by=by
    )


def edit_record(arguments: dict[str, Any], proposed: dict[str, Any] | None) -> dict[str, Any]:
    """What the decisions table keeps of an edit: the arguments that run and the model's."""
    return {"arguments": arguments, "proposed": proposed}


PAST = {
    "allow": "approved",
    "allow_session": "approved for the session",
    "deny": "denied",
    "answer": "answered",
    "edit": "edited",
}
"""Each stored decision kind as people read it."""


def _past(kind: str) -> str:
    return PAST.get(kind, kind)


def _word(decision: Decision) -> str:
    """How a decision is recorded in the claim."""
    if decision is True:
        return "approved"
    if isinstance(decision, AllowForSession):
        return PAST["allow_session"]
    if isinstance(decision, Edit):
        return "edited"
    return "answered" if isinstance(decision, Answer) else "denied"
