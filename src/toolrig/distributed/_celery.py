"""Celery as the remote engine: one configuration for callers and workers, and the caller's
side of a remote call (send, wait, revoke).

The settings that make remote calls safe live in :func:`celery_app`, the one place both sides
take them from: JSON only (pickle is never accepted), tasks acknowledged after they finish
(``acks_late``) and put back when their worker dies (``reject_on_worker_lost``), one task
fetched at a time per worker process (``prefetch_multiplier=1``), ``STARTED`` recorded so a
resumed caller can tell a taken call from a queued one, and no Celery retries (toolrig's
retry policy is the only one). Results go to a Redis result backend; the caller is woken by
the backend's publish of each result, not by polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from toolrig.core.model._errors import ErrorCode
from toolrig.distributed._engine import TASK_NAME, EngineUnavailable, RemoteCall, error_reply

__all__ = ["CeleryEngine", "celery_app", "load_celery"]

HARD_LIMIT_GRACE = 2.0
"""Seconds past a call's time limit before its worker process is killed (the soft limit, at
the time limit itself, lets the call stop cleanly first)."""

_FINAL = {"SUCCESS", "FAILURE", "REVOKED"}
_TAKEN = {"STARTED", "SUCCESS", "FAILURE", "RETRY"}


def load_celery() -> Any:
    """The ``celery`` module, or an ``ImportError`` naming the extra that brings it."""
    try:
        import celery  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - the extra is installed in the test suite
        raise ImportError(
            "Remote tool calls need Celery and the Redis client: pip install 'toolrig[celery]'"
        ) from exc
    return celery


def default_backend(broker: str, backend: str | None) -> str:
    """The result backend: ``backend``, or the broker itself when it is Redis."""
    if backend:
        return backend
    if broker.startswith(("redis://", "rediss://")):
        return broker
    raise ValueError(
        f"a result backend is needed with the broker {broker.split('://')[0]}://: pass "
        "a Redis URL such as redis://127.0.0.1:6379/0 (--backend)"
    )


def celery_app(
    broker: str, backend: str | None = None, *, caller: bool = False, name: str = "toolrig"
) -> Any:
    """A Celery app configured for toolrig's remote calls (callers and workers alike); a
    ``caller``'s app leaves waiting for replies to :class:`CeleryEngine`."""
    celery = load_celery()
    results = default_backend(broker, backend)
    if caller:  # Celery reads "module:Class+url" as a backend class and its URL
        results = f"toolrig.distributed._celery_backend:CallerBackend+{results}"
    app = celery.Celery(name, broker=broker, backend=results, set_as_current=False)
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        task_track_started=True,
        task_default_queue="toolrig",
        result_expires=86400,
        broker_connection_retry_on_startup=True,
        # Redis brokers only: an unacknowledged call of a lost worker is handed out again
        # after this many seconds (RabbitMQ does it as soon as the connection drops)
        broker_transport_options={"visibility_timeout": 300},
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_send_sent_event=False,
    )
    return app


class CeleryEngine:
    """Sends calls to Celery workers (``toolrig worker``) and waits for their replies.

    ``broker`` is an ``amqp://`` (RabbitMQ) or ``redis://`` URL; ``backend`` a ``redis://``
    URL for results (default: the broker, when it is Redis).
    """

    def __init__(self, broker: str, backend: str | None = None, *, threads: int = 16) -> None:
        self.app = celery_app(broker, backend, caller=True)
        self.backend_url = default_backend(broker, backend)
        self._threads = ThreadPoolExecutor(threads, thread_name_prefix="toolrig-remote")
        self._clients: dict[asyncio.AbstractEventLoop, Any] = {}
        self.sent = 0
        """How many attempts this engine has sent (tests read it)."""
        import kombu.exceptions
        import redis.exceptions

        self._down: tuple[type[BaseException], ...] = (
            OSError,
            kombu.exceptions.OperationalError,
            redis.exceptions.RedisError,
        )
        """What the broker's and the result store's clients raise when they cannot be reached."""

    @contextlib.contextmanager
    def _reaching(self, what: str) -> Iterator[None]:
        """Translate the clients' connection errors into :class:`EngineUnavailable`."""
        try:
            yield
        except self._down as exc:
            raise EngineUnavailable(f"the {what} cannot be reached ({type(exc).__name__})") from exc

    def _redis(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            import redis.asyncio

            for old in [lp for lp in self._clients if lp.is_closed()]:
                del self._clients[old]
            client = self._clients[loop] = redis.asyncio.Redis.from_url(self.backend_url)
        return client

    def _key(self, task_id: str) -> str:
        key = self.app.backend.get_key_for_task(task_id)
        return key.decode() if isinstance(key, bytes) else str(key)

    def _send(self, call: RemoteCall) -> None:
        options: dict[str, Any] = {}
        if call.timeout is not None:
            options = {
                "soft_time_limit": call.timeout,
                "time_limit": call.timeout + HARD_LIMIT_GRACE,
                # a call no worker started by its deadline is never started: its caller has
                # answered `timeout` already
                "expires": call.timeout,
            }
        self.app.send_task(
            TASK_NAME, args=[call.to_json()], task_id=call.task_id, queue=call.queue, **options
        )

    async def submit(self, call: RemoteCall) -> None:
        """Send ``call`` to its queue."""
        with self._reaching("broker"):
            await asyncio.get_running_loop().run_in_executor(self._threads, self._send, call)
        self.sent += 1

    async def wait(self, task_id: str, timeout: float | None) -> dict[str, Any] | None:
        """The reply to ``task_id``, or ``None`` when none came within ``timeout`` seconds."""
        with self._reaching("result store"):
            return await self._wait(task_id, timeout)

    async def _wait(self, task_id: str, timeout: float | None) -> dict[str, Any] | None:
        client = self._redis()
        key = self._key(task_id)
        deadline = None if timeout is None else time.monotonic() + timeout
        async with client.pubsub() as pubsub:
            await pubsub.subscribe(key)
            while True:
                reply = _reply(await client.get(key))
                if reply is not None:
                    return reply
                left = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
                if left <= 0:
                    return None
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
                if message is not None:
                    reply = _reply(message.get("data"))
                    if reply is not None:
                        return reply

    async def revoke(self, task_id: str) -> None:
        """Never start ``task_id``, and kill the worker process running it if one is."""
        with self._reaching("broker"):
            await asyncio.get_running_loop().run_in_executor(
                self._threads,
                lambda: self.app.control.revoke(task_id, terminate=True, signal="SIGKILL"),
            )

    async def taken(self, task_id: str) -> bool:
        """Whether a worker has started or finished ``task_id``."""
        with self._reaching("result store"):
            meta = _meta(await self._redis().get(self._key(task_id)))
        return meta is not None and meta.get("status") in _TAKEN

    async def state(self, task_id: str) -> str:
        """Celery's state of ``task_id`` (``PENDING`` when unknown)."""
        with self._reaching("result store"):
            meta = _meta(await self._redis().get(self._key(task_id)))
        return "PENDING" if meta is None else str(meta.get("status"))

    def close(self) -> None:
        """Release the threads; Redis connections close with their event loops."""
        self._threads.shutdown(wait=False)


def _meta(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _reply(raw: Any) -> dict[str, Any] | None:
    """The reply in a stored task state, when the task is finished; else ``None``."""
    meta = _meta(raw)
    if meta is None or meta.get("status") not in _FINAL:
        return None
    status, result = meta["status"], meta.get("result")
    if status == "SUCCESS" and isinstance(result, dict):
        return result
    if status == "REVOKED":
        return error_reply(ErrorCode.CANCELLED, "The remote call was revoked before it finished.")
    kind = result.get("exc_type", "") if isinstance(result, dict) else ""
    if kind in ("TimeLimitExceeded", "SoftTimeLimitExceeded"):
        return error_reply(
            ErrorCode.TIMEOUT, "The remote call ran past its time limit.", retryable=True
        )
    return error_reply(
        ErrorCode.EXECUTION_ERROR, f"The worker failed to run the call ({kind or status})."
    )
