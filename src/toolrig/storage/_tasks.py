"""MCP tasks in the execution log: each task's handle, status, result and open questions.

Stored next to the calls (table ``mcp_tasks``, ``toolrig_mcp_tasks`` on PostgreSQL), so a task
outlives the server process that ran it, every process of one server (``toolrig serve
--workers N --log ...``) answers for every task, and the console lists them. The process
running a task is its ``owner``: it writes the task's changes and a heartbeat; another process
asks it to cancel (``status``) or passes it answers (``responses``) through the row. The
task's ``principal`` is who started it (only they may read, answer or cancel it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from toolrig.storage._encode import dump_json, load_json
from toolrig.storage._log import ExecutionLog

__all__ = ["POSTGRES_TASKS_MIGRATION", "SQLITE_TASKS_MIGRATION", "LogTasks", "TaskRow"]

_COLUMNS = """
    task_id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at {real} NOT NULL,
    updated_at {real} NOT NULL,
    ttl_ms BIGINT NOT NULL,
    poll_interval_ms INTEGER NOT NULL,
    owner TEXT NOT NULL,
    heartbeat {real} NOT NULL,
    result TEXT,
    error TEXT,
    input_requests TEXT,
    responses TEXT,
    run_id TEXT,
    principal TEXT
"""
SQLITE_TASKS_MIGRATION = f"CREATE TABLE IF NOT EXISTS mcp_tasks ({_COLUMNS.format(real='REAL')})"
"""The SQLite log's migration adding the MCP tasks table."""
POSTGRES_TASKS_MIGRATION = (
    f"CREATE TABLE IF NOT EXISTS toolrig_mcp_tasks ({_COLUMNS.format(real='DOUBLE PRECISION')})"
)
"""The PostgreSQL log's migration adding the MCP tasks table."""

_FIELDS = (
    "tool",
    "status",
    "created_at",
    "updated_at",
    "ttl_ms",
    "poll_interval_ms",
    "owner",
    "heartbeat",
    "result",
    "error",
    "input_requests",
    "run_id",
    "principal",
)
_JSON = frozenset({"result", "error", "input_requests"})


@dataclass(slots=True, kw_only=True)
class TaskRow:
    """One stored task (``result``: its ``CallToolResult``; ``error``: a JSON-RPC error)."""

    task_id: str
    tool: str
    status: str
    created_at: float
    updated_at: float
    ttl_ms: int
    poll_interval_ms: int
    owner: str
    heartbeat: float
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] = field(default_factory=dict)
    responses: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None
    principal: str | None = None
    """Who started the task (their token's subject and client); ``None``: no verified caller."""


class LogTasks:
    """The MCP tasks of an execution log's database (SQLite or PostgreSQL)."""

    def __init__(self, log: ExecutionLog) -> None:
        self.log = log
        prefix = log.table[: -len("executions")] if log.table.endswith("executions") else ""
        self.table = f"{prefix}mcp_tasks"

    def _run(self, sql: str, params: list[Any]) -> Any:
        return self.log._conn().execute(sql.replace("?", self.log.placeholder), params)

    def save(self, row: TaskRow) -> None:
        """Insert or replace the task (its ``responses`` are left as stored)."""
        values = [
            dump_json(getattr(row, name)) if name in _JSON else getattr(row, name)
            for name in _FIELDS
        ]
        marks = ", ".join("?" for _ in range(len(_FIELDS) + 1))
        updates = ", ".join(f"{name} = excluded.{name}" for name in _FIELDS)
        self._run(
            f"INSERT INTO {self.table} (task_id, {', '.join(_FIELDS)}) VALUES ({marks}) "
            f"ON CONFLICT (task_id) DO UPDATE SET {updates} "
            f"WHERE {self.table}.status <> 'cancelled'",  # a cancellation asked elsewhere holds
            [row.task_id, *values],
        )

    def load(self, task_id: str) -> TaskRow | None:
        found = self._run(
            f"SELECT {', '.join(_FIELDS)}, responses FROM {self.table} WHERE task_id = ?",
            [task_id],
        ).fetchone()
        if found is None:
            return None
        data = dict(zip((*_FIELDS, "responses"), found, strict=True))
        for name in (*_JSON, "responses"):
            data[name] = load_json(data[name])
        data["input_requests"] = data["input_requests"] or {}
        data["responses"] = data["responses"] or {}
        return TaskRow(task_id=task_id, **data)

    def cancel(self, task_id: str) -> None:
        """Mark the task cancelled unless it ended (its owner stops it on seeing this)."""
        self._run(
            f"UPDATE {self.table} SET status = 'cancelled', updated_at = ? WHERE task_id = ? "
            "AND status NOT IN ('completed', 'failed', 'cancelled')",
            [time.time(), task_id],
        )

    def deliver(self, task_id: str, responses: dict[str, Any]) -> None:
        """Add answers for the task's owner to take; the questions they answer are no longer
        shown as open (the task reads ``working`` once none is)."""
        row = self.load(task_id)
        if row is None:
            return
        merged = {**row.responses, **responses}
        still = {k: v for k, v in row.input_requests.items() if k not in merged}
        status = "working" if row.status == "input_required" and not still else row.status
        self._run(
            f"UPDATE {self.table} SET responses = ?, input_requests = ?, status = ? "
            "WHERE task_id = ?",
            [dump_json(merged), dump_json(still), status, task_id],
        )

    def take(self, task_id: str) -> dict[str, Any]:
        """The answers delivered for the task, removed from the row."""
        row = self.load(task_id)
        if row is None or not row.responses:
            return {}
        self._run(f"UPDATE {self.table} SET responses = NULL WHERE task_id = ?", [task_id])
        return row.responses

    def beat(self, task_ids: list[str]) -> None:
        """Record that the owner of these tasks is alive."""
        now = time.time()
        for task_id in task_ids:
            self._run(f"UPDATE {self.table} SET heartbeat = ? WHERE task_id = ?", [now, task_id])

    def expire(self, before: float) -> None:
        """Forget ended tasks whose time to live passed (``updated_at + ttl`` before ``before``)."""
        self._run(
            f"DELETE FROM {self.table} WHERE status IN ('completed', 'failed', 'cancelled') "
            "AND updated_at + ttl_ms / 1000.0 < ?",
            [before],
        )

    def listed(self, limit: int = 100) -> list[TaskRow]:
        """The newest tasks first (for the console)."""
        ids = self._run(
            f"SELECT task_id FROM {self.table} ORDER BY created_at DESC LIMIT ?", [limit]
        ).fetchall()
        rows = [self.load(found[0]) for found in ids]
        return [row for row in rows if row is not None]
