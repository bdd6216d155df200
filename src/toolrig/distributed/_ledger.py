"""Start markers of remote calls, kept in Redis, so a call is never silently run twice.

A worker *claims* a task before running it (``SET NX``) and stores its reply when done. A
delivery that finds the claim of a finished task returns the stored reply without running
anything; one that finds the claim of an unfinished task knows the worker that took it was
lost mid-call (its message was handed out again) and says so, so the caller decides by the
tool's annotations whether it may run again.
"""

from __future__ import annotations

import json
from typing import Any, Literal

__all__ = ["CallLedger"]

TTL = 86400
"""Seconds a marker is kept (as long as Celery keeps results)."""


class CallLedger:
    """The markers of remote calls in the Redis database at ``url``."""

    prefix = "toolrig:call:"

    def __init__(self, url: str) -> None:
        import redis

        self._redis = redis.Redis.from_url(url)

    def claim(self, task_id: str, worker: str) -> Literal["new", "lost"] | dict[str, Any]:
        """Mark ``task_id`` started by ``worker``: ``"new"`` when nobody had, the stored reply
        when it finished already, ``"lost"`` when a worker started it and never finished."""
        key = self.prefix + task_id
        marker = json.dumps({"state": "started", "worker": worker})
        if self._redis.set(key, marker, nx=True, ex=TTL):
            return "new"
        raw = self._redis.get(key)
        try:
            data = json.loads(raw) if raw is not None else None
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("state") == "done":
            reply = data.get("reply")
            if isinstance(reply, dict):
                return reply
        return "lost"

    def restart(self, task_id: str, worker: str) -> None:
        """Mark ``task_id`` started again, by ``worker`` (an idempotent call run anew)."""
        marker = json.dumps({"state": "started", "worker": worker})
        self._redis.set(self.prefix + task_id, marker, ex=TTL)

    def finish(self, task_id: str, reply: dict[str, Any]) -> None:
        """Store the reply of ``task_id``."""
        marker = json.dumps({"state": "done", "reply": reply})
        self._redis.set(self.prefix + task_id, marker, ex=TTL)

    def close(self) -> None:
        """Close the connections."""
        self._redis.close()
