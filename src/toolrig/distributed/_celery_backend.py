"""The result backend of callers: Celery's Redis backend, without its own result consumer.

Celery's Redis backend subscribes to every task it sends, for ``AsyncResult.get``. Callers of
`CeleryEngine` never use that: the engine waits for each reply
itself, on a connection of its own. Subscriptions nobody reads would pile up on one connection
per thread, so the caller's app names this class as its backend (Celery imports it by name).
"""

from __future__ import annotations

from typing import Any

from celery.backends.redis import RedisBackend  # type: ignore[import-untyped]

__all__ = ["CallerBackend"]


class CallerBackend(RedisBackend):  # type: ignore[misc]
    """Celery's Redis result backend that subscribes to nothing when a task is sent."""

    def on_task_call(self, producer: Any, task_id: str) -> None:
        return None
