"""The sessions a durable run reads and writes while its workflow runs.

A workflow is driven again from its start after a crash, so what it reads must be what it
read the first time. The run's agent therefore reads its session from this store, which the
workflow fills from the real one in a recorded step when it starts, and whose states the
workflow writes back to the real store in recorded steps (`DurableAgent`).
"""

from __future__ import annotations

import threading
from dataclasses import replace

from toolrig.storage._runs import DecisionTaken, StoredDecision
from toolrig.storage._sessions import SessionConflict, SessionState, SessionStore

__all__ = ["RunSessions"]


class RunSessions(SessionStore):
    """Sessions held in this process for the workflows it drives, seeded by each workflow."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, SessionState] = {}
        self._decisions: dict[tuple[str, str], StoredDecision] = {}

    def seed(self, session_id: str, state: SessionState | None) -> None:
        """Start ``session_id`` over from ``state`` as the real store gave it (``None``: new)."""
        with self._lock:
            self._states.pop(session_id, None)
            if state is not None:
                self._states[session_id] = state
            for key in [k for k in self._decisions if k[0] == session_id]:
                del self._decisions[key]

    def decide(self, decision: StoredDecision) -> StoredDecision:
        with self._lock:
            key = (decision.session_id, decision.tool_call_id)
            existing = self._decisions.setdefault(key, decision)
        if not existing.same_as(decision):
            raise DecisionTaken(existing)
        return existing

    def decisions(self, session_id: str, call_ids: list[str]) -> dict[str, StoredDecision]:
        with self._lock:
            found = ((c, self._decisions.get((session_id, c))) for c in call_ids)
            return {c: d for c, d in found if d is not None}

    def load(self, session_id: str) -> SessionState | None:
        with self._lock:
            return self._states.get(session_id)

    def save(self, state: SessionState) -> SessionState:
        with self._lock:
            stored = self._states.get(state.session_id)
            if (0 if stored is None else stored.version) != state.version:
                raise SessionConflict(f"session {state.session_id!r} changed meanwhile")
            saved = replace(state, version=state.version + 1)
            self._states[state.session_id] = saved
            return saved
