"""Agent sessions: a conversation's messages and its calls awaiting approval, by session id.

Stored next to the execution log (table ``agent_sessions``, ``toolrig_agent_sessions`` on
PostgreSQL), so a conversation continues, and a held call is approved, from any process that
opens the same log. Each save names the version it read: two processes continuing one session
at once cannot both win, the second gets :class:`SessionConflict` instead of silently dropping
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

__all__ = [
    "POSTGRES_MIGRATION",
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


class SessionConflict(RuntimeError):
    """Another process saved the session after this one read it; load it again and retry."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionState:
    """A stored conversation: messages in the client's format, the held calls (if any) and the
    version last saved (0: never saved)."""

    session_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None
    version: int = 0


class SessionStore(ABC):
    """Where sessions live between runs."""

    @abstractmethod
    def load(self, session_id: str) -> SessionState | None:
        """The session, or ``None`` when it was never saved."""

    @abstractmethod
    def save(self, state: SessionState) -> SessionState:
        """Store ``state`` if the stored version is still ``state.version``; returns it with
        the new version, or raises :class:`SessionConflict`."""


class MemorySessionStore(SessionStore):
    """Sessions in this process only (an agent without an execution log)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, SessionState] = {}

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

    def load(self, session_id: str) -> SessionState | None:
        row = (
            self.log._conn()
            .execute(
                self._sql(
                    f"SELECT messages, pending, version FROM {self.table} WHERE session_id = ?"
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
            version=int(row[2]),
        )

    def save(self, state: SessionState) -> SessionState:
        messages, pending = dump_json(state.messages) or "[]", dump_json(state.pending)
        now = time.time()
        if state.version == 0:
            sql = (
                f"INSERT INTO {self.table} (session_id, messages, pending, version, updated_at) "
                "VALUES (?, ?, ?, 1, ?) ON CONFLICT (session_id) DO NOTHING"
            )
            params: list[Any] = [state.session_id, messages, pending, now]
        else:
            sql = (
                f"UPDATE {self.table} SET messages = ?, pending = ?, version = version + 1, "
                "updated_at = ? WHERE session_id = ? AND version = ?"
            )
            params = [messages, pending, now, state.session_id, state.version]
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
