"""The state of MCP tasks (SEP-2663): one task's handle and the store keeping them.

A task is a ``tools/call`` the server answered with a handle (``CreateTaskResult``) instead of
its result; the client polls ``tasks/get`` for its status and, once it ends, the inlined
result or error. `TaskStore` keeps them until their time to live passes; the statuses and the
wire shapes are the extension's (``ttlMs``, ``pollIntervalMs``, ISO-8601 times, no
``requestState``).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from toolrig.storage._tasks import LogTasks, TaskRow

__all__ = ["TERMINAL", "Pending", "TaskState", "TaskStatus", "TaskStore"]

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")


@dataclass(slots=True)
class Pending:
    """A question the task's tool waits on: its kind, the request as sent, the answer's slot."""

    kind: str
    request: dict[str, Any]
    answer: asyncio.Future[dict[str, Any]] | None
    """``None`` for a question asked in another process (read from the log)."""


@dataclass(slots=True)
class TaskState:
    """One task: its status and, once it ended, its result (a ``CallToolResult``) or error."""

    tool: str
    ttl_ms: int
    poll_interval_ms: int
    task_id: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    status: TaskStatus = "working"
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    pending: dict[str, Pending] = field(default_factory=dict)
    principal: str | None = None
    """Who started the task (``caller_identity``; ``None``: no verified caller): only they
    may read, answer or cancel it."""
    job: asyncio.Task[None] | None = None

    @property
    def ended(self) -> bool:
        return self.status in TERMINAL

    def move(self, status: TaskStatus) -> bool:
        """Enter ``status``; ``False`` (and no change) once the task has ended, or when it is
        in that status already."""
        if self.ended or self.status == status:
            return False
        self.status = status
        self.updated_at = time.time()
        return True

    def expires_at(self) -> float:
        return self.updated_at + self.ttl_ms / 1000 if self.ended else float("inf")

    def envelope(self) -> dict[str, Any]:
        """The ``Task`` fields every task answer carries."""
        return {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.updated_at),
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_interval_ms,
        }

    def created(self) -> dict[str, Any]:
        """The ``CreateTaskResult`` answering the ``tools/call`` that made the task."""
        return {"resultType": "task", **self.envelope()}

    def detailed(self) -> dict[str, Any]:
        """The ``DetailedTask`` answering ``tasks/get``: the result or the error of an ended
        task, the open questions of one waiting for input."""
        data: dict[str, Any] = {"resultType": "complete", **self.envelope()}
        if self.status == "completed" and self.result is not None:
            data["result"] = self.result
        elif self.status == "failed" and self.error is not None:
            data["error"] = self.error
        elif self.status == "input_required":
            data["inputRequests"] = {key: p.request for key, p in self.pending.items()}
        return data


class TaskStore:
    """The tasks of one server: those running in this process (live), and, with ``rows`` (an
    execution log's tasks table), every task of every process sharing that log.

    Without ``rows`` a task lives in this process only, until its ``ttlMs`` after it ended.
    With them each change is written through; a task another process runs is read from its
    row, and one whose owner stopped beating for ``stale`` seconds ends ``failed``.
    """

    def __init__(self, rows: LogTasks | None = None, *, stale: float = 5.0) -> None:
        self.rows = rows
        self.stale = stale
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This process, as the owner of the tasks it runs."""
        self._tasks: dict[str, TaskState] = {}
        self._lock = threading.Lock()

    def add(self, task: TaskState) -> None:
        with self._lock:
            now = time.time()
            for key in [k for k, t in self._tasks.items() if t.expires_at() <= now]:
                del self._tasks[key]
            self._tasks[task.task_id] = task
        if self.rows is not None:
            self.rows.expire(now)
        self.save(task)

    def save(self, task: TaskState) -> None:
        """Write ``task``'s current state through to the rows (when kept there and the task
        was added: the runs of input-required rounds before a task is made write nothing)."""
        if self.rows is not None and task.task_id in self._tasks:
            self.rows.save(_row(task, self.owner))

    def local(self, task_id: str) -> TaskState | None:
        """The task, when it runs (or ran) in this process."""
        with self._lock:
            task = self._tasks.get(task_id)
        return task if task is not None and task.expires_at() > time.time() else None

    def running(self) -> list[TaskState]:
        with self._lock:
            return [t for t in self._tasks.values() if not t.ended]

    def get(self, task_id: str) -> TaskState | None:
        """The task, from this process or its row (``None``: no such task, or expired)."""
        task = self.local(task_id)
        if task is not None or self.rows is None:
            return task
        row = self.rows.load(task_id)
        if row is None:
            return None
        found = _state(row)
        if found.expires_at() <= time.time():
            return None
        if not found.ended and row.heartbeat < time.time() - self.stale:
            found.move("failed")
            found.error = {
                "code": -32603,
                "message": "the server process running this task stopped before it ended "
                f"(no sign of it since {_iso(row.heartbeat)})",
            }
            self.rows.save(_row(found, row.owner, heartbeat=row.heartbeat))
        return found


def _row(task: TaskState, owner: str, heartbeat: float | None = None) -> TaskRow:
    requests = {key: p.request for key, p in task.pending.items()}
    return TaskRow(
        task_id=task.task_id,
        tool=task.tool,
        status=task.status,
        created_at=task.created_at,
        updated_at=task.updated_at,
        ttl_ms=task.ttl_ms,
        poll_interval_ms=task.poll_interval_ms,
        owner=owner,
        heartbeat=time.time() if heartbeat is None else heartbeat,
        result=task.result,
        error=task.error,
        input_requests=requests,
        principal=task.principal,
    )


def _state(row: TaskRow) -> TaskState:
    task = TaskState(
        row.tool,
        row.ttl_ms,
        row.poll_interval_ms,
        task_id=row.task_id,
        status=row.status,  # type: ignore[arg-type]  # written from TaskStatus only
        created_at=row.created_at,
        updated_at=row.updated_at,
        result=row.result,
        error=row.error,
        principal=row.principal,
    )
    for key, request in row.input_requests.items():
        task.pending[key] = Pending(str(request.get("method", "")), request, None)
    return task
