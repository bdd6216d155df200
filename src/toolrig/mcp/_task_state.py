"""The state of MCP tasks (SEP-2663): one task's handle and the store keeping them.

A task is a ``tools/call`` the server answered with a handle (``CreateTaskResult``) instead of
its result; the client polls ``tasks/get`` for its status and, once it ends, the inlined
result or error. `TaskStore` keeps them until their time to live passes; the statuses and the
wire shapes are the extension's (``ttlMs``, ``pollIntervalMs``, ISO-8601 times, no
``requestState``).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

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
    answer: asyncio.Future[dict[str, Any]]


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
    job: asyncio.Task[None] | None = None

    @property
    def ended(self) -> bool:
        return self.status in TERMINAL

    def move(self, status: TaskStatus) -> bool:
        """Enter ``status``; ``False`` (and no change) once the task has ended."""
        if self.ended:
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
    """The tasks of one server process, each kept until its ``ttlMs`` after it ended."""

    def __init__(self) -> None:
        self._tasks: dict[str, TaskState] = {}
        self._lock = threading.Lock()

    def add(self, task: TaskState) -> None:
        with self._lock:
            self._drop_expired()
            self._tasks[task.task_id] = task

    def get(self, task_id: str) -> TaskState | None:
        with self._lock:
            self._drop_expired()
            return self._tasks.get(task_id)

    def running(self) -> list[TaskState]:
        with self._lock:
            return [t for t in self._tasks.values() if not t.ended]

    def _drop_expired(self) -> None:
        now = time.time()
        for key in [k for k, t in self._tasks.items() if t.expires_at() <= now]:
            del self._tasks[key]
