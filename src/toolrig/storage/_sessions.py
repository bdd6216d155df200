"""Agent sessions: a conversation's messages, its calls awaiting approval, the approval policy
that governs it and the call ids it has used, by session id.

Stored next to the execution log (table ``agent_sessions``, ``toolrig_agent_sessions`` on
PostgreSQL), so a conversation continues, and a held call is approved, from any process that
opens the same log. Each save names the version it read: two processes continuing one session
at once cannot both win, the second gets `SessionConflict` instead of silently dropping
the first one's turns.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any

from toolrig.storage._encode import dump_json, load_json
from toolrig.storage._log import ExecutionLog
from toolrig.storage._runs import DecisionTaken, StoredDecision, record_decision, stored_decisions

__all__ = [
    "POSTGRES_APPROVAL_MIGRATION",
    "POSTGRES_MIGRATION",
    "SQLITE_APPROVAL_MIGRATION",
    "SQLITE_MIGRATION",
    "LogSessionStore",
    "MemorySessionStore",
    "SessionConflict",
    "SessionState",
    "SessionStore",
    "session_store",
]

SQLITE_MIGRATION = """
CREATE TABLE IF NOT EXISTS agent_sessions (
    session_id TEXT PRIMARY KEY,
    messages TEXT NOT NULL,
    pending TEXT,
    version INTEGER NOT NULL,
    updated_at REAL NOT NULL
)"""
"""The SQLite log's migration adding the sessions table (schema version 5)."""

POSTGRES_MIGRATION = """
CREATE TABLE IF NOT EXISTS toolrig_agent_sessions (
    session_id TEXT PRIMARY KEY,
    messages TEXT NOT NULL,
    pending TEXT,
    version INTEGER NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
)"""
"""The PostgreSQL log's migration adding the sessions table (schema version 5)."""

SQLITE_APPROVAL_MIGRATION = """
ALTER TABLE agent_sessions ADD COLUMN policy TEXT;
ALTER TABLE agent_sessions ADD COLUMN call_ids TEXT"""
"""The SQLite log's migration keeping each session's approval policy and call ids (version 6)."""

POSTGRES_APPROVAL_MIGRATION = """
ALTER TABLE toolrig_agent_sessions ADD COLUMN IF NOT EXISTS policy TEXT;
ALTER TABLE toolrig_agent_sessions ADD COLUMN IF NOT EXISTS call_ids TEXT"""
"""The PostgreSQL log's migration keeping each session's approval policy and call ids
(version 6)."""


class SessionConflict(RuntimeError):
    """Another process saved the session after this one read it; load it again and retry."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionState:
    """A stored conversation: messages in the client's format, the held calls (if any), the
    approval policy that holds its calls, the call ids it has used and the version last saved
    (0: never saved)."""

    session_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None
    policy: dict[str, Any] | None = None
    """The approval policy as JSON data (see ``toolrig.agent``): every later run keeps it."""
    call_ids: list[str] = field(default_factory=list)
    """Every tool call id the session has used, so that no id is ever decided twice."""
    version: int = 0


class SessionStore(ABC):
    """Where sessions live between runs."""

    @abstractmethod
    def load(self, session_id: str) -> SessionState | None:
        """The session, or ``None`` when it was never saved."""

    @abstractmethod
    def save(self, state: SessionState) -> SessionState:
        """Store ``state`` if the stored version is still ``state.version``; returns it with
        the new version, or raises `SessionConflict`."""

    @abstractmethod
    def decide(self, decision: StoredDecision) -> StoredDecision:
        """Record a person's decision on a held call unless one is recorded; the decision
        that stands. `DecisionTaken` when the first one decides differently."""

    @abstractmethod
    def decisions(self, session_id: str, call_ids: list[str]) -> dict[str, StoredDecision]:
        """The decisions recorded for ``call_ids`` of ``session_id``, by call id."""


class MemorySessionStore(SessionStore):
    """Sessions in this process only (an agent without an execution log)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, SessionState] = {}
        self._decisions: dict[tuple[str, str], StoredDecision] = {}

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
                raise SessionConflict(_conflict(state.session_id))
            saved = replace(state, version=state.version + 1)
            self._states[state.session_id] = saved
            return saved


class LogSessionStore(SessionStore):
    """Sessions in an execution log's database (SQLite or PostgreSQL)."""

    def __init__(self, log: ExecutionLog) -> None:
        self.log = log
        prefix = log.table[: -len("executions")] if log.table.endswith("executions") else ""
        self.table = f"{prefix}agent_sessions"

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.log.placeholder)

    def decide(self, decision: StoredDecision) -> StoredDecision:
        return record_decision(self.log, decision)

    def decisions(self, session_id: str, call_ids: list[str]) -> dict[str, StoredDecision]:
        return stored_decisions(self.log, session_id, call_ids)

    def load(self, session_id: str) -> SessionState | None:
        row = (
            self.log._conn()
            .execute(
                self._sql(
                    f"SELECT messages, pending, version, policy, call_ids FROM {self.table} "
                    "WHERE session_id = ?"
                ),
                [session_id],
            )
            .fetchone()
        )
        if row is None:
            return None
        return SessionState(
            session_id=session_id,
            messages=load_json(row[0]),
            pending=load_json(row[1]),
            policy=load_json(row[3]),
            call_ids=load_json(row[4]) or [],
            version=int(row[2]),
        )

    def save(self, state: SessionState) -> SessionState:
        values = [
            dump_json(state.messages) or "[]",
            dump_json(state.pending),
            dump_json(state.policy),
            dump_json(state.call_ids),
            time.time(),
        ]
        if state.version == 0:
            sql = (
                f"INSERT INTO {self.table} (messages, pending, policy, call_ids, updated_at, "
                "session_id, version) VALUES (?, ?, ?, ?, ?, ?, 1) "
                "ON CONFLICT (session_id) DO NOTHING"
            )
            params: list[Any] = [*values, state.session_id]
        else:  # the conditional update: only the run that read the newest version may write
            sql = (
                f"UPDATE {self.table} SET messages = ?, pending = ?, policy = ?, call_ids = ?, "
                "updated_at = ?, version = version + 1 WHERE session_id = ? AND version = ?"
            )
            params = [*values, state.session_id, state.version]
        cursor = self.log._conn().execute(self._sql(sql), params)
        if cursor.rowcount != 1:
            raise SessionConflict(_conflict(state.session_id))
        return replace(state, version=state.version + 1)


def session_store(log: ExecutionLog | None) -> SessionStore:
    """The store for an agent: in the log's database when it has one, else in memory."""
    return MemorySessionStore() if log is None else LogSessionStore(log)


def _conflict(session_id: str) -> str:
    return (
        f"session {session_id!r} was saved by another run since this one loaded it; "
        "load it again (run again with the same session_id) to continue from the newest state"
    )
