"""The approvals inbox: the calls agent sessions hold, and the decisions people take on them.

A decision is written into the held session with the session store's compare-and-swap save
(the version read must still be the stored one), so of two people deciding at once exactly one
wins; the other is told the call was already decided. The agent that holds the session reads
the decisions (:func:`stored_decisions`, or :func:`wait_for_decisions` to block until there
are some) and resumes with ``agent.run(session_id=..., approvals=...)``, exactly as after
``toolrig agent --session ID --allow CALL_ID``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import Any, Final

from toolrig.agent._approval import Answer, Decision, Deny
from toolrig.storage._log import ExecutionLog
from toolrig.storage._sessions import LogSessionStore, SessionConflict, SessionState

__all__ = [
    "AlreadyDecided",
    "HeldCall",
    "decide",
    "held_calls",
    "stored_decisions",
    "wait_for_decisions",
]

_KEY: Final = "decisions"
"""Where decisions are kept in a session's ``pending`` data."""


class AlreadyDecided(RuntimeError):
    """Someone decided the call first (or the session holds it no more)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldCall:
    """One call a session holds for a decision."""

    session_id: str
    tool_call_id: str
    name: str
    tool: str
    arguments: dict[str, Any]
    held_at: float
    decision: dict[str, Any] | None
    """What was decided and not yet acted on by the agent (``None``: undecided)."""

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False, indent=2, default=str)


def _table(log: ExecutionLog) -> str:
    return LogSessionStore(log).table


def held_calls(log: ExecutionLog, *, limit: int = 200) -> list[HeldCall]:
    """The calls held by stored sessions, newest first."""
    sql = (
        f"SELECT session_id, pending, updated_at FROM {_table(log)} "
        f"WHERE pending IS NOT NULL ORDER BY updated_at DESC LIMIT {int(limit)}"
    )
    out: list[HeldCall] = []
    for session_id, pending, updated in log._conn().execute(sql).fetchall():
        data = json.loads(pending) if pending else None
        if not isinstance(data, dict):
            continue
        decided = data.get(_KEY) or {}
        for item in data.get("pending", []):
            out.append(
                HeldCall(
                    session_id=session_id,
                    tool_call_id=item["id"],
                    name=item["name"],
                    tool=item["tool"],
                    arguments=item.get("arguments") or {},
                    held_at=float(updated),
                    decision=decided.get(item["id"]),
                )
            )
    return out


def decide(log: ExecutionLog, session_id: str, tool_call_id: str, decision: dict[str, Any]) -> None:
    """Record ``decision`` (``{"kind": "allow" | "deny" | "answer", "reason"?, "output"?}``)
    for one held call; :class:`AlreadyDecided` when it was decided first, or is not held."""
    store = LogSessionStore(log)
    state = store.load(session_id)
    pending = None if state is None else state.pending
    if state is None or pending is None:
        raise AlreadyDecided(
            f"call {tool_call_id!r} was already decided: session {session_id!r} holds no calls"
        )
    ids = [item["id"] for item in pending.get("pending", [])]
    if tool_call_id not in ids:
        raise AlreadyDecided(
            f"call {tool_call_id!r} was already decided, or session {session_id!r} never held it"
        )
    decided = dict(pending.get(_KEY) or {})
    if tool_call_id in decided:
        raise AlreadyDecided(f"call {tool_call_id!r} was already decided")
    decided[tool_call_id] = {**decision, "at": time.time()}
    try:
        store.save(replace(state, pending={**pending, _KEY: decided}))
    except SessionConflict:  # another decision (or the agent) saved first: read it again
        raise AlreadyDecided(
            f"call {tool_call_id!r} was already decided by someone else at the same moment"
        ) from None


def stored_decisions(state: SessionState | None) -> dict[str, Decision] | None:
    """The decisions recorded for every call ``state`` holds, as ``approvals=`` takes them;
    ``None`` until each held call is decided."""
    pending = None if state is None else state.pending
    if not pending:
        return None
    decided = pending.get(_KEY) or {}
    ids = [item["id"] for item in pending.get("pending", [])]
    if not ids or any(i not in decided for i in ids):
        return None
    return {i: _decision(decided[i]) for i in ids}


def wait_for_decisions(
    log: ExecutionLog, session_id: str, *, timeout: float = 3600.0, poll: float = 0.2
) -> dict[str, Decision]:
    """Block until every call ``session_id`` holds is decided; ``TimeoutError`` after
    ``timeout`` seconds, ``LookupError`` when the session holds no calls (never did, or
    another process decided and resumed it)."""
    store = LogSessionStore(log)
    deadline = time.monotonic() + timeout
    while True:
        state = store.load(session_id)
        if state is None or not state.pending:
            raise LookupError(
                f"session {session_id!r} holds no calls awaiting a decision "
                "(never stored, or already resumed by another run)"
            )
        found = stored_decisions(state)
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no decision on session {session_id!r} in {timeout:g} s")
        time.sleep(poll)


def _decision(data: dict[str, Any]) -> Decision:
    kind = data.get("kind")
    if kind == "allow":
        return True
    if kind == "answer":
        return Answer(output=data.get("output"))
    reason = data.get("reason")
    return Deny(reason=reason) if reason else Deny()
