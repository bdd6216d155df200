"""Deciding held calls claims them first: one conditional write to the session, before any
tool runs, so that a decision sent to several runs at once (two reviewers, a retried web
request) runs each approved call once.

The claim is the session store's versioned save (``UPDATE ... WHERE session_id = ? AND version
= ?``, checked by its row count): of the runs that read the held turn, exactly one writes the
claim; the others, and every later run that decides the same calls, get
:class:`AlreadyDecided` and run nothing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from toolrig.agent._approval import Answer, Decision, PendingCall
from toolrig.storage._sessions import SessionConflict, SessionState, SessionStore

__all__ = ["AlreadyDecided", "check_not_decided", "claim_held"]


class AlreadyDecided(RuntimeError):
    """The calls this run was asked to decide were decided by another run (or are being
    decided right now); nothing ran. ``claimed_by`` is that run's id when known."""

    def __init__(self, session_id: str, call_ids: Sequence[str], claimed_by: str | None) -> None:
        self.session_id = session_id
        self.call_ids = list(call_ids)
        self.claimed_by = claimed_by
        by = f" by run {claimed_by!r}" if claimed_by else ""
        super().__init__(
            f"call(s) {', '.join(self.call_ids)} of session {session_id!r} were already "
            f"decided{by}; nothing ran in this run. Load the session to see what is held now "
            "(the execution log has what the deciding run did)"
        )


def check_not_decided(state: SessionState, decisions: Mapping[str, Decision] | None) -> None:
    """Raise :class:`AlreadyDecided` when the held turn is claimed (by a run deciding it now,
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
    :class:`AlreadyDecided` when another run wrote first."""
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


def _word(decision: Decision) -> str:
    """How a decision is recorded in the claim."""
    if decision is True:
        return "approved"
    return "answered" if isinstance(decision, Answer) else "denied"
