"""A run's conversation, read from and written back to its session.

Opening checks what the caller gave against what the session holds (a history for a session
that has messages, decisions for calls another run already decided) and, for a held turn,
records and claims the decisions before any call runs: only one run may decide a held turn.
Closing saves the conversation, the held turn and the standing rules when the session is
named or has something to resume.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolrig.agent._approval import ApprovalPolicy, Decision
from toolrig.agent._claim import check_not_decided, claim_held, record_decisions
from toolrig.agent._pending import HeldTurn, check_decisions
from toolrig.agent._session_policy import policy_data, session_policy
from toolrig.storage._sessions import SessionState, SessionStore

__all__ = ["OpenedSession", "open_session"]


@dataclass(slots=True)
class OpenedSession:
    """What a run starts from: its session, the held turn it resumes, its messages, the
    session's approval policy and the decisions that stand for the held calls."""

    sessions: SessionStore
    session_id: str
    named: bool
    state: SessionState
    held: HeldTurn | None
    messages: list[dict[str, Any]]
    policy: ApprovalPolicy | None
    decisions: Mapping[str, Decision] | None

    def save(
        self,
        messages: list[dict[str, Any]],
        held: HeldTurn | None,
        allowed: Any,
        call_ids: Any,
        resumable: bool,
    ) -> None:
        """Write the run's end back: kept when named, resumable, or already stored."""
        if not (self.named or resumable or self.state.version):
            return
        self.sessions.save(
            SessionState(
                session_id=self.session_id,
                messages=messages,
                pending=None if held is None else held.to_data(),
                policy=policy_data(self.policy, allowed),
                call_ids=call_ids,
                version=self.state.version,
            )
        )


def open_session(
    sessions: SessionStore,
    approval: ApprovalPolicy | None,
    *,
    prompt: str | None,
    history: Sequence[Mapping[str, Any]] | None,
    session_id: str | None,
    approvals: Mapping[str, Decision] | None,
    run_id: str,
) -> OpenedSession:
    """Open run ``run_id``'s session (a new one when ``session_id`` is ``None``); raises
    `ValueError` for a run given nothing to do or a history its session contradicts, and
    `AlreadyDecided` for a decision on a call another run decided."""
    named = session_id is not None
    session_id = session_id or f"session-{uuid.uuid4().hex[:12]}"
    state = (sessions.load(session_id) if named else None) or SessionState(session_id=session_id)
    if history is not None and state.messages:
        raise ValueError(
            f"session {session_id!r} already holds {len(state.messages)} messages; "
            "continue it without history=, or start a new session"
        )
    check_not_decided(state, approvals)
    held = HeldTurn.from_data(state.pending) if state.pending else None
    if held is not None or approvals is not None:
        check_decisions(held.held if held else [], approvals or {})
    messages = [dict(m) for m in (history if history is not None else state.messages)]
    if prompt is None and held is None and not messages:
        raise ValueError("give a prompt, a history or a session to continue")
    policy = session_policy(session_id, approval, state.policy)
    if held is not None:  # before any call runs: only one run may decide a held turn
        approvals = record_decisions(  # the first decision of each call stands
            sessions, session_id, held.held, approvals or {}, f"run {run_id}"
        )
        state = claim_held(sessions, state, held.held, approvals, run_id)
    return OpenedSession(sessions, session_id, named, state, held, messages, policy, approvals)
