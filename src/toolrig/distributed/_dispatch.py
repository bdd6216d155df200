"""Remote dispatch: the runner that sends a call's attempts to workers instead of running
them here.

It is the pipeline's runner for the calls it claims, so a remote call is validated, hooked,
approved, traced, retried (with its events), recorded and answered exactly as a local one; only
the attempts run elsewhere. A call goes remote when its tool says ``runs_on: "queue"`` or the
dispatcher's ``rule`` names a queue for it. Each attempt is one task (the first one's id is the
call id); the caller waits for it at most the call's time limit, answers ``timeout`` then even
when no worker is alive (and revokes the task, which also expires at that deadline), revokes it
when the caller is cancelled, and retries per toolrig's `RetryPolicy`. A
call whose first task a worker has already taken (a plan resumed after its runner died) is
waited for, not sent again."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from toolrig.core.context._context import ToolContext
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._ids import made_here
from toolrig.core.result._jsonable import to_jsonable
from toolrig.distributed._engine import (
    EngineUnavailable,
    RemoteCall,
    RemoteEngine,
    error_reply,
    reply_error,
)
from toolrig.distributed._version import tool_fingerprint
from toolrig.runtime._call import Call
from toolrig.runtime._outcome import AttemptFailed

__all__ = ["QueueRule", "QueueRunner", "RemoteDispatch"]

QueueRule = Callable[[Call], str | None]
"""``rule(call)``: the queue to send a call to, or ``None`` to run it here (or per its tool)."""


class RemoteDispatch:
    """Sends the calls of remote tools to ``engine``: install it with
    ``executor.dispatch_with(RemoteDispatch(engine))``; other calls run here.

    ``rule`` overrides a tool's ``runs_on`` when it names a queue. ``run_id`` travels with
    every task, with the call id and the caller's trace context. Retries are the pipeline's
    (its `RetryPolicy`), as for local calls.
    """

    def __init__(
        self,
        engine: RemoteEngine,
        *,
        rule: QueueRule | None = None,
        run_id: str | None = None,
    ) -> None:
        self.engine = engine
        self.rule = rule
        self.run_id = run_id

    def queue_of(self, call: Call) -> str | None:
        """Where ``call`` runs: a queue name, or ``None`` for here."""
        if self.rule is not None:
            queue = self.rule(call)
            if queue is not None:
                return queue
        return call.owner.spec.runs_on

    def runner(self, queue: str) -> QueueRunner:
        """The runner sending attempts to ``queue``."""
        return QueueRunner(self, queue)


class QueueRunner:
    """Runs one attempt of a call on a worker of ``queue``: one task per attempt (the first
    one's id is the call id), waited for at most the call's time limit."""

    inline = False
    bounded = True  # it waits for the worker's answer within the limit itself

    def __init__(self, dispatch: RemoteDispatch, queue: str) -> None:
        self.dispatch = dispatch
        self.queue = queue

    async def attempt(self, call: Call, ctx: ToolContext | None) -> Any:
        first = call.attempt == 1
        task_id = call.tool_call_id if first else f"{call.tool_call_id}~{call.attempt}"
        reply = await self._send(call, task_id, adopt=first)
        call.extra = {"remote": {"queue": self.queue, "worker": reply.get("worker") or ""}}
        error = reply_error(reply)
        if error is not None:
            raise AttemptFailed(error)
        return reply.get("output")

    async def _send(self, call: Call, task_id: str, *, adopt: bool) -> dict[str, Any]:
        """Send one attempt (or adopt one a worker took already) and wait for its reply."""
        engine, queue = self.dispatch.engine, self.queue
        spec = call.owner.spec
        action = call.target
        annotations = spec.annotations.merged(action.spec.annotations)
        remote = RemoteCall(
            tool=spec.name,
            action=action.name,
            arguments=to_jsonable(call.arguments),
            call_id=call.tool_call_id,
            task_id=task_id,
            queue=queue,
            timeout=call.timeout,
            fingerprint=tool_fingerprint(spec),
            idempotent=bool(annotations.idempotent or annotations.read_only),
            run_id=self.dispatch.run_id,
            traceparent=_traceparent(),
        )
        name = action.name
        try:
            # an id made here is new; another may name a task a worker took already
            if not (adopt and not made_here(task_id) and await engine.taken(task_id)):
                await engine.submit(remote)
        except EngineUnavailable as exc:
            return error_reply(
                ErrorCode.EXECUTION_ERROR,
                f"`{name}` could not be sent to queue {queue!r}: {exc}",
                retryable=True,
            )
        try:
            reply = await engine.wait(task_id, call.timeout)
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
                f"`{name}` did not finish within {call.timeout:g} s "
                f"(no worker of queue {queue!r} answered in time)",
                retryable=True,
            )
        return reply

    async def _revoke(self, task_id: str) -> None:
        """Revoke ``task_id`` if the broker can be reached (its message expires anyway)."""
        with contextlib.suppress(EngineUnavailable):
            await self.dispatch.engine.revoke(task_id)


def _traceparent() -> str | None:
    """The W3C ``traceparent`` of the current span, when OpenTelemetry is installed."""
    try:
        from opentelemetry.propagate import inject
    except ImportError:
        return None
    carrier: dict[str, str] = {}
    inject(carrier)
    return carrier.get("traceparent")
