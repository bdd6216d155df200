"""The sessions a durable run reads and writes while its workflow runs.

A workflow is driven again from its start after a crash, so what it reads must be what it
read the first time. The run's agent therefore reads its session from this store, which the
workflow fills from the real one in a recorded step when it starts, and whose states the
workflow writes back to the real store in recorded steps (`DurableAgent`).
"""

from __future__ import annotations

from toolrig.storage._sessions import MemorySessionStore, SessionState

__all__ = ["RunSessions"]


class RunSessions(MemorySessionStore):
    """Sessions held in this process for the workflows it drives, seeded by each workflow
    (otherwise a memory store: decisions first-writer-wins, saves checked by version)."""

    def seed(self, session_id: str, state: SessionState | None) -> None:
        """Start ``session_id`` over from ``state`` as the real store gave it (``None``: new)."""
        with self._lock:
            self._states.pop(session_id, None)
            if state is not None:
                self._states[session_id] = state
            for key in [k for k in self._decisions if k[0] == session_id]:
                del self._decisions[key]
