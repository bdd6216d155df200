"""Remote dispatch: the pipeline step that sends a call to workers instead of running it here.

It is a middleware of the one call pipeline, so a remote call is validated, hooked, approved,
traced, retried, recorded and answered exactly as a local one; only the attempts run
elsewhere. A call goes remote when its tool says ``runs_on: "queue"`` or the dispatcher's
``rule`` names a queue for it. Each attempt is one task (the first one's id is the call id);
the caller waits for it at most the call's time limit, answers ``timeout`` then even when no
worker is alive (and revokes the task, which also expires at that deadline), revokes it when
the caller is cancelled, and retries per toolrig's :class:`~toolrig.runtime.RetryPolicy`.
A call whose first task a worker has already taken (a plan resumed after its runner died) is
waited for, not sent again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from toolrig.core._errors import ErrorCode
from toolrig.core._ids import made_here
from toolrig.core._jsonable import to_jsonable
from toolrig.core._result import ToolResult
from toolrig.distributed._engine import (
    EngineUnavailable,
    RemoteCall,
    RemoteEngine,
    error_reply,
    reply_error,
)
from toolrig.distributed._version import tool_fingerprint
from toolrig.runtime._call import Call, CallNext
from toolrig.runtime._outcome import make_result
from toolrig.runtime._retry import RetryPolicy

__all__ = ["QueueRule", "RemoteDispatch"]

QueueRule = Callable[[Call], str | None]
"""``rule(call)``: the queue to send a call to, or ``None`` to run it here (or per its tool)."""


class RemoteDispatch:
    """Middleware sending calls of remote tools to ``engine`` (add it with
    ``executor.add_middleware``); other calls pass through untouched.

    ``rule`` overrides a tool's ``runs_on`` when it names a queue. ``retry`` is the policy
    for retrying failed attempts (give the executor's, ``executor.retry``). ``run_id`` travels
    with every task, with the call id and the caller's trace context.
    """

    def __init__(
        self,
        engine: RemoteEngine,
        *,
        rule: QueueRule | None = None,
        retry: RetryPolicy | None = None,
        run_id: str | None = None,
    ) -> None:
        self.engine = engine
        self.rule = rule
        self.retry = retry or RetryPolicy()
        self.run_id = run_id

    def queue_of(self, call: Call) -> str | None:
        """Where ``call`` runs: a queue name, or ``None`` for here."""
        if self.rule is not None:
            queue = self.rule(call)
            if queue is not None:
                return queue
        return call.tool.spec.runs_on

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        queue = self.queue_of(call)
        if queue is None:
            return await call_next(call)
        attempt = 1
        while True:
            task_id = call.tool_call_id if attempt == 1 else f"{call.tool_call_id}~{attempt}"
            reply = await self._attempt(call, queue, task_id, adopt=attempt == 1)
            error = reply_error(reply)
            if error is None or not self.retry.should_retry(error, attempt, call.max_retries):
                break
            await asyncio.sleep(self.retry.delay(attempt))
            attempt += 1
        result = make_result(
            call.action,
            reply.get("output"),
            error,
            call.tool_call_id,
            call.started_at,
            call.t0,
            attempt,
        )
        assert result.metadata is not None
        result.metadata.extra = {"remote": {"queue": queue, "worker": reply.get("worker") or ""}}
        return result

    async def _attempt(
        self, call: Call, queue: str, task_id: str, *, adopt: bool
    ) -> dict[str, Any]:
        """Send one attempt (or adopt one a worker took already) and wait for its reply."""
        spec = call.tool.spec
        annotations = spec.annotations.merged(call.action.spec.annotations)
        remote = RemoteCall(
            tool=spec.name,
            action=call.action.name,
            arguments=to_jsonable(call.arguments),
            call_id=call.tool_call_id,
            task_id=task_id,
            queue=queue,
            timeout=call.timeout,
            fingerprint=tool_fingerprint(spec),
            idempotent=bool(annotations.idempotent or annotations.read_only),
            run_id=self.run_id,
            traceparent=_traceparent(),
        )
        name = call.action.name
        try:
            # an id made here is new; another may name a task a worker took already
            if not (adopt and not made_here(task_id) and await self.engine.taken(task_id)):
                await self.engine.submit(remote)
        except EngineUnavailable as exc:
            return error_reply(
                ErrorCode.EXECUTION_ERROR,
                f"`{name}` could not be sent to queue {queue!r}: {exc}",
                retryable=True,
            )
        try:
            reply = await self.engine.wait(task_id, call.timeout)
        except asyncio.CancelledError:
            await asyncio.shield(self._revoke(task_id))
            raise
        except EngineUnavailable as exc:
            await self._revoke(task_id)
            return error_reply(  # not retryable: it may have run
                ErrorCode.EXECUTION_ERROR,
                f"`{name}` was sent to queue {queue!r}, but its outcome cannot be read: {exc}",
            )
        if reply is None:
            await self._revoke(task_id)
            return error_reply(
                ErrorCode.TIMEOUT,
                f"`{call.action.name}` did not finish within {call.timeout:g} s "
                f"(no worker of queue {queue!r} answered in time)",
                retryable=True,
            )
        return reply

    async def _revoke(self, task_id: str) -> None:
        """Revoke ``task_id`` if the broker can be reached (its message expires anyway)."""
        with contextlib.suppress(EngineUnavailable):
            await self.engine.revoke(task_id)


def _traceparent() -> str | None:
    """The W3C ``traceparent`` of the current span, when OpenTelemetry is installed."""
    try:
        from opentelemetry.propagate import inject
    except ImportError:
        return None
    carrier: dict[str, str] = {}
    inject(carrier)
    return carrier.get("traceparent")
