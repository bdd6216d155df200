"""The worker's side of a remote call: one Celery task that runs calls of a catalogue.

Each call runs through a local `ToolExecutor` (the same pipeline: the
arguments are validated again, the output checked). In a prefork worker it runs in the pool
process's main thread, so Celery's soft time limit stops it at the tool's time limit and the
hard limit kills the process shortly after; in threads and solo pools, which have no time
limits, the pipeline's own limit answers ``timeout`` instead. Before running, the call is
claimed in the call ledger (`._ledger`): a call redelivered after its worker was lost runs
again only when its tool is idempotent or read-only, and is reported failed otherwise.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any

from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._names import ActionRef
from toolrig.core.result._jsonable import to_jsonable
from toolrig.distributed._celery import celery_app, default_backend, load_celery
from toolrig.distributed._engine import TASK_NAME, WORKER_LOST, RemoteCall, error_reply
from toolrig.distributed._ledger import CallLedger
from toolrig.distributed._version import tool_fingerprint
from toolrig.registry._catalog import Catalog
from toolrig.runtime._call import Call, Runner
from toolrig.runtime._executor import ToolExecutor

__all__ = ["WorkerHost", "worker_app"]

logger = logging.getLogger("toolrig.worker")

VERSION_MISMATCH = "version_mismatch"
"""The error code of a call whose tool differs between caller and worker."""


class WorkerHost:
    """Runs the remote calls of ``catalog``, claiming each in ``ledger`` first.

    ``celery_limits``: Celery's time limits stop calls (the prefork pool); otherwise (threads
    and solo pools, which have none) the pipeline's own time limit does.
    """

    def __init__(self, catalog: Catalog, ledger: CallLedger, *, celery_limits: bool = True) -> None:
        self.executor = ToolExecutor(catalog)
        self.executor.dispatch_with(_RunHere())
        self.ledger = ledger
        self.celery_limits = celery_limits

    def run(self, data: dict[str, Any], worker: str) -> dict[str, Any]:
        """The reply to one delivery of a call (always a reply; never raises)."""
        call = RemoteCall.from_json(data)
        catalog = self.executor.catalog
        entry = catalog.locate(call.tool, call.action)
        if entry is None:
            message = catalog.missing_message(_asked(catalog, call))
            return error_reply(ErrorCode.NOT_FOUND, f"On worker {worker}: {message}", worker=worker)
        mine = tool_fingerprint(entry[0].spec)
        if mine != call.fingerprint:
            return error_reply(
                VERSION_MISMATCH,
                f"`{call.tool}` on worker {worker} is not the tool the caller has (fingerprint "
                f"{mine}, caller {call.fingerprint}): deploy the same catalogue to both.",
                worker=worker,
            )
        logger.debug("call %s of run %s: %s", call.call_id, call.run_id, call.action)
        claim = self.ledger.claim(call.task_id, worker)
        if isinstance(claim, dict):
            logger.info("call %s finished already; its reply is sent again", call.call_id)
            return claim
        if claim == "lost":
            if not call.idempotent:
                reply = error_reply(
                    ErrorCode.EXECUTION_ERROR,
                    f"The worker running `{call.action}` was lost mid-call; it was not run "
                    "again because the tool is not marked idempotent or read-only, so its "
                    "effects may or may not have happened.",
                    worker=worker,
                    details={WORKER_LOST: True},
                )
                self.ledger.finish(call.task_id, reply)
                return reply
            logger.info("call %s is run again: its worker was lost mid-call", call.call_id)
            self.ledger.restart(call.task_id, worker)
        reply = self._execute(call, entry, worker)
        self.ledger.finish(call.task_id, reply)
        return reply

    def _execute(
        self, call: RemoteCall, entry: tuple[BaseTool, Action], worker: str
    ) -> dict[str, Any]:
        soft_limit: type[BaseException] = load_celery().exceptions.SoftTimeLimitExceeded
        t0 = time.monotonic()
        with _trace_context(call.traceparent):
            try:
                result = self.executor.pipeline.start(
                    entry[0],
                    entry[1],
                    call.arguments,
                    call.call_id,
                    None if self.celery_limits else call.timeout,
                    None,
                    0,  # no retries here: the caller retries, per its policy
                    None,
                    True,
                )
            except soft_limit:
                result = None
        # the soft limit is raised inside the tool, which the pipeline reports as its failure
        stopped = (
            result is not None
            and result.error is not None
            and (
                soft_limit.__name__ in result.error.message
                or (call.timeout is not None and time.monotonic() - t0 >= call.timeout)
            )
        )
        if result is None or stopped:
            return error_reply(
                ErrorCode.TIMEOUT,
                f"`{call.action}` did not finish within {call.timeout:g} s on worker {worker}",
                worker=worker,
                retryable=True,
            )
        return {
            "success": result.success,
            "output": to_jsonable(result.output),
            "error": None if result.error is None else result.error.to_dict(),
            "worker": worker,
        }


class _RunHere:
    """The worker's dispatcher: the queues the calls were sent to end here, so every call runs
    in this process (and the executor does not warn that a tool's ``runs_on`` has no
    dispatcher)."""

    def queue_of(self, call: Call) -> str | None:
        return None

    def runner(self, queue: str) -> Runner:
        raise AssertionError(f"no call is sent on from a worker (asked for queue {queue!r})")


def _asked(catalog: Catalog, call: RemoteCall) -> str:
    """The call name a missing action was asked for, for the not-found message."""
    tool = catalog.find(call.tool)
    # an action named otherwise than its tool is asked of that tool, even of one with a single
    # action here (the caller's catalogue differs): the message then says the action is missing
    multi = call.action != call.tool or (tool is not None and tool.spec.is_multi_action)
    return ActionRef(call.tool, call.action, multi).call_name


@contextlib.contextmanager
def _trace_context(traceparent: str | None) -> Iterator[None]:
    """The caller's trace context made current, when there is one and OpenTelemetry is here."""
    if not traceparent:
        yield
        return
    try:
        from opentelemetry import context
        from opentelemetry.propagate import extract
    except ImportError:
        yield
        return
    token = context.attach(extract({"traceparent": traceparent}))
    try:
        yield
    finally:
        context.detach(token)


def worker_app(
    catalog: Catalog, broker: str, backend: str | None = None, *, pool: str = "prefork"
) -> Any:
    """A Celery app whose one task runs the calls of ``catalog`` (in a ``pool`` worker)."""
    app = celery_app(broker, backend)
    ledger = CallLedger(default_backend(broker, backend))
    host = WorkerHost(catalog, ledger, celery_limits=pool == "prefork")

    # shared=False: the task is this app's alone. Celery's default shares it with every app
    # finalized later in the process, whose own task of the name is then dropped, so a second
    # worker app ran the first one's catalogue.
    @app.task(  # type: ignore[untyped-decorator]
        name=TASK_NAME, bind=True, acks_late=True, reject_on_worker_lost=True, shared=False
    )
    def call(task: Any, data: dict[str, Any]) -> dict[str, Any]:
        return host.run(data, str(task.request.hostname or "worker"))

    app.toolrig_host = host
    return app
