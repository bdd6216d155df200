"""The seam between the call pipeline and a distributed engine.

A `RemoteCall` is what travels: plain JSON (never pickle) naming the tool, action and
validated arguments, the call id, run id and W3C trace context, the tool's fingerprint and time
limit. A `RemoteEngine` sends it to a queue, waits for the worker's reply (plain JSON
too), and revokes it. Celery is the one engine built (`CeleryEngine`);
another (Ray, say) implements the same four methods.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ErrorInfo

__all__ = [
    "WORKER_LOST",
    "EngineUnavailable",
    "RemoteCall",
    "RemoteEngine",
    "error_reply",
    "reply_error",
]

WORKER_LOST = "worker_lost"
"""The key, in an error's ``details``, of a call whose worker was lost mid-call and that was
not run again (MCP tasks end ``failed`` on it)."""

TASK_NAME = "toolrig.call"
"""The name of the one task every worker runs."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoteCall:
    """One attempt of a call, as sent to a worker (every field is JSON)."""

    tool: str
    action: str
    arguments: dict[str, Any]
    """The arguments, already validated by the caller (the worker validates them again)."""
    call_id: str
    """The call's id (the same for every attempt)."""
    task_id: str
    """The id of this attempt on the engine (the call id for the first attempt)."""
    queue: str
    timeout: float | None
    """Seconds the attempt may run; the worker stops it then."""
    fingerprint: str
    """The caller's `tool_fingerprint` of the tool."""
    idempotent: bool
    """Whether the tool may run again after a worker was lost mid-call (see ``docs/deploy.md``)."""
    run_id: str | None = None
    traceparent: str | None = None
    """The W3C ``traceparent`` of the caller's span, when tracing is on."""

    def to_json(self) -> dict[str, Any]:
        """The call as the task's one argument."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RemoteCall:
        """The call from the task's argument (unknown keys are ignored)."""
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**fields)


class EngineUnavailable(Exception):
    """The engine's broker or result store cannot be reached (its message says which)."""


class RemoteEngine(Protocol):
    """What the pipeline needs of a distributed engine; each method raises
    `EngineUnavailable` when the engine's services cannot be reached."""

    async def submit(self, call: RemoteCall) -> None:
        """Send ``call`` to its queue (returns once the broker has it)."""

    async def wait(self, task_id: str, timeout: float | None) -> dict[str, Any] | None:
        """The worker's reply (see `error_reply`), or ``None`` if none came in time."""

    async def revoke(self, task_id: str) -> None:
        """Stop the task: never start it, and end it if it runs."""

    async def taken(self, task_id: str) -> bool:
        """Whether a worker has already started or finished ``task_id`` (a resumed caller
        waits for it instead of sending it again)."""


def error_reply(
    code: str, message: str, *, worker: str = "", retryable: bool = False, details: Any = None
) -> dict[str, Any]:
    """A failed reply, as a worker (or the engine on its behalf) answers."""
    error = ErrorInfo(code=code, message=message, retryable=retryable, details=details)
    return {"success": False, "output": None, "error": error.to_dict(), "worker": worker}


def reply_error(reply: dict[str, Any]) -> ErrorInfo | None:
    """The error of a reply (``None`` for a success); a malformed reply is an error too."""
    if reply.get("success") is True:
        return None
    data = reply.get("error")
    if not isinstance(data, dict) or not isinstance(data.get("code"), str):
        return ErrorInfo(code=ErrorCode.EXECUTION_ERROR, message="The worker sent no usable reply.")
    return ErrorInfo(
        code=data["code"],
        message=str(data.get("message") or ""),
        hint=data.get("hint"),
        details=data.get("details"),
        retryable=bool(data.get("retryable")),
    )
