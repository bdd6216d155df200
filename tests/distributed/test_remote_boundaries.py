"""The boundaries of remote calls, caller and worker, without a broker: the caller sends each
attempt as one task and answers every way the engine can fail; the worker runs a call at most
once unless its tool may run twice, and always replies. The worker and its ledger are the real
ones (Redis on 127.0.0.1); only the transport between them is the in-process `Engine` below.

| promise | boundary | test |
|---|---|---|
| where | the rule's queue; rule silent: the tool's ``runs_on``; no rule | ``..._where...`` |
| the task | every field sent; an action's annotations; attempt n is ``~n`` | ``..._task...`` |
| adopt | an id from elsewhere a worker took: waited for; made here: sent | ``..._adopt...`` |
| failure path | not sent; unreadable; no reply in time; cancelled; no revoke | ``..._engine_...`` |
| reply | success, failure, malformed; the worker named (or not) | ``..._reply...`` |
| worker | unknown tool or action; another tool version; never raises | ``..._worker_...`` |
| at most once | finished: stored reply; lost: refused unless it may run twice | ``..._ledger...`` |
| time limit | the pipeline's (threads), Celery's (prefork), a fast failure | ``..._limit...`` |
| trace | the caller's trace context is the tool's; none given: none | ``..._trace...`` |
| app | the pool decides who stops calls; each app runs its own catalogue | ``..._app...`` |
| ledger | the marker names the worker running the call (or running it again) | ``..._marks_...`` |
| logs | a reply sent again, a call run again: logged with its call id | ``..._logs_...`` |
| logs | a worker runs its calls without a "no dispatcher" warning | ``..._logs_...`` |
| trace | the caller's current span is sent with the task; no span: none | ``..._travels...`` |
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import uuid
import warnings
from typing import Any

import pytest

pytest.importorskip("celery", reason="needs the distributed extra")
pytest.importorskip("redis", reason="needs the distributed extra")

import celery.exceptions
import redis

from toolrig import BaseTool, RetryPolicy, ToolAnnotations, ToolContext, ToolExecutor, action, tool
from toolrig.core.model._ids import new_call_id
from toolrig.distributed import RemoteDispatch
from toolrig.distributed._engine import (
    TASK_NAME,
    EngineUnavailable,
    RemoteCall,
    error_reply,
)
from toolrig.distributed._ledger import TTL, CallLedger
from toolrig.distributed._version import tool_fingerprint
from toolrig.distributed._worker import WorkerHost, worker_app
from toolrig.registry import Catalog

REDIS = "redis://127.0.0.1:6379/14"
RAN: list[str] = []


@tool(annotations=ToolAnnotations(read_only=False, destructive=True))
def burn(page: int) -> str:
    """Burn a page (not safe to run twice)."""
    RAN.append(f"burn {page}")
    return f"burnt {page}"


@tool(annotations=ToolAnnotations(read_only=True))
def peek(page: int) -> dict[str, Any]:
    """Read a page (safe to run twice)."""
    RAN.append(f"peek {page}")
    return {"page": page, "at": (1, 2)}


@tool(runs_on="slow-queue", annotations=ToolAnnotations(idempotent=True))
def settle(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "settled"


@tool
def slow_fail(seconds: float) -> str:
    """Sleep, then fail."""
    time.sleep(seconds)
    raise RuntimeError("gave up")


@tool
def soft_stop() -> str:
    """Stopped by Celery's soft limit, as in a prefork worker."""
    raise celery.exceptions.SoftTimeLimitExceeded()


@tool
def trace_id() -> str:
    """The trace id current in the tool."""
    from opentelemetry import trace

    return format(trace.get_current_span().get_span_context().trace_id, "032x")


class Book(BaseTool):
    """A book: reading is safe, tearing is not, stamping is idempotent."""

    name = "book"

    @action(annotations=ToolAnnotations(read_only=True))
    def read(self, page: int) -> int:
        """Read a page."""
        return page

    @action
    def tear(self, page: int) -> int:
        """Tear a page out."""
        return -page

    @action(annotations=ToolAnnotations(idempotent=True))
    def stamp(self, page: int) -> int:
        """Stamp a page."""
        return page * 10


@tool(annotations=ToolAnnotations(idempotent=True))
def marker(key: str, ctx: ToolContext) -> dict[str, Any]:
    """The call's marker in the ledger while it runs, and its call id."""
    store = redis.Redis.from_url(REDIS)
    try:
        return {"marker": json.loads(store.get(key) or b"null"), "call_id": ctx.tool_call_id}
    finally:
        store.close()


TOOLS: list[Any] = [burn, peek, settle, slow_fail, soft_stop, trace_id, marker, Book()]


class Engine:
    """An in-process engine: a submitted task goes to a real `WorkerHost` (in a thread)."""

    def __init__(self, host: WorkerHost | None = None) -> None:
        self.host = host
        self.sent: list[RemoteCall] = []
        self.replies: dict[str, dict[str, Any]] = {}
        self.revoked: list[str] = []
        self.asked: list[str] = []
        self.waited: list[tuple[str, float | None]] = []
        self.taken_ids: set[str] = set()
        self.fail: dict[str, BaseException] = {}  # method name -> what it raises
        self.hold = False  # wait() answers nothing until cancelled
        self.submitted = asyncio.Event()

    async def submit(self, call: RemoteCall) -> None:
        if "submit" in self.fail:
            raise self.fail["submit"]
        self.sent.append(call)
        self.submitted.set()
        if self.host is not None:
            reply = await asyncio.to_thread(self.host.run, call.to_json(), "w1")
            self.replies[call.task_id] = reply

    async def wait(self, task_id: str, timeout: float | None) -> dict[str, Any] | None:
        self.waited.append((task_id, timeout))
        if "wait" in self.fail:
            raise self.fail["wait"]
        if self.hold:
            await asyncio.sleep(60)
        return self.replies.get(task_id)

    async def revoke(self, task_id: str) -> None:
        self.revoked.append(task_id)
        if "revoke" in self.fail:
            raise self.fail["revoke"]

    async def taken(self, task_id: str) -> bool:
        self.asked.append(task_id)
        return task_id in self.taken_ids


@pytest.fixture
def ledger() -> Any:
    opened = CallLedger(REDIS)
    yield opened
    opened.close()


@pytest.fixture
def host(ledger: CallLedger) -> WorkerHost:
    RAN.clear()
    return WorkerHost(Catalog(TOOLS), ledger, celery_limits=False)


def _remote(engine: Engine, **dispatch: Any) -> ToolExecutor:
    executor = ToolExecutor(TOOLS)
    executor.dispatch_with(RemoteDispatch(engine, **dispatch))
    return executor


def _id() -> str:
    return f"t-{uuid.uuid4().hex}"


# -- the caller ------------------------------------------------------------------------------


def test_where_a_call_runs() -> None:
    engine = Engine()
    dispatch = RemoteDispatch(engine, rule=lambda call: "gpu" if call.tool == "burn" else None)
    executor = ToolExecutor(TOOLS)
    executor.dispatch_with(dispatch)
    calls: dict[str, Any] = {}
    executor.add_middleware(lambda call, nxt: calls.setdefault(call.tool, call) and nxt(call))
    for name, args in (("burn", {"page": 1}), ("settle", {"seconds": 0}), ("peek", {"page": 1})):
        executor.execute_sync(name, args)
    assert dispatch.queue_of(calls["burn"]) == "gpu"
    assert dispatch.queue_of(calls["settle"]) == "slow-queue"  # the rule said nothing
    assert dispatch.queue_of(calls["peek"]) is None  # runs here
    assert RemoteDispatch(engine).queue_of(calls["settle"]) == "slow-queue"
    assert [c.queue for c in engine.sent] == ["gpu", "slow-queue"]
    assert RAN[-1] == "peek 1"  # the local call ran here


def test_the_task_carries_every_part_of_the_attempt(host: WorkerHost) -> None:
    engine = Engine(host)
    executor = _remote(engine, rule=lambda call: "q", run_id="run-7")
    call_id = _id()
    result = executor.execute_sync("book.stamp", {"page": "3"}, tool_call_id=call_id, timeout=4)
    assert result.output == 30
    (sent,) = engine.sent
    book = executor.catalog.find("book")
    assert book is not None
    assert sent == RemoteCall(
        tool="book",
        action="stamp",
        arguments={"page": 3},  # validated here first
        call_id=call_id,
        task_id=call_id,
        queue="q",
        timeout=4,
        fingerprint=tool_fingerprint(book.spec),
        idempotent=True,  # the action's own annotation
        run_id="run-7",
        traceparent=None,
    )
    executor.execute_sync("book.tear", {"page": 1}, tool_call_id=_id())
    executor.execute_sync("book.read", {"page": 1}, tool_call_id=_id())
    executor.execute_sync("burn", {"page": 1}, tool_call_id=_id())
    assert [c.idempotent for c in engine.sent[1:]] == [False, True, False]


def test_the_task_of_a_later_attempt_is_named_by_its_number(host: WorkerHost) -> None:
    engine = Engine()
    engine.fail["submit"] = EngineUnavailable("broker down")
    executor = _remote(engine, rule=lambda call: "q")
    fast = RetryPolicy(initial_delay=0.001, jitter=False)
    executor.pipeline.policy = executor.pipeline.policy.replace(retry=fast)
    sent: list[str] = []

    async def record(call: RemoteCall) -> None:
        sent.append(call.task_id)
        raise EngineUnavailable("broker down")

    engine.submit = record  # type: ignore[method-assign]
    call_id = _id()
    result = executor.execute_sync("burn", {"page": 1}, tool_call_id=call_id, max_retries=2)
    assert sent == [call_id, f"{call_id}~2", f"{call_id}~3"]
    assert result.error is not None and result.error.retryable


def test_adopt_a_call_a_worker_took_instead_of_sending_it_again(host: WorkerHost) -> None:
    engine = Engine(host)
    executor = _remote(engine, rule=lambda call: "q")
    taken = _id()
    engine.taken_ids.add(taken)
    engine.replies[taken] = {"success": True, "output": "from before", "worker": "w0"}
    result = executor.execute_sync("burn", {"page": 1}, tool_call_id=taken)
    assert result.output == "from before" and engine.sent == [] and RAN == []
    assert result.metadata is not None
    assert result.metadata.extra == {"remote": {"queue": "q", "worker": "w0"}}
    fresh = _id()
    executor.execute_sync("burn", {"page": 2}, tool_call_id=fresh)  # asked, not taken: sent
    assert [c.task_id for c in engine.sent] == [fresh] and engine.asked == [taken, fresh]
    here = new_call_id()
    executor.execute_sync("burn", {"page": 3}, tool_call_id=here)
    assert engine.asked == [taken, fresh]  # an id made here was never used before: not asked
    assert [c.task_id for c in engine.sent] == [fresh, here] and RAN == ["burn 2", "burn 3"]


def test_engine_cannot_send(host: WorkerHost) -> None:
    engine = Engine(host)
    engine.fail["submit"] = EngineUnavailable("broker down")
    result = _remote(engine, rule=lambda call: "q").execute_sync("book.read", {"page": 1})
    assert result.error is not None and result.error.code == "execution_error"
    assert result.error.message == "`read` could not be sent to queue 'q': broker down"
    assert result.error.retryable and engine.revoked == [] and RAN == []


def test_engine_cannot_read_the_outcome(host: WorkerHost) -> None:
    engine = Engine(host)
    engine.fail["wait"] = EngineUnavailable("store down")
    call_id = _id()
    result = _remote(engine, rule=lambda call: "q").execute_sync(
        "burn", {"page": 1}, tool_call_id=call_id, max_retries=3
    )
    assert result.error is not None and result.error.code == "execution_error"
    assert result.error.message == (
        "`burn` was sent to queue 'q', but its outcome cannot be read: store down"
    )
    assert not result.error.retryable  # it may have run: sent once only
    assert engine.revoked == [call_id] and len(engine.sent) == 1


def test_engine_answers_nothing_in_time() -> None:
    engine = Engine()  # no worker at all
    engine.fail["revoke"] = EngineUnavailable("broker down")  # revoking may fail too
    call_id = _id()
    result = _remote(engine, rule=lambda call: "q").execute_sync(
        "burn", {"page": 1}, tool_call_id=call_id, timeout=0.25
    )
    assert result.error is not None and result.error.code == "timeout"
    assert result.error.message == (
        "`burn` did not finish within 0.25 s (no worker of queue 'q' answered in time)"
    )
    assert result.error.retryable and engine.revoked == [call_id]
    assert engine.waited == [(call_id, 0.25)]  # waited for at most the call's time limit


def test_engine_wait_cancelled_revokes_the_task() -> None:
    engine = Engine()
    engine.hold = True
    executor = _remote(engine, rule=lambda call: "q")
    call_id = _id()

    async def cancel() -> None:
        task = asyncio.ensure_future(executor.execute("burn", {"page": 1}, tool_call_id=call_id))
        await engine.submitted.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel())
    assert engine.revoked == [call_id]


@pytest.mark.parametrize(
    ("reply", "code", "message"),
    [
        ({"success": True, "output": {"page": 1, "at": [1, 2]}}, None, None),
        (error_reply("busy", "try later", worker="w9"), "busy", "try later"),
        ({"success": "yes"}, "execution_error", "The worker sent no usable reply."),
    ],
)
def test_reply_is_the_result(reply: dict[str, Any], code: str | None, message: str | None) -> None:
    engine = Engine()
    call_id = _id()
    engine.replies[call_id] = reply
    result = _remote(engine, rule=lambda call: "q").execute_sync(
        "peek", {"page": 1}, tool_call_id=call_id
    )
    assert result.success is (code is None)
    assert result.output == ({"page": 1, "at": [1, 2]} if code is None else None)
    if code is not None:
        assert result.error is not None
        assert (result.error.code, result.error.message) == (code, message)
    assert result.metadata is not None
    assert result.metadata.extra == {"remote": {"queue": "q", "worker": reply.get("worker", "")}}


# -- the worker ------------------------------------------------------------------------------


def _call(
    tool_name: str, action_name: str, arguments: dict[str, Any], **fields: Any
) -> dict[str, Any]:
    found = Catalog(TOOLS).find(tool_name)
    task_id = fields.pop("task_id", _id())
    data = RemoteCall(
        tool=tool_name,
        action=action_name,
        arguments=arguments,
        call_id=fields.pop("call_id", task_id),
        task_id=task_id,
        queue="q",
        timeout=fields.pop("timeout", None),
        fingerprint=fields.pop("fingerprint", tool_fingerprint(found.spec) if found else "x"),
        idempotent=fields.pop("idempotent", False),
        run_id="r",
        traceparent=fields.pop("traceparent", None),
    ).to_json()
    return {**data, **fields}


def test_worker_refuses_an_unknown_tool_or_action(host: WorkerHost) -> None:
    unknown = host.run(_call("shred", "shred", {}), "w1")
    assert (unknown["success"], unknown["worker"]) == (False, "w1")
    assert unknown["error"]["code"] == "not_found"
    assert unknown["error"]["message"].startswith("On worker w1: ")
    assert "shred" in unknown["error"]["message"]
    action_missing = host.run(_call("book", "glue", {}), "w1")
    assert action_missing["error"]["code"] == "not_found"
    assert "`book` has no action 'glue'" in action_missing["error"]["message"]
    own_name = host.run(_call("book", "book", {}), "w1")  # a multi-action tool's own name
    assert "`book` has no action 'book'" in own_name["error"]["message"]
    # an action a single-action tool lacks (the caller's catalogue differs): not "not found"
    single = host.run(_call("burn", "burnt", {}), "w1")
    assert single["error"]["code"] == "not_found"
    assert "`burn` has no action 'burnt'" in single["error"]["message"]


def test_worker_refuses_another_version_of_the_tool(host: WorkerHost, ledger: CallLedger) -> None:
    data = _call("burn", "burn", {"page": 1}, fingerprint="0" * 16)
    reply = host.run(data, "w1")
    mine = tool_fingerprint(host.executor.catalog.find("burn").spec)  # type: ignore[union-attr]
    assert (reply["error"]["code"], reply["worker"]) == ("version_mismatch", "w1")
    assert reply["error"]["message"] == (
        f"`burn` on worker w1 is not the tool the caller has (fingerprint {mine}, caller "
        f"{'0' * 16}): deploy the same catalogue to both."
    )
    assert RAN == [] and ledger.claim(data["task_id"], "w2") == "new"  # never claimed


def test_worker_never_raises_and_ignores_unknown_keys(host: WorkerHost) -> None:
    ok = host.run(_call("peek", "peek", {"page": 2}, extra_key="from a newer caller"), "w1")
    assert ok == {
        "success": True,
        "output": {"page": 2, "at": [1, 2]},
        "error": None,
        "worker": "w1",
    }
    bad = host.run(_call("peek", "peek", {"page": "two"}), "w1")  # validated again here
    assert bad["success"] is False and bad["error"]["code"] == "invalid_arguments"
    assert bad["worker"] == "w1" and bad["output"] is None


def test_ledger_a_finished_call_is_answered_again_not_run(
    host: WorkerHost, ledger: CallLedger
) -> None:
    data = _call("burn", "burn", {"page": 1})
    first = host.run(data, "w1")
    again = host.run(data, "w2")
    assert first == again == {"success": True, "output": "burnt 1", "error": None, "worker": "w1"}
    assert RAN == ["burn 1"]


def test_ledger_a_lost_call_is_not_run_again_unless_it_may(
    host: WorkerHost, ledger: CallLedger
) -> None:
    lost = _call("burn", "burn", {"page": 1})
    assert ledger.claim(lost["task_id"], "w0") == "new"  # a worker took it, then died
    refused = host.run(lost, "w1")
    assert refused["error"]["code"] == "execution_error" and refused["worker"] == "w1"
    assert refused["error"]["message"] == (
        "The worker running `burn` was lost mid-call; it was not run again because the tool "
        "is not marked idempotent or read-only, so its effects may or may not have happened."
    )
    assert RAN == [] and host.run(lost, "w2") == refused  # the refusal is the reply from now
    safe = _call("peek", "peek", {"page": 5}, idempotent=True)
    ledger.claim(safe["task_id"], "w0")
    rerun = host.run(safe, "w1")
    assert rerun["success"] and RAN == ["peek 5"]
    assert ledger.claim(safe["task_id"], "w2") == rerun  # finished, by its new run


def test_ledger_markers(ledger: CallLedger) -> None:
    store = redis.Redis.from_url(REDIS)
    task = _id()
    key = "toolrig:call:" + task
    assert ledger.claim(task, "w1") == "new"
    assert json.loads(store.get(key)) == {"state": "started", "worker": "w1"}
    assert 0 < store.ttl(key) <= TTL == 86400
    assert ledger.claim(task, "w2") == "lost"  # started, never finished
    ledger.restart(task, "w2")
    assert json.loads(store.get(key)) == {"state": "started", "worker": "w2"}
    assert 0 < store.ttl(key) <= TTL
    ledger.finish(task, {"success": True, "output": 1})
    assert json.loads(store.get(key)) == {"state": "done", "reply": {"success": True, "output": 1}}
    assert 0 < store.ttl(key) <= TTL
    assert ledger.claim(task, "w3") == {"success": True, "output": 1}
    for broken in (b"not json", b'{"state": "done", "reply": "text"}', b"[1]", b'{"state": 1}'):
        store.set(key, broken)
        assert ledger.claim(task, "w3") == "lost"
    store.close()


def test_limit_of_the_pipeline_in_threads_and_solo_pools(host: WorkerHost) -> None:
    slow = host.run(_call("settle", "settle", {"seconds": 1.0}, timeout=0.2), "w1")
    assert slow["error"]["code"] == "timeout" and slow["error"]["retryable"] is True
    assert slow["error"]["message"] == "`settle` did not finish within 0.2 s on worker w1"
    assert slow["worker"] == "w1"
    quick = host.run(_call("settle", "settle", {"seconds": 0}, timeout=5), "w1")
    assert quick["success"] and quick["output"] == "settled"
    failing = host.run(_call("peek", "peek", {"page": "x"}, timeout=5), "w1")
    assert failing["error"]["code"] == "invalid_arguments"  # a failure, not a timeout


def test_limit_is_celerys_in_a_prefork_pool(ledger: CallLedger) -> None:
    prefork = WorkerHost(Catalog(TOOLS), ledger)  # celery_limits: the pipeline sets none
    assert prefork.celery_limits is True
    # no limit of its own: Celery's time limits stop a prefork worker's calls
    assert prefork.run(_call("settle", "settle", {"seconds": 0.3}, timeout=0.1), "w1")["success"]
    late = prefork.run(_call("slow_fail", "slow_fail", {"seconds": 0.3}, timeout=0.1), "w1")
    assert late["error"]["code"] == "timeout"  # failed past its limit: stopped by Celery
    assert late["error"]["message"] == "`slow_fail` did not finish within 0.1 s on worker w1"
    early = prefork.run(_call("slow_fail", "slow_fail", {"seconds": 0}, timeout=5), "w1")
    assert early["error"]["code"] == "execution_error"  # a failure within its limit
    assert early["error"]["retryable"] is False
    stopped = prefork.run(_call("soft_stop", "soft_stop", {}, timeout=30), "w1")
    assert stopped["error"]["code"] == "timeout"
    assert stopped["error"]["message"] == "`soft_stop` did not finish within 30 s on worker w1"
    no_limit = prefork.run(_call("settle", "settle", {"seconds": 0.2}), "w1")
    assert no_limit["success"]


def test_trace_context_of_the_caller_is_the_tools(host: WorkerHost) -> None:
    pytest.importorskip("opentelemetry.propagate")
    trace = "4bf92f3577b34da6a3ce929d0e0e4736"
    parent = f"00-{trace}-00f067aa0ba902b7-01"
    traced = host.run(_call("trace_id", "trace_id", {}, traceparent=parent), "w1")
    assert traced["output"] == trace
    untraced = host.run(_call("trace_id", "trace_id", {}), "w1")
    assert untraced["output"] == "0" * 32
    after = host.run(_call("trace_id", "trace_id", {}, traceparent=""), "w1")
    assert after["output"] == "0" * 32  # the caller's context did not stay behind


@pytest.mark.parametrize(
    ("pool", "limits"), [("prefork", True), ("threads", False), ("solo", False)]
)
def test_app_the_pool_decides_who_stops_calls(pool: str, limits: bool) -> None:
    app = worker_app(Catalog(TOOLS), REDIS, pool=pool)
    assert app.toolrig_host.celery_limits is limits
    task = app.tasks[TASK_NAME]
    assert task.acks_late and task.reject_on_worker_lost
    RAN.clear()
    reply = task.apply(args=[_call("peek", "peek", {"page": 4})]).get()
    assert reply["success"] and reply["output"]["page"] == 4
    assert reply["worker"] == socket.gethostname()  # the worker's host name
    unnamed = task.run(_call("peek", "peek", {"page": 5}))  # a request without one
    assert unnamed["worker"] == "worker" and RAN == ["peek 4", "peek 5"]
    app.toolrig_host.ledger.close()


def test_app_each_worker_app_runs_its_own_catalogue() -> None:
    # the task is the app's own: a second app in one process does not run the first's tools
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = worker_app(Catalog([burn]), REDIS, pool="solo")
        second = worker_app(Catalog([peek]), REDIS, pool="solo")
    RAN.clear()
    reply = second.tasks[TASK_NAME].run(_call("peek", "peek", {"page": 6}))
    assert reply["success"] and RAN == ["peek 6"]
    refused = first.tasks[TASK_NAME].run(_call("peek", "peek", {"page": 7}))
    assert refused["error"]["code"] == "not_found" and RAN == ["peek 6"]
    for app in (first, second):
        app.toolrig_host.ledger.close()


def test_ledger_marks_the_worker_running_a_call_and_its_id_reaches_the_tool(
    host: WorkerHost, ledger: CallLedger
) -> None:
    task = _id()
    data = _call("marker", "marker", {"key": "toolrig:call:" + task}, task_id=task, call_id="c-9")
    first = host.run(data, "w1")["output"]
    assert first == {"marker": {"state": "started", "worker": "w1"}, "call_id": "c-9"}
    lost = _id()
    ledger.claim(lost, "w0")  # taken by a worker that died
    again = host.run(
        _call("marker", "marker", {"key": "toolrig:call:" + lost}, task_id=lost, idempotent=True),
        "w2",
    )["output"]
    assert again["marker"] == {"state": "started", "worker": "w2"}  # restarted by this one


def test_worker_logs_a_call_sent_again_and_a_call_run_again(
    host: WorkerHost, ledger: CallLedger, caplog: pytest.LogCaptureFixture
) -> None:
    done = _call("peek", "peek", {"page": 1}, call_id="c-1")
    host.run(done, "w1")
    lost = _call("peek", "peek", {"page": 2}, call_id="c-2", idempotent=True)
    ledger.claim(lost["task_id"], "w0")
    with caplog.at_level(logging.DEBUG, logger="toolrig.worker"):
        host.run(done, "w1")
        host.run(lost, "w1")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("DEBUG", "call c-1 of run r: peek"),
        ("INFO", "call c-1 finished already; its reply is sent again"),
        ("DEBUG", "call c-2 of run r: peek"),
        ("INFO", "call c-2 is run again: its worker was lost mid-call"),
    ]


def test_worker_logs_no_missing_dispatcher_for_the_calls_it_runs(
    host: WorkerHost, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolrig"):
        reply = host.run(_call("settle", "settle", {"seconds": 0}), "w1")
        assert reply["success"] is True and reply["output"] == "settled"
        assert caplog.records == []
        # the same tool on a plain executor runs here too, and says no dispatcher sent it
        ToolExecutor([settle]).execute_sync("settle", {"seconds": 0})
    (warned,) = caplog.records
    assert "asks to run on queue 'slow-queue', but no dispatcher" in warned.getMessage()


def test_trace_context_of_the_caller_travels_with_the_task(host: WorkerHost) -> None:
    pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace import TracerProvider

    engine = Engine(host)
    executor = _remote(engine, rule=lambda call: "q")
    tracer = TracerProvider().get_tracer("caller")
    with tracer.start_as_current_span("caller") as span:
        traced = executor.execute_sync("trace_id", {})
    trace = format(span.get_span_context().trace_id, "032x")
    sent = engine.sent[0].traceparent
    assert sent is not None and sent.startswith(f"00-{trace}-")
    assert traced.output == trace  # the worker ran it in the caller's trace
    executor.execute_sync("trace_id", {})
    assert engine.sent[1].traceparent is None  # no span: nothing sent


def test_app_defaults_to_a_prefork_pool_and_keeps_results_where_told() -> None:
    app = worker_app(Catalog([peek]), REDIS)
    assert app.toolrig_host.celery_limits is True  # prefork: Celery's limits stop calls
    assert app.conf.result_backend.endswith("6379/14")  # the broker, when none is given
    app.toolrig_host.ledger.close()
    apart = worker_app(Catalog([peek]), REDIS, "redis://127.0.0.1:6379/13", pool="solo")
    assert apart.conf.result_backend.endswith("6379/13")
    ledger = apart.toolrig_host.ledger._redis.connection_pool.connection_kwargs
    assert ledger["db"] == 13  # the call markers live with the results
    apart.toolrig_host.ledger.close()
